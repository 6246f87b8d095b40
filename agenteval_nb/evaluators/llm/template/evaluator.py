"""``llm_judge_template``: a user-written judge prompt with named operators (SPEC §6).

Messages (§6.1): errors in order ``missing llm judge criterion``, ``template is nil``,
``template prompt is empty``, ``template responseScorerName is empty``; then the bindings
(:mod:`.bindings`) and the rendering (:mod:`.render`, errors prefixed ``render template prompt:
``); the result is one ``user`` message.

Operators (§6.5) are resolved from the template in the evaluator's :class:`OperatorRegistry`
after the messages are built (errors then read ``resolve structured output: unsupported
response scorer "x"`` etc.): ``responseScorerName`` (built-ins ``single_score``,
``rubric_scores``, ``boolean``, ``categorical``, or any registered name),
``sampleAggregatorName`` (default ``majority_vote``), ``invocationAggregatorName`` (default
``average``) and the structured output (``structuredOutputName``, else the one registered
under the scorer's name). Register custom operators on the registry passed as ``operators=``.
(``metric.extension.operators`` is not read here: the template names its own operators.)

Result (§6.6): each turn's stored criterion is a deep copy of the metric's whose
``template.prompt`` is the prompt rendered for that turn (one message ⇒ its content; several ⇒
``[<role>]\\n<content>`` blocks joined by a blank line); the overall result keeps the raw
template.
"""

from __future__ import annotations

from typing import Any

from ....schema import Criterion, EvalMetric, JudgeTemplateOptions
from ..operator_registry import OperatorRegistry, ResolvedOperators
from ..operators import (
    InvocationsAggregator,
    PromptMessages,
    ResponseScorer,
    SamplesAggregator,
    TurnInput,
)
from ..pipeline import LLMJudgeEvaluator, maybe_await
from ..responsejson import JudgeOutputError
from .bindings import resolve_bindings
from .render import RenderError, render_template

__all__ = ["LLMJudgeTemplateEvaluator", "TemplateConstructor", "prompt_text"]

_RESOLVED = "template_operators"


def template_options(metric: EvalMetric | None) -> JudgeTemplateOptions:
    """``criterion.llmJudge.template`` (errors ``missing llm judge criterion``, ``template is
    nil``)."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise JudgeOutputError("missing llm judge criterion")
    template = metric.criterion.llm_judge.template
    if template is None:
        raise JudgeOutputError("template is nil")
    return template


def prompt_text(messages: PromptMessages) -> str:
    """The prompt as stored in a turn's criterion copy (§6.6)."""
    if len(messages) == 1:
        return messages[0].get("content") or ""
    return "\n\n".join(f"[{m.get('role') or ''}]\n{m.get('content') or ''}" for m in messages)


class TemplateConstructor:
    """Render the configured template for the turn (rules in the module doc)."""

    async def construct(self, turn: TurnInput) -> PromptMessages:
        template = template_options(turn.metric)
        if not template.prompt:
            raise JudgeOutputError("template prompt is empty")
        if not template.response_scorer_name:
            raise JudgeOutputError("template responseScorerName is empty")
        values = resolve_bindings(
            template.variable_bindings, turn.actuals, turn.expecteds, turn.metric
        )
        try:
            rendered = render_template(template.prompt, values)
        except RenderError as exc:
            raise JudgeOutputError(f"render template prompt: {exc}") from None
        return [{"role": "user", "content": rendered}]


class LLMJudgeTemplateEvaluator(LLMJudgeEvaluator):
    """The ``llm_judge_template`` evaluator; ``operators=`` holds custom operators."""

    name = "llm_judge_template"
    description = "LLM judge with a user-defined prompt template and named operators"

    def __init__(self, *, operators: OperatorRegistry | None = None) -> None:
        super().__init__(TemplateConstructor(), scorer="", operators=operators)

    def resolved(self, metric: EvalMetric) -> ResolvedOperators:
        return self.operators.resolve_template(template_options(metric))

    def check_operators(self, metric: EvalMetric) -> None:
        """Template operators are resolved per turn, after the messages (module doc)."""

    async def structured_output(self, turn: TurnInput) -> dict[str, Any] | None:
        operators = self.resolved(turn.metric)
        turn.state[_RESOLVED] = operators
        if operators.structured_output is None:
            return None
        return await maybe_await(operators.structured_output(turn))

    def _operators(self, turn: TurnInput) -> ResolvedOperators:
        operators = turn.state.get(_RESOLVED)
        return operators if operators is not None else self.resolved(turn.metric)

    def scorer_for(self, turn: TurnInput) -> ResponseScorer:
        return self._operators(turn).scorer

    def samples_aggregator_for(self, turn: TurnInput) -> SamplesAggregator:
        return self._operators(turn).samples_aggregator

    def invocations_aggregator_for(self, metric: EvalMetric) -> InvocationsAggregator:
        return self.resolved(metric).invocations_aggregator

    def turn_criterion(self, turn: TurnInput, messages: PromptMessages) -> Criterion | None:
        criterion = turn.metric.criterion
        if criterion is None or criterion.llm_judge is None or criterion.llm_judge.template is None:
            return None
        copy = criterion.model_copy(deep=True)
        assert copy.llm_judge is not None and copy.llm_judge.template is not None
        copy.llm_judge.template.prompt = prompt_text(messages)
        return copy
