"""Case aggregation: metric results → case score and status (SPEC §8.2, §8.7)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from ..schema import EvalCase, EvalMetric, EvalMetricResult, EvalStatus, summarize_statuses


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
