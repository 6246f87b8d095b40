"""Decoding JSON text the way Go's ``json.Decoder`` does, with Go's error texts.

:class:`RawJSON` marks text that a criterion must decode first (Go ``json.RawMessage``; the
final-response content is passed this way). :func:`decode_json_text` accepts exactly one JSON
value surrounded by JSON whitespace and fails with Go's messages:

* empty / whitespace-only input: ``"EOF"``; input ending inside a value: ``"unexpected EOF"``;
* a syntax error: ``"invalid character 'x' looking for beginning of value"`` and the other
  contexts of Go's scanner (``after object key``, ``in string literal``, ...);
* a second value after the first: ``"multiple json values"``;
* a number outside float64: ``"json: cannot unmarshal number N into Go value of type float64"``.

Python's decoder does the work on the happy path; the Go-style scanner below only runs to
word the error. ``NaN`` / ``Infinity`` are rejected, as in Go.
"""

from __future__ import annotations

import json
import math
from typing import Any

_WS = " \t\n\r"
_HEX = "0123456789abcdefABCDEF"
_ESCAPES = 'bfnrt\\/"'


class RawJSON(str):
    """JSON text to be decoded by the criterion (Go ``json.RawMessage``)."""

    __slots__ = ()


class JSONTextError(ValueError):
    """The text is not one valid JSON value; ``str(err)`` is Go's error text."""


class _Reject(Exception):
    """A value Python accepts but Go does not."""


def _reject_constant(name: str) -> Any:
    raise _Reject(name)


def _float64(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Reject(f"json: cannot unmarshal number {text} into Go value of type float64")
    return value


def _int64ish(text: str) -> int:
    value = int(text)
    if len(text) > 300:
        try:
            float(value)
        except OverflowError:
            raise _Reject(
                f"json: cannot unmarshal number {text} into Go value of type float64"
            ) from None
    return value


_GO_DECODER = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_float64, parse_int=_int64ish
)
_NUMBER_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def decode_json_text(text: str, *, keep_numbers: bool = False) -> Any:
    """Decode one JSON value; raise :class:`JSONTextError` with Go's text otherwise.

    ``keep_numbers=True`` mirrors Go's ``UseNumber`` (no float64 range check).
    """
    start = _skip_ws(text, 0)
    if start == len(text):
        raise JSONTextError("EOF")
    decoder = _NUMBER_DECODER if keep_numbers else _GO_DECODER
    try:
        value, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError:
        raise JSONTextError(go_json_error(text) or "invalid JSON") from None
    except _Reject as exc:
        raise JSONTextError(go_json_error(text, first_only=True) or str(exc)) from None
    if _skip_ws(text, end) < len(text):
        raise JSONTextError(go_json_error(text) or "multiple json values")
    return value


def go_quote_char(c: str) -> str:
    """Go's ``quoteChar`` of the first byte of ``c``: ``'x'``, ``'\\n'``, ``'\\''``."""
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    code = ord(c)
    if code >= 0x80:
        return f"'\\x{c.encode('utf-8', 'surrogatepass')[0]:02x}'"
    named = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    named["\v"] = "\\v"
    named["\\"] = "\\\\"
    if c in named:
        return f"'{named[c]}'"
    if code < 0x20 or code == 0x7F:
        return f"'\\x{code:02x}'"
    return f"'{c}'"


class _SyntaxError(Exception):
    pass


class _UnexpectedEOF(Exception):
    pass


class _GoScanner:
    """A validating scanner with the contexts of Go's ``encoding/json`` scanner."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)

    def _error(self, i: int, context: str) -> _SyntaxError:
        return _SyntaxError(f"invalid character {go_quote_char(self.s[i])} {context}")

    def _at(self, i: int) -> str:
        if i >= self.n:
            raise _UnexpectedEOF
        return self.s[i]

    def value(self, i: int, context: str = "looking for beginning of value") -> int:
        c = self._at(i)
        if c == "{":
            return self._object(i)
        if c == "[":
            return self._array(i)
        if c == '"':
            return self._string(i)
        if c == "-" or "0" <= c <= "9":
            return self._number(i)
        for word in ("true", "false", "null"):
            if c == word[0]:
                return self._literal(i, word)
        raise self._error(i, context)

    def _object(self, i: int) -> int:
        i = _skip_ws(self.s, i + 1)
        if self._at(i) == "}":
            return i + 1
        while True:
            if self._at(i) != '"':
                raise self._error(i, "looking for beginning of object key string")
            i = _skip_ws(self.s, self._string(i))
            if self._at(i) != ":":
                raise self._error(i, "after object key")
            i = _skip_ws(self.s, self.value(_skip_ws(self.s, i + 1)))
            c = self._at(i)
            if c == "}":
                return i + 1
            if c != ",":
                raise self._error(i, "after object key:value pair")
            i = _skip_ws(self.s, i + 1)

    def _array(self, i: int) -> int:
        i = _skip_ws(self.s, i + 1)
        if self._at(i) == "]":
            return i + 1
        while True:
            i = _skip_ws(self.s, self.value(i))
            c = self._at(i)
            if c == "]":
                return i + 1
            if c != ",":
                raise self._error(i, "after array element")
            i = _skip_ws(self.s, i + 1)

    def _string(self, i: int) -> int:
        i += 1
        while True:
            c = self._at(i)
            if c == '"':
                return i + 1
            if c == "\\":
                e = self._at(i + 1)
                if e == "u":
                    for k in range(i + 2, i + 6):
                        if self._at(k) not in _HEX:
                            raise self._error(k, "in \\u hexadecimal character escape")
                    i += 6
                    continue
                if e not in _ESCAPES:
                    raise self._error(i + 1, "in string escape code")
                i += 2
                continue
            if ord(c) < 0x20:
                raise self._error(i, "in string literal")
            i += 1

    def _digits(self, i: int) -> int:
        while i < self.n and "0" <= self.s[i] <= "9":
            i += 1
        return i

    def _number(self, i: int) -> int:
        if self.s[i] == "-":
            i += 1
            if not "0" <= self._at(i) <= "9":
                raise self._error(i, "in numeric literal")
        i = i + 1 if self.s[i] == "0" else self._digits(i)
        if i < self.n and self.s[i] == ".":
            i += 1
            if not "0" <= self._at(i) <= "9":
                raise self._error(i, "after decimal point in numeric literal")
            i = self._digits(i)
        if i < self.n and self.s[i] in "eE":
            i += 1
            if self._at(i) in "+-":
                i += 1
            if not "0" <= self._at(i) <= "9":
                raise self._error(i, "in exponent of numeric literal")
            i = self._digits(i)
        return i

    def _literal(self, i: int, word: str) -> int:
        for k, expected in enumerate(word):
            if self._at(i + k) != expected:
                raise self._error(i + k, f"in literal {word} (expecting {go_quote_char(expected)})")
        return i + len(word)


def go_json_error(text: str, *, first_only: bool = False) -> str | None:
    """Go ``Decoder``'s error for ``text`` read as one value, or ``None`` if Go accepts it."""
    scanner = _GoScanner(text)
    start = _skip_ws(text, 0)
    if start == len(text):
        return "EOF"
    try:
        end = scanner.value(start)
        if first_only:
            return None
        rest = _skip_ws(text, end)
        if rest == len(text):
            return None
        scanner.value(rest)
        return "multiple json values"
    except _SyntaxError as exc:
        return str(exc)
    except _UnexpectedEOF:
        return "unexpected EOF"


def _bad_float(value: Any) -> float | None:
    if isinstance(value, float) and not math.isfinite(value):
        return value
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, dict | list | tuple):
        for child in children:
            bad = _bad_float(child)
            if bad is not None:
                return bad
    return None


def marshal_check(value: Any) -> None:
    """Raise JSONTextError where Go ``json.Marshal`` fails (NaN/Inf, non-JSON types)."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        bad = _bad_float(value)
        shown = "NaN" if bad is None or math.isnan(bad) else ("+Inf" if bad > 0 else "-Inf")
        raise JSONTextError(f"json: unsupported value: {shown}") from None
    except TypeError:
        raise JSONTextError(f"json: unsupported type: {type(value).__name__}") from None
