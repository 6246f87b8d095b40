"""Turning one saved result into a :class:`~.record.RunRecord`.

:func:`load_record` accepts whatever the Go framework (or this package) writes — a
``.evalset_result.json`` path, the legacy file whose whole content is a JSON string (SPEC §1.7),
JSON text, a dict, an ``EvalSetResult`` — or a record, and computes a missing ``summary`` from
the case results (SPEC §8.6), as older Go files have none. Run numbers the file cannot back
(``numRuns`` or a ``runId`` above its count of run summaries or case results) are a
:class:`~agenteval_nb.errors.FormatError`, and so is a case result the missing summary cannot be
computed from (:func:`_check_summable`): every reader error names the file (``<object>`` for
data in memory) and the JSON path. A Go-format file is streamed, with or without its summary:
each case result is validated, added to the tables and kept as its file text, one at a time.

Folders and result stores hold several results: :func:`result_files` lists a folder's; the
front door (:func:`agenteval_nb.runs.load_run`) turns each into a run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._gc import gc_paused
from ..engine.summary import (
    CaseOutcome,
    SummaryError,
    case_outcome,
    check_run_ids,
    check_run_numbers,
    summary_parts,
)
from ..errors import FormatError
from ..io import (
    OBJECT_SOURCE,
    Source,
    StreamedResult,
    is_json_text,
    load_evalset,
    load_metrics,
    load_result,
    open_result,
    preview,
)
from ..schema import (
    EvalCaseResult,
    EvalMetric,
    EvalSet,
    EvalSetResult,
    EvalStatus,
    summarize_statuses,
)
from .record import RecordBuilder, RunRecord, with_summary

RESULT_SUFFIX = ".evalset_result.json"

EvalSetArg = Source | EvalSet | Sequence[Source | EvalSet] | None
MetricsArg = Source | Sequence[EvalMetric] | None


def path_of(src: Any) -> Path | None:
    """``src`` as a path when it names a file system entry (not JSON text, not a model)."""
    if isinstance(src, os.PathLike):
        return Path(os.fspath(src))
    if isinstance(src, str) and not is_json_text(src):
        return Path(src)
    return None


def is_dir(src: Any) -> bool:
    path = path_of(src)
    return path is not None and path.is_dir()


def evalsets_of(evalset: EvalSetArg) -> list[EvalSet]:
    """One eval set or a list of them, each loaded (``None``: none)."""
    if evalset is None:
        return []
    if isinstance(evalset, (list, tuple)):
        return [load_evalset(e) for e in evalset]
    return [load_evalset(evalset)]  # type: ignore[arg-type]


def metrics_of(metrics: MetricsArg) -> list[EvalMetric]:
    """The metrics loaded (``None``: none)."""
    return load_metrics(metrics) if metrics is not None else []  # type: ignore[arg-type]


def result_files(directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Every ``*.evalset_result.json`` under ``directory`` (recursively), sorted by path, keyed
    by its result id (name without suffix), or by its path relative to ``directory`` (without
    suffix) when two files share an id."""
    root = Path(os.fspath(directory))
    paths = sorted(p for p in root.rglob(f"*{RESULT_SUFFIX}") if p.is_file())
    stems = [p.name[: -len(RESULT_SUFFIX)] for p in paths]
    files: dict[str, Path] = {}
    for path, stem in zip(paths, stems, strict=True):
        key = stem
        if stems.count(stem) > 1:
            key = path.relative_to(root).as_posix()[: -len(RESULT_SUFFIX)]
        files[key] = path
    return files


def load_record(
    path_or_result: RunRecord | Source,
    evalsets: Sequence[EvalSet] = (),
    metrics: Sequence[EvalMetric] = (),
) -> RunRecord:
    """The record of one result (file, text, dict, model, or a record to check and copy).

    ``evalsets`` and ``metrics`` are what was evaluated; they add rubric texts and evaluator
    names to the frames (a record keeps its own when none are given). A missing ``summary`` is
    computed (``info["summary_computed"]`` is True); the file itself is not changed.
    """
    sets, metric_list = list(evalsets), list(metrics)
    if isinstance(path_or_result, RunRecord):
        check_runs(path_or_result.result, "<EvalRun>")
        record = RunRecord(
            result=_with_summary(path_or_result.result, "<EvalRun>")[0],
            evalsets=sets or list(path_or_result.evalsets),
            metrics=metric_list or list(path_or_result.metrics),
            warnings=list(path_or_result.warnings),
            app_name=path_or_result.app_name,
            elapsed_s=path_or_result.elapsed_s,
            info=dict(path_or_result.info),
        )
        record.stored_as = path_or_result.stored_as  # its marks stay where they are kept
        return record
    path = path_of(path_or_result)
    if isinstance(path_or_result, (str, os.PathLike)):
        streamed = open_result(path_or_result)
        if streamed is not None:
            return _streamed_record(streamed, sets, metric_list, path)
    result = load_result(path_or_result)
    source = str(path) if path is not None else OBJECT_SOURCE
    check_runs(result, source)
    computed = result.summary is None
    result, notes = _with_summary(result, source)
    info, app_name = _file_info(path, computed)
    return RunRecord(
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


def _streamed_record(
    streamed: StreamedResult,
    sets: list[EvalSet],
    metrics: list[EvalMetric],
    path: Path | None,
) -> RunRecord:
    """The record of a split result file: each case result read (as its view when its text is
    plain, :meth:`~agenteval_nb.io.StreamedResult.case_view`; else validated), added to the
    tables and kept as its file text, one at a time. The file's own summary is kept; a missing
    one is computed from the case outcomes (each case result checked by
    :func:`_check_case_summable` as it passes)."""
    try:
        check_run_numbers(streamed.head.summary, streamed.run_ids)
    except SummaryError as exc:
        raise FormatError(streamed.source, exc.json_path, f"a consistent result: {exc}") from None
    computed = streamed.head.summary is None
    outcomes: list[CaseOutcome] = []
    cases = {c.eval_id: c for es in sets for c in es.eval_cases or () if c is not None}
    builder = RecordBuilder(metrics, source=streamed.source)
    with gc_paused():
        for i in range(len(streamed.texts)):
            result = streamed.case_view(i)
            if result is None:
                result = streamed.case_result(i)
            if computed:
                _check_case_summable(result, i, streamed.source)
                outcomes.append(case_outcome(result))
            builder.add_text(i, cases.get(result.eval_id or ""), result, streamed.text(i))
    info, app_name = _file_info(path, summary_computed=computed)
    head, summaries, wires = streamed.head, None, None
    if computed:
        parts = summary_parts(outcomes, None)
        head = head.model_copy(update={"summary": parts.head})
        summaries, wires = parts.case_summaries, parts.case_summary_wires
    elif streamed.summaries_raw is not None:
        summaries = streamed.case_summaries
    record = builder.record(
        head,
        case_summaries=summaries,
        case_summary_wires=wires,
        metrics=metrics,
        app_name=app_name,
        info=info,
    )
    if sets:
        record.evalsets = sets
    return record


def check_runs(result: EvalSetResult, source: str) -> None:
    """Run ids the case results cannot back are a :class:`~agenteval_nb.errors.FormatError`
    naming ``source``."""
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
    """:func:`_check_case_summable` of every case result, in order."""
    for i, case in enumerate(result.eval_case_results or ()):
        if case is not None:
            _check_case_summable(case, i, source)


def _check_case_summable(case: EvalCaseResult, index: int, source: str) -> None:
    """A :class:`FormatError` when the missing summary cannot be computed from case result
    ``index`` (SPEC §8.6): an empty ``evalId``, a negative ``runId`` (a missing or zero one is
    read as run 1), a ``finalEvalStatus`` that is not one the summary counts (``"PASSED"``,
    ``""``, a status unknown to the reference)."""
    at = f"$.evalCaseResults[{index}]"
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
