"""Which case a model call belongs to (CAPTURE.md §3).

Rule, in order: the case set in the calling context (a ``ContextVar``: it follows asyncio
tasks, ``asyncio.to_thread`` and ``contextvars.copy_context().run``) → the only active case,
when exactly one is active (calls from a bare ``threading.Thread`` the agent starts) → the
process's *unattributed* bucket, when several cases are active and the context names none.
A call is never scored against a case it cannot be proved to belong to. With no case active
at all, nothing is recorded. Code of the toolkit's own that calls models while agents run (the
judge) runs inside :func:`outside`, so that the sole-active rule never gives it to a case.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .exchange import Exchange


@dataclass(eq=False)
class Recording:
    """The exchanges of one case (or of one ``ae.capture()`` block), in start order; the
    OpenTelemetry spans its code finished (:mod:`.spans`), in end order; when it started."""

    key: str
    exchanges: list[Exchange] = field(default_factory=list)
    spans: list[Any] = field(default_factory=list)
    started_ns: int = field(default_factory=time.time_ns)


_current: ContextVar[Recording | None] = ContextVar("agenteval_capture", default=None)
_lock = threading.Lock()
_active: dict[int, Recording] = {}
unattributed: list[Exchange] = []
"""Calls made while several cases were active and the calling context named none."""
UNATTRIBUTED_LIMIT = 10_000
"""The bucket keeps the first calls only; it is a diagnostic, not a store."""


@contextmanager
def recording(key: str) -> Iterator[Recording]:
    """Record the model calls made in this context (and by threads, while it is the only active
    case) into a new :class:`Recording`."""
    rec = Recording(key)
    token = _current.set(rec)
    with _lock:
        _active[id(rec)] = rec
    try:
        yield rec
    finally:
        with _lock:
            _active.pop(id(rec), None)
        _current.reset(token)


_OUTSIDE = Recording("<outside>")


@contextmanager
def outside() -> Iterator[None]:
    """Calls made in this context belong to no case and are never recorded (the judge's)."""
    token = _current.set(_OUTSIDE)
    try:
        yield
    finally:
        _current.reset(token)


def resolve() -> tuple[Recording | None, str]:
    """The recording a call made here belongs to, and how it was found; ``(None, "")`` when no
    case is active or the context is :func:`outside` (the call is not recorded)."""
    rec = _current.get()
    if rec is _OUTSIDE:
        return None, ""
    if rec is not None:
        return rec, "context"
    if not _active:
        return None, ""
    with _lock:
        if len(_active) == 1:
            return next(iter(_active.values())), "sole_active"
    return None, "unattributed"


def keep_unattributed(exchange: Exchange) -> None:
    """Put a call no case can claim in the process's bucket (bounded)."""
    with _lock:
        if len(unattributed) < UNATTRIBUTED_LIMIT:
            unattributed.append(exchange)


def append(rec: Recording, exchange: Exchange) -> None:
    """Add an exchange to a recording (thread-safe: a case's threads may call at once)."""
    with _lock:
        rec.exchanges.append(exchange)


def unattributed_since(started_ns: int) -> int:
    """How many calls the unattributed bucket holds that started at or after ``started_ns``."""
    with _lock:
        return sum(e.started_ns >= started_ns for e in unattributed)
