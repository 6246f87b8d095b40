"""Reading a JSON judge answer the way the reference decodes it (SPEC §4.4 ``unmarshalContent``).

* content = ``choices[0].message.content`` trimmed; no choices ⇒ ``no choices in response``;
  empty ⇒ ``empty response text``;
* a leading fence ```` ```json ```` / ```` ```JSON ```` / ```` ``` ```` and a trailing
  ```` ``` ```` are stripped, then the text is trimmed again;
* decoding is Go's: exactly one JSON value, Go's error text, prefixed
  ``unmarshal response json: ``;
* fields are matched like Go's ``encoding/json``: exact key or, failing that, any key equal
  ignoring case; when several keys match, the last one in the document wins; ``null`` counts as
  absent; a value of the wrong JSON type is an ``unmarshal response json: json: cannot
  unmarshal …`` error; unknown keys are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...criteria.rawjson import JSONTextError, decode_json_text
from .content import go_trim

__all__ = ["JudgeOutputError", "field", "json_kind", "number", "unmarshal_content"]

_FENCES = ("```json", "```JSON", "```")


class JudgeOutputError(ValueError):
    """The judge's answer cannot be scored; the message is the reference's text."""


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


def strip_fences(text: str) -> str:
    if text.startswith("```"):
        for fence in _FENCES:
            if text.startswith(fence):
                text = text[len(fence) :]
                break
        if text.endswith("```"):
            text = text[:-3]
        text = go_trim(text)
    return text


def unmarshal_content(response: Mapping[str, Any] | None) -> Any:
    """The decoded JSON value of the answer (rules in the module doc)."""
    text = go_trim(response_content(response))
    if not text:
        raise JudgeOutputError("empty response text")
    try:
        return decode_json_text(strip_fences(text))
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


def number(value: Any) -> float | None:
    """A decoded JSON number as float (``None`` stays ``None``)."""
    return None if value is None else float(value)
