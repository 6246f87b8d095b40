"""``RunRecord``: what a run produced — the result, what was evaluated, and its tables.

The record is data. Its frame tables (:data:`~.columns.FRAME_COLUMNS`: cases, metrics,
invocations, rubrics, samples, logprobs) are built from the result once, by the builders of
:mod:`.frames`, and kept: every reader (the frame methods, ``summary_df``, ``compare``, plots,
the report) selects from the same table instead of walking the result model again.

Cache rule: a table belongs to the result it was built from. Replacing ``record.result``, a
case result in its ``eval_case_results``, or the ``metrics`` / ``evalsets`` lists rebuilds the
tables on the next read; editing a field *inside* a case result in place does not (call
:meth:`RunRecord.clear_tables` after such an edit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..engine.summary import check_run_ids, summarize
from ..schema import EvalMetric, EvalSet, EvalSetResult
from .frames import BUILDERS


@dataclass
class RunRecord:
    """An evaluation result with the eval sets and metrics it came from, and its tables.

    ``result`` is the wire model (``result.model_dump(by_alias=True)`` is the file JSON);
    ``evalsets`` and ``metrics`` are what was evaluated (empty when loaded from a bare result
    file); ``warnings`` lists what the run wants the user to see (e.g. a skipped metric).
    """

    result: EvalSetResult
    evalsets: list[EvalSet] = field(default_factory=list)
    metrics: list[EvalMetric] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    app_name: str = ""
    elapsed_s: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    _tables: dict[str, pl.DataFrame] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _built_from: tuple[Any, ...] = field(default=(), init=False, repr=False, compare=False)

    def table(self, kind: str) -> pl.DataFrame:
        """The ``kind`` frame table (polars), built on first read and kept (see the module's
        cache rule). Unknown kinds are a ``ValueError`` naming the known ones."""
        if kind not in BUILDERS:
            known = sorted(BUILDERS)
            raise ValueError(f"unknown frame kind {kind!r}; expected one of {known}")
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
        self._tables.clear()
        self._built_from = ()

    def _source(self) -> tuple[Any, ...]:
        """Identity of everything the tables are built from (one id per case result)."""
        cases = self.result.eval_case_results or ()
        return (
            id(self.result),
            tuple(map(id, cases)),
            id(self.metrics),
            tuple(map(id, self.metrics)),
            id(self.evalsets),
            tuple(map(id, self.evalsets)),
        )


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
