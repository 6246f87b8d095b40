"""JSON text decoded strictly, as Go's decoder reads it.

Rules (the number and depth rules are the entry rules of :mod:`agenteval_nb.io.entry_rules`);
each broken rule is a :class:`~agenteval_nb.errors.FormatError` naming the source, the JSON
path and, for whole text, the line:

* a document, not an empty file;
* valid JSON: ``NaN`` and ``Infinity`` are not JSON numbers;
* numbers within the float64 range (``1e999``; Python would read ``inf``);
* arrays/objects nested at most ``max_depth`` deep;
* ints exact, however many digits (orjson would read a 20+ digit int as a float).

Bulk path: orjson, which refuses the first three by itself, when the scans of
:mod:`agenteval_nb.io.jsonscan` say no rule orjson lets through can be broken. Whatever orjson
refuses goes through the stdlib decoder with the checks, which names the problem.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import orjson

from .._gc import gc_paused
from ..errors import FormatError
from .entry_rules import FLOAT64_MAX, MAX_DEPTH, json_path, out_of_range, too_deep
from .jsonscan import EXACT_INT_DIGITS, MAYBE_HUGE, deeper_than, has_long_digits, quick_scan

_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9][0-9.eE+-]*|[\[\]{},:]|true|false|null')


def decode_text(text: str, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """Strict JSON as Go's decoder reads it (see the module for the rules)."""
    if not text.strip():
        raise FormatError(source, "$", "a JSON document, got an empty file", line=1)
    with gc_paused(keep=True):  # millions of acyclic objects: collections cost 3× the parse
        return _decode_checked(text, source, max_depth)


def decode_json(
    data: bytes,
    source: str,
    prefix: tuple[int | str, ...] = (),
    max_depth: int = MAX_DEPTH,
    short_digits: bool = False,
) -> Any:
    """:func:`decode_text` of one value found at ``prefix`` inside ``source`` (a case of a
    streamed file), with the same rules; an error names the full JSON path (its line is not
    known).

    orjson directly when the value cannot break a rule orjson lets through (fewer brackets than
    the depth left, no digit run of :data:`~agenteval_nb.io.jsonscan.EXACT_INT_DIGITS` —
    ``short_digits``: the caller checked the whole file with
    :func:`~agenteval_nb.io.jsonscan.short_digit_runs`), else the checked path.
    """
    limit = max_depth - len(prefix)
    found = decode_plain(data, limit, short_digits)
    if found is not None:
        return found
    text = data.decode("utf-8", "surrogatepass")
    try:
        return decode_text(text, source, limit)
    except FormatError as exc:
        raise FormatError(source, json_path(prefix) + exc.json_path[1:], exc.expected) from None


def decode_plain(data: bytes, limit: int, short_digits: bool = False) -> Any:
    """orjson's value of ``data`` when it cannot break a rule orjson lets through (at most
    ``limit`` brackets, no long digit run unless ``short_digits``) and orjson reads it; else
    ``None`` (the checked path of :func:`decode_json` decides)."""
    if plain_bytes(data, limit, short_digits):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return None


def plain_bytes(data: bytes, limit: int, short_digits: bool = False) -> bool:
    """Whether ``data`` cannot break a rule that the fast decoders (orjson, pydantic-core)
    let through: at most ``limit`` brackets, and no digit run of
    :data:`~agenteval_nb.io.jsonscan.EXACT_INT_DIGITS` unless ``short_digits`` (the number
    range is the caller's: orjson refuses ``1e999``, a scanned file has none)."""
    return data.count(b"[") + data.count(b"{") <= limit and (
        short_digits or not has_long_digits(data)
    )


class _NonStandardNumber(ValueError):
    pass


class _OutOfRange(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonStandardNumber(name)


def _checked_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _OutOfRange(literal)
    return value


def _checked_int(literal: str) -> int:
    value = int(literal)
    if abs(value) > FLOAT64_MAX:
        raise _OutOfRange(literal)
    return value


def _decode_checked(text: str, source: str, max_depth: int) -> Any:
    scan = quick_scan(text, max_depth)
    if scan.deep and deeper_than(text, max_depth):
        found = _locate(text, lambda token, depth: token in "[{" and depth > max_depth)
        if found is not None:
            raise FormatError(source, found[0], too_deep(max_depth), line=found[1])
    if scan.int_digits < EXACT_INT_DIGITS:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the exact path below names the problem (or reads lone surrogates)
    hooks: dict[str, Any] = {}
    if (scan.exponent or scan.digits >= 200) and MAYBE_HUGE.search(text):
        hooks = {"parse_float": _checked_float, "parse_int": _checked_int}
    try:
        return json.loads(text, parse_constant=_reject_constant, **hooks)
    except json.JSONDecodeError as exc:
        raise FormatError(
            source, "$", f"valid JSON: {exc.msg} at column {exc.colno}", line=exc.lineno
        ) from None
    except _NonStandardNumber as exc:
        constant = re.search(rf"(?<![\w\"]){re.escape(str(exc))}", text)
        line = text.count("\n", 0, constant.start()) + 1 if constant else None
        raise FormatError(
            source, "$", f"valid JSON: {exc} is not a JSON number", line=line
        ) from None
    except _OutOfRange as exc:
        literal = str(exc)
        found = _locate(text, lambda token, depth: token == literal)
        path, line = found if found is not None else ("$", None)
        raise FormatError(source, path, out_of_range(literal), line=line) from None
    except RecursionError:
        raise FormatError(source, "$", too_deep(max_depth)) from None


def _locate(text: str, hit: Callable[[str, int], bool]) -> tuple[str, int] | None:
    """JSON path and line of the first token for which ``hit(token, depth)`` holds.

    A tokenising walk used only to explain an error: it tracks the key or index of every open
    container. ``depth`` counts the containers open at the token (a ``[``/``{`` counts itself).
    """
    stack: list[list[Any]] = []  # [is_object, key or index, expecting a key]
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            if hit(token, len(stack) + 1):
                return _stack_path(stack), text.count("\n", 0, match.start()) + 1
            stack.append([first == "{", None if first == "{" else 0, first == "{"])
        elif first in "]}":
            if stack:
                stack.pop()
        elif first == ",":
            if stack:
                top = stack[-1]
                if top[0]:
                    top[2] = True
                else:
                    top[1] += 1
        elif first == ":":
            if stack:
                stack[-1][2] = False
        elif first == '"' and stack and stack[-1][0] and stack[-1][2]:
            stack[-1][1] = json.loads(token)
        elif hit(token, len(stack)):
            return _stack_path(stack), text.count("\n", 0, match.start()) + 1
    return None


def _stack_path(stack: list[list[Any]]) -> str:
    return json_path(frame[1] for frame in stack)
