"""Case aggregation: metric results → case score and status (SPEC §8.2, §8.7)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from ..schema import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalStatus,
    summarize_statuses,
)
from ..schema.status import by_metric, case_status, combine_runs, is_evaluated


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
    """Group case results by eval id and combine each case's runs (SPEC §8.7).

    Per metric (by name): :func:`~agenteval_nb.schema.status.combine_runs` — mean of the
    evaluated runs, the first evaluated run's threshold, status by the pass rule — with the last
    evaluated run's ``criterion``; a metric no run evaluated is left out. The case status is
    :func:`~agenteval_nb.schema.status.case_status`, a single run being a case with one
    result. Cases follow ``case_order``, then unknown ids in lexicographic order.
    """
    groups: dict[str, list[EvalCaseResult]] = {}
    for result in case_results:
        groups.setdefault(result.eval_id or "", []).append(result)
    position = {eval_id: i for i, eval_id in enumerate(case_order)}
    ordered = sorted(groups, key=lambda e: (e not in position, position.get(e, 0), e))
    out = []
    for eval_id in ordered:
        runs = groups[eval_id]
        metrics = _combined_metrics(m for r in runs for m in r.overall_eval_metric_results or ())
        status = case_status(
            (r.final_eval_status for r in runs),
            (m.eval_status for m in metrics),
            any(r.error_message for r in runs),
            single_run=len(runs) <= 1,
        )
        out.append(EvaluationCaseResult(eval_id, status.value, runs, metrics))
    return out


def _combined_metrics(results: Iterable[EvalMetricResult]) -> list[EvalMetricResult]:
    """One result per metric evaluated in some run, by name (:func:`combine_runs`)."""
    out = []
    for name, group in by_metric(results, attrgetter("metric_name")):
        combined = combine_runs((m.score, m.eval_status, m.threshold) for m in group)
        if combined.n_evaluated == 0:
            continue
        evaluated = [m for m in group if is_evaluated(m.eval_status)]
        out.append(
            EvalMetricResult(
                metric_name=name,
                score=combined.score,
                eval_status=combined.status.value,
                threshold=combined.threshold or 0.0,
                criterion=evaluated[-1].criterion,
            )
        )
    return out
