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
  a fork), so two processes can share a file;
* writes: :meth:`JudgeCache.put` writes at once (one autocommitted statement).
  ``put(..., later=True)``, the client's write after each answer, queues the row; the queue
  is written in one transaction once it holds :data:`BATCH_ROWS` rows or its oldest row is
  :data:`BATCH_SECONDS` old (checked at the next queued row), on :meth:`JudgeCache.flush`,
  :meth:`JudgeCache.close` and at interpreter exit. A commit per answer blocks the event loop
  longer than the rest of a call's bookkeeping takes. The file stays the one truth: a read of a
  queued key writes the queue first, a later write of a key (queued or not) replaces its
  queued row; other processes see queued rows once they are written;
* failures of the file (not a database, a directory in its place, read-only, gone) raise one of
  :data:`CACHE_ERRORS`; the client turns them into a warning and a run without cache.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs


class CacheClosedError(RuntimeError):
    """The cache was closed (e.g. dropped after a failure) while a call still held it."""


CACHE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, OSError, CacheClosedError)
"""What a broken or unusable cache file raises."""

BATCH_ROWS = 32
"""Queued rows that make ``JudgeCache.put(..., later=True)`` write the queue."""
BATCH_SECONDS = 1.0
"""Age of the oldest queued row that makes the next queued row write the queue."""

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
_INSERT = (
    "INSERT OR REPLACE INTO judge_responses (key, model, response, usage, created_at)"
    " VALUES (?, ?, ?, ?, ?)"
)
_Row = tuple[str, str | None, str, str, float]
_OPEN_CACHES: weakref.WeakSet[JudgeCache] = weakref.WeakSet()


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


def _row(
    key: str, response: Mapping[str, Any], usage: Mapping[str, Any] | None, model: str | None
) -> _Row:
    return (key, model, canonical_json(response), canonical_json(usage or {}), time.time())


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
        self._queue: dict[str, _Row] = {}
        self._queue_pid = os.getpid()
        self._queued_since = 0.0
        self._connection()  # create the file and table now, so errors show at construction
        _OPEN_CACHES.add(self)

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
        self._flush_if_queued(key)
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
        later: bool = False,
    ) -> None:
        """Store (or replace) the answer under ``key``: now, or with ``later`` queued and
        written with the queue when it is full or old (module rules). A failing write raises
        one of :data:`CACHE_ERRORS`."""
        row = _row(key, response, usage, model)
        if later:
            self._enqueue(key, row)
            return
        with self._lock:
            self._queue.pop(key, None)
        self._connection().execute(_INSERT, row)

    def _enqueue(self, key: str, row: _Row) -> None:
        pid = os.getpid()
        with self._lock:
            if self._queue_pid != pid:  # a forked child: the parent writes the rows it queued
                self._queue, self._queue_pid = {}, pid
            now = time.monotonic()
            if not self._queue:
                self._queued_since = now
            self._queue.pop(key, None)
            self._queue[key] = row
            due = len(self._queue) >= BATCH_ROWS or now - self._queued_since >= BATCH_SECONDS
        if due:
            self.flush()

    def flush(self) -> None:
        """Write the queued rows in one transaction (none queued: nothing to do)."""
        with self._lock:
            rows = list(self._queue.values()) if self._queue_pid == os.getpid() else []
            self._queue = {}
        if not rows:
            return
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(_INSERT, rows)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _flush_if_queued(self, key: object) -> None:
        with self._lock:
            queued = key in self._queue
        if queued:
            self.flush()

    def __len__(self) -> int:
        self.flush()
        return int(self._connection().execute("SELECT COUNT(*) FROM judge_responses").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        self._flush_if_queued(key)
        query = "SELECT 1 FROM judge_responses WHERE key = ?"
        return self._connection().execute(query, (key,)).fetchone() is not None

    def clear(self) -> None:
        """Delete every stored and queued answer."""
        with self._lock:
            self._queue = {}
        self._connection().execute("DELETE FROM judge_responses")

    def close(self) -> None:
        """Write the queued rows, then close every connection this object opened (in any
        thread); the connections are closed even when that write fails (which raises)."""
        try:
            if not self._closed:
                self.flush()
        finally:
            self._close_connections()

    def _close_connections(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
            self._closed = True
            self._queue = {}
        _OPEN_CACHES.discard(self)
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


@atexit.register
def _flush_at_exit() -> None:
    """Write what open caches still queue when the interpreter exits (never raises)."""
    for cache in list(_OPEN_CACHES):
        with contextlib.suppress(*CACHE_ERRORS):
            cache.flush()


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
