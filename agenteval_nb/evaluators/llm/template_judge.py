"""``llm_judge_template``: a user-written judge prompt with named operators (SPEC §6).

Messages (§6.1), errors in order: ``missing llm judge criterion``, ``template is nil``,
``template prompt is empty``, ``template responseScorerName is empty``; then the bindings
(below, §6.2–§6.3) and the rendering (errors prefixed ``render template prompt: ``); the result
is one ``user`` message.

Bindings (§6.2) say where each ``{{name}}`` gets its text, processed in list order: a null
binding ⇒ ``template binding is nil``; an empty ``templateVariable`` ⇒ ``templateVariable is
empty``; a repeated one ⇒ ``templateVariable "x" is duplicated``; a resolution error ⇒ ``resolve
template variable "x": <error>``; a null source ⇒ ``source is nil``.

* ``actual.userContent`` / ``actual.finalResponse``: text of the last actual turn's message
  (``""`` if absent);
* ``actual.traceStepInput`` / ``traceStepOutput``: ``Input.Text`` / ``Output.Text`` of the
  selected step; empty ⇒ ``trace snapshot is empty for actual.<field> nodeID "<id>" at
  invocation index <i>``;
* ``actual.traceStepTools``: compact JSON ``[{id?, name?, arguments?, result?, error?}]`` in
  call order (``[]`` when none);
* ``actual.traceStepSkills``: compact JSON ``[{name?}]`` (``[]`` when none);
* ``expected.finalResponse``: text of the last expected final response; null ⇒ ``expected
  finalResponse is empty``;
* ``metric.rubrics``: compact JSON of the visible rubrics ``[{id?, content: {text?},
  description?, type?}]`` (case rubrics included); none ⇒ ``metric rubrics are empty``.

Anything else ⇒ ``unsupported source <scope>.<field>``. Empty actuals ⇒ ``actuals is empty``, a
null last actual ⇒ ``actual invocation is nil`` (``expecteds is empty`` / ``expected invocation
is nil`` likewise). Trace steps: ``selector.nodeID`` is required (``trace selector nodeID is
required``, not trimmed); the last actual needs an ``executionTrace`` (``executionTrace is empty
for actual.<field> at invocation index <i>``); the **last** step with that ``NodeID`` wins, none
⇒ ``trace step not found for actual.<field> nodeID "<id>" at invocation index <i>``. A non-empty
``source.path`` is then applied (the restricted JSONPath below).

Restricted JSONPath of ``source.path`` (SPEC §6.3):

* The bound text is parsed as exactly one JSON value, numbers kept literal; failure ⇒
  ``parse source json for path "<p>": <Go decoder error>`` (a second value ⇒ ``multiple JSON
  values``).
* Grammar: optional root ``$``, which must be followed by nothing, ``.`` or ``[`` (``json path
  "<p>" has invalid root selector``); then segments ``.key`` or ``[int]``; a bare first key
  without ``$`` is allowed (``payload.evidence``). A key runs to the next ``.`` or ``[``: empty ⇒
  ``missing key``, containing ``]`` ⇒ ``has unexpected ]``, containing ``*`` ⇒ ``contains
  unsupported wildcard``. An index runs to the next ``]`` (none ⇒ ``missing ]``), empty ⇒
  ``missing index``, else a signed decimal integer or ``has invalid index "<raw>"``. A key
  right after ``]`` without a dot ⇒ ``missing delimiter before key``. No quoted keys,
  filters, wildcards, slices or dots inside keys.
* Evaluation: key on a non-object ⇒ ``json path "<p>" expects object before key "<k>"``;
  absent key ⇒ ``json path "<p>" key "<k>" not found``; index on a non-array ⇒ ``expects array
  before index <n>``; ``n < 0`` or ``n >= len`` ⇒ ``index <n> out of range``.
* Rendering: a string is returned raw; ``null``/``true``/``false`` as words; a number as its
  original literal (``9007199254740993`` stays exact); objects/arrays as compact JSON with
  sorted keys and no HTML escaping. Path ``$`` renders the whole value; an empty path is not
  applied at all (the caller keeps the raw text).

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

import re
from collections.abc import Mapping, Sequence
from typing import Any

import re2

from ...schema import (
    Criterion,
    EvalMetric,
    Invocation,
    JudgeTemplateOptions,
    Step,
    VariableBinding,
)
from ...schema.metric import BindingSource
from .judge_contract import (
    InvocationsAggregator,
    JudgeStages,
    LLMJudgeEvaluator,
    PromptMessages,
    TurnInput,
)
from .judge_text import (
    GoJSONError,
    JudgeOutputError,
    Struct,
    decode_literal,
    go_quote,
    marshal,
    text,
    visible_rubrics,
)
from .operator_registry import OperatorRegistry

__all__ = [
    "BindingError",
    "JSONPathError",
    "LLMJudgeTemplateEvaluator",
    "RenderError",
    "extract",
    "parse_path",
    "prompt_text",
    "render_template",
    "resolve_bindings",
]

# bindings (§6.2) ---------------------------------------------------------------------------


class BindingError(ValueError):
    """A binding that cannot be resolved (message in the module doc)."""


def resolve_bindings(
    bindings: Sequence[VariableBinding | None] | None,
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
    metric: EvalMetric,
) -> dict[str, str]:
    """``{templateVariable: text}`` for every binding (rules in the module doc)."""
    values: dict[str, str] = {}
    for binding in bindings or ():
        if binding is None:
            raise BindingError("template binding is nil")
        name = binding.template_variable or ""
        if not name:
            raise BindingError("templateVariable is empty")
        if name in values:
            raise BindingError(f"templateVariable {go_quote(name)} is duplicated")
        try:
            values[name] = resolve_source(binding.source, actuals, expecteds, metric)
        except BindingError as exc:
            raise BindingError(f"resolve template variable {go_quote(name)}: {exc}") from None
        except ValueError as exc:
            raise BindingError(f"resolve template variable {go_quote(name)}: {exc}") from None
    return values


def resolve_source(
    source: BindingSource | None,
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
    metric: EvalMetric,
) -> str:
    """The text of one source, with its ``path`` applied when non-empty."""
    if source is None:
        raise BindingError("source is nil")
    scope, field = source.scope or "", source.field or ""
    if scope == "actual":
        value = _actual(source, actuals)
    elif scope == "expected":
        value = _expected(source, expecteds)
    elif scope == "metric":
        value = _metric(source, metric)
    else:
        raise BindingError(f"unsupported source {scope}.{field}")
    return extract(value, source.path) if source.path else value


def _actual(source: BindingSource, actuals: Sequence[Invocation | None]) -> str:
    if not actuals:
        raise BindingError("actuals is empty")
    actual = actuals[-1]
    if actual is None:
        raise BindingError("actual invocation is nil")
    field = source.field or ""
    if field == "userContent":
        return text(actual.user_content)
    if field == "finalResponse":
        return text(actual.final_response)
    if field in ("traceStepInput", "traceStepOutput"):
        step = _step(source, actuals)
        snapshot = step.input if field == "traceStepInput" else step.output
        if snapshot is None or not snapshot.text:
            raise BindingError(
                f"trace snapshot is empty for actual.{field} nodeID "
                f"{go_quote(_node_id(source))} at invocation index {len(actuals) - 1}"
            )
        return snapshot.text
    if field == "traceStepTools":
        tools = []
        for tool in _step(source, actuals).tools or ():
            item = Struct()
            if tool.id:
                item["id"] = tool.id
            if tool.name:
                item["name"] = tool.name
            if tool.arguments is not None:
                item["arguments"] = tool.arguments
            if tool.result is not None:
                item["result"] = tool.result
            if tool.error:
                item["error"] = tool.error
            tools.append(item)
        return marshal(tools)
    if field == "traceStepSkills":
        skills = [
            Struct(name=skill.name) if skill.name else Struct()
            for skill in _step(source, actuals).skills or ()
        ]
        return marshal(skills)
    raise BindingError(f"unsupported source actual.{field}")


def _node_id(source: BindingSource) -> str:
    return (source.selector.node_id if source.selector else None) or ""


def _step(source: BindingSource, actuals: Sequence[Invocation | None]) -> Step:
    node_id = _node_id(source)
    if not node_id:
        raise BindingError("trace selector nodeID is required")
    index = len(actuals) - 1
    actual = actuals[index]
    field = source.field or ""
    trace = actual.execution_trace if actual is not None else None
    if trace is None:
        raise BindingError(
            f"executionTrace is empty for actual.{field} at invocation index {index}"
        )
    found = None
    for step in trace.steps or ():
        if step is not None and step.node_id == node_id:
            found = step
    if found is None:
        raise BindingError(
            f"trace step not found for actual.{field} nodeID {go_quote(node_id)} "
            f"at invocation index {index}"
        )
    return found


def _expected(source: BindingSource, expecteds: Sequence[Invocation | None]) -> str:
    if not expecteds:
        raise BindingError("expecteds is empty")
    expected = expecteds[-1]
    if expected is None:
        raise BindingError("expected invocation is nil")
    field = source.field or ""
    if field == "finalResponse":
        if expected.final_response is None:
            raise BindingError("expected finalResponse is empty")
        return text(expected.final_response)
    raise BindingError(f"unsupported source expected.{field}")


def _metric(source: BindingSource, metric: EvalMetric) -> str:
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise BindingError("llm judge criterion is required")
    field = source.field or ""
    if field != "rubrics":
        raise BindingError(f"unsupported source metric.{field}")
    rubrics = visible_rubrics(metric)
    if not rubrics:
        raise BindingError("metric rubrics are empty")
    items = []
    for rubric in rubrics:
        item = Struct()
        if rubric.id:
            item["id"] = rubric.id
        content = Struct()
        if rubric.content is not None and rubric.content.text:
            content["text"] = rubric.content.text
        item["content"] = content
        if rubric.description:
            item["description"] = rubric.description
        if rubric.type:
            item["type"] = rubric.type
        items.append(item)
    return marshal(items)


# restricted JSONPath (§6.3) ----------------------------------------------------------------


_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


class JSONPathError(ValueError):
    """A path that cannot be parsed or applied (message in the module doc)."""


Segment = str | int


def parse_path(path: str) -> list[Segment]:
    """Segments of ``path``: ``str`` keys and ``int`` indexes."""
    q = go_quote(path)
    if not path:
        return []
    i = 0
    if path[0] == "$":
        i = 1
        if len(path) > 1 and path[1] not in ".[":
            raise JSONPathError(f"json path {q} has invalid root selector")
    segments: list[Segment] = []
    while i < len(path):
        ch = path[i]
        if ch == ".":
            key, i = _key(path, i + 1, q)
            segments.append(key)
        elif ch == "[":
            index, i = _index(path, i, q)
            segments.append(index)
        else:
            if segments or i != 0:
                raise JSONPathError(f"json path {q} missing delimiter before key")
            key, i = _key(path, i, q)
            segments.append(key)
    return segments


def _key(path: str, start: int, q: str) -> tuple[str, int]:
    if start >= len(path):
        raise JSONPathError(f"json path {q} missing key")
    i = start
    while i < len(path) and path[i] not in ".[":
        if path[i] == "]":
            raise JSONPathError(f"json path {q} has unexpected ]")
        i += 1
    if i == start:
        raise JSONPathError(f"json path {q} missing key")
    key = path[start:i]
    if "*" in key:
        raise JSONPathError(f"json path {q} contains unsupported wildcard")
    return key, i


def _index(path: str, start: int, q: str) -> tuple[int, int]:
    end = path.find("]", start)
    if end < 0:
        raise JSONPathError(f"json path {q} missing ]")
    raw = path[start + 1 : end]
    if not raw:
        raise JSONPathError(f"json path {q} missing index")
    if not _INT.fullmatch(raw) or not -_INT64 <= int(raw) < _INT64:
        raise JSONPathError(f"json path {q} has invalid index {go_quote(raw)}")
    return int(raw), end + 1


def render(value: Any) -> str:
    """A JSON value as template text (module rules)."""
    if isinstance(value, str):  # plain text, or a literal number's source text
        return str(value)
    return marshal(value, escape_html=False)


def extract(raw: str, path: str) -> str:
    """Apply ``path`` to the JSON text ``raw`` and render the result (module rules)."""
    q = go_quote(path)
    try:
        current = decode_literal(raw)
    except GoJSONError as exc:
        raise JSONPathError(f"parse source json for path {q}: {exc}") from None
    for segment in parse_path(path):
        if isinstance(segment, str):
            if not isinstance(current, dict):
                raise JSONPathError(f"json path {q} expects object before key {go_quote(segment)}")
            if segment not in current:
                raise JSONPathError(f"json path {q} key {go_quote(segment)} not found")
            current = current[segment]
        else:
            if not isinstance(current, list):
                raise JSONPathError(f"json path {q} expects array before index {segment}")
            if segment < 0 or segment >= len(current):
                raise JSONPathError(f"json path {q} index {segment} out of range")
            current = current[segment]
    return render(current)


# rendering (§6.4) --------------------------------------------------------------------------

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


# the judge --------------------------------------------------------------------------------


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
