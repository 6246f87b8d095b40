"""Turning saved results into :class:`EvalRun` objects, and the reference pass@k inputs.

``load_run`` accepts whatever the Go framework (or this package) writes — a
``.evalset_result.json`` path, the legacy file whose whole content is a JSON string (SPEC §1.7),
JSON text, a dict, an ``EvalSetResult`` — and computes a missing ``summary`` from the case
results (SPEC §8.6), as older Go files have none. A directory gives a :class:`RunCollection` of
every result file under it; a result store (``ae.load_run(store, app, result_id)``) gives the
stored result, or every result of the app as a :class:`RunCollection` without a result id.
Run numbers the file cannot back (``numRuns`` or a ``runId`` above its count of run summaries or
case results) are a :class:`~agenteval_nb.errors.FormatError`, and so is a case result the
missing summary cannot be computed from (:func:`_check_summable`): every reader error names the
file (``<object>`` for data in memory) and the JSON path.

:func:`as_run` is the one door for functions that take a run (``ae.compare``,
``ae.export_html``, ``ae.inspect``, ``agenteval report``): whatever ``load_run`` accepts.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import polars as pl

from .._gc import gc_paused
from ..engine.summary import SummaryError, check_run_ids, check_run_numbers
from ..entry_rules import OBJECT_SOURCE
from ..errors import FormatError
from ..io import Source, is_json_text, load_evalset, load_metrics, load_result, preview
from ..schema import EvalMetric, EvalSet, EvalSetResult, EvalStatus, summarize_statuses
from ..sources import StreamedResult, open_result
from ..stores.base import ResultStore
from .frames import SCHEMAS, frame, to_backend
from .paired import compare_records
from .passk import parse_pass_nc
from .record import RecordBuilder, with_summary
from .run import EvalRun

__all__ = ["RunCollection", "RunLike", "as_run", "load_run", "parse_pass_nc", "with_summary"]

RESULT_SUFFIX = ".evalset_result.json"

EvalSetArg = Source | EvalSet | Sequence[Source | EvalSet] | None
MetricsArg = Source | Sequence[EvalMetric] | None


def _path_of(src: Any) -> Path | None:
    """``src`` as a path when it names a file system entry (not JSON text, not a model)."""
    if isinstance(src, os.PathLike):
        return Path(os.fspath(src))
    if isinstance(src, str) and not is_json_text(src):
        return Path(src)
    return None


def _is_dir(src: Any) -> bool:
    path = _path_of(src)
    return path is not None and path.is_dir()


def _evalsets(evalset: EvalSetArg) -> list[EvalSet]:
    if evalset is None:
        return []
    if isinstance(evalset, (list, tuple)):
        return [load_evalset(e) for e in evalset]
    return [load_evalset(evalset)]  # type: ignore[arg-type]


@overload
def load_run(
    path_or_result: EvalSetResult | Mapping[str, Any] | EvalRun,
    evalset: EvalSetArg = None,
    metrics: MetricsArg = None,
) -> EvalRun: ...


@overload
def load_run(
    path_or_result: str | os.PathLike[str],
    evalset: EvalSetArg = None,
    metrics: MetricsArg = None,
) -> EvalRun | RunCollection: ...


@overload
def load_run(
    path_or_result: ResultStore,
    evalset: str | None = None,
    metrics: str | None = None,
    *,
    app_name: str | None = None,
    result_id: str | None = None,
) -> EvalRun | RunCollection: ...


def load_run(
    path_or_result: Any,
    evalset: Any = None,
    metrics: Any = None,
    *,
    app_name: str | None = None,
    result_id: str | None = None,
) -> EvalRun | RunCollection:
    """An :class:`EvalRun` from a result (file, text, dict or model), or a
    :class:`RunCollection` from a directory of ``*.evalset_result.json`` files.

    ``evalset`` (one or a list) and ``metrics`` are what was evaluated; they add rubric texts
    and evaluator names to the frames. A missing ``summary`` is computed (the returned run's
    ``info["summary_computed"]`` is True); the file itself is not changed.

    From a :class:`~agenteval_nb.stores.ResultStore` (memory, local files, SQL):
    ``load_run(store, app_name, result_id)`` — the two positions after the store are the app
    and the result id (or give them as keywords, with ``evalset=`` / ``metrics=``); without a
    result id, every result of the app as a :class:`RunCollection` keyed by result id.
    """
    if isinstance(path_or_result, ResultStore):
        if app_name is None:  # positional form: load_run(store, app, result_id)
            app_name, result_id, evalset, metrics = evalset, result_id or metrics, None, None
        if not isinstance(app_name, str) or not app_name:
            raise TypeError("load_run(store, app_name, result_id=None) needs an app name")
        if result_id is None:
            return RunCollection.from_store(path_or_result, app_name, evalset, metrics)
        run = load_run(path_or_result.get(app_name, result_id), evalset, metrics)
        run.app_name = app_name  # type: ignore[union-attr]
        run.info["source"] = f"{path_or_result!r}: {app_name}/{result_id}"  # type: ignore[union-attr]
        return run
    if _is_dir(path_or_result):
        return RunCollection.from_dir(path_or_result, evalset=evalset, metrics=metrics)
    sets = _evalsets(evalset)
    metric_list = load_metrics(metrics) if metrics is not None else []  # type: ignore[arg-type]
    if isinstance(path_or_result, EvalRun):
        _check_runs(path_or_result.result, "<EvalRun>")
        return EvalRun(
            result=_with_summary(path_or_result.result, "<EvalRun>")[0],
            evalsets=sets or list(path_or_result.evalsets),
            metrics=metric_list or list(path_or_result.metrics),
            warnings=list(path_or_result.warnings),
            app_name=path_or_result.app_name,
            elapsed_s=path_or_result.elapsed_s,
            info=dict(path_or_result.info),
        )
    path = _path_of(path_or_result)
    if isinstance(path_or_result, (str, os.PathLike)):
        streamed = open_result(path_or_result)
        if streamed is not None:
            return _streamed_run(streamed, sets, metric_list, path)
    result = load_result(path_or_result)
    source = str(path) if path is not None else OBJECT_SOURCE
    _check_runs(result, source)
    computed = result.summary is None
    result, notes = _with_summary(result, source)
    info, app_name = _file_info(path, computed)
    return EvalRun(
        result=result,
        evalsets=sets,
        metrics=metric_list,
        warnings=notes,
        app_name=app_name,
        info=info,
    )


def _file_info(path: Path | None, summary_computed: bool) -> tuple[dict[str, Any], str]:
    """The run info of a loaded result, and its app name: the folder of a
    ``<app>/<id>.evalset_result.json`` file (the local store's layout), else empty."""
    info: dict[str, Any] = {"summary_computed": summary_computed}
    if path is None:
        return info, ""
    info["source"] = str(path)
    return info, path.parent.name if path.name.endswith(RESULT_SUFFIX) else ""


def _streamed_run(
    streamed: StreamedResult,
    sets: list[EvalSet],
    metrics: list[EvalMetric],
    path: Path | None,
) -> EvalRun:
    """The run of a split result file: each case result validated, added to the tables and
    kept as its file text, one at a time (the file's own summary is kept)."""
    try:
        check_run_numbers(streamed.head.summary, streamed.run_ids)
    except SummaryError as exc:
        raise FormatError(streamed.source, exc.json_path, f"a consistent result: {exc}") from None
    cases = {c.eval_id: c for es in sets for c in es.eval_cases or () if c is not None}
    builder = RecordBuilder(metrics, source=streamed.source)
    with gc_paused():
        for i in range(len(streamed.raw)):
            result = streamed.case_result(i)
            builder.add_text(i, cases.get(result.eval_id or ""), result, streamed.text(i))
    info, app_name = _file_info(path, summary_computed=False)
    run = builder.record(
        EvalRun,
        streamed.head,
        case_summaries=streamed.case_summaries if streamed.summaries_raw is not None else None,
        metrics=metrics,
        app_name=app_name,
        info=info,
    )
    if sets:
        run.evalsets = sets
    return run


def _check_runs(result: EvalSetResult, source: str) -> None:
    try:
        check_run_ids(result)
    except SummaryError as exc:
        raise FormatError(source, exc.json_path, f"a consistent result: {exc}") from None


def _with_summary(result: EvalSetResult, source: str) -> tuple[EvalSetResult, list[str]]:
    """:func:`~agenteval_nb.analysis.record.with_summary` of a result read from ``source``,
    after :func:`_check_summable` when its summary is missing."""
    if result.summary is None:
        _check_summable(result, source)
    return with_summary(result)


def _check_summable(result: EvalSetResult, source: str) -> None:
    """A :class:`FormatError` at the first case result the summary cannot be computed from
    (SPEC §8.6): an empty ``evalId``, a negative ``runId`` (a missing or zero one is read as run
    1), a ``finalEvalStatus`` that is not one the summary counts (``"PASSED"``, ``""``, a
    status unknown to the reference)."""
    for i, case in enumerate(result.eval_case_results or ()):
        if case is None:
            continue
        at = f"$.evalCaseResults[{i}]"
        if not case.eval_id:
            raise FormatError(
                source, f"{at}.evalId", f"a non-empty evalId (got {preview(case.eval_id)})"
            )
        if case.run_id is not None and case.run_id < 0:
            raise FormatError(source, f"{at}.runId", f"a runId of 1 or more (got {case.run_id})")
        try:
            summarize_statuses([case.final_eval_status or ""])
        except ValueError:
            raise FormatError(
                source,
                f"{at}.finalEvalStatus",
                f"one of {_COUNTED} to compute the missing summary "
                f"(got {preview(case.final_eval_status)})",
            ) from None


_COUNTED = ", ".join(
    f'"{s.value}"' for s in (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED)
)
"""The case statuses a summary counts (any other makes ``summarize_statuses`` refuse)."""


RunLike = EvalRun | EvalSetResult | Mapping[str, Any] | str | os.PathLike[str]
"""What :func:`load_run` and every function taking a run accept."""


def as_run(value: Any, what: str = "this function") -> EvalRun:
    """``value`` as one :class:`EvalRun`, with a summary: an ``EvalRun`` (itself when it has a
    consistent summary), an ``EvalSetResult``, a result dict, JSON text, a result file, or a
    folder / :class:`RunCollection` holding exactly one result.

    Anything else is a ``TypeError`` naming ``what`` and the accepted kinds; a folder with
    several results is a ``TypeError`` listing their keys.
    """
    if isinstance(value, EvalRun) and value.header.summary is not None:
        if not value.streaming:  # a streamed run was checked when it was built
            _check_runs(value.result, "<EvalRun>")
        return value
    if isinstance(value, (EvalRun, EvalSetResult, Mapping, str, os.PathLike)):
        value = load_run(value)
    if isinstance(value, RunCollection):
        if len(value) != 1:
            keys = ", ".join(map(repr, value.keys()[:5])) + (" …" if len(value) > 5 else "")
            raise TypeError(
                f"{what} takes one run, got {len(value)} results ({keys}); pick one, e.g. "
                "runs[key] of ae.load_run(folder)"
            )
        return value[0]
    if isinstance(value, EvalRun):
        return value
    raise TypeError(
        f"{what} takes a run: an EvalRun, an EvalSetResult, a result dict or JSON text, a "
        f".evalset_result.json path or a folder of them; got {type(value).__name__}"
    )


class RunCollection(Sequence[EvalRun]):
    """Runs keyed by result id, in key order: index by position or by key.

    ``concat_df(kind)`` stacks one frame kind of every run with a leading ``result_id`` column;
    ``compare(a, b)`` compares two runs given by key or position.
    """

    def __init__(self, runs: Mapping[str, EvalRun]) -> None:
        self._runs = dict(runs)
        self._keys = list(self._runs)

    @classmethod
    def from_dir(
        cls,
        directory: str | os.PathLike[str],
        evalset: EvalSetArg = None,
        metrics: MetricsArg = None,
    ) -> RunCollection:
        """Every ``*.evalset_result.json`` under ``directory`` (recursively), sorted by path.

        The key is the file's result id (name without suffix), or its path relative to
        ``directory`` (without suffix) when two files share an id.
        """
        root = Path(os.fspath(directory))
        paths = sorted(p for p in root.rglob(f"*{RESULT_SUFFIX}") if p.is_file())
        stems = [p.name[: -len(RESULT_SUFFIX)] for p in paths]
        sets = _evalsets(evalset)
        metric_list = load_metrics(metrics) if metrics is not None else []  # type: ignore[arg-type]
        runs: dict[str, EvalRun] = {}
        for path, stem in zip(paths, stems, strict=True):
            key = stem
            if stems.count(stem) > 1:
                key = path.relative_to(root).as_posix()[: -len(RESULT_SUFFIX)]
            runs[key] = load_run(path, evalset=sets or None, metrics=metric_list or None)  # type: ignore[assignment]
        return cls(runs)

    @classmethod
    def from_store(
        cls,
        store: ResultStore,
        app_name: str,
        evalset: EvalSetArg = None,
        metrics: MetricsArg = None,
    ) -> RunCollection:
        """Every result of ``app_name`` in a result store, keyed by result id (sorted)."""
        sets = _evalsets(evalset)
        metric_list = load_metrics(metrics) if metrics is not None else []  # type: ignore[arg-type]
        runs: dict[str, EvalRun] = {}
        for result_id in store.list(app_name):
            run = load_run(store.get(app_name, result_id), sets or None, metric_list or None)
            run.app_name = app_name  # type: ignore[union-attr]
            runs[result_id] = run  # type: ignore[assignment]
        return cls(runs)

    def keys(self) -> list[str]:
        return list(self._keys)

    def items(self) -> list[tuple[str, EvalRun]]:
        return [(k, self._runs[k]) for k in self._keys]

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[EvalRun]:
        return (self._runs[k] for k in self._keys)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self._runs
        return any(item is run for run in self._runs.values())

    @overload
    def __getitem__(self, key: int | str) -> EvalRun: ...

    @overload
    def __getitem__(self, key: slice) -> RunCollection: ...

    def __getitem__(self, key: int | str | slice) -> EvalRun | RunCollection:
        if isinstance(key, slice):
            return RunCollection({k: self._runs[k] for k in self._keys[key]})
        if isinstance(key, str):
            return self._runs[key]
        return self._runs[self._keys[key]]

    def concat_df(self, kind: str, backend: str | None = None) -> Any:
        """One frame kind (``"cases"``, ``"metrics"``, ``"invocations"`` …) of every run,
        stacked, with a leading ``result_id`` column (the collection key)."""
        if kind not in SCHEMAS:
            raise ValueError(f"unknown frame kind {kind!r}; expected one of {sorted(SCHEMAS)}")
        parts = [
            frame(run, kind, "polars").select(
                pl.lit(key, dtype=pl.String).alias("result_id"), pl.all()
            )
            for key, run in self.items()
        ]
        if not parts:
            parts = [pl.DataFrame(schema={"result_id": pl.String, **SCHEMAS[kind]})]
        return to_backend(pl.concat(parts, how="vertical"), backend)

    def compare(self, a: int | str, b: int | str, **kwargs: Any) -> Any:
        """Paired comparison of runs ``a`` and ``b`` (keys or positions); see ``ae.compare``."""
        return compare_records(self[a], self[b], **kwargs)

    def __repr__(self) -> str:
        shown = ", ".join(self._keys[:5]) + (" …" if len(self) > 5 else "")
        return f"RunCollection({len(self)} runs: {shown})"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(key)}</td><td>{html.escape(repr(run))}</td></tr>"
            for key, run in self.items()
        )
        return f"<table><tr><th>result id</th><th>run</th></tr>{rows}</table>"
