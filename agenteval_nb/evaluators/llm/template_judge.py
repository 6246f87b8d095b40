"""``llm_judge_template``: a user-written judge prompt with named operators (SPEC §6).

Messages (§6.1), errors in order: ``missing llm judge criterion``, ``template is nil``,
``template prompt is empty``, ``template responseScorerName is empty``; then the bindings
(:mod:`.template_bindings`, §6.2–§6.3) and the rendering (errors prefixed ``render template
prompt: ``); the result is one ``user`` message.

Rendering (§6.4): a placeholder is ``{{`` + optional white space + a name + an optional ``?`` +
optional white space + ``}}``; the name has no white space, braces, quotes, backticks or ``?``.
Any other text — ``{{ a b }}``, single braces — is literal. A bound name is replaced by its value
verbatim (values are never re-scanned); an unbound optional ``{{x?}}`` renders as nothing;
unbound required placeholders fail the render with ``prompt: unresolved placeholders: {{x}},
{{y}}`` (unique names, sorted). Unused bindings are fine.

Scoring and aggregation (§6.5) are the operators the template names, resolved in the
evaluator's :class:`~.operator_registry.OperatorRegistry` (built-ins and resolution order
there) after the messages are built — an unknown name reads ``resolve structured output:
unsupported response scorer "x"`` etc. Register custom operators on the registry passed as
``operators=``. (``metric.extension.operators`` is not read: the template names its own.)

Result (§6.6): each turn's stored criterion is a deep copy of the metric's whose
``template.prompt`` is the prompt rendered for that turn (one message ⇒ its content; several ⇒
``[<role>]\\n<content>`` blocks joined by a blank line); the overall result keeps the raw
template.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import re2

from ...schema import Criterion, EvalMetric, JudgeTemplateOptions
from .judge_contract import (
    InvocationsAggregator,
    JudgeStages,
    LLMJudgeEvaluator,
    PromptMessages,
    TurnInput,
)
from .judge_text import JudgeOutputError
from .operator_registry import OperatorRegistry
from .template_bindings import resolve_bindings

__all__ = ["LLMJudgeTemplateEvaluator", "RenderError", "prompt_text", "render_template"]

_PLACEHOLDER = re2.compile(r"\{\{\s*([^\s{}\"'`?]+)(\?)?\s*\}\}")


class RenderError(ValueError):
    """Required placeholders without a value."""


def render_template(template: str, values: Mapping[str, str]) -> str:
    """The rendered text (§6.4 in the module doc)."""
    missing: set[str] = set()
    out: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        out.append(template[position : match.start()])
        name, optional = match.group(1), match.group(2)
        if name in values:
            out.append(values[name])
        elif not optional:
            missing.add(name)
            out.append(match.group(0))
        position = match.end()
    out.append(template[position:])
    if missing:
        listed = ", ".join("{{" + name + "}}" for name in sorted(missing))
        raise RenderError(f"prompt: unresolved placeholders: {listed}")
    return "".join(out)


def template_options(metric: EvalMetric | None) -> JudgeTemplateOptions:
    """``criterion.llmJudge.template`` (errors ``missing llm judge criterion``, ``template is
    nil``)."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise JudgeOutputError("missing llm judge criterion")
    template = metric.criterion.llm_judge.template
    if template is None:
        raise JudgeOutputError("template is nil")
    return template


def template_messages(turn: TurnInput) -> PromptMessages:
    """The rendered template of one turn (§6.1)."""
    template = template_options(turn.metric)
    if not template.prompt:
        raise JudgeOutputError("template prompt is empty")
    if not template.response_scorer_name:
        raise JudgeOutputError("template responseScorerName is empty")
    values = resolve_bindings(template.variable_bindings, turn.actuals, turn.expecteds, turn.metric)
    try:
        rendered = render_template(template.prompt, values)
    except RenderError as exc:
        raise JudgeOutputError(f"render template prompt: {exc}") from None
    return [{"role": "user", "content": rendered}]


def prompt_text(messages: PromptMessages) -> str:
    """The prompt as stored in a turn's criterion copy (§6.6)."""
    if len(messages) == 1:
        return messages[0].get("content") or ""
    return "\n\n".join(f"[{m.get('role') or ''}]\n{m.get('content') or ''}" for m in messages)


class LLMJudgeTemplateEvaluator(LLMJudgeEvaluator):
    """The ``llm_judge_template`` evaluator; ``operators=`` holds custom operators."""

    name = "llm_judge_template"
    description = "LLM judge with a user-defined prompt template and named operators"

    def __init__(self, *, operators: OperatorRegistry | None = None) -> None:
        self.registry = operators if operators is not None else OperatorRegistry.default()
        super().__init__(scorer="", operators=self.registry)

    def resolved(self, metric: EvalMetric) -> JudgeStages:
        """The stages the metric's template names (§6.5)."""
        ops = self.registry.resolve_template(template_options(metric))
        return JudgeStages(
            ops.scorer, ops.samples_aggregator, ops.invocations_aggregator, ops.structured_output
        )

    def stages_for(self, metric: EvalMetric, options: Any) -> JudgeStages | None:
        """Resolved per turn, after the messages (module doc)."""
        return None

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        return template_messages(turn)

    def turn_stages(self, turn: TurnInput, stages: JudgeStages | None) -> JudgeStages:
        return self.resolved(turn.metric)

    def invocations_aggregator(
        self, metric: EvalMetric, stages: JudgeStages | None
    ) -> InvocationsAggregator:
        return self.resolved(metric).invocations_aggregator

    def turn_criterion(self, turn: TurnInput, messages: PromptMessages) -> Criterion | None:
        criterion = turn.metric.criterion
        if criterion is None or criterion.llm_judge is None or criterion.llm_judge.template is None:
            return None
        copy = criterion.model_copy(deep=True)
        assert copy.llm_judge is not None and copy.llm_judge.template is not None
        copy.llm_judge.template.prompt = prompt_text(messages)
        return copy
