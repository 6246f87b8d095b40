"""Evaluation of one case in one run (SPEC §8.2 ``evaluatePerCase``)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..evaluators.base import EvaluateResult, EvaluationContext, Evaluator
from ..judge.budget import budget_refusal
from ..schema import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalStatus,
    Invocation,
    Message,
    Rubric,
    RubricContent,
)
from .aggregate import (
    CaseAggregation,
    CaseAggregationInput,
    CaseAggregator,
    check_aggregation,
)
from .inference import InferenceResult
from .text_gaps import score_scoreable_turns


class CaseError(Exception):
    """The case cannot be evaluated; it becomes a failed case result with this message."""


@dataclass(slots=True)
class PlannedMetric:
    """A metric whose evaluator was found, with whether that evaluator takes ``context``."""

    metric: EvalMetric
    evaluator: Evaluator
    wants_context: bool


def plan_metric(metric: EvalMetric, evaluator: Evaluator) -> PlannedMetric:
    try:
        params = inspect.signature(evaluator.evaluate).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    return PlannedMetric(metric, evaluator, "context" in params)


def _placeholders(invocations: Sequence[Invocation]) -> list[Invocation]:
    return [
        Invocation(invocation_id=inv.invocation_id, user_content=inv.user_content)
        for inv in invocations
    ]


def expected_turns(case: EvalCase, inference: InferenceResult) -> list[Invocation]:
    """The expected turns of a case, per mode (SPEC §8.2 step 2)."""
    if case.expected_runner_enabled:
        if not inference.expected_inferences:
            raise CaseError("expected inferences are empty")
        return list(inference.expected_inferences)
    if case.conversation_scenario is not None and not case.is_trace:
        return _placeholders(inference.inferences)
    if case.is_trace:
        if case.conversation and case.actual_conversation:
            return list(case.conversation)
        if case.conversation:
            return _placeholders(case.conversation)
        if case.actual_conversation:
            return _placeholders(case.actual_conversation)
        raise CaseError("invalid eval case")
    if not case.conversation:
        raise CaseError("invalid eval case")
    return list(case.conversation)


def with_case_context(turn: Invocation, case_context: Sequence[Message] | None) -> Invocation:
    """The turn as evaluated: itself when it has ``contextMessages`` (or the case has none),
    else a copy carrying the case's ``contextMessages`` (SPEC §8.2 step 5)."""
    if turn.context_messages or not case_context:
        return turn
    return turn.model_copy(update={"context_messages": list(case_context)})


def _with_context(turns: list[Invocation], case: EvalCase) -> list[Invocation]:
    return [with_case_context(t, case.context_messages) for t in turns]


def case_rubrics(case: EvalCase, metric_names: set[str]) -> dict[str, list[Rubric]]:
    """Case-level rubrics by target metric name, validated and normalised (SPEC §8.2 step 6)."""
    out: dict[str, list[Rubric]] = {}
    for position, rubric in enumerate(case.rubrics or (), start=1):
        if rubric is None:
            raise CaseError(f"case rubric at position {position} is nil")
        name = (rubric.metric_name or "").strip()
        rid = (rubric.id or "").strip() or f"case_rubric_{position}"
        if not name:
            raise CaseError(f"case rubric {rid}: metricName is required")
        if name not in metric_names:
            raise CaseError(f"case rubric {rid}: metric {name} is not configured")
        text = (rubric.content.text if rubric.content else None) or ""
        if not text.strip():
            raise CaseError(f"case rubric {rid}: content text is required")
        out.setdefault(name, []).append(
            Rubric(
                id=rid,
                content=RubricContent(text=text.strip()),
                description=rubric.description,
                type=(rubric.type or "").strip() or None,
            )
        )
    return out


def merge_rubrics(metric: EvalMetric, extra: list[Rubric], case_id: str) -> EvalMetric:
    """A copy of ``metric`` with case rubrics appended after its own (ids must stay unique)."""
    judge = metric.criterion.llm_judge if metric.criterion else None
    if judge is None:
        raise CaseError(
            f"case rubric {extra[0].id}: metric {metric.metric_name} llmJudge criterion is "
            "required as rubric container"
        )
    merged = [*(judge.rubrics or ()), *extra]
    seen: set[str] = set()
    for rubric in merged:
        if rubric.id:
            if rubric.id in seen:
                raise CaseError(f"case rubric {case_id}: duplicate rubric id {rubric.id}")
            seen.add(rubric.id)
    new_judge = judge.model_copy(update={"rubrics": merged})
    new_criterion = metric.criterion.model_copy(update={"llm_judge": new_judge})  # type: ignore[union-attr]
    return metric.model_copy(update={"criterion": new_criterion})


async def run_evaluator(
    planned: PlannedMetric,
    metric: EvalMetric,
    actuals: list[Invocation],
    expecteds: list[Invocation],
    *,
    context: EvaluationContext,
) -> EvaluateResult:
    if planned.wants_context:
        return await planned.evaluator.evaluate(actuals, expecteds, metric, context=context)  # type: ignore[call-arg]
    return await planned.evaluator.evaluate(actuals, expecteds, metric)


async def evaluate_case(
    *,
    app_name: str,
    eval_set_id: str,
    case: EvalCase,
    inference: InferenceResult,
    plan: Sequence[PlannedMetric],
    context: EvaluationContext,
    aggregator: CaseAggregator,
) -> EvalCaseResult:
    """Score one case; any problem becomes a failed result with ``errorMessage``, never a raise."""
    base: dict[str, Any] = {
        "eval_set_id": eval_set_id,
        "eval_id": case.eval_id,
        "session_id": inference.session_id,
        "user_id": inference.user_id,
    }
    if inference.status != EvalStatus.PASSED:
        return EvalCaseResult(
            **base, final_eval_status=EvalStatus.FAILED.value, error_message=inference.error_message
        )
    try:
        return await _evaluate_per_case(
            app_name, eval_set_id, case, inference, plan, context, aggregator, base
        )
    except Exception as exc:
        return EvalCaseResult(
            **base, final_eval_status=EvalStatus.FAILED.value, error_message=str(exc) or repr(exc)
        )


async def _evaluate_per_case(
    app_name: str,
    eval_set_id: str,
    case: EvalCase,
    inference: InferenceResult,
    plan: Sequence[PlannedMetric],
    context: EvaluationContext,
    aggregator: CaseAggregator,
    base: dict[str, Any],
) -> EvalCaseResult:
    """SPEC §8.2 ``evaluatePerCase``: the turns aligned, each metric scored over them in plan
    order, the case's outcome aggregated from the metrics' overall results."""
    actuals, expecteds = aligned_turns(case, inference)
    rubrics = case_rubrics(case, {p.metric.metric_name for p in plan}) if case.rubrics else {}
    scores = [
        await _score_metric(planned, rubrics, actuals, expecteds, context, case.eval_id)
        for planned in plan
    ]
    overall = [score.overall for score in scores]
    outcome = await _aggregate(
        aggregator,
        CaseAggregationInput(
            app_name=app_name,
            eval_set_id=eval_set_id,
            eval_case=case,
            inference_result=inference,
            eval_metrics=[score.metric for score in scores],
            metric_results=overall,
        ),
    )
    return EvalCaseResult(
        **base,
        score=outcome.score,
        final_eval_status=str(outcome.status),
        overall_eval_metric_results=overall,
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=actual,
                expected_invocation=expected,
                eval_metric_results=[score.per_turn[i] for score in scores],
            )
            for i, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True))
        ],
    )


def aligned_turns(
    case: EvalCase, inference: InferenceResult
) -> tuple[list[Invocation], list[Invocation]]:
    """The actual and expected turns, one pair per turn, each carrying the case's
    ``contextMessages`` (SPEC §8.2 steps 1–5); a case without session input, or whose turn
    counts differ, is a :class:`CaseError`."""
    if case.session_input is None:
        raise CaseError("session input is nil")
    actuals = list(inference.inferences)
    expecteds = expected_turns(case, inference)
    if len(actuals) != len(expecteds):
        raise CaseError(
            f"inference count {len(actuals)} does not match expected conversation length "
            f"{len(expecteds)}"
        )
    return _with_context(actuals, case), _with_context(expecteds, case)


@dataclass(slots=True)
class MetricScore:
    """One metric over one case: the metric as run (case rubrics merged in), its overall
    result and one result per turn."""

    metric: EvalMetric
    overall: EvalMetricResult
    per_turn: list[EvalMetricResult]


async def _score_metric(
    planned: PlannedMetric,
    rubrics: dict[str, list[Rubric]],
    actuals: list[Invocation],
    expecteds: list[Invocation],
    context: EvaluationContext,
    case_id: str,
) -> MetricScore:
    """One metric over the case's turns (SPEC §8.2 steps 6–7): its case rubrics merged in, its
    evaluator run (a raise is a :class:`CaseError` naming the metric, except a judge call the
    budget refused: :func:`_unstarted`), one result per turn."""
    metric = planned.metric
    if metric.metric_name in rubrics:
        metric = merge_rubrics(metric, rubrics[metric.metric_name], case_id)
    try:
        result = await score_scoreable_turns(
            planned.evaluator,
            actuals,
            expecteds,
            partial(run_evaluator, planned, metric, context=context),
        )
    except Exception as exc:
        refusal = budget_refusal(exc)
        if refusal is None:
            raise CaseError(f"run evaluation for metric {metric.metric_name}: {exc}") from exc
        return _unstarted(metric, len(actuals), str(refusal))
    turns = result.per_invocation_results
    if len(turns) != len(actuals):
        raise CaseError(
            f"metric {metric.metric_name} returned {len(turns)} per-invocation results, "
            f"expected {len(actuals)}"
        )
    per_turn = [
        EvalMetricResult(
            metric_name=metric.metric_name,
            score=turn.score,
            eval_status=str(turn.status),
            threshold=metric.threshold,
            criterion=turn.criterion or metric.criterion,
            details=turn.details,
        )
        for turn in turns
    ]
    return MetricScore(metric, _overall_result(metric, result), per_turn)


def _unstarted(metric: EvalMetric, turns: int, reason: str) -> MetricScore:
    """A metric whose judgement could not start (the judge budget refused a call): overall and
    every turn ``not_evaluated``, score 0, ``reason`` as given (``budget exhausted ($5.00)``).
    Calls of the metric that did run are paid and cached: a rerun with more budget reuses them."""

    def result() -> EvalMetricResult:
        return EvalMetricResult(
            metric_name=metric.metric_name,
            score=0.0,
            eval_status=EvalStatus.NOT_EVALUATED.value,
            threshold=metric.threshold,
            criterion=metric.criterion,
            details=EvalMetricResultDetails(reason=reason, score=0.0),
        )

    return MetricScore(metric, result(), [result() for _ in range(turns)])


def _overall_result(metric: EvalMetric, result: EvaluateResult) -> EvalMetricResult:
    """The metric's result for the whole case: the evaluator's overall score and status, the
    turns' reasons joined by ``;`` and their rubric scores in turn order."""
    details = [t.details for t in result.per_invocation_results if t.details is not None]
    reasons = [d.reason for d in details if d.reason]
    rubric_scores = [score for d in details for score in d.rubric_scores or ()]
    return EvalMetricResult(
        metric_name=metric.metric_name,
        score=result.overall_score,
        eval_status=str(result.overall_status),
        threshold=metric.threshold,
        criterion=metric.criterion,
        details=EvalMetricResultDetails(
            reason=";".join(reasons) or None,
            score=result.overall_score,
            rubric_scores=rubric_scores or None,
        ),
    )


async def _aggregate(aggregator: CaseAggregator, data: CaseAggregationInput) -> CaseAggregation:
    """The case aggregator's outcome (awaited when it is a coroutine), checked."""
    outcome = aggregator(data)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return check_aggregation(outcome)
