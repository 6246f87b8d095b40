"""Template variable bindings (SPEC §6.2): where each ``{{name}}`` gets its text.

Bindings are processed in list order: a null binding ⇒ ``template binding is nil``; an empty
``templateVariable`` ⇒ ``templateVariable is empty``; a repeated one ⇒ ``templateVariable "x"
is duplicated``; a resolution error ⇒ ``resolve template variable "x": <error>``; a null source
⇒ ``source is nil``.

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
``source.path`` is then applied (:mod:`.jsonpath`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ....schema import EvalMetric, Invocation, Step, VariableBinding
from ....schema.metric import BindingSource
from ..content import text, visible_rubrics
from ..gojson import Struct, go_quote, marshal
from .jsonpath import extract

__all__ = ["BindingError", "resolve_bindings", "resolve_source"]


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
