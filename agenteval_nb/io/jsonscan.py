"""Quick scans of JSON text that say when the fast decoders may not be trusted.

orjson and msgspec decode at C speed but let through what Go's decoder refuses (nesting deeper
than the limit, a number beyond the float64 range) and read an int of 20+ digits as a float.
These scans find where that may happen, so the slow checked path of
:func:`~agenteval_nb.io.decoding.decode_text` runs only then.

Rules: every scan is an upper bound (it may flag a document that breaks no rule, never miss
one that does: a test holds the scans to the exact checks), vectorised with numpy over UTF-8
bytes :data:`_SCAN_CHUNK` at a time so its own memory stays small. The depth scan skips
brackets inside strings; digits are counted anywhere (a digit run in a string only costs the
slow path).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import NamedTuple

import numpy as np

EXACT_INT_DIGITS = 20
"""Digit runs this long may be ints beyond 64 bits, which orjson reads as floats; the stdlib
decoder keeps them exact."""
_DIGITS_AS_ZERO = bytes(ord("0") if ord("0") <= i <= ord("9") else ord(" ") for i in range(256))
_LONG_RUN = b"0" * EXACT_INT_DIGITS
_HUGE_RUN = b"0" * 309
_MANTISSA_RUN = b"0" * 200
"""Digits that, with a two-digit exponent, may pass the float64 range (:data:`MAYBE_HUGE`)."""
"""Digits of an int beyond the float64 range, at least."""


def has_long_digits(data: bytes) -> bool:
    """Whether UTF-8 ``data`` holds a digit run of :data:`EXACT_INT_DIGITS`."""
    return _has_digit_run(data, _LONG_RUN)


def _has_digit_run(data: bytes, run: bytes) -> bool:
    """Whether ``data`` holds a digit run as long as ``run`` (all zeros): every ASCII digit
    mapped to ``0`` and the rest to a space, then one substring search (~9× a regex)."""
    return run in data.translate(_DIGITS_AS_ZERO)


MAYBE_HUGE = re.compile(r"[0-9][eE]\+?0*[1-9][0-9]{2}|[0-9]{200}")
"""A literal that may overflow float64 (an exponent of 3+ digits or 200+ digits); only then
are the slower range-checking number hooks used."""
_MAYBE_HUGE_BYTES = re.compile(MAYBE_HUGE.pattern.encode("ascii"))
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}

_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1
_SCAN_CHUNK = 1 << 22


class Scan(NamedTuple):
    """What :func:`quick_scan` tells of a text."""

    deep: bool
    """Brackets outside strings nest deeper than the limit."""
    exponent: bool
    """A digit is followed by ``e``/``E`` and then ``+`` or a digit."""
    digits: int
    """Longest run of digits (capped near 200: runs are measured within overlapping windows)."""
    int_digits: int
    """Longest digit run that may be an int (see :meth:`_DigitRuns.longest_int`)."""


class FileScan(NamedTuple):
    """What :func:`scan_file` tells of a file's bytes."""

    may_break_rules: bool
    """A part may break a rule of :func:`~agenteval_nb.io.decoding.decode_text` that orjson
    and msgspec let through: nesting deeper than the limit, a number beyond the float64
    range."""
    short_digits: bool
    """:func:`short_digit_runs`: no digit run is long enough for an int orjson would not keep
    exact."""


def quick_scan(text: str, limit: int) -> Scan:
    """Upper bounds for the slow checks of :func:`~agenteval_nb.io.decoding.decode_text`:
    :func:`_scan_bytes` of the text."""
    return _scan_bytes(text.encode("utf-8", "surrogatepass"), limit)


def scan_file(data: bytes, max_depth: int, nesting: bool = True) -> FileScan:
    """One vectorised pass over a whole file that is decoded a part at a time (a streamed eval
    set): decode it whole when ``may_break_rules``, so that a broken rule is the loader's
    error (file, JSON path, line) before any part is used. ``nesting=False``: the caller knows
    that no part can nest deeper than ``max_depth`` (no part has that many brackets), and the
    depth pass is left out."""
    scan = _scan_bytes(data, max_depth, nesting)
    huge = (scan.exponent or scan.digits >= 200) and _MAYBE_HUGE_BYTES.search(data) is not None
    return FileScan(scan.deep or huge, scan.int_digits < EXACT_INT_DIGITS)


def short_digit_runs(data: bytes) -> bool:
    """True when no digit run that may be an int (:meth:`_DigitRuns.longest_int`: not a
    fraction or mantissa) reaches :data:`EXACT_INT_DIGITS`, so orjson keeps every int exact: one
    vectorised pass, 4 MiB at a time, chunks overlapping so
    that a run across a border is seen whole."""
    overlap = EXACT_INT_DIGITS
    for begin in range(0, len(data), _SCAN_CHUNK):
        start = max(begin - overlap, 0)
        size = min(begin + _SCAN_CHUNK, len(data)) - start
        raw = np.frombuffer(data, dtype=np.uint8, count=size, offset=start)
        if _DigitRuns.of(raw).longest_int() >= EXACT_INT_DIGITS:
            return False
    return True


def deeper_than(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (a quick scan at C speed)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > limit


def has_huge_int(text: str) -> bool:
    """Whether ``text`` holds a run of 309+ digits (an int beyond float64 may be written)."""
    if len(text) < len(_HUGE_RUN):
        return False
    return has_huge_digits(text.encode("utf-8", "surrogatepass"))


_NUMBER_BYTES = {**dict.fromkeys(b"0123456789", ord("0")), ord("e"): ord("e"), ord("E"): ord("e")}
_NUMBER_SHAPE = bytes(_NUMBER_BYTES.get(i, i if i == ord("+") else ord(" ")) for i in range(256))
"""Digits as ``0``, ``e``/``E`` as ``e``, ``+`` kept, every other byte a space."""


def may_be_huge(data: bytes) -> bool:
    """Whether UTF-8 ``data`` may hold a number beyond the float64 range: an upper bound of
    :data:`MAYBE_HUGE` (a digit, ``e`` and three more digits, or a run of 200 digits), by one
    byte translation and three substring searches."""
    shape = data.translate(_NUMBER_SHAPE)
    return b"0e000" in shape or b"0e+000" in shape or _MANTISSA_RUN in shape


def has_huge_digits(data: bytes) -> bool:
    """:func:`has_huge_int` of UTF-8 ``data``."""
    return _has_digit_run(data, _HUGE_RUN)


def _scan_bytes(data: bytes, limit: int, nesting: bool = True) -> Scan:
    """Upper bounds for the slow checks of :func:`~agenteval_nb.io.decoding.decode_text`, in
    one vectorised pass over UTF-8 bytes (4 MiB at a time, so the scan's own memory stays
    small). When ``deep`` is False, :func:`deeper_than` cannot hit; when ``exponent`` is False
    and ``digits < 200``, :data:`MAYBE_HUGE` cannot match."""
    raw = np.frombuffer(data, dtype=np.uint8)
    counting = nesting and data.count(b"[") + data.count(b"{") > limit
    deep = exponent = False
    depth = digits = int_digits = 0
    strings = (False, 0)  # inside a string at the chunk's end, trailing backslashes
    overlap = 200
    for begin in range(0, max(len(raw), 1), _SCAN_CHUNK):
        chunk = raw[begin : begin + _SCAN_CHUNK]
        if counting and not deep:
            deep, depth, strings = _chunk_depth(chunk, limit, depth, strings)
        runs = _DigitRuns.of(raw[max(begin - overlap, 0) : begin + _SCAN_CHUNK])
        exponent = exponent or runs.exponent()
        digits = max(digits, runs.longest())
        int_digits = max(int_digits, runs.longest_int())
    return Scan(deep, exponent, digits, int_digits)


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
    brackets = np.flatnonzero(_STEP[chunk] != 0)
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
    """Start and end (exclusive) of every run of True in a boolean array (the changes found on
    a boolean array: ``flatnonzero`` is several times faster on booleans than on ints)."""
    edges = np.flatnonzero(mask[1:] != mask[:-1]) + 1
    if len(mask) and mask[0]:
        edges = np.concatenate(([0], edges))
    if len(mask) and mask[-1]:
        edges = np.concatenate((edges, [len(mask)]))
    return edges[::2], edges[1::2]


class _DigitRuns(NamedTuple):
    """The runs of ASCII digits in a window of bytes, and the byte around each."""

    lengths: np.ndarray
    before: np.ndarray
    """The byte before each run (0 at the window's start)."""
    after: np.ndarray
    """The byte after each run (0 at the window's end)."""
    second: np.ndarray
    """The byte after that one (0 past the window's end)."""

    @classmethod
    def of(cls, window: np.ndarray) -> _DigitRuns:
        starts, ends = _runs(window - np.uint8(ord("0")) < 10)  # wraps below "0"
        return cls(
            ends - starts,
            _byte_at(window, starts - 1),
            _byte_at(window, ends),
            _byte_at(window, ends + 1),
        )

    def longest(self) -> int:
        return int(self.lengths.max(initial=0))

    def longest_int(self) -> int:
        """Longest run that may be a JSON int: not after a ``.`` and not before ``.``, ``e``
        or ``E`` (fraction and mantissa digits of floats are never ints)."""
        after = self.after
        floaty = (self.before == ord(".")) | (after == ord(".")) | _is_e(after)
        return int(self.lengths[~floaty].max(initial=0))

    def exponent(self) -> bool:
        """A run is followed by ``e``/``E`` and then ``+`` or a digit."""
        second = self.second
        signed = (second == ord("+")) | ((second >= ord("0")) & (second <= ord("9")))
        return bool((_is_e(self.after) & signed).any())


def _is_e(codes: np.ndarray) -> np.ndarray:
    return (codes == ord("e")) | (codes == ord("E"))


def _byte_at(window: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``window[positions]``, 0 where a position falls outside the window."""
    if not len(window):
        return np.zeros(len(positions), dtype=window.dtype)
    inside = (positions >= 0) & (positions < len(window))
    return np.where(inside, window[np.clip(positions, 0, len(window) - 1)], 0)
