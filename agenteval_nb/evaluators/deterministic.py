"""Deterministic evaluators (SPEC §2): ``tool_trajectory_avg_score``, ``final_response_avg_score``.

Per turn: score 1 when the criterion matches, else 0; status ``passed`` iff score >= threshold;
details ``{reason, score, value: {kind: numeric, numeric: score}}``. Reasons:
``"tool trajectory mismatch: <error>"`` (a mismatch without error leaves the reason empty, as in
the reference) and ``"final response mismatch[: <errors>]"``; a match has an empty reason.
No turns ⇒ ``not_evaluated`` with score 0; else the score is the mean and the status follows
the threshold. Case-failing errors (:class:`~.base.EvaluatorError`): the criterion is not
configured, or the turn counts differ.
"""

from __future__ import annotations

from typing import Any

from ..criteria.errors import Reason
from ..criteria.final_response import final_response_reason
from ..criteria.hooks import NO_HOOKS, Hooks
from ..criteria.trajectory import trajectory_reason
from ..schema import (
    EvalMetric,
    EvalMetricResultDetails,
    FinalResponseCriterion,
    Invocation,
    ScoreValue,
    ToolTrajectoryCriterion,
    status_for,
)
from .base import EvaluateResult, EvaluationContext, EvaluatorError, PerInvocationResult


def _hooks(context: EvaluationContext | None) -> Hooks:
    return context.hooks if context is not None else NO_HOOKS


def _turn_result(
    actual: Invocation, expected: Invocation, matched: bool, reason: str, threshold: float
) -> PerInvocationResult:
    score = 1.0 if matched else 0.0
    value = ScoreValue(kind="numeric", numeric=score)
    details = EvalMetricResultDetails(reason=reason, score=score, value=value)
    return PerInvocationResult(
        actual_invocation=actual,
        expected_invocation=expected,
        score=score,
        status=status_for(score, threshold),
        details=details,
    )


def _overall(turns: list[PerInvocationResult], threshold: float) -> EvaluateResult:
    """:func:`mean_score` of the turns."""
    score, status = mean_score([turn.score for turn in turns], threshold)
    return EvaluateResult(score, status, turns)


def _check_counts(label: str, actuals: list[Invocation], expecteds: list[Invocation]) -> None:
    if len(actuals) != len(expecteds):
        raise EvaluatorError(
            f"{label}: actual invocations ({len(actuals)}) and expected invocations "
            f"({len(expecteds)}) count mismatch"
        )


def mean_score(scores: list[float], threshold: float) -> tuple[float, str]:
    """The overall score and status of per-turn scores: their mean under the pass rule; no
    turns ⇒ not_evaluated with score 0."""
    mean = sum(scores) / len(scores) if scores else None
    return 0.0 if mean is None else mean, str(status_for(mean, threshold))


class MatchEvaluator:
    """Shared per-turn loop: a criterion match per turn, scored 1/0 and averaged.

    :meth:`turn_verdicts` is the rule; it reads the turns through their attributes only, so the
    bulk path (:mod:`agenteval_nb.engine.bulk`) runs it on views of the decoded wire data."""

    name: str
    label: str
    """Prefix of the count-mismatch error (``tooltrajectory`` / ``finalresponse``)."""

    def _criterion(self, metric: EvalMetric) -> Any:
        raise NotImplementedError

    def _reason(
        self, criterion: Any, actual: Invocation, expected: Invocation, hooks: Hooks
    ) -> Reason | None:
        raise NotImplementedError

    def _mismatch(self, text: str) -> str:
        raise NotImplementedError

    def criterion_of(self, metric: EvalMetric) -> Any:
        """The metric's criterion of this evaluator (:class:`~.base.EvaluatorError` when none)."""
        return self._criterion(metric)

    def turn_verdicts(
        self, criterion: Any, actuals: list[Any], expecteds: list[Any], hooks: Hooks
    ) -> list[tuple[bool, str]]:
        """(matched, reason) of every turn: the criterion's verdict, an empty reason on a
        match (the turn counts must be equal)."""
        _check_counts(self.label, actuals, expecteds)
        verdicts = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            cause = self._reason(criterion, actual, expected, hooks)
            verdicts.append((cause is None, "" if cause is None else self._mismatch(cause())))
        return verdicts

    async def evaluate(
        self,
        actuals: list[Invocation],
        expecteds: list[Invocation],
        metric: EvalMetric,
        *,
        context: EvaluationContext | None = None,
    ) -> EvaluateResult:
        criterion = self._criterion(metric)
        verdicts = self.turn_verdicts(criterion, actuals, expecteds, _hooks(context))
        threshold = metric.threshold_value
        turns = [
            _turn_result(actual, expected, matched, reason, threshold)
            for actual, expected, (matched, reason) in zip(
                actuals, expecteds, verdicts, strict=True
            )
        ]
        return _overall(turns, threshold)


class ToolTrajectoryEvaluator(MatchEvaluator):
    """``tool_trajectory_avg_score``: per-turn tool-call match (SPEC §3.1), averaged."""

    name = "tool_trajectory_avg_score"
    description = (
        "Compares the tool calls of each turn with the expected ones (name, arguments, result)"
    )
    label = "tooltrajectory"
    reads_text = False
    """Names, arguments and results only: turns whose text was not recovered are scored
    (:mod:`agenteval_nb.engine.text_gaps`)."""

    def _criterion(self, metric: EvalMetric) -> ToolTrajectoryCriterion:
        criterion = metric.criterion.tool_trajectory if metric and metric.criterion else None
        if criterion is None:
            raise EvaluatorError("tool trajectory criterion not configured")
        return criterion

    def _reason(
        self,
        criterion: ToolTrajectoryCriterion,
        actual: Invocation,
        expected: Invocation,
        hooks: Hooks,
    ) -> Reason | None:
        return trajectory_reason(criterion, actual, expected, hooks)

    def _mismatch(self, text: str) -> str:
        return f"tool trajectory mismatch: {text}" if text else ""


class FinalResponseEvaluator(MatchEvaluator):
    """``final_response_avg_score``: per-turn final-response match (SPEC §3.7), averaged."""

    name = "final_response_avg_score"
    description = "Compares each final response with the expected one (text, JSON, ROUGE, XML)"
    label = "finalresponse"

    def _criterion(self, metric: EvalMetric) -> FinalResponseCriterion:
        criterion = metric.criterion.final_response if metric and metric.criterion else None
        if criterion is None:
            raise EvaluatorError("final response criterion not configured")
        return criterion

    def _reason(
        self,
        criterion: FinalResponseCriterion,
        actual: Invocation,
        expected: Invocation,
        hooks: Hooks,
    ) -> Reason | None:
        return final_response_reason(criterion, actual, expected, hooks)

    def _mismatch(self, text: str) -> str:
        return f"final response mismatch: {text}" if text else "final response mismatch"
