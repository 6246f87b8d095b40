"""Review files: a reviewer's marks on case results, kept beside the result file they judge.

Rules:

* A mark judges one case result — (eval set id, eval id, run id) — or one metric of it
  (``metric``); that tuple is the mark's **key**. ``mark`` is ``pass``, ``fail`` or ``unsure``;
  ``note``, ``reviewer`` and ``timestamp`` (UTC, ISO 8601 with microseconds) come with it.
* The review file of ``<name>.json`` is ``<name>.review.json`` (:func:`review_path`):
  ``{"version": 1, "marks": [...]}``, marks sorted by key.
* Two marks with one key: the later timestamp wins, a tie goes to the mark being written
  (:func:`merge_marks`). This holds per mark, not per file: :func:`write_marks` reads the file,
  merges and replaces it atomically while holding an exclusive ``flock`` on a lock file beside
  it (``.<review file>.lock``), so concurrent writers never lose each other's marks.
* A file may come from another version of the toolkit. One of a newer ``version`` than
  :data:`REVIEW_VERSION` is read when its marks meet this version's rules, and never rewritten
  (:func:`write_marks` raises a :class:`FormatError` naming the file and both versions). Fields
  this version does not know are kept when marks are merged into a file: the document's (beside
  ``version`` and ``marks``) and each mark's (:attr:`Mark.extra`; a mark that replaces another
  of its key brings its own).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import FormatError
from .atomic import write_text_atomic

MARKS = ("pass", "fail", "unsure")
"""What a reviewer may conclude about a case result or a metric of it."""

REVIEW_VERSION = 1
"""The review file version this toolkit writes; a file without ``version`` is read as 1."""

MarkKey = tuple[str, str, int, str]
"""(eval set id, eval id, run id, metric or "" for the whole case result)."""


@dataclass(frozen=True)
class Mark:
    """One reviewer's verdict on a case result (``metric=None``) or on one metric of it."""

    eval_set_id: str
    eval_id: str
    run_id: int
    metric: str | None
    mark: str
    note: str | None
    reviewer: str
    timestamp: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Fields of the mark this version does not know, kept as read and written back."""

    def __post_init__(self) -> None:
        if self.mark not in MARKS:
            raise ValueError(f"mark must be one of {', '.join(MARKS)}; got {self.mark!r}")

    @property
    def key(self) -> MarkKey:
        return (self.eval_set_id, self.eval_id, self.run_id, self.metric or "")


def now_timestamp() -> str:
    """The current UTC time as a mark's timestamp (sorts as text in time order)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def review_path(result_path: str | os.PathLike[str]) -> Path:
    """``runs/a.evalset_result.json`` → ``runs/a.evalset_result.review.json``."""
    path = Path(result_path)
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    return path.with_name(f"{stem}.review.json")


def merge_marks(old: Iterable[Mark], new: Iterable[Mark]) -> list[Mark]:
    """``old`` and ``new`` as one list, one mark per key: the later timestamp wins, a tie goes to
    ``new``. Sorted by key."""
    merged: dict[MarkKey, Mark] = {m.key: m for m in old}
    for mark in new:
        kept = merged.get(mark.key)
        if kept is None or mark.timestamp >= kept.timestamp:
            merged[mark.key] = mark
    return [merged[k] for k in sorted(merged)]


_FIELDS: dict[str, tuple[type, ...]] = {
    "eval_set_id": (str,),
    "eval_id": (str,),
    "run_id": (int,),
    "metric": (str, type(None)),
    "mark": (str,),
    "note": (str, type(None)),
    "reviewer": (str,),
    "timestamp": (str,),
}


@dataclass(frozen=True)
class ReviewDocument:
    """A decoded review file: its ``version``, its marks and the document's other fields."""

    version: int
    marks: list[Mark]
    extra: dict[str, Any]


def review_document(data: Any, source: str) -> ReviewDocument:
    """The document of decoded ``data``, or a :class:`FormatError` naming ``source``, the
    JSON path and what was expected (and the file's version when it is newer)."""
    if not isinstance(data, dict) or not isinstance(data.get("marks"), list):
        raise FormatError(source, "$", 'a review document {"version": 1, "marks": [...]}')
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise FormatError(source, "$.version", "a positive integer version")
    try:
        marks = [_mark(item, source, f"$.marks[{i}]") for i, item in enumerate(data["marks"])]
    except FormatError as exc:
        if version <= REVIEW_VERSION:
            raise
        newer = f" (a version {version} file; this toolkit reads version {REVIEW_VERSION})"
        raise FormatError(source, exc.json_path, exc.expected + newer) from None
    extra = {k: v for k, v in data.items() if k not in ("version", "marks")}
    return ReviewDocument(version, marks, extra)


def _mark(item: Any, source: str, at: str) -> Mark:
    """The mark of one ``marks`` item; the fields this version does not know kept as extra."""
    if not isinstance(item, dict):
        raise FormatError(source, at, "a mark object")
    for name, kinds in _FIELDS.items():
        value = item.get(name)
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise FormatError(source, f"{at}.{name}", f"{name} as {kinds[0].__name__}")
    if item["mark"] not in MARKS:
        raise FormatError(source, f"{at}.mark", f"one of {', '.join(MARKS)}")
    extra = {k: v for k, v in item.items() if k not in _FIELDS}
    return Mark(**{name: item[name] for name in _FIELDS}, extra=extra)


def read_document(path: str | os.PathLike[str]) -> ReviewDocument:
    """Review file ``path`` decoded; an empty current-version document when it does not
    exist."""
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ReviewDocument(REVIEW_VERSION, [], {})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(str(target), "$", f"JSON ({exc.msg})", line=exc.lineno) from None
    return review_document(data, str(target))


def read_marks(path: str | os.PathLike[str]) -> list[Mark]:
    """The marks of review file ``path``; none when it does not exist."""
    return read_document(path).marks


def mark_fields(mark: Mark) -> dict[str, Any]:
    """The fields of ``mark`` this version knows, by name."""
    return {name: getattr(mark, name) for name in _FIELDS}


def marks_json(marks: Iterable[Mark], extra: dict[str, Any] | None = None) -> str:
    """A review document's text: ``version``, the document's other fields ``extra``, ``marks``
    (each with the fields it was read with)."""
    rows = [{**mark_fields(m), **m.extra} for m in marks]
    document = {"version": REVIEW_VERSION, **(extra or {}), "marks": rows}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def write_marks(path: str | os.PathLike[str], marks: Iterable[Mark]) -> list[Mark]:
    """Merge ``marks`` into review file ``path`` (read, merge, atomic replace, under the file's
    lock) and return every mark the file now holds. A file of a newer version is left as it
    is: a :class:`FormatError` naming it and both versions."""
    target = Path(path)
    with _locked(target):
        document = read_document(target)
        if document.version > REVIEW_VERSION:
            raise FormatError(
                str(target),
                "$.version",
                f"a review file of version {REVIEW_VERSION} or older to write marks into: this"
                f" one is version {document.version}, written by a newer agenteval_nb (upgrade"
                " it to change this file)",
            )
        merged = merge_marks(document.marks, marks)
        write_text_atomic(target, marks_json(merged, document.extra))
    return merged
