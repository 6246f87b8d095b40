"""Case aggregation: metric results → case score and status (SPEC §8.2, §8.7)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from ..schema import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalStatus,
    status_for,
    summarize_statuses,
)


@dataclass(slots=True)
class CaseAggregationInput:
    """What a case aggregator sees: the case, and the executed metrics with their results."""

    app_name: str
    eval_set_id: str
    eval_case: EvalCase
    inference_result: object
    eval_metrics: Sequence[EvalMetric]
    metric_results: Sequence[EvalMetricResult]


@dataclass(slots=True)
class CaseAggregation:
    score: float
    status: EvalStatus | str


CaseAggregator = Callable[[CaseAggregationInput], CaseAggregation | Awaitable[CaseAggregation]]


def default_case_aggregator(data: CaseAggregationInput) -> CaseAggregation:
    """Any failed ⇒ failed, else any passed ⇒ passed, else not_evaluated; score 1 iff passed."""
    status = summarize_statuses(r.eval_status or "" for r in data.metric_results)
    return CaseAggregation(score=1.0 if status == EvalStatus.PASSED else 0.0, status=status)


def check_aggregation(result: CaseAggregation) -> CaseAggregation:
    """A case aggregator must return a finite score and passed/failed/not_evaluated."""
    if result.status not in (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED):
        raise ValueError(f"case aggregator returned invalid status {str(result.status)!r}")
    if not math.isfinite(result.score):
        raise ValueError(f"case aggregator returned non-finite score {result.score}")
    return result


@dataclass(slots=True)
class EvaluationCaseResult:
    """One case across all runs (the reference's in-memory ``EvaluationCaseResult``)."""

    eval_id: str
    overall_status: str
    eval_case_results: list[EvalCaseResult]
    metric_results: list[EvalMetricResult]


def aggregate_case_runs(
    case_results: Sequence[EvalCaseResult], case_order: Sequence[str] = ()
) -> list[EvaluationCaseResult]:
    """Group case results by eval id and aggregate each metric across runs (SPEC §8.7).

    Per metric name, not_evaluated results are skipped; ``score`` is the mean of the rest,
    ``threshold`` the first kept run's, ``criterion`` the last kept run's, and the status passed
    iff mean ≥ threshold (metrics in first-seen order). The case status is the summary of the
    run statuses for one run, else of the aggregated metric statuses; not_evaluated becomes
    failed when any run has an ``errorMessage``. Cases follow ``case_order``, then unknown ids
    in lexicographic order.
    """
    groups: dict[str, list[EvalCaseResult]] = {}
    for result in case_results:
        groups.setdefault(result.eval_id or "", []).append(result)
    position = {eval_id: i for i, eval_id in enumerate(case_order)}
    ordered = sorted(groups, key=lambda e: (e not in position, position.get(e, 0), e))
    out = []
    for eval_id in ordered:
        runs = groups[eval_id]
        kept: dict[str, list[EvalMetricResult]] = {}
        for run in runs:
            for metric in run.overall_eval_metric_results or ():
                if metric.eval_status != EvalStatus.NOT_EVALUATED:
                    kept.setdefault(metric.metric_name or "", []).append(metric)
        metrics = []
        for name, results in kept.items():
            mean = math.fsum(r.score or 0.0 for r in results) / len(results)
            threshold = results[0].threshold or 0.0
            metrics.append(
                EvalMetricResult(
                    metric_name=name,
                    score=mean,
                    eval_status=status_for(mean, threshold).value,
                    threshold=threshold,
                    criterion=results[-1].criterion,
                )
            )
        if len(runs) == 1:
            status = summarize_statuses(r.final_eval_status or "" for r in runs)
        else:
            status = summarize_statuses(m.eval_status or "" for m in metrics)
        if status == EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
            status = EvalStatus.FAILED
        out.append(EvaluationCaseResult(eval_id, status.value, runs, metrics))
    return out
