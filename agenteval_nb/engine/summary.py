"""The result summary: per run, per case and per metric status counts (SPEC §8.6)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache

from ..schema import (
    CaseRunMetricResult,
    CaseRunSummary,
    CaseSummary,
    EvalCaseResult,
    EvalSetResult,
    EvalSetResultSummary,
    EvalStatus,
    MetricSummary,
    RunSummary,
    StatusCounts,
    status_for,
    summarize_statuses,
)


class SummaryError(ValueError):
    """The case results cannot be summarised (missing eval id or run id), or a written summary
    disagrees with them. ``json_path`` points at the offending field when known."""

    def __init__(self, message: str, json_path: str = "$") -> None:
        super().__init__(message)
        self.json_path = json_path


def run_bound(result: EvalSetResult) -> int:
    """The most runs ``result`` can describe: one per run summary or per case result (≥ 1).

    ``numRuns`` and ``runId`` are header fields anyone can write; work that loops over runs is
    bounded by this count of records actually present, never by those fields alone.
    """
    return _bound(result.summary, len(result.eval_case_results or ()))


def _bound(summary: EvalSetResultSummary | None, n_cases: int) -> int:
    written = len(summary.run_summaries or ()) if summary is not None else 0
    return max(written, n_cases, 1)


def check_run_ids(result: EvalSetResult) -> None:
    """Reject run numbers the file cannot back: ``summary.numRuns`` or a case result's
    ``runId`` above :func:`run_bound`, or a ``runId`` above a written ``numRuns``
    (:class:`SummaryError`). A million claimed runs over four case results is an error here,
    not a million-step loop later."""
    cases = result.eval_case_results or ()
    check_run_numbers(result.summary, [c.run_id if c is not None else None for c in cases])


def check_run_numbers(summary: EvalSetResultSummary | None, run_ids: Sequence[int | None]) -> None:
    """:func:`check_run_ids` of a summary and the ``runId`` of each case result."""
    bound = _bound(summary, len(run_ids))
    num_runs = summary.num_runs if summary is not None else None
    if num_runs is not None and num_runs > bound:
        raise SummaryError(
            f"numRuns {num_runs} is more than the file holds "
            f"({len(summary.run_summaries or ())} run summaries, "  # type: ignore[union-attr]
            f"{len(run_ids)} case results)",
            "$.summary.numRuns",
        )
    limit = min(bound, num_runs) if num_runs else bound
    for i, run_id in enumerate(run_ids):
        if (run_id or 0) > limit:
            what = f"numRuns {num_runs}" if num_runs else f"the {bound} case result(s)"
            raise SummaryError(f"runId {run_id} exceeds {what}", f"$.evalCaseResults[{i}].runId")


def _counts(statuses: Sequence[str]) -> StatusCounts | None:
    passed = sum(1 for s in statuses if s == EvalStatus.PASSED)
    failed = sum(1 for s in statuses if s == EvalStatus.FAILED)
    not_evaluated = sum(1 for s in statuses if s == EvalStatus.NOT_EVALUATED)
    if passed == failed == not_evaluated == 0:
        return None
    return _shared_counts(passed, failed, not_evaluated)


@lru_cache(maxsize=4096)
def _shared_counts(passed: int, failed: int, not_evaluated: int) -> StatusCounts:
    """One instance per distinct triple: a 100k-case summary holds ~400k counts, mostly alike.
    Treat summary counts as read-only."""
    return StatusCounts(
        passed=passed or None, failed=failed or None, not_evaluated=not_evaluated or None
    )


CaseOutcome = tuple[str, CaseRunSummary]
"""What the summary needs of one case result: its ``evalId`` and its run summary (status,
error, and the overall metric results as ``CaseRunMetricResult``s sorted by name). A streamed
run keeps these, not the case results."""


def case_outcome(result: EvalCaseResult) -> CaseOutcome:
    """The :data:`CaseOutcome` of one case result."""
    metrics = sorted(result.overall_eval_metric_results or (), key=lambda m: m.metric_name or "")
    return result.eval_id or "", CaseRunSummary(
        run_id=result.run_id,
        final_eval_status=result.final_eval_status,
        error_message=result.error_message,
        metric_results=[
            CaseRunMetricResult(
                metric_name=m.metric_name,
                score=m.score,
                eval_status=m.eval_status,
                threshold=m.threshold,
            )
            for m in metrics
        ]
        or None,
    )


def _metric_summaries(results: Sequence[CaseRunMetricResult]) -> list[MetricSummary] | None:
    """Per metric name (sorted): first-seen threshold, counts, mean of evaluated scores.

    ``evalStatus`` follows :func:`~agenteval_nb.schema.status.status_for` on the mean (a NaN mean
    fails); not_evaluated (mean 0) when no result of that metric was evaluated.
    """
    by_name: dict[str, list[CaseRunMetricResult]] = defaultdict(list)
    for result in results:
        by_name[result.metric_name or ""].append(result)
    out = []
    for name in sorted(by_name):
        group = by_name[name]
        threshold = group[0].threshold or 0.0
        scores = [r.score or 0.0 for r in group if r.eval_status != EvalStatus.NOT_EVALUATED]
        mean = math.fsum(scores) / len(scores) if scores else None
        status = status_for(mean, threshold)
        average = 0.0 if mean is None else mean
        out.append(
            MetricSummary(
                metric_name=name,
                average_score=average,
                eval_status=status.value,
                threshold=threshold,
                status_counts=_counts([r.eval_status or "" for r in group]),
            )
        )
    return out or None


def _fail_if_errored(status: EvalStatus, runs: Sequence[CaseRunSummary]) -> EvalStatus:
    if status == EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        return EvalStatus.FAILED
    return status


def summarize(
    results: Sequence[EvalCaseResult | None], num_runs: int | None
) -> EvalSetResultSummary:
    """Summary of case results over runs ``1..num_runs``: :func:`summarize_outcomes` of their
    :func:`case_outcome`s."""
    return summarize_outcomes([case_outcome(r) for r in results if r is not None], num_runs)


def summarize_outcomes(
    outcomes: Sequence[CaseOutcome], num_runs: int | None
) -> EvalSetResultSummary:
    """Summary of case outcomes over runs ``1..num_runs`` (empty runs are not_evaluated).

    ``num_runs`` defaults to the largest run id (or 1); a result read from outside is checked
    with :func:`check_run_ids` first, so that a forged ``runId`` cannot set the work. A case's
    overall status is the summary of its run statuses for one run, else the summary of its
    cross-run metric statuses; either way a not_evaluated outcome becomes failed when a run of
    the case has an ``errorMessage``.
    """
    for i, (eval_id, run) in enumerate(outcomes):
        if not eval_id:
            raise SummaryError(f"eval id at index {i} is empty")
        if not run.run_id or run.run_id < 1:
            raise SummaryError(f"run id at index {i} is not set")
    if not num_runs:
        num_runs = max((run.run_id or 1 for _, run in outcomes), default=1)
    for i, (_, run) in enumerate(outcomes):
        if (run.run_id or 0) > num_runs:
            raise SummaryError(f"run id at index {i} exceeds num runs {num_runs}")

    by_run: dict[int, list[CaseRunSummary]] = defaultdict(list)
    by_case: dict[str, list[CaseRunSummary]] = defaultdict(list)
    for eval_id, run in outcomes:
        by_run[run.run_id or 1].append(run)
        by_case[eval_id].append(run)

    run_summaries = []
    for run_id in range(1, num_runs + 1):
        run_cases = by_run.get(run_id, [])
        statuses = [r.final_eval_status or "" for r in run_cases]
        metrics = [m for r in run_cases for m in r.metric_results or ()]
        run_summaries.append(
            RunSummary(
                run_id=run_id,
                overall_status=summarize_statuses(statuses).value,
                case_status_counts=_counts(statuses),
                metric_summaries=_metric_summaries(metrics),
            )
        )

    case_summaries = []
    for eval_id in sorted(by_case):
        runs = sorted(by_case[eval_id], key=lambda r: r.run_id or 0)
        metrics = [m for r in runs for m in r.metric_results or ()]
        metric_summaries = _metric_summaries(metrics)
        if num_runs <= 1:
            status = summarize_statuses([r.final_eval_status or "" for r in runs])
        else:
            status = summarize_statuses([m.eval_status or "" for m in metric_summaries or ()])
        status = _fail_if_errored(status, runs)
        case_summaries.append(
            CaseSummary(
                eval_id=eval_id,
                overall_status=status.value,
                run_status_counts=_counts([r.final_eval_status or "" for r in runs]),
                metric_summaries=metric_summaries,
                run_summaries=runs,
            )
        )

    return EvalSetResultSummary(
        overall_status=summarize_statuses([c.overall_status or "" for c in case_summaries]).value,
        num_runs=num_runs,
        run_status_counts=_counts([r.overall_status or "" for r in run_summaries]),
        run_summaries=run_summaries,
        eval_case_summaries=case_summaries,
    )
