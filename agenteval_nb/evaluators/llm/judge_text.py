"""The text every judge writes and reads: prompt pieces, answer decoding, JSON schemas (SPEC
§4.3 common helpers, §4.4 ``unmarshalContent``, §4.7).

Prompts:

* text of a message = its ``content`` (``""`` when absent);
* a rubric is *visible* iff it has ``content`` (even with empty text); invisible rubrics are
  ignored everywhere; ``rubrics_text`` = ``"<id>: <content.text>\\n"`` per visible rubric, in
  order (an empty id gives ``": text"``);
* ``go_trim`` strips what Go's ``strings.TrimSpace`` strips (Unicode white space), which is
  not exactly what ``str.strip`` strips;
* our prompt templates use ``${name}`` placeholders (``string.Template``), ``$$`` for a literal
  dollar; values are inserted verbatim, once, and every placeholder must be given.

Answers (``JudgeOutputError`` carries the reference's text):

* content = ``choices[0].message.content``; no response ⇒ ``response is nil``; no choices ⇒
  ``no choices in response``; for JSON answers, trimmed and empty ⇒ ``empty response text``;
* a leading fence ```` ```json ```` / ```` ```JSON ```` / ```` ``` ```` and a trailing
  ```` ``` ```` are stripped, then the text is trimmed again;
* decoding is Go's: exactly one JSON value, Go's error text, prefixed ``unmarshal response
  json: ``;
* fields are matched like Go's ``encoding/json``: exact key or, failing that, any key equal
  ignoring case; when several keys match, the last one in the document wins; ``null`` counts as
  absent; a value of the wrong JSON type is an ``unmarshal response json: json: cannot
  unmarshal …`` error; unknown keys are ignored.

Structured outputs are ``{"type": "json_schema", "json_schema": {name, description, strict:
true, schema}}``, every object with ``additionalProperties: false`` and all properties required.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from string import Template
from typing import Any

from ...criteria.rawjson import JSONTextError, decode_json_text
from ...schema import EvalMetric, Invocation, Message, Rubric, message_text

__all__ = [
    "JudgeOutputError",
    "field",
    "fill",
    "go_trim",
    "json_kind",
    "json_schema_output",
    "last",
    "object_schema",
    "response_content",
    "rubrics_text",
    "section",
    "sections",
    "text",
    "unmarshal_content",
    "user_message",
    "visible_rubrics",
]


class JudgeOutputError(ValueError):
    """The judge's answer (or the turn's input) cannot be judged; the message is the
    reference's text."""


# prompts --------------------------------------------------------------------------------------

GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def go_trim(value: str | None) -> str:
    """``strings.TrimSpace``."""
    return (value or "").strip(GO_SPACE)


def text(message: Message | None) -> str:
    """The text of a message (``""`` when absent)."""
    return message_text(message)


def last(invocations: Sequence[Invocation | None]) -> Invocation | None:
    """The last invocation of a prefix (``None`` for an empty list)."""
    return invocations[-1] if invocations else None


def visible_rubrics(metric: EvalMetric | None) -> list[Rubric]:
    """The ``criterion.llmJudge.rubrics`` with ``content``, in configured order."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        return []
    rubrics = metric.criterion.llm_judge.rubrics or []
    return [r for r in rubrics if r is not None and r.content is not None]


def rubrics_text(metric: EvalMetric | None) -> str:
    """``"<id>: <text>\\n"`` for every visible rubric."""
    return "".join(
        f"{rubric.id or ''}: {(rubric.content.text if rubric.content else None) or ''}\n"
        for rubric in visible_rubrics(metric)
    )


def fill(template: str, **values: str) -> str:
    """The template with every ``${name}`` replaced (``KeyError`` for a missing value)."""
    return Template(template).substitute(values)


def user_message(content: str) -> list[dict[str, str]]:
    """The one-user-message prompt every built-in judge sends."""
    return [{"role": "user", "content": content}]


def section(tag: str, name: str | None = None, *, close_on_new_line: bool = True) -> str:
    """A tagged placeholder block: ``<tag>``, ``${name}`` (default: the tag), ``</tag>``.

    ``close_on_new_line=False`` puts ``</tag>`` right after the placeholder, for values that
    already end with a newline (the rubrics text).
    """
    end = "\n" if close_on_new_line else ""
    return f"<{tag}>\n${{{name or tag}}}{end}</{tag}>\n"


def sections(*blocks: str) -> str:
    """Blocks of :func:`section`, each followed by a blank line."""
    return "\n".join(blocks) + "\n"


# answers --------------------------------------------------------------------------------------

_FENCES = ("```json", "```JSON", "```")


def response_content(response: Mapping[str, Any] | None) -> str:
    """``choices[0].message.content`` (errors: ``response is nil``, ``no choices in response``)."""
    if response is None:
        raise JudgeOutputError("response is nil")
    choices = response.get("choices")
    if not choices:
        raise JudgeOutputError("no choices in response")
    message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
    content = message.get("content") if isinstance(message, Mapping) else None
    return content if isinstance(content, str) else ""


def _strip_fences(value: str) -> str:
    if value.startswith("```"):
        for fence in _FENCES:
            if value.startswith(fence):
                value = value[len(fence) :]
                break
        if value.endswith("```"):
            value = value[:-3]
        value = go_trim(value)
    return value


def unmarshal_content(response: Mapping[str, Any] | None) -> Any:
    """The decoded JSON value of the answer (rules in the module doc)."""
    content = go_trim(response_content(response))
    if not content:
        raise JudgeOutputError("empty response text")
    try:
        return decode_json_text(_strip_fences(content))
    except JSONTextError as exc:
        raise JudgeOutputError(f"unmarshal response json: {exc}") from None


_GO_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "number": (int, float),
    "bool": bool,
    "array": list,
    "object": dict,
}
_GO_NAMES = {"string": "string", "number": "float64", "bool": "bool", "array": "slice"}


def json_kind(value: Any) -> str:
    """The JSON kind of a decoded value, as Go's unmarshal errors name it."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def field(obj: Any, name: str, kind: str, where: str = "") -> Any:
    """The value of ``obj[name]`` matched like Go (module rules), checked to be of JSON
    ``kind`` (``string``, ``number``, ``bool``, ``array``, ``object``); ``None`` when absent
    or ``null``. ``where`` names the field path in type errors."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise JudgeOutputError(
            f"unmarshal response json: json: cannot unmarshal {json_kind(obj)} into Go value "
            "of type object"
        )
    value: Any = None
    found = False
    folded = name.casefold()
    for key, item in obj.items():
        if key == name or key.casefold() == folded:
            value, found = item, True
    if not found or value is None:
        return None
    expected = _GO_TYPES[kind]
    ok = isinstance(value, expected) and not (kind == "number" and isinstance(value, bool))
    if not ok:
        path = f"{where}.{name}" if where else name
        raise JudgeOutputError(
            f"unmarshal response json: json: cannot unmarshal {json_kind(value)} into Go "
            f"struct field {path} of type {_GO_NAMES.get(kind, kind)}"
        )
    return value


# structured outputs ---------------------------------------------------------------------------


def json_schema_output(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` object for a strict JSON schema."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "description": description, "strict": True, "schema": schema},
    }


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema with every property required and nothing else allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
