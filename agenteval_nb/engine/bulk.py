"""The bulk path: a trace-mode case scored by deterministic metrics without building a model.

Chosen once per evaluation (:func:`bulk_metrics`) when every planned metric is
``tool_trajectory_avg_score`` or ``final_response_avg_score`` with a criterion of its own (no
``compareName``: a custom compare receives models), no callbacks, no executor, the default case
aggregator, and a sink that keeps case results as text (:class:`~.options.TextSink`).

Then per case (:func:`bulk_case`): the case's decoded wire data (orjson, under the loader's
rules) is scored when it is a plain trace case in wire form (:func:`~agenteval_nb.schema.plain
.is_wire`): ``evalMode`` ``trace``, ``sessionInput`` given, recorded and expected turns of the
same non-zero count with ``userContent`` in every recorded turn, and no case-level
``contextMessages``, ``rubrics``, ``conversationScenario`` or ``expectedRunnerEnabled``. The
evaluators' own per-turn rule (:meth:`~agenteval_nb.evaluators.deterministic.MatchEvaluator
.turn_verdicts`) runs on views of that data; the case result is the plain dict its model would
write (the turns are the input's own wire data) and its text the bytes the model path writes.
Any other case (and any error) returns ``None``: it takes the model path, which gives it its
failure text. Its result reaches the tables and the summary through a view, as a model would.
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
)
from ..schema.plain import is_wire, view, view_class
from .aggregate import CaseAggregationInput, default_case_aggregator
from .case import PlannedMetric
from .options import EngineOptions, TextSink
from .summary import wire_dict

_BULK_EVALUATORS = (ToolTrajectoryEvaluator, FinalResponseEvaluator)
_MODEL_ONLY_KEYS = ("contextMessages", "rubrics", "conversationScenario", "expectedRunnerEnabled")
"""Case keys whose rules only the model path applies."""


MetricResult = tuple[dict[str, Any], Any]
"""A metric result as its wire dict and its view."""


@dataclass(frozen=True, slots=True)
class BulkMetric:
    """A planned metric as the bulk path scores it: its evaluator and criterion, and the
    criterion as its wire dict and view (in every metric result)."""

    name: str
    evaluator: MatchEvaluator
    criterion: Any
    criterion_wire: dict[str, Any]
    criterion_view: Any
    threshold: float | None
    """As written (``threshold`` of the metric)."""
    pass_threshold: float
    """As the pass rule reads it (``threshold_value``)."""
    shared: dict[tuple[bool, float], MetricResult] = field(default_factory=dict)
    """Metric results without a reason, by (per turn?, score): the same for every case, so
    built once and shared (they are only encoded and read)."""

    def turn_result(self, score: float, reason: str) -> MetricResult:
        """A turn's metric result (the model path's, :mod:`.case`)."""
        if not reason and (True, score) in self.shared:
            return self.shared[(True, score)]
        value = wire_dict(ScoreValue, kind="numeric", numeric=score)
        details = wire_dict(
            EvalMetricResultDetails, reason=reason or None, score=score, value=value
        )
        result = self._result(score, str(status_for(score, self.pass_threshold)), details)
        if not reason:
            self.shared[(True, score)] = result
        return result

    def overall_result(self, scores: list[float], reason: str | None) -> MetricResult:
        """The metric's overall result over the turns' scores."""
        score, status = mean_score(scores, self.pass_threshold)
        if reason is None and (False, score) in self.shared:
            return self.shared[(False, score)]
        details = wire_dict(EvalMetricResultDetails, reason=reason, score=score)
        result = self._result(score, status, details)
        if reason is None:
            self.shared[(False, score)] = result
        return result

    def _result(self, score: float, status: str, details: dict[str, Any]) -> MetricResult:
        fields: dict[str, Any] = {
            "metric_name": self.name,
            "score": score,
            "eval_status": status,
            "threshold": self.threshold,
        }
        wire = wire_dict(EvalMetricResult, **fields, criterion=self.criterion_wire, details=details)
        seen = view_class(EvalMetricResult)(
            **fields,
            criterion=self.criterion_view,
            details=view(EvalMetricResultDetails, details),
        )
        return wire, seen


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
        if criterion.compare_name:
            return None
        metrics.append(
            BulkMetric(
                metric.metric_name,
                evaluator,
                criterion,
                wire,
                view(Criterion, wire),
                metric.threshold,
                metric.threshold_value,
            )
        )
    return tuple(metrics)


def _takes(data: Any) -> bool:
    """True when the bulk path scores this decoded case (see the module)."""
    if type(data) is not dict or data.get("evalMode") != "trace":
        return False
    if any(key in data for key in _MODEL_ONLY_KEYS) or "sessionInput" not in data:
        return False
    expected, actual = data.get("conversation"), data.get("actualConversation")
    if not expected or not actual or type(expected) is not list or type(actual) is not list:
        return False
    if len(expected) != len(actual):
        return False
    if not all(type(turn) is dict and "userContent" in turn for turn in actual):
        return False
    return is_wire(EvalCase, data, ordered=False)


def bulk_case(
    metrics: tuple[BulkMetric, ...],
    data: Any,
    set_id: str,
    run_id: int,
    session_id: str,
    hooks: Hooks,
) -> BulkCase | None:
    """Case ``data`` scored on the bulk path, or ``None``: it takes the model path."""
    if not _takes(data):
        return None
    case = view(EvalCase, data)
    actuals, expecteds = case.actual_conversation, case.conversation
    n_turns = len(actuals)
    per_turn: list[list[MetricResult]] = [[] for _ in range(n_turns)]
    overall: list[MetricResult] = []
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
    overall_views = [read for _, read in overall]
    outcome = default_case_aggregator(
        CaseAggregationInput(
            app_name="",
            eval_set_id=set_id,
            eval_case=case,
            inference_result=None,
            eval_metrics=(),
            metric_results=overall_views,
        )
    )
    head: dict[str, Any] = {
        "eval_set_id": set_id,
        "eval_id": data["evalId"],
        "run_id": run_id,
        "score": outcome.score,
        "final_eval_status": str(outcome.status),
    }
    tail: dict[str, Any] = {
        "session_id": session_id,
        "user_id": data["sessionInput"].get("userId"),
    }
    result = wire_dict(
        EvalCaseResult,
        **head,
        overall_eval_metric_results=[wire for wire, _ in overall],
        eval_metric_result_per_invocation=[
            wire_dict(
                EvalMetricResultPerInvocation,
                actual_invocation=data["actualConversation"][i],
                expected_invocation=data["conversation"][i],
                eval_metric_results=[wire for wire, _ in per_turn[i]],
            )
            for i in range(n_turns)
        ],
        **tail,
    )
    turn_view = view_class(EvalMetricResultPerInvocation)
    result_view = view_class(EvalCaseResult)(
        **head,
        overall_eval_metric_results=overall_views,
        eval_metric_result_per_invocation=[
            turn_view(
                actual_invocation=actuals[i],
                expected_invocation=expecteds[i],
                eval_metric_results=[read for _, read in per_turn[i]],
            )
            for i in range(n_turns)
        ],
        **tail,
    )
    return BulkCase(case, result_view, decoded_text(result))
