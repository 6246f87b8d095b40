"""``RunRecord``: what a run produced — its frame tables, its case results, what was evaluated.

The record is data, in one of two forms:

* **streamed** (``ae.evaluate``, ``ae.load_run`` of a result file): the frame tables
  (:data:`~.columns.FRAME_COLUMNS`) were built while the case results streamed past
  (:class:`RecordBuilder`, a batch of models at a time), and each case result is kept as its
  result-file text (:class:`~agenteval_nb.io.case_texts.CaseDetails`), decoded only when asked for
  (:meth:`RunRecord.case_result`, the inspector, the report's detailed cases). The eval sets
  are their :class:`~agenteval_nb.io.sources.CaseSource`\\ s: a case is validated when shown.
* **model** (``RunRecord(result=...)``, or after reading ``record.result``): the result model
  is the truth and the tables are built from it on first read.

Reading ``record.result`` of a streamed record decodes every case result once and turns it
into a model record (the streamed tables stay: they equal a fresh build). Cache rule of a
model record: a table belongs to the result it was built from. Replacing ``record.result``, a
case result in its ``eval_case_results``, or the ``metrics`` / ``evalsets`` lists rebuilds the
tables on the next read; editing a field *inside* a case result in place does not (call
:meth:`RunRecord.clear_tables` after such an edit).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import polars as pl

from .._gc import gc_paused
from ..engine.summary import check_run_ids, summarize
from ..io import (
    CaseDetails,
    CaseSource,
    ModelCases,
    case_result_texts,
    save_details,
    save_result,
)
from ..io.reviews import Mark
from ..offline_flags import run_flags
from ..schema import CaseSummary, EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult
from ..stores.base import ResultStore, StoredResult
from .frames import BUILDERS, JUDGE_KINDS, TableInput


class RunRecord:
    """An evaluation result with the eval sets and metrics it came from, and its tables.

    ``result`` is the wire model (``result.model_dump(by_alias=True)`` is the file JSON);
    ``evalsets`` and ``metrics`` are what was evaluated (empty when loaded from a bare result
    file); ``warnings`` lists what the run wants the user to see (e.g. a skipped metric).
    """

    def __init__(
        self,
        result: EvalSetResult | None = None,
        evalsets: Sequence[EvalSet] = (),
        metrics: Sequence[EvalMetric] = (),
        warnings: Sequence[str] = (),
        app_name: str = "",
        elapsed_s: float | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self._result = result if result is not None else EvalSetResult()
        self._head: EvalSetResult | None = None
        self._details: CaseDetails | None = None
        self._case_summaries: Callable[[], Iterator[CaseSummary]] | None = None
        self._case_summary_wires: Callable[[], Iterator[dict[str, Any]]] | None = None
        self._sources: list[CaseSource] = []
        self._evalsets: list[EvalSet] | None = list(evalsets)
        self._case_index: tuple[Any, dict[str, tuple[CaseSource, int]]] | None = None
        self.metrics = list(metrics)
        self.warnings = list(warnings)
        self.app_name = app_name
        self.elapsed_s = elapsed_s
        self.info = dict(info or {})
        self.marks: list[Mark] = []  # human marks of a run without a result file (.reviews)
        self.stored_as: StoredResult | None = None  # where a run from a store keeps its marks
        self._tables: dict[str, pl.DataFrame] = {}
        self._built_from: tuple[Any, ...] = ()

    @classmethod
    def streamed(
        cls,
        head: EvalSetResult,
        details: CaseDetails,
        tables: dict[str, pl.DataFrame],
        sources: Sequence[CaseSource] = (),
        case_summaries: Callable[[], Iterator[CaseSummary]] | None = None,
        case_summary_wires: Callable[[], Iterator[dict[str, Any]]] | None = None,
        **fields: Any,
    ) -> RunRecord:
        """A streamed record (see the module): ``head`` is the result without case results;
        ``case_summaries`` builds the summary's case summaries when its summary leaves them
        out (they are built when the file is saved or the result materialised);
        ``case_summary_wires``, when given, builds the same as the plain dicts their models
        write, which is what :meth:`save` writes."""
        record = cls(**fields)
        record._result = None  # type: ignore[assignment]
        record._head = head.model_copy(update={"eval_case_results": None})
        record._details = details
        record._case_summaries = case_summaries
        record._case_summary_wires = case_summary_wires if case_summaries is not None else None
        record._sources = list(sources)
        record._evalsets = None if sources else record._evalsets
        record._tables = dict(tables)
        return record

    # -- the result ---------------------------------------------------------------------------

    @property
    def streaming(self) -> bool:
        """True while the case results are held as file text (nothing decoded in bulk)."""
        return self._result is None

    @property
    def result(self) -> EvalSetResult:
        """The result model (a streamed record decodes every case result once, here)."""
        if self._result is None:
            with gc_paused(keep=True):
                self._result = self._assembled()
            self._head = self._details = self._case_summaries = self._case_summary_wires = None
            self._built_from = self._source()  # the streamed tables describe these cases
        return self._result

    @result.setter
    def result(self, value: EvalSetResult) -> None:
        self._result = value
        self._head = self._details = self._case_summaries = self._case_summary_wires = None

    def _assembled(self) -> EvalSetResult:
        """The whole result of a streamed record: every case result decoded, the case
        summaries built into the summary."""
        assert self._head is not None and self._details is not None
        update: dict[str, Any] = {"eval_case_results": list(self._details)}
        summary = self._head.summary
        if self._case_summaries is not None and summary is not None:
            summaries = list(self._case_summaries())
            update["summary"] = summary.model_copy(update={"eval_case_summaries": summaries})
        return self._head.model_copy(update=update)

    @property
    def header(self) -> EvalSetResult:
        """The result without its case results: ids, timestamp and the summary — for a
        streamed record without ``evalCaseSummaries`` (None; ``record.result.summary`` has
        them), as a 100k-case summary alone is ~600k models."""
        if self._head is not None:
            return self._head
        return self._result.model_copy(update={"eval_case_results": None})

    @property
    def num_case_results(self) -> int:
        if self._details is not None:
            return len(self._details)
        return len(self._result.eval_case_results or ())

    def case_result(self, index: int) -> EvalCaseResult:
        """Case result ``index`` (row ``index`` of the cases table), decoded alone."""
        if self._details is not None:
            return self._details[index]
        return (self._result.eval_case_results or [])[index]

    def case_results(self) -> Iterator[EvalCaseResult]:
        """Every case result in order, one decoded at a time."""
        if self._details is not None:
            return iter(self._details)
        return iter(self._result.eval_case_results or ())

    def case_summaries(self) -> Iterator[CaseSummary]:
        """The summary's case summaries (a streamed record builds them one at a time)."""
        if self._case_summaries is not None:
            return self._case_summaries()
        summary = self.header.summary if self._result is None else self._result.summary
        return iter((summary.eval_case_summaries if summary else None) or ())

    def case_overall_statuses(self) -> Iterator[str]:
        """Each case summary's ``overallStatus`` (``""`` when unset), in the summary's order;
        read from the summary's file form when the record streams (no model per case)."""
        if self._case_summary_wires is not None:
            key = CaseSummary.model_fields["overall_status"].alias or "overall_status"
            return (wire.get(key) or "" for wire in self._case_summary_wires())
        return (summary.overall_status or "" for summary in self.case_summaries())

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the result file atomically (Go format, readable by trpc-agent-go); a streamed
        record writes its case texts as they are."""
        if self._details is not None and self._head is not None:
            build = self._case_summary_wires or self._case_summaries
            summaries = build() if build is not None else None
            return save_details(self._head, self._details, path, summaries)
        return save_result(self._result, path)

    def save_to(self, store: Any, app_name: str) -> str:
        """Store the result in a result store and return its id: a streamed record hands a
        :class:`~agenteval_nb.stores.ResultStore` its case texts (a local store writes the
        bytes :meth:`save` writes); any other store gets the whole model, built for it."""
        if self._details is not None and self._head is not None and isinstance(store, ResultStore):
            build = self._case_summary_wires or self._case_summaries
            summaries = build() if build is not None else None
            return store.save_texts(app_name, self._head, self._details, summaries)
        return store.save(app_name, whole_result(self))  # type: ignore[no-any-return]

    # -- what was evaluated -------------------------------------------------------------------

    @property
    def evalsets(self) -> list[EvalSet]:
        """The eval sets evaluated (a streamed record validates every case once, here)."""
        if self._evalsets is None:
            self._evalsets = [s.evalset() for s in self._sources]
        return self._evalsets

    @evalsets.setter
    def evalsets(self, value: Sequence[EvalSet]) -> None:
        self._evalsets = list(value)
        self._sources = []

    def eval_set_ids(self) -> list[str]:
        """Ids of the eval sets evaluated (none decoded)."""
        if self._evalsets is None:
            return [s.header.eval_set_id for s in self._sources]
        return [es.eval_set_id for es in self._evalsets]

    def eval_case(self, eval_id: str) -> EvalCase | None:
        """The eval case ``eval_id`` of the first eval set that holds it (validated alone).
        Where each id stands is indexed once (again when the eval sets change)."""
        evalsets = self._evalsets
        key = (id(evalsets), tuple(map(id, evalsets or ())), tuple(map(id, self._sources)))
        if self._case_index is None or self._case_index[0] != key:
            sources = self._sources if evalsets is None else [ModelCases(es) for es in evalsets]
            where: dict[str, tuple[CaseSource, int]] = {}
            for source in sources:
                for index, each in enumerate(source.eval_ids):
                    where.setdefault(each, (source, index))
            self._case_index = (key, where)
        found = self._case_index[1].get(eval_id)
        return found[0].case(found[1]) if found is not None else None

    # -- tables -------------------------------------------------------------------------------

    def table(self, kind: str) -> pl.DataFrame:
        """The ``kind`` frame table (polars), built on first read and kept (see the module's
        cache rule). Unknown kinds are a ``ValueError`` naming the known ones."""
        if kind not in BUILDERS:
            known = sorted(BUILDERS)
            raise ValueError(f"unknown frame kind {kind!r}; expected one of {known}")
        if self._result is None:
            return self._tables[kind]
        source = self._source()
        if source != self._built_from:
            self._tables.clear()
            self._built_from = source
        found = self._tables.get(kind)
        if found is None:
            found = self._tables[kind] = BUILDERS[kind](self)
        return found

    def clear_tables(self) -> None:
        """Forget every built table (after editing the result model in place)."""
        self.result  # noqa: B018 - a streamed record becomes a model record first
        self._tables.clear()
        self._built_from = ()

    def _source(self) -> tuple[Any, ...]:
        """Identity of everything the tables are built from (one id per case result)."""
        cases = self._result.eval_case_results or ()
        evalsets = self._evalsets or []
        return (
            id(self._result),
            tuple(map(id, cases)),
            id(self.metrics),
            tuple(map(id, self.metrics)),
            id(self._evalsets),
            tuple(map(id, evalsets)),
        )


class RecordBuilder:
    """A result sink (:class:`~agenteval_nb.engine.run.ResultSink`) that builds a streamed
    record: each case result is encoded to its file text, and every ``batch`` results the
    frame builders run over the batch; :meth:`tables` joins the parts in position order.

    Peak memory: one batch of models plus the texts and the tables, whatever the run's size.
    :data:`BATCH` (measured): the builders cost ~40 µs a case at 1024, ~50 at 256, while
    encoding gets cheaper (its huge-int check is per batch); and a smaller batch leaves less
    work for the end of a latency-bound (agent, judge) run, whose loop is idle in between.
    """

    BATCH = 256
    BULK_BATCH = 4096
    """The batch while the results come from the bulk path (``add_text(..., encoded=True)``):
    they arrive at CPU speed, nothing waits on the loop, and the builders' cost per batch
    dominates (measured on views: ~30 µs a case at 256, ~14 at 2048, ~12 at 4096)."""

    def __init__(
        self, metrics: Sequence[EvalMetric] = (), batch: int = BATCH, source: str = "<run>"
    ) -> None:
        self.metrics = list(metrics)
        self.batch = batch
        self.source = source
        self._texts: dict[int, bytes] = {}
        self._pending: list[tuple[int, EvalCase | None, EvalCaseResult, bytes | None]] = []
        self._parts: dict[str, list[pl.DataFrame]] = {kind: [] for kind in BUILDERS}
        self._keys: list[tuple[int, int | None, str | None]] = []
        self._last = -1
        self._in_order = True
        self._read_texts = False  # a text was handed in (read from a file), not encoded here
        self._plain: set[int] = set()  # positions of texts the bulk path wrote
        self._pending_plain = 0  # of them, in the batch
        self._listeners: list[Callable[[list[tuple[int, bytes]]], None]] = []

    def listen(self, listener: Callable[[list[tuple[int, bytes]]], None]) -> None:
        """Call ``listener`` with each batch's ``(position, case result text)`` as it is
        encoded (a live run journals them: no second encoding)."""
        self._listeners.append(listener)

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        self.add_text(position, case, result, None)

    def add_text(
        self,
        position: int,
        case: EvalCase | None,
        result: EvalCaseResult,
        text: bytes | None,
        encoded: bool = False,
    ) -> None:
        """:meth:`add` with the case result's file text already at hand (read from a file, or
        ``encoded`` as :meth:`add` encodes it: the bulk path, whose ``case`` and ``result`` are
        views with the models' attributes, and whose metrics are deterministic: no rows in
        the judge tables, :data:`~.frames.JUDGE_KINDS`)."""
        self._pending.append((position, case, result, text))
        self._read_texts = self._read_texts or (text is not None and not encoded)
        if encoded:
            self._plain.add(position)
            self._pending_plain += 1
        self._keys.append((position, result.run_id, result.eval_id))
        self._in_order = self._in_order and position > self._last
        self._last = max(self._last, position)
        if len(self._pending) >= (max(self.batch, self.BULK_BATCH) if encoded else self.batch):
            self._flush()

    def flush(self) -> None:
        """Encode the results added so far and run the builders over them (a partial batch:
        a live run does it every fraction of a second, so that what finished is journalled)."""
        self._flush()

    def _flush(self) -> None:
        """Encode the batch's new results and run the frame builders over the batch."""
        if not self._pending:
            return
        results = [r for _, _, r, _ in self._pending]
        fresh = [r for _, _, r, text in self._pending if text is None]
        encoded = iter(case_result_texts(fresh))
        for position, _, _, text in self._pending:
            self._texts[position] = text if text is not None else next(encoded)
        if self._listeners:
            batch = [(position, self._texts[position]) for position, _, _, _ in self._pending]
            for listener in self._listeners:
                listener(batch)
        cases = [c for _, c, _, _ in self._pending if c is not None]
        part = TableInput(
            result=EvalSetResult.model_construct(eval_case_results=results),
            metrics=self.metrics,
            evalsets=[EvalSet.model_construct(eval_set_id="", eval_cases=cases)] if cases else [],
        )
        deterministic = self._pending_plain == len(self._pending)
        for kind, build in BUILDERS.items():
            if not (deterministic and kind in JUDGE_KINDS):
                self._parts[kind].append(build(part))
        self._pending = []
        self._pending_plain = 0

    def details(self) -> CaseDetails:
        """The case texts in position order."""
        self._flush()
        order = sorted(self._texts)
        plain = (i for i, position in enumerate(order) if position in self._plain)
        texts = (self._texts[p] for p in order)
        return CaseDetails(texts, self.source, encoded=not self._read_texts, plain=plain)

    def tables(self) -> dict[str, pl.DataFrame]:
        """Every frame table, rows in position order (what a build over the whole result gives)."""
        self._flush()
        tables = {
            kind: pl.concat(parts) if parts else BUILDERS[kind](_EMPTY)
            for kind, parts in self._parts.items()
        }
        if self._in_order:
            return tables
        order = pl.DataFrame(
            self._keys,
            schema={"_pos": pl.Int64, "run_id": pl.Int64, "eval_id": pl.String},
            orient="row",
        )
        return {kind: _reorder(table, order) for kind, table in tables.items()}

    def record(self, head: EvalSetResult, **fields: Any) -> RunRecord:
        """The streamed record (``fields``: those of :meth:`RunRecord.streamed`)."""
        tables = self.tables()
        return RunRecord.streamed(head, self.details(), tables, **fields)


@runtime_checkable
class HoldsRecord(Protocol):
    """What holds a run record: :class:`~agenteval_nb.evalrun.EvalRun` (the front door)."""

    @property
    def record(self) -> RunRecord: ...


def record_of(run: RunRecord | HoldsRecord) -> RunRecord:
    """``run`` itself when it is a record, else the record it holds — how a view that users
    call directly (``ae.plots``) takes an ``EvalRun`` without knowing the class."""
    return run if isinstance(run, RunRecord) else run.record


_EMPTY = TableInput(result=EvalSetResult(), metrics=[], evalsets=[])


def _reorder(table: pl.DataFrame, order: pl.DataFrame) -> pl.DataFrame:
    """``table`` with its rows in ``_pos`` order of their (run_id, eval_id); rows of a case
    keep their order."""
    if table.is_empty():
        return table
    columns = table.columns
    return (
        table.join(order, on=["run_id", "eval_id"], how="left", maintain_order="left")
        .sort("_pos", maintain_order=True)
        .select(columns)
    )


def whole_result(record: RunRecord) -> EvalSetResult:
    """The record's whole result model, built for the caller and not kept (a streamed record
    stays streamed); a model record's own result."""
    return record._assembled() if record.streaming else record.result


def uses_heuristic(record: RunRecord) -> bool:
    """True when a judgement of the run came from the offline heuristic judge (its tables'
    ``heuristic`` column: per-turn judge records and judge samples)."""
    return any(
        bool(record.table(kind)["heuristic"].fill_null(False).any())
        for kind in ("invocations", "samples")
    )


def record_flags(record: RunRecord) -> list[str]:
    """The offline flags of a run (:func:`~agenteval_nb.offline_flags.run_flags`)."""
    return run_flags(uses_heuristic(record), record.info)


def case_metric_rows(record: RunRecord, columns: Sequence[str]) -> list[list[tuple[Any, ...]]]:
    """Per case result (row ``i`` of the cases table): its overall metric results as tuples of
    the metrics table's ``columns``, in file order (the metrics rows split by ``n_metrics``)."""
    rows = record.table("metrics").select(columns).iter_rows()
    return [list(islice(rows, n or 0)) for n in record.table("cases")["n_metrics"].to_list()]


def with_summary(result: EvalSetResult) -> tuple[EvalSetResult, list[str]]:
    """``result`` itself when it has a summary, else a copy with one computed (SPEC §8.6).

    Case results without ``runId`` (files older than multi-run evaluation) are read as run 1;
    a warning says so. Run ids the case results cannot back are a ``SummaryError``
    (:func:`~agenteval_nb.engine.summary.check_run_ids`).
    """
    if result.summary is not None:
        return result, []
    check_run_ids(result)
    cases = list(result.eval_case_results or ())
    notes: list[str] = []
    unnumbered = [i for i, c in enumerate(cases) if c is not None and not c.run_id]
    if unnumbered:
        for i in unnumbered:
            cases[i] = cases[i].model_copy(update={"run_id": 1})
        notes.append(f"{len(unnumbered)} case result(s) without runId read as run 1")
    summary = summarize(cases, None)
    update: dict[str, Any] = {"summary": summary}
    if unnumbered:
        update["eval_case_results"] = cases
    return result.model_copy(update=update), notes
