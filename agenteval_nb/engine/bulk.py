"""The bulk path: a trace-mode case scored by deterministic metrics without building a model.

Chosen once per evaluation (:func:`bulk_metrics`) when every planned metric is
``tool_trajectory_avg_score`` or ``final_response_avg_score`` with a criterion of its own (no
``compareName``: a custom compare receives models), no callbacks, no executor, the default case
aggregator, and a sink that keeps case results as text (:class:`~.options.TextSink`).

Then per case (:func:`bulk_case`): the case's decoded data (orjson, under the loader's rules;
for an eval set or dict in hand, the data of the case's file text) is scored when it is plain
(:func:`~agenteval_nb.schema.plain.view`: it reads into the case's view struct exactly as the
model would) and a plain trace case: ``evalMode`` ``trace``,
``sessionInput`` given, recorded and expected turns of the same non-zero count with
``userContent`` in every recorded turn, none with a text gap
(:mod:`.text_gaps`), and no case-level ``contextMessages``, ``rubrics``,
``conversationScenario`` or ``expectedRunnerEnabled``. The evaluators' own per-turn rule
(:meth:`~agenteval_nb.evaluators.deterministic.MatchEvaluator.turn_verdicts`) runs on the
views; the case result is built as a view (holding the case's own turn views), which the
tables and the summary read, and its text is the bytes the model path writes: the view's wire
data (:func:`~agenteval_nb.schema.plain.wire_of`, one C call for the whole result) encoded.
Any other case (and any error) returns ``None``: it takes the model path, which gives it its
failure text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..criteria.hooks import Hooks
from ..evaluators.deterministic import (
    FinalResponseEvaluator,
    MatchEvaluator,
    ToolTrajectoryEvaluator,
    mean_score,
)
from ..io import decoded_text
from ..schema import (
    Criterion,
    EvalCase,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    ScoreValue,
    status_for,
    text_gap_reason,
)
from ..schema.plain import view, view_class, wire_of
from .aggregate import CaseAggregationInput, default_case_aggregator
from .case import PlannedMetric
from .options import EngineOptions, TextSink

_BULK_EVALUATORS = (ToolTrajectoryEvaluator, FinalResponseEvaluator)
_MODEL_ONLY_FIELDS = (
    "context_messages",
    "rubrics",
    "conversation_scenario",
    "expected_runner_enabled",
)
"""Case fields whose rules only the model path applies."""


@dataclass(frozen=True, slots=True)
class BulkMetric:
    """A planned metric as the bulk path scores it: its evaluator and criterion, and the
    criterion's view (in every metric result)."""

    name: str
    evaluator: MatchEvaluator
    criterion: Any
    criterion_view: Any
    threshold: float | None
    """As written (``threshold`` of the metric)."""
    pass_threshold: float
    """As the pass rule reads it (``threshold_value``)."""
    shared: dict[tuple[bool, float], Any] = field(default_factory=dict)
    """Metric result views without a reason, by (per turn?, score): the same for every case,
    so built once and shared (frozen: they are only encoded and read)."""

    def turn_result(self, score: float, reason: str) -> Any:
        """A turn's metric result (the model path's, :mod:`.case`)."""
        if not reason and (True, score) in self.shared:
            return self.shared[(True, score)]
        value = {"kind": "numeric", "numeric": score}
        details = {"reason": reason or None, "score": score, "value": value}
        result = self._result(score, str(status_for(score, self.pass_threshold)), details)
        if not reason:
            self.shared[(True, score)] = result
        return result

    def overall_result(self, scores: list[float], reason: str | None) -> Any:
        """The metric's overall result over the turns' scores."""
        score, status = mean_score(scores, self.pass_threshold)
        if reason is None and (False, score) in self.shared:
            return self.shared[(False, score)]
        result = self._result(score, status, {"reason": reason, "score": score})
        if reason is None:
            self.shared[(False, score)] = result
        return result

    def _result(self, score: float, status: str, details: dict[str, Any]) -> Any:
        """The metric result view of these values; ``details``: its details' field values
        (its ``value``: the score value's)."""
        value = details.pop("value", None)
        seen_details = view_class(EvalMetricResultDetails)(
            **details,
            value=None if value is None else view_class(ScoreValue)(**value),
        )
        return view_class(EvalMetricResult)(
            metric_name=self.name,
            score=score,
            eval_status=status,
            threshold=self.threshold,
            criterion=self.criterion_view,
            details=seen_details,
        )


@dataclass(frozen=True, slots=True)
class BulkCase:
    """A case scored on the bulk path: its result's file text and views of the case and result."""

    case: Any
    result: Any
    text: bytes


def bulk_metrics(
    options: EngineOptions, plan: list[PlannedMetric]
) -> tuple[BulkMetric, ...] | None:
    """The plan as the bulk path runs it, or ``None`` when the evaluation cannot take it (the
    module's rule)."""
    if (
        not plan
        or options.callbacks
        or options.executor is not None
        or options.case_aggregator is not default_case_aggregator
        or not isinstance(options.sink, TextSink)
    ):
        return None
    metrics = []
    for planned in plan:
        evaluator, metric = planned.evaluator, planned.metric
        if type(evaluator) not in _BULK_EVALUATORS or metric.criterion is None:
            return None
        assert isinstance(evaluator, MatchEvaluator)
        try:
            criterion = evaluator.criterion_of(metric)
            wire = orjson.loads(metric.criterion.model_dump_json(by_alias=True, exclude_none=True))
        except Exception:  # no criterion of its kind, or one orjson cannot hold exactly
            return None
        criterion_view = view(Criterion, wire)
        if criterion.compare_name or criterion_view is None:
            return None
        metrics.append(
            BulkMetric(
                metric.metric_name,
                evaluator,
                criterion,
                criterion_view,
                metric.threshold,
                metric.threshold_value,
            )
        )
    return tuple(metrics)


def takes(case: Any) -> bool:
    """True when the bulk path scores this case (see the module): a view, or a model (the
    views carry the models' attribute names), read before its text is built."""
    if case.eval_mode != "trace" or case.session_input is None:
        return False
    if any(getattr(case, name) is not None for name in _MODEL_ONLY_FIELDS):
        return False
    expected, actual = case.conversation, case.actual_conversation
    if not expected or not actual or len(expected) != len(actual):
        return False
    return all(turn.user_content is not None and text_gap_reason(turn) is None for turn in actual)


def bulk_case(
    metrics: tuple[BulkMetric, ...],
    data: Any,
    set_id: str,
    run_id: int,
    session_id: str,
    hooks: Hooks,
) -> BulkCase | None:
    """Case ``data`` scored on the bulk path, or ``None``: it takes the model path."""
    case = view(EvalCase, data)
    if case is None or not takes(case):
        return None
    actuals, expecteds = case.actual_conversation, case.conversation
    n_turns = len(actuals)
    per_turn: list[list[Any]] = [[] for _ in range(n_turns)]
    overall: list[Any] = []
    for metric in metrics:
        try:
            verdicts = metric.evaluator.turn_verdicts(metric.criterion, actuals, expecteds, hooks)
        except Exception:
            return None
        scores = [1.0 if matched else 0.0 for matched, _ in verdicts]
        for i, ((_, reason), score) in enumerate(zip(verdicts, scores, strict=True)):
            per_turn[i].append(metric.turn_result(score, reason))
        joined = ";".join(reason for _, reason in verdicts if reason) or None
        overall.append(metric.overall_result(scores, joined))
    outcome = default_case_aggregator(
        CaseAggregationInput(
            app_name="",
            eval_set_id=set_id,
            eval_case=case,
            inference_result=None,
            eval_metrics=(),
            metric_results=overall,
        )
    )
    turn_view = view_class(EvalMetricResultPerInvocation)
    result = view_class(EvalCaseResult)(
        eval_set_id=set_id,
        eval_id=case.eval_id,
        run_id=run_id,
        score=outcome.score,
        final_eval_status=str(outcome.status),
        overall_eval_metric_results=overall,
        eval_metric_result_per_invocation=[
            turn_view(
                actual_invocation=actuals[i],
                expected_invocation=expecteds[i],
                eval_metric_results=per_turn[i],
            )
            for i in range(n_turns)
        ],
        session_id=session_id,
        user_id=case.session_input.user_id,
    )
    return BulkCase(case, result, decoded_text(wire_of(result)))
