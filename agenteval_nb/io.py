"""Loading and saving eval sets, metrics and results.

Every loader accepts a path, JSON text, an already-decoded dict/list, or a model instance, and
raises :class:`~agenteval_nb.errors.FormatError` naming the source, the JSON path and what was
expected. Savers write atomically: a temporary file in the target folder, then a rename, so a
reader never sees half a file. Files are written like the Go framework writes them: 2-space
indent, trailing newline, ``<`` ``>`` ``&`` escaped; ``apiKey`` is never written.

Loading rules (one function each): :func:`_decode` for text and
:func:`~agenteval_nb.entry_rules.check_tree` for data (numbers within the float64 range, nesting
at most :data:`MAX_DEPTH`), :func:`check_kind` (a document of another kind is named),
:func:`_read` (an existing file name is a path). Eval sets and metrics in every form (file,
text, dict, model) meet the entry rules of :mod:`agenteval_nb.entry_rules`. Writing never fails
on content the loaders accept (:func:`dumps`: lone surrogates escaped, NaN/inf as ``null``, any
depth). See docs/formats.md.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, islice
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import numpy as np
import orjson
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from ._gc import gc_paused
from .adk import (
    adk_test_to_evalset,
    adk_to_evalset,
    criteria_to_metrics,
    looks_like_adk,
    looks_like_adk_config,
    looks_like_adk_test,
)
from .entry_rules import (
    FLOAT64_MAX,
    MAX_DEPTH,
    OBJECT_SOURCE,
    RESULT_EXTRA_DEPTH,
    check_evalset,
    check_tree,
    json_path,
    out_of_range,
    too_deep,
)
from .errors import FormatError
from .schema import EvalCase, EvalMetric, EvalSet, EvalSetResult
from .schema.base import wire_items
from .schema.keys import fold_keys
from .schema.metric import is_api_key_name

Source = str | os.PathLike[str] | dict[str, Any] | list[Any] | BaseModel
M = TypeVar("M", bound=BaseModel)

_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def go_escape(text: str) -> str:
    """``text`` with Go's HTML escaping of ``<`` ``>`` ``&`` U+2028 U+2029 (a few C-speed
    replaces; ``str.translate`` with a table is ten times slower on large files)."""
    for char, escaped in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escaped)
    return text


_MAYBE_HUGE = re.compile(r"[0-9][eE]\+?0*[1-9][0-9]{2}|[0-9]{200}")
"""A literal that may overflow float64 (an exponent of 3+ digits or 200+ digits); only then
are the slower range-checking number hooks used."""
_MAYBE_HUGE_BYTES = re.compile(_MAYBE_HUGE.pattern.encode("ascii"))
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9][0-9.eE+-]*|[\[\]{},:]|true|false|null')


def _describe(error: dict[str, Any]) -> str:
    msg = error.get("msg", "invalid value")
    if error.get("type") == "missing":
        return "required field is missing"
    return f"{msg[0].lower()}{msg[1:]} (got {preview(error.get('input'))})"


def preview(value: Any, width: int = 60) -> str:
    """A short JSON rendering of ``value`` for messages; key fields are masked, never shown."""
    try:
        shown = json.dumps(_masked(value), ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        shown = f"a deeply nested {type(value).__name__}"
    shown = escape_surrogates(shown)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def _masked(value: Any, depth: int = 6) -> Any:
    """``value`` with the value of every key field (any spelling of ``apiKey``) replaced by
    ``***``, down to ``depth`` levels (a preview shows no more than that)."""
    if depth == 0:
        return "..."
    if isinstance(value, dict):
        return {k: "***" if is_api_key_name(k) else _masked(v, depth - 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v, depth - 1) for v in value[:8]]
    return value


def _format_error(
    source: str, exc: ValidationError, prefix: tuple[int | str, ...] = ()
) -> FormatError:
    first = exc.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    err = FormatError(source, json_path(prefix + loc), _describe(first))
    extra = exc.error_count() - 1
    if extra:
        err.args = (f"{err.args[0]} (and {extra} more problem{'s' if extra > 1 else ''})",)
    return err


def _read(src: Source, max_depth: int = MAX_DEPTH) -> tuple[Any, str]:
    """Decode ``src`` into plain JSON data and name its source for messages.

    A string is a path when a file of that name exists (even ``[x].json``); otherwise text that
    starts like JSON (``{``, ``[`` or ``"``) is JSON text, and anything else a path.
    """
    if isinstance(src, (dict, list)):
        check_tree(src, OBJECT_SOURCE, max_depth)
        return src, OBJECT_SOURCE
    if isinstance(src, str) and is_json_text(src):
        return _decode(src, "<text>", max_depth), "<text>"
    path = Path(os.fspath(src))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(str(path), "$", "file not found") from None
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), "$", f"UTF-8 text ({exc.reason})") from None
    return _decode(text, str(path), max_depth), str(path)


def is_json_text(src: str) -> bool:
    """Whether a string argument is JSON text rather than a path: it starts like JSON (``{``,
    ``[`` or ``"``) and names no existing file (a file ``[x].json`` is a path)."""
    return src.lstrip()[:1] in ("{", "[", '"') and not _is_file(src)


def _is_file(text: str) -> bool:
    """Whether ``text`` names an existing file (JSON documents are never tried as names)."""
    return len(text) < 4096 and "\n" not in text and os.path.isfile(text)


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


def _decode(text: str, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """Strict JSON as Go's decoder reads it.

    Rejected, each as a :class:`FormatError` with the JSON path and line: ``NaN`` and
    ``Infinity``; numbers outside the float64 range (``1e999``; Python would read ``inf``);
    nesting deeper than ``max_depth`` arrays/objects.

    Bulk path: orjson, which refuses all three by itself, when no digit run is long enough for
    an int that orjson would read as a float (:data:`_EXACT_INT_DIGITS`). Whatever orjson
    refuses goes through the stdlib decoder with the checks, which names the problem.
    """
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
    """:func:`_decode` of one value found at ``prefix`` inside ``source`` (a case of a streamed
    file), with the same rules; an error names the full JSON path (its line is not known).

    orjson directly when the value cannot break a rule orjson lets through (fewer brackets than
    the depth left, no digit run of :data:`_EXACT_INT_DIGITS` — ``short_digits``: the caller
    checked the whole file with :func:`short_digit_runs`), else the checked path.
    """
    limit = max_depth - len(prefix)
    if data.count(b"[") + data.count(b"{") <= limit and (
        short_digits or not _LONG_DIGITS.search(data)
    ):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    text = data.decode("utf-8", "surrogatepass")
    try:
        return _decode(text, source, limit)
    except FormatError as exc:
        raise FormatError(source, json_path(prefix) + exc.json_path[1:], exc.expected) from None


class FileScan(NamedTuple):
    """What :func:`scan_file` tells of a file's bytes."""

    may_break_rules: bool
    """A part may break a rule of :func:`_decode` that orjson and msgspec let through: nesting
    deeper than the limit, a number beyond the float64 range."""
    short_digits: bool
    """:func:`short_digit_runs`: no digit run is long enough for an int orjson would not keep
    exact."""


def scan_file(data: bytes, max_depth: int = MAX_DEPTH) -> FileScan:
    """One vectorised pass over a whole file that is decoded a part at a time (a streamed eval
    set): decode it whole when ``may_break_rules``, so that a broken rule is the loader's
    error (file, JSON path, line) before any part is used."""
    scan = _scan_bytes(data, max_depth)
    huge = (scan.exponent or scan.digits >= 200) and _MAYBE_HUGE_BYTES.search(data) is not None
    return FileScan(scan.deep or huge, scan.int_digits < _EXACT_INT_DIGITS)


def short_digit_runs(data: bytes) -> bool:
    """True when no digit run that may be an int (:func:`_longest_int_run`: not a fraction or
    mantissa) reaches :data:`_EXACT_INT_DIGITS`, so orjson keeps every int exact: one
    vectorised pass, 4 MiB at a time, chunks overlapping so
    that a run across a border is seen whole."""
    overlap = _EXACT_INT_DIGITS
    for begin in range(0, len(data), _SCAN_CHUNK):
        start = max(begin - overlap, 0)
        size = min(begin + _SCAN_CHUNK, len(data)) - start
        raw = np.frombuffer(data, dtype=np.uint8, count=size, offset=start)
        digit = (raw >= ord("0")) & (raw <= ord("9"))
        if _longest_int_run(raw, digit) >= _EXACT_INT_DIGITS:
            return False
    return True


def _decode_checked(text: str, source: str, max_depth: int) -> Any:
    scan = _quick_scan(text, max_depth)
    if scan.deep and _deeper_than(text, max_depth):
        found = _locate(text, lambda token, depth: token in "[{" and depth > max_depth)
        if found is not None:
            raise FormatError(source, found[0], too_deep(max_depth), line=found[1])
    if scan.int_digits < _EXACT_INT_DIGITS:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the exact path below names the problem (or reads lone surrogates)
    hooks: dict[str, Any] = {}
    if (scan.exponent or scan.digits >= 200) and _MAYBE_HUGE.search(text):
        hooks = {"parse_float": _checked_float, "parse_int": _checked_int}
    try:
        return json.loads(text, parse_constant=_reject_constant, **hooks)
    except json.JSONDecodeError as exc:
        raise FormatError(
            source, "$", f"valid JSON: {exc.msg} at column {exc.colno}", line=exc.lineno
        ) from None
    except _NonStandardNumber as exc:
        found = re.search(rf"(?<![\w\"]){re.escape(str(exc))}", text)
        line = text.count("\n", 0, found.start()) + 1 if found else None
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


_EXACT_INT_DIGITS = 20
"""Digit runs this long may be ints beyond 64 bits, which orjson reads as floats; the stdlib
decoder keeps them exact."""
_LONG_DIGITS = re.compile(rb"[0-9]{%d}" % _EXACT_INT_DIGITS)


_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1
_SCAN_CHUNK = 1 << 22


class _Scan(NamedTuple):
    deep: bool
    """Brackets outside strings nest deeper than the limit."""
    exponent: bool
    """A digit is followed by ``e``/``E`` and then ``+`` or a digit."""
    digits: int
    """Longest run of digits (capped near 200: runs are measured within overlapping windows)."""
    int_digits: int
    """Longest digit run that may be an int (see :func:`_longest_int_run`)."""


def _quick_scan(text: str, limit: int) -> _Scan:
    """Upper bounds for the slow checks of :func:`_decode`: :func:`_scan_bytes` of the text."""
    return _scan_bytes(text.encode("utf-8", "surrogatepass"), limit)


def _scan_bytes(data: bytes, limit: int) -> _Scan:
    """Upper bounds for the slow checks of :func:`_decode`, in one vectorised pass over UTF-8
    bytes (4 MiB at a time, so the scan's own memory stays small). When ``deep`` is False,
    :func:`_deeper_than` cannot hit; when ``exponent`` is False and ``digits < 200``,
    :data:`_MAYBE_HUGE` cannot match."""
    raw = np.frombuffer(data, dtype=np.uint8)
    counting = data.count(b"[") + data.count(b"{") > limit
    deep = exponent = False
    depth = digits = int_digits = 0
    strings = (False, 0)  # inside a string at the chunk's end, trailing backslashes
    overlap = 200
    for begin in range(0, max(len(raw), 1), _SCAN_CHUNK):
        chunk = raw[begin : begin + _SCAN_CHUNK]
        if counting and not deep:
            deep, depth, strings = _chunk_depth(chunk, limit, depth, strings)
        window = raw[max(begin - overlap, 0) : begin + _SCAN_CHUNK]
        digit = (window >= ord("0")) & (window <= ord("9"))
        if not exponent:
            e = (window[1:-1] == ord("e")) | (window[1:-1] == ord("E"))
            signed = (window[2:] == ord("+")) | digit[2:]
            exponent = bool((digit[:-2] & e & signed).any())
        digits = max(digits, _longest_run(digit))
        int_digits = max(int_digits, _longest_int_run(window, digit))
    return _Scan(deep, exponent, digits, int_digits)


def _chunk_depth(
    chunk: np.ndarray, limit: int, depth: int, strings: tuple[bool, int]
) -> tuple[bool, int, tuple[bool, int]]:
    """Bracket depth over one chunk of UTF-8 bytes, brackets inside strings not counted.

    A quote opens or closes a string unless an odd run of backslashes precedes it. ``depth``
    and ``strings`` (inside a string, trailing backslashes) carry over from the chunk before.
    Returns (deeper than ``limit``, depth at the end, carry for the next chunk)."""
    inside, carried = strings
    quotes = np.flatnonzero(chunk == ord('"'))
    if len(quotes):
        after_backslash = chunk[np.maximum(quotes - 1, 0)] == ord("\\")
        if quotes[0] == 0:
            after_backslash[0] = carried > 0
        escaped = [
            i
            for i in np.flatnonzero(after_backslash)
            if _backslashes(chunk, quotes[i], carried) % 2
        ]
        toggles = np.delete(quotes, escaped) if escaped else quotes
    else:
        toggles = quotes
    brackets = np.flatnonzero(_STEP[chunk])
    outside = (np.searchsorted(toggles, brackets) % 2 == 1) == inside
    steps = _STEP[chunk[brackets[outside]]].astype(np.int32)
    deep = False
    if len(steps):
        levels = np.cumsum(steps) + depth
        deep = bool(levels.max() > limit)
        depth = int(levels[-1])
    inside = inside != (len(toggles) % 2 == 1)
    carried = _backslashes(chunk, len(chunk), carried)
    return deep, depth, (inside, carried)


def _backslashes(chunk: np.ndarray, end: int, carried: int) -> int:
    """Backslashes right before ``chunk[end]`` (``carried`` more when the run reaches back into
    the chunk before). A walk: runs of backslashes are short."""
    start = end
    while start > 0 and chunk[start - 1] == ord("\\"):
        start -= 1
    return end - start + (carried if start == 0 else 0)


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of every run of True in a boolean array."""
    edges = np.flatnonzero(np.diff(np.concatenate(([False], mask, [False])).view(np.int8)))
    return edges[::2], edges[1::2]


def _longest_run(mask: np.ndarray) -> int:
    """Length of the longest run of True in a boolean array."""
    starts, ends = _runs(mask)
    return int((ends - starts).max(initial=0))


def _longest_int_run(window: np.ndarray, digit: np.ndarray) -> int:
    """Longest digit run that may be a JSON int: not after a ``.`` and not before ``.``, ``e``
    or ``E`` (fraction and mantissa digits of floats are never ints)."""
    starts, ends = _runs(digit)
    if not len(starts):
        return 0
    before = np.where(starts > 0, window[np.maximum(starts - 1, 0)], 0)
    after = np.where(ends < len(window), window[np.minimum(ends, len(window) - 1)], 0)
    floaty = (before == ord(".")) | (after == ord(".")) | (after == ord("e")) | (after == ord("E"))
    return int((ends - starts)[~floaty].max(initial=0))


def _has_huge_int(text: str) -> bool:
    """Whether ``text`` holds a run of 309+ digits (an int beyond float64 may be written)."""
    if len(text) < 309:
        return False
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return _longest_run((raw >= ord("0")) & (raw <= ord("9"))) >= 309


def _deeper_than(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (a quick scan at C speed)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > limit


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


def validate_model(model: type[M], data: Any, source: str, prefix: tuple[int | str, ...] = ()) -> M:
    if not isinstance(data, dict):
        raise FormatError(source, json_path(prefix), f"a JSON object, got {_json_type(data)}")
    try:
        with gc_paused(keep=True):
            return model.model_validate(fold_keys(model, data))
    except ValidationError as exc:
        raise _format_error(source, exc, prefix) from None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def load_evalset(src: Source | EvalSet) -> EvalSet:
    """Load an eval set: Go format, or converted from google-adk / trpc-agent-python; a model
    is returned as it is, once it meets the entry rules (:mod:`agenteval_nb.entry_rules`).

    Converted shapes (see :mod:`agenteval_nb.adk`): the snake_case / ``parts`` eval set, and
    google-adk's older ``*.test.json`` (a JSON array of turns, or of ``{name, data}`` cases).
    """
    if isinstance(src, EvalSet):
        return check_evalset(src)
    data, source = _read(src)
    if looks_like_adk_test(data):
        data = adk_test_to_evalset(data, source, _stem(source))
    elif looks_like_adk(data):
        data = adk_to_evalset(data, source)
    check_kind("eval set", data, source)
    return check_evalset(validate_model(EvalSet, data, source), source, tree=False)


def load_case(src: Source | EvalCase) -> EvalCase:
    """Load one eval case in the Go format (an object with ``evalId``), e.g. a stored row."""
    if isinstance(src, EvalCase):
        return src
    data, source = _read(src)
    return validate_model(EvalCase, data, source)


def load_metrics(src: Source | Iterable[EvalMetric]) -> list[EvalMetric]:
    """Load a metrics file: a JSON array of metrics; ``${VAR}`` in judgeModel is expanded.
    A list of metric models (or of models and dicts) meets the same depth and number rules.

    A google-adk / trpc-agent-python ``test_config.json`` (``{"criteria": {...}}``) is
    converted (see :func:`agenteval_nb.adk.criteria_to_metrics`).
    """
    if isinstance(src, (list, tuple)) and all(isinstance(m, EvalMetric) for m in src):
        check_tree(list(src), OBJECT_SOURCE)
        return list(src)
    data, source = _read(src)  # type: ignore[arg-type]
    if looks_like_adk_config(data):
        data = criteria_to_metrics(data, source)
    if isinstance(data, dict):
        raise FormatError(source, "$", f"a JSON array of metrics, got an object{_looks_like(data)}")
    if not isinstance(data, list):
        raise FormatError(source, "$", f"a JSON array of metrics, got {_json_type(data)}")
    return [
        item if isinstance(item, EvalMetric) else validate_model(EvalMetric, item, source, (i,))
        for i, item in enumerate(data)
    ]


def load_result(src: Source | EvalSetResult) -> EvalSetResult:
    """Load a result file as it is (also the legacy form: a JSON string holding the result).

    A document that is not a result (an eval set, a metrics array, any object without a result
    key) is a :class:`FormatError` saying what it looks like, never an empty result.
    """
    if isinstance(src, EvalSetResult):
        return src
    depth = MAX_DEPTH + RESULT_EXTRA_DEPTH
    data, source = _read(src, depth)
    if isinstance(data, str):
        data = _decode(data, source, depth)
    check_kind("eval set result", data, source)
    return validate_model(EvalSetResult, data, source)


_RESULT_KEYS = ("evalSetResultId", "evalSetResultName", "evalSetId", "evalCaseResults", "summary")
"""A result document has at least one of these keys (compared ignoring case), or none at all."""


def check_kind(kind: str, data: Any, source: str) -> None:
    """A :class:`FormatError` when ``data`` is a document of another kind.

    A result must be an object with a result key (or be empty) and no ``evalCases`` without
    ``evalCaseResults``; an eval set must not look like a result or a test config. The message
    says what the document looks like (``has evalCases`` …).
    """
    if isinstance(data, list):
        raise FormatError(source, "$", f"a JSON object ({kind}), got an array{_looks_like(data)}")
    if not isinstance(data, dict) or not data:
        return
    keys = {k.lower() for k in data if isinstance(k, str)}
    if kind == "eval set":
        wrong = (
            "evalsetid" not in keys
            and "evalcases" not in keys
            and ("evalcaseresults" in keys or "criteria" in keys)
        )
    else:
        wrong = ("evalcases" in keys and "evalcaseresults" not in keys) or not any(
            k.lower() in keys for k in _RESULT_KEYS
        )
    if wrong:
        raise FormatError(source, "$", f"an {kind}, but the document{_looks_like(data)}")


def _looks_like(data: Any) -> str:
    """`` (looks like …)`` for a document of a known kind, else a list of its first keys."""
    if isinstance(data, list):
        if data and all(isinstance(d, dict) and "metricName" in d for d in data):
            return " (looks like a metrics file: items have metricName)"
        if looks_like_adk_test(data):
            return " (looks like a google-adk .test.json: items have query)"
        return ""
    keys = {k.lower(): k for k in data if isinstance(k, str)}
    for wire_key, kind in (
        ("evalCaseResults", "an eval set result"),
        ("evalCases", "an eval set"),
        ("eval_cases", "an eval set"),
        ("criteria", "a google-adk test_config.json"),
        ("metricName", "a metric"),
    ):
        if wire_key.lower() in keys:
            return f" looks like {kind} (has {keys[wire_key.lower()]})"
    shown = ", ".join(list(keys.values())[:5]) or "no string keys"
    return f" has none of the expected keys (has {shown})"


def _stem(source: str) -> str:
    """Eval set id for a converted ``.test.json``: the file name without its suffixes."""
    if source.startswith("<"):
        return "adk_test"
    name = Path(source).name
    for suffix in (".test.json", ".evalset.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or "adk_test"
    return name


# ------------------------------------------------------------------------------------ writing


def escape_surrogates(text: str) -> str:
    """``text`` with lone surrogates (``\\ud83d``, half an emoji) as JSON ``\\udXXX`` escapes.

    JSON allows them, UTF-8 cannot encode them; escaped, the file stays valid UTF-8 and reads
    back to the same string. Only valid inside JSON string literals, where they can only occur.
    """
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _model_text(model: BaseModel, level: int = 0) -> str:
    """JSON of a model, 2-space indented as it stands ``level`` containers deep in the file.

    pydantic's encoder first; when it cannot (lone surrogates, nesting beyond its depth limit)
    the iterative encoder of :func:`_encode` writes the same document.
    """
    return _models_text([model], level)[0]


_BATCH = 256
"""Models encoded per batch by :func:`_models_text` (one digit-run check per batch)."""


def _models_text(models: Sequence[BaseModel], level: int = 0, indent: int | None = 2) -> list[str]:
    """:func:`_model_text` of each model (``indent=None``: compact, where pydantic can). The
    check for an int beyond float64 (which pydantic writes as digits and our loader would
    refuse) runs once over the batch's joined text, and per model only when the batch has one."""
    texts: list[str | None] = []
    for model in models:
        try:
            texts.append(model.model_dump_json(by_alias=True, exclude_none=True, indent=indent))
        except PydanticSerializationError:
            texts.append(None)
    if _has_huge_int("\n".join(t for t in texts if t is not None)):
        texts = [None if t is None or _has_huge_int(t) else t for t in texts]
    out = [_encode(_plain(m)) if t is None else t for m, t in zip(models, texts, strict=True)]
    if level:
        pad = "\n" + "  " * level
        out = [t.replace("\n", pad) for t in out]
    return out


def _plain(root: Any) -> Any:
    """``root`` as plain JSON data (models by their wire items), without recursion.

    NaN and infinities become ``None``; an int beyond the float64 range and values JSON cannot
    hold become their ``str`` (written as a string, so the file loads again).
    """
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, holder, 0)]
    while stack:
        value, parent, key = stack.pop()
        if isinstance(value, BaseModel):
            value = wire_items(value)
        if isinstance(value, dict):
            new: Any = {}
            for k, item in value.items():
                k = k if isinstance(k, str) else json.dumps(k) if k is None else str(k)
                new[k] = None
                stack.append((item, new, k))
        elif isinstance(value, (list, tuple)):
            new = [None] * len(value)
            stack.extend((item, new, i) for i, item in enumerate(value))
        elif value is None or isinstance(value, (str, bool)):
            new = value
        elif isinstance(value, int):
            new = int(value) if abs(value) <= FLOAT64_MAX else str(value)
        elif isinstance(value, float):
            new = float(value) if math.isfinite(value) else None
        else:
            new = str(value)
        parent[key] = new
    return holder[0]


def _encode(root: Any) -> str:
    """``json.dumps(root, indent=2, ensure_ascii=False)`` for plain data, without recursion.

    Lone surrogates are escaped (:func:`escape_surrogates`); a document nested deeper than our
    loaders accept is still written, with a warning.
    """
    parts: list[str] = []
    stack: list[tuple[Any, int | None]] = [(root, 0)]
    deepest = 0
    while stack:
        value, level = stack.pop()
        if level is None:
            parts.append(value)
        elif isinstance(value, (dict, list)):
            if not value:
                parts.append("{}" if isinstance(value, dict) else "[]")
                continue
            deepest = max(deepest, level + 1)
            pad = "\n" + "  " * (level + 1)
            opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
            todo: list[tuple[Any, int | None]] = []
            if isinstance(value, dict):
                for i, (key, item) in enumerate(value.items()):
                    todo.append(((opening if i == 0 else ",") + pad + _string(key) + ": ", None))
                    todo.append((item, level + 1))
            else:
                for i, item in enumerate(value):
                    todo.append(((opening if i == 0 else ",") + pad, None))
                    todo.append((item, level + 1))
            todo.append(("\n" + "  " * level + closing, None))
            stack.extend(reversed(todo))
        elif isinstance(value, str):
            parts.append(_string(value))
        elif value is None or value is True or value is False:
            parts.append("null" if value is None else "true" if value else "false")
        elif isinstance(value, float) and not math.isfinite(value):
            parts.append("null")
        else:
            parts.append(repr(value))
    if deepest > MAX_DEPTH:
        warnings.warn(
            f"the document written nests {deepest} levels; agenteval_nb loads at most "
            f"{MAX_DEPTH} (results {MAX_DEPTH + RESULT_EXTRA_DEPTH})",
            stacklevel=3,
        )
    return "".join(parts)


def _string(text: str) -> str:
    return escape_surrogates(json.dumps(text, ensure_ascii=False))


def dumps(model: BaseModel | list[BaseModel]) -> str:
    """File text of a model or list of models, written as the Go framework writes it.

    Never fails on content the loaders accept: lone surrogates are escaped, NaN/infinity
    become ``null``, deep nesting is written iteratively.
    """
    if isinstance(model, list):
        body = "[\n  " + ",\n  ".join(_models_text(model, 1)) + "\n]" if model else "[]"
    else:
        body = _model_text(model)
    return go_escape(body) + "\n"


def _result_chunks(result: EvalSetResult) -> Iterator[str]:
    """The result file text in pieces: :func:`_model_chunks` of the result, then a newline."""
    yield from _model_chunks(result, 0)
    yield "\n"


def result_file_chunks(
    head: EvalSetResult,
    case_texts: Iterable[bytes],
    case_summaries: Iterable[BaseModel] | None = None,
) -> Iterator[str | bytes]:
    """The result file in pieces, from a result without case results (``head``), the compact
    text of each case result (:func:`case_result_texts`, indented here for its place) and, when
    ``head.summary`` leaves them out, the summary's case summaries (written a batch at a time)."""
    placed = head.model_copy(update={"eval_case_results": []})
    pad = "  "
    first = True
    yield "{"
    for key, value in wire_items(placed).items():
        yield ("\n" if first else ",\n") + f"{pad}{_string(key)}: "
        first = False
        if key == "evalCaseResults":
            count = 0
            for text in case_texts:
                yield (b",\n    " if count else b"[\n    ") + _indented(text, 2)
                count += 1
            yield "\n  ]" if count else "[]"
        elif key == "summary" and case_summaries is not None:
            summary = value.model_copy(update={"eval_case_summaries": []})
            yield from _model_chunks(summary, 1, {"evalCaseSummaries": case_summaries})
        elif isinstance(value, BaseModel):
            yield from _model_chunks(value, 1)
        else:
            yield _encode(_plain(value)).replace("\n", "\n" + pad)
    yield "\n}\n"


def case_result_texts(results: Sequence[BaseModel]) -> list[bytes]:
    """Case results as compact file text (Go-escaped UTF-8 JSON, no indentation: about half
    the bytes): what a run keeps of each case result, and the input of
    :func:`result_file_chunks`. Encode many at once: the check for huge ints runs once per
    call (:func:`_models_text`)."""
    return [_utf8(go_escape(text)) for text in _models_text(results, indent=None)]


def _indented(text: bytes, level: int) -> bytes:
    """Compact JSON ``text`` 2-space indented as it stands ``level`` containers deep, as
    :func:`_models_text` writes it; text orjson cannot read (a lone surrogate escape, an int
    beyond 64 bits) is written compact, which is the same JSON."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    pretty = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
    return _utf8(go_escape(pretty)).replace(b"\n", b"\n" + b"  " * level)


def _model_chunks(
    model: BaseModel, level: int, lists: Mapping[str, Iterable[BaseModel]] | None = None
) -> Iterator[str]:
    """JSON of ``model`` in pieces, as it stands ``level`` containers deep: a list of models
    (case results, case summaries) goes out :data:`_BATCH` models at a time and a nested model
    field is split the same way, so memory stays bounded by a batch, never by the file.
    ``lists`` supplies the models of wire keys whose value in ``model`` is a placeholder.

    The pieces concatenate to :func:`_model_text` of the model (a test pins the two together).
    """
    pad = "  " * (level + 1)
    first = True
    yield "{"
    for key, value in wire_items(model).items():
        yield ("\n" if first else ",\n") + f"{pad}{_string(key)}: "
        first = False
        if lists and key in lists:
            yield from _list_chunks(lists[key], level + 1)
        elif value and isinstance(value, list) and all(isinstance(v, BaseModel) for v in value):
            yield from _list_chunks(value, level + 1)
        elif isinstance(value, BaseModel):
            yield from _model_chunks(value, level + 1)
        else:
            yield _encode(_plain(value)).replace("\n", "\n" + pad)
    yield "\n" + "  " * level + "}" if not first else "}"


def _list_chunks(models: Iterable[BaseModel], level: int) -> Iterator[str]:
    """A JSON array of models standing ``level`` containers deep, :data:`_BATCH` at a time."""
    pad = "  " * level
    inner = "\n" + pad + "  "
    items = iter(models)
    count = 0
    while batch := list(islice(items, _BATCH)):
        texts = _models_text(batch, level + 1)
        yield ("," if count else "[") + inner + ("," + inner).join(texts)
        count += len(batch)
    yield "\n" + pad + "]" if count else "[]"


def write_text_atomic(path: str | os.PathLike[str], text: str | Iterable[str | bytes]) -> Path:
    """Write ``text`` (a string or pieces) via a temp file in the same folder and a rename, so
    that readers never see a partial file. String pieces get Go's HTML escaping; bytes pieces
    are file text already (escaped, UTF-8) and are written as they are.

    The file is always valid UTF-8: a lone surrogate still in the text (JSON from this module
    has them escaped already) is written as U+FFFD, as Go writes invalid UTF-8."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(text, str):
                handle.write(_utf8(text))
            else:
                for piece in text:
                    handle.write(piece if isinstance(piece, bytes) else _utf8(go_escape(piece)))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, each lone surrogate written as U+FFFD (the ASCII case costs nothing)."""
    if text.isascii():
        return text.encode("ascii")
    return utf8_safe(text).encode("utf-8")


def utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate (half an emoji: valid in JSON, not in UTF-8) replaced
    by U+FFFD, for what holds UTF-8 only (files, frames, databases)."""
    return _SURROGATE.sub("\ufffd", text)


def save_evalset(evalset: EvalSet, path: str | os.PathLike[str]) -> Path:
    """Write an eval set file atomically."""
    return write_text_atomic(path, dumps(evalset))


def save_metrics(metrics: Iterable[EvalMetric], path: str | os.PathLike[str]) -> Path:
    """Write a metrics file (a JSON array) atomically; ``apiKey`` is never written."""
    return write_text_atomic(path, dumps(list(metrics)))


def save_result(result: EvalSetResult, path: str | os.PathLike[str]) -> Path:
    """Write a result file atomically, streaming one case result at a time."""
    return write_text_atomic(path, _result_chunks(result))
