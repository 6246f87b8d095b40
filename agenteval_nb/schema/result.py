"""Result file (SPEC §1.5): ``<base>/<app>/<evalSetResultId>.evalset_result.json``.

Status fields are plain strings (see :class:`~agenteval_nb.schema.status.EvalStatus`) so that a
file from a newer framework with a new status still loads.
"""

from __future__ import annotations

from .base import WireModel
from .evalset import EpochTime, Invocation
from .metric import Criterion


class ScoreValue(WireModel):
    """Typed score: ``kind`` is numeric, boolean or categorical."""

    kind: str | None = None
    numeric: float | None = None
    boolean: bool | None = None
    categorical: str | None = None


class RubricScore(WireModel):
    id: str | None = None
    reason: str | None = None
    score: float | None = None


class EvalMetricResultDetails(WireModel):
    """Reason, score, typed value and rubric scores of one metric result.

    agenteval_nb keeps judge samples, usage and verifier distributions under extra keys here;
    Go readers ignore them.
    """

    reason: str | None = None
    score: float | None = None
    value: ScoreValue | None = None
    rubric_scores: list[RubricScore] | None = None


class EvalMetricResult(WireModel):
    metric_name: str | None = None
    score: float | None = None
    eval_status: str | None = None
    threshold: float | None = None
    criterion: Criterion | None = None
    details: EvalMetricResultDetails | None = None


class EvalMetricResultPerInvocation(WireModel):
    actual_invocation: Invocation | None = None
    expected_invocation: Invocation | None = None
    eval_metric_results: list[EvalMetricResult] | None = None


class EvalCaseResult(WireModel):
    eval_set_id: str | None = None
    eval_id: str | None = None
    run_id: int | None = None
    score: float | None = None
    final_eval_status: str | None = None
    error_message: str | None = None
    overall_eval_metric_results: list[EvalMetricResult] | None = None
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation] | None = None
    session_id: str | None = None
    user_id: str | None = None


class StatusCounts(WireModel):
    passed: int | None = None
    failed: int | None = None
    not_evaluated: int | None = None


class MetricSummary(WireModel):
    metric_name: str | None = None
    average_score: float | None = None
    eval_status: str | None = None
    threshold: float | None = None
    status_counts: StatusCounts | None = None


class RunSummary(WireModel):
    run_id: int | None = None
    overall_status: str | None = None
    case_status_counts: StatusCounts | None = None
    metric_summaries: list[MetricSummary] | None = None


class CaseRunMetricResult(WireModel):
    metric_name: str | None = None
    score: float | None = None
    eval_status: str | None = None
    threshold: float | None = None


class CaseRunSummary(WireModel):
    run_id: int | None = None
    final_eval_status: str | None = None
    error_message: str | None = None
    metric_results: list[CaseRunMetricResult] | None = None


class CaseSummary(WireModel):
    eval_id: str | None = None
    overall_status: str | None = None
    run_status_counts: StatusCounts | None = None
    metric_summaries: list[MetricSummary] | None = None
    run_summaries: list[CaseRunSummary] | None = None


class EvalSetResultSummary(WireModel):
    overall_status: str | None = None
    num_runs: int | None = None
    run_status_counts: StatusCounts | None = None
    run_summaries: list[RunSummary] | None = None
    eval_case_summaries: list[CaseSummary] | None = None


class EvalSetResult(WireModel):
    eval_set_result_id: str | None = None
    eval_set_result_name: str | None = None
    eval_set_id: str | None = None
    eval_case_results: list[EvalCaseResult] | None = None
    summary: EvalSetResultSummary | None = None
    creation_timestamp: EpochTime | None = None


__all__ = [
    "CaseRunMetricResult",
    "CaseRunSummary",
    "CaseSummary",
    "EvalCaseResult",
    "EvalMetricResult",
    "EvalMetricResultDetails",
    "EvalMetricResultPerInvocation",
    "EvalSetResult",
    "EvalSetResultSummary",
    "MetricSummary",
    "RubricScore",
    "RunSummary",
    "ScoreValue",
    "StatusCounts",
]
