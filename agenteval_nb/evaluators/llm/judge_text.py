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

JSON in prompts is written as Go's ``encoding/json`` writes it (SPEC §0):

* maps (``dict``) are written with keys sorted; :class:`Struct` keeps its insertion order (Go
  struct fields in declaration order);
* numbers: ``int``/``float`` are float64 in Go — shortest round-trip digits, positional notation
  unless ``|x| < 1e-6`` or ``|x| >= 1e21`` (then ``1e+21`` / ``1e-7``); a :class:`LiteralNumber`
  (decoded with Go's ``UseNumber``) is written exactly as it was read; NaN/±Inf are an error
  (``json: unsupported value: NaN``);
* strings: ``"`` and ``\\`` escaped, ``\\n \\r \\t`` short, other control characters ``\\u00XX``,
  U+2028/U+2029 escaped, lone surrogates replaced by U+FFFD, other non-ASCII kept as UTF-8;
  with ``escape_html`` (Go's default ``json.Marshal``) ``<`` ``>`` ``&`` become ``\\u003c``
  ``\\u003e`` ``\\u0026``;
* ``indent`` gives Go's ``MarshalIndent`` layout (``"key": value``, empty containers ``{}``/``[]``).

:func:`decode_literal` reads exactly one JSON value keeping numbers as :class:`LiteralNumber`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from string import Template
from typing import Any

from ...criteria.gofmt import exponent_form, go_quote, positional_form, shortest_digits
from ...criteria.rawjson import JSONTextError, decode_json_text, go_json_error
from ...schema import EvalMetric, Invocation, Message, Rubric, message_text

__all__ = [
    "GoJSONError",
    "JudgeOutputError",
    "LiteralNumber",
    "Struct",
    "decode_literal",
    "field",
    "fill",
    "go_json_float",
    "go_quote",
    "go_trim",
    "json_kind",
    "json_schema_output",
    "last",
    "marshal",
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


# JSON as Go writes it -----------------------------------------------------------------------


class GoJSONError(ValueError):
    """A value Go's encoder rejects, or text Go's decoder rejects (message = Go's text)."""


class LiteralNumber(str):
    """A JSON number kept as its source text (Go ``json.Number``)."""

    __slots__ = ()


class Struct(dict):
    """An object whose keys are written in insertion order (a Go struct), not sorted."""


def go_json_float(x: float) -> str:
    """``json.Marshal`` of a float64 (see module rules)."""
    if math.isnan(x) or math.isinf(x):
        raise GoJSONError(
            f"json: unsupported value: {'NaN' if math.isnan(x) else ('+Inf' if x > 0 else '-Inf')}"
        )
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    sign = "-" if x < 0 else ""
    digits, point = shortest_digits(x)
    if abs(x) < 1e-6 or abs(x) >= 1e21:
        return exponent_form(sign, digits, point, min_width=1 if point - 1 < 0 else 2)
    return positional_form(sign, digits, point)


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def _escape(text: str, escape_html: bool) -> str:
    out: list[str] = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif escape_html and ch in _HTML:
            out.append(_HTML[ch])
        elif code in (0x2028, 0x2029):
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _encode(value: Any, escape_html: bool, indent: str | None, depth: int) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, LiteralNumber):
        return str(value)
    if isinstance(value, str):
        return _escape(value, escape_html)
    if isinstance(value, int):
        return go_json_float(float(value))
    if isinstance(value, float):
        return go_json_float(value)
    if isinstance(value, dict):
        items = list(value.items()) if isinstance(value, Struct) else sorted(value.items())
        if not items:
            return "{}"
        sep = ":" if indent is None else ": "
        parts = [
            f"{_escape(str(k), escape_html)}{sep}{_encode(v, escape_html, indent, depth + 1)}"
            for k, v in items
        ]
        return _join("{", parts, "}", indent, depth)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        parts = [_encode(v, escape_html, indent, depth + 1) for v in value]
        return _join("[", parts, "]", indent, depth)
    raise GoJSONError(f"json: unsupported type: {type(value).__name__}")


def _join(open_: str, parts: list[str], close: str, indent: str | None, depth: int) -> str:
    if indent is None:
        return open_ + ",".join(parts) + close
    inner = "\n" + indent * (depth + 1)
    return open_ + inner + ("," + inner).join(parts) + "\n" + indent * depth + close


def marshal(value: Any, *, escape_html: bool = False, indent: str | None = None) -> str:
    """Go JSON text of ``value`` (compact unless ``indent``); rules in the module doc."""
    return _encode(value, escape_html, indent, 0)


_LITERAL_DECODER = json.JSONDecoder(parse_float=LiteralNumber, parse_int=LiteralNumber)


def decode_literal(text: str) -> Any:
    """Exactly one JSON value with numbers kept literal (Go ``Decoder`` + ``UseNumber``).

    Errors (:class:`GoJSONError`, Go's text): the first value's syntax error (``EOF`` for empty
    input, ``unexpected EOF`` for a cut value); a second value after the first ⇒ ``multiple
    JSON values``; garbage after the first value ⇒ the error Go's decoder reports for it.
    """
    first_error = go_json_error(text, first_only=True)
    if first_error is not None:
        raise GoJSONError(first_error)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _LITERAL_DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:  # pragma: no cover - Go accepted what Python rejects
        raise GoJSONError(exc.msg) from None
    rest = text[end:]
    if rest.strip(_WS):
        error = go_json_error(rest, first_only=True)
        raise GoJSONError("multiple JSON values" if error is None else error)
    return value


_WS = " \t\n\r"
