"""Result file (SPEC §1.5): ``<base>/<app>/<evalSetResultId>.evalset_result.json``.

Status fields are plain strings (see :class:`~agenteval_nb.schema.status.EvalStatus`) so that a
file from a newer framework with a new status still loads. Go's ``omitempty`` leaves out an
empty ``details.reason`` and a zero ``averageScore``; so does agenteval_nb (``wire_omit_empty``),
and both read back equal to what was written: an empty reason is held as ``None`` (absent),
``averageScore`` as the float Go holds (absent reads as ``0.0``). Other fields are written as
held (``None`` omitted).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import field_validator

from .base import OmitEmptyModel, WireModel
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


class EvalMetricResultDetails(OmitEmptyModel):
    """Reason, score, typed value and rubric scores of one metric result.

    agenteval_nb keeps judge samples, usage and verifier distributions under extra keys here;
    Go readers ignore them.
    """

    wire_omit_empty: ClassVar[frozenset[str]] = frozenset({"reason"})

    reason: str | None = None
    """No reason: ``None`` (an empty reason is stored as ``None``, and never written)."""

    @field_validator("reason", mode="before")
    @classmethod
    def _empty_reason_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

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


class MetricSummary(OmitEmptyModel):
    wire_omit_empty: ClassVar[frozenset[str]] = frozenset({"averageScore"})

    metric_name: str | None = None
    average_score: float = 0.0
    """A Go float64: absent, ``null`` and ``0`` are the same (never written when 0)."""

    @field_validator("average_score", mode="before")
    @classmethod
    def _go_float(cls, value: Any) -> Any:
        return 0.0 if value is None else value

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
