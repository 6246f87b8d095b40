"""JSON as Go's ``encoding/json`` writes it, for text that ends up in judge prompts.

Rules (SPEC §0):

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
from typing import Any

from ...criteria.gofmt import exponent_form, go_quote, positional_form, shortest_digits
from ...criteria.rawjson import go_json_error

__all__ = [
    "GoJSONError",
    "LiteralNumber",
    "Struct",
    "decode_literal",
    "go_json_float",
    "go_quote",
    "marshal",
]


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
