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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...schema import EvalMetric, Invocation, Step, VariableBinding
from ...schema.metric import BindingSource
from .gojson import GoJSONError, Struct, decode_literal, go_quote, marshal
from .judge_text import text, visible_rubrics

__all__ = [
    "BindingError",
    "JSONPathError",
    "extract",
    "parse_path",
    "resolve_bindings",
    "resolve_source",
]


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


# restricted JSONPath ------------------------------------------------------------------------


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
