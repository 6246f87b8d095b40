"""On-disk judge cache (SQLite), content-addressed by what was asked.

Rules:

* key = sha256 hex of the canonical JSON (sorted keys, no spaces, UTF-8) of ``{base_url, model,
  body, sample_index}`` where ``body`` is the full request body (messages, generation
  parameters, ``response_format``, extra fields). The API key is not part of it, so rotating a
  key keeps the cache; ``sample_index`` is, so ``numSamples`` votes stay distinct answers;
* value = the completion dict as JSON plus its usage; only validated completions are stored;
  a row that no longer decodes is treated as a miss;
* location: ``cache=True`` ⇒ ``$AGENTEVAL_NB_CACHE_DIR/judge.sqlite`` when that variable is set,
  else ``<user cache dir>/agenteval_nb/judge.sqlite``; a path (an existing directory gets
  ``judge.sqlite`` inside it); ``False``/``None`` ⇒ no cache;
* concurrency: WAL journal, 30 s busy timeout, one connection per thread (and per process after
  a fork); each write is one autocommitted statement, so two processes can share a file;
* failures of the file (not a database, a directory in its place, read-only, gone) raise one of
  :data:`CACHE_ERRORS`; the client turns them into a warning and a run without cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs


class CacheClosedError(RuntimeError):
    """The cache was closed (e.g. dropped after a failure) while a call still held it."""


CACHE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, OSError, CacheClosedError)
"""What a broken or unusable cache file raises."""

CACHE_ENV = "AGENTEVAL_NB_CACHE_DIR"
CACHE_FILE = "judge.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_responses (
    key TEXT PRIMARY KEY,
    model TEXT,
    response TEXT NOT NULL,
    usage TEXT,
    created_at REAL NOT NULL
)
"""


def canonical_json(value: Any) -> str:
    """Deterministic JSON text: sorted keys, compact separators, non-ASCII kept."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def cache_key(base_url: str, body: Mapping[str, Any], sample_index: int) -> str:
    """The content address of one judge sample (module rules)."""
    payload = {
        "base_url": base_url.rstrip("/"),
        "model": body.get("model"),
        "body": body,
        "sample_index": sample_index,
    }
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def default_cache_path() -> Path:
    """``$AGENTEVAL_NB_CACHE_DIR/judge.sqlite``, else the user cache dir's ``judge.sqlite``."""
    root = os.environ.get(CACHE_ENV)
    base = Path(root).expanduser() if root else Path(platformdirs.user_cache_dir("agenteval_nb"))
    return base / CACHE_FILE


def cache_file(path: str | os.PathLike[str]) -> Path:
    """The file a cache path designates: ``path`` itself, or ``judge.sqlite`` inside an existing
    directory."""
    path = Path(path).expanduser()
    return path / CACHE_FILE if path.is_dir() else path


def cache_location(spec: bool | str | os.PathLike[str] | JudgeCache | None) -> str:
    """Where the ``cache=`` argument points, for messages (``""`` for no cache)."""
    if spec is None or spec is False:
        return ""
    if spec is True:
        return str(default_cache_path())
    if isinstance(spec, JudgeCache):
        return str(spec.path)
    return str(cache_file(spec))


class JudgeCache:
    """A judge response store in one SQLite file (see module rules)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        path = cache_file(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._connection()  # create the file and table now, so errors show at construction

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise CacheClosedError(f"the judge cache {str(self.path)!r} is closed")
        pid = os.getpid()
        held = getattr(self._local, "held", None)
        if held is not None and held[0] == pid:
            return held[1]
        conn = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        _prepare(conn)
        self._local.held = (pid, conn)
        with self._lock:
            self._connections.append(conn)
        return conn

    def get(self, key: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """``(response, usage)`` stored under ``key``, or ``None``."""
        row = (
            self._connection()
            .execute("SELECT response, usage FROM judge_responses WHERE key = ?", (key,))
            .fetchone()
        )
        if row is None:
            return None
        try:
            response = json.loads(row[0])
            usage = json.loads(row[1]) if row[1] else {}
        except ValueError:
            return None
        if not isinstance(response, dict) or not isinstance(usage, dict):
            return None
        return response, usage

    def put(
        self,
        key: str,
        response: Mapping[str, Any],
        usage: Mapping[str, Any] | None = None,
        *,
        model: str | None = None,
    ) -> None:
        """Store (or replace) the answer under ``key``."""
        self._connection().execute(
            "INSERT OR REPLACE INTO judge_responses (key, model, response, usage, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (key, model, canonical_json(response), canonical_json(usage or {}), time.time()),
        )

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM judge_responses").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        query = "SELECT 1 FROM judge_responses WHERE key = ?"
        return self._connection().execute(query, (key,)).fetchone() is not None

    def clear(self) -> None:
        """Delete every stored answer."""
        self._connection().execute("DELETE FROM judge_responses")

    def close(self) -> None:
        """Close every connection this object opened (in any thread)."""
        with self._lock:
            connections, self._connections = self._connections, []
            self._closed = True
        for conn in connections:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


def open_cache(spec: bool | str | os.PathLike[str] | JudgeCache | None) -> JudgeCache | None:
    """Resolve the ``cache=`` argument (module rules)."""
    if spec is None or spec is False:
        return None
    if spec is True:
        return JudgeCache(default_cache_path())
    if isinstance(spec, JudgeCache):
        return spec
    return JudgeCache(spec)


def _prepare(conn: sqlite3.Connection, attempts: int = 100) -> None:
    """Set WAL mode and create the table, retrying while another process does the same.

    Switching a new file to WAL takes an exclusive lock that SQLite does not wait for under
    ``busy_timeout``, so two runs opening one fresh cache at once can see "database is locked".
    """
    for attempt in range(attempts):
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_SCHEMA)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05)
