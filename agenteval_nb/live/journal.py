"""The journal of a run in progress: ``<results_dir>/journal.jsonl``, one line per event, so a
run killed at any point leaves what finished, readable, and a resumed run knows what is left.

Lines (JSON, one per line, ``\\n``-terminated; each appended with one ``write`` and flushed):

* first, the head: ``{"journal": 1, "evalSetId", "numRuns", "caseIds", "metrics", "total"}`` —
  what the run evaluates (``caseIds`` the selected ids or null for all, ``metrics`` the names);
* one per finished case-run: ``{"position": p, "result": <the case result, as in a result
  file>}`` (``p`` orders case-runs run by run, cases in eval-set order — the engine's position);
* at the end: ``{"end": "finished" | "cancelled", "resultId": ...}``.

Reading keeps every complete line; a last line without its newline (the process died while
writing it) is dropped. A case-run (run id, eval id) journalled twice keeps its first line.
A resumed run appends to the same journal after checking that its head matches.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..errors import FormatError

JOURNAL_NAME = "journal.jsonl"
VERSION = 1
_RESULT_KEY = b'"result":'


@dataclass(frozen=True)
class Head:
    """What a journalled run evaluates."""

    eval_set_id: str
    num_runs: int
    case_ids: tuple[str, ...] | None
    metrics: tuple[str, ...]
    total: int

    def wire(self) -> dict[str, Any]:
        return {
            "journal": VERSION,
            "evalSetId": self.eval_set_id,
            "numRuns": self.num_runs,
            "caseIds": None if self.case_ids is None else list(self.case_ids),
            "metrics": list(self.metrics),
            "total": self.total,
        }

    def difference(self, other: Head) -> str | None:
        """How ``other`` (a resumed run's) differs from this journal's run, or None."""
        for name in ("eval_set_id", "num_runs", "case_ids", "metrics"):
            if getattr(self, name) != getattr(other, name):
                return f"{name}: journal {getattr(self, name)!r}, now {getattr(other, name)!r}"
        return None


@dataclass
class Entries:
    """A journal read so far: the head, each finished case-run's text by position, the end."""

    head: Head | None = None
    texts: dict[int, bytes] = field(default_factory=dict)
    done: dict[tuple[int, str], int] = field(default_factory=dict)
    statuses: dict[int, str] = field(default_factory=dict)
    end: str | None = None
    result_id: str | None = None
    duplicates: int = 0


def journal_path(results_dir: str | os.PathLike[str]) -> Path:
    return Path(results_dir) / JOURNAL_NAME


# -- reading ----------------------------------------------------------------------------------


def _head(value: dict[str, Any], path: Path) -> Head:
    if value.get("journal") != VERSION:
        raise FormatError(
            str(path), "$.journal", f"a journal head with journal = {VERSION}", line=1
        )
    ids = value.get("caseIds")
    return Head(
        str(value.get("evalSetId", "")),
        int(value.get("numRuns", 1)),
        None if ids is None else tuple(str(i) for i in ids),
        tuple(str(m) for m in value.get("metrics", [])),
        int(value.get("total", 0)),
    )


def read_lines(entries: Entries, data: bytes, path: Path, first_line: int = 1) -> int:
    """Add the complete lines of ``data`` to ``entries``; the bytes consumed (a torn last line
    is left for the next read)."""
    end = data.rfind(b"\n") + 1
    for number, line in enumerate(data[:end].splitlines(), first_line):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise FormatError(str(path), "$", f"a JSON line ({exc})", line=number) from None
        if entries.head is None:
            entries.head = _head(value, path)
        elif "position" in value:
            result = value.get("result") or {}
            key = (int(result.get("runId") or 1), str(result.get("evalId", "")))
            if key in entries.done:
                entries.duplicates += 1
                continue
            position = int(value["position"])
            entries.done[key] = position
            entries.statuses[position] = str(result.get("finalEvalStatus", ""))
            entries.texts[position] = line[line.index(_RESULT_KEY) + len(_RESULT_KEY) : -1]
        elif "end" in value:
            entries.end = str(value["end"])
            entries.result_id = value.get("resultId")
    return end


def read_journal(path: Path) -> Entries:
    """The whole journal at ``path`` (a missing file is a :class:`FileNotFoundError`)."""
    entries = Entries()
    read_lines(entries, path.read_bytes(), path)
    if entries.head is None:
        raise FormatError(str(path), "$", "a journal head line (the journal is empty)", line=1)
    return entries


def result_text(entries: Entries, result_id: str) -> bytes:
    """The journalled case-runs as one result file's text (positions in order, no summary:
    the loader computes it)."""
    head = entries.head
    set_id = head.eval_set_id if head is not None else ""
    opening = orjson.dumps({"evalSetResultId": result_id, "evalSetId": set_id})[:-1]
    cases = b",".join(entries.texts[p] for p in sorted(entries.texts))
    return opening + b',"evalCaseResults":[' + cases + b"]}"


# -- writing ----------------------------------------------------------------------------------


class JournalWriter:
    """Appends lines to a journal: each line one ``write`` of whole bytes, then flushed to the
    OS (a killed process loses only the line it was writing). Thread-safe."""

    def __init__(self, path: Path, head: Head, *, resume: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        if resume and path.exists():
            self._file = path.open("ab")
            self._trim_torn_line()
        else:
            self._file = path.open("wb")
            self._write(orjson.dumps(head.wire()) + b"\n")

    def _trim_torn_line(self) -> None:
        data = self.path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            self._file.truncate(keep)
            self._file.seek(keep)

    def _write(self, line: bytes) -> None:
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def cases(self, items: Sequence[tuple[int, bytes]]) -> None:
        """Finished case-runs: (position, the case result's compact text)."""
        if items:
            self._write(b"".join(b'{"position":%d,"result":%s}\n' % item for item in items))

    def end(self, status: str, result_id: str | None) -> None:
        self._write(orjson.dumps({"end": status, "resultId": result_id}) + b"\n")

    def close(self) -> None:
        with self._lock:
            self._file.close()
