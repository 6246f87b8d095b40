"""Restricted JSONPath of template bindings (``source.path``, SPEC §6.3).

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
from typing import Any

from ..gojson import GoJSONError, decode_literal, go_quote, marshal

__all__ = ["JSONPathError", "extract", "parse_path"]

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
