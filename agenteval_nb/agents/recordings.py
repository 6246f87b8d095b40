"""Where recorded turns go: the merge rules of SPEC §8.9 and serialised, batched writes.

A recorded turn (:class:`RecordedTurn`) is merged into its case by :func:`merge_turn`:

* no case yet ⇒ a new case ``{evalId, evalMode ("trace" in trace mode), sessionInput{appName,
  userId, state}, contextMessages}`` holding the turn in ``conversation`` (``actualConversation``
  in trace mode);
* an existing case must be of the same mode (:class:`RecorderError` otherwise); a turn whose
  invocation id is already there is skipped; a missing ``sessionInput`` (or its missing
  fields) and missing ``contextMessages`` are filled in; the turns are stable-sorted by
  ``creationTimestamp`` then ``invocationId``.

A :class:`RecordingTarget` applies such turns to an eval-set store (missing sets are created)
or to one ``*.evalset.json`` file (written atomically). Writes to one target are serialised:
every recorder of the process on that target (the same store object, or the same resolved
file path) hands its turns to one :class:`Writer`, whose single drain thread writes them. That
is stronger than the per-(app, set, case) lock of the reference (threads and event loops
alike): parallel turns never lose an update. Turns that arrive while a write is under way are
written together by the next one (group commit), so a busy evaluation costs one
read-modify-write of each eval set per batch rather than per turn (a store's read and write
are whole-set operations, so this is what keeps recording into one large set affordable).
Each turn still learns its own outcome, and its turn returns only once it is written.
"""

from __future__ import annotations

import os
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import io
from ..schema import EvalCase, EvalSet, Invocation, Message, SessionInput
from ..stores.base import EvalSetStore
from ..stores.errors import NotFoundError
from ..stores.local import LocalEvalSetStore
from ..stores.rules import new_evalset, system_clock

EVALSET_FILE_SUFFIX = ".evalset.json"


class RecorderError(RuntimeError):
    """A recorded turn cannot be stored (mode mismatch, wrong eval set id for the file …)."""


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    """One served turn and where it belongs.

    ``eval_set_id`` ``None`` means "the target's own id" (a file target: the id in the file,
    else the file name without ``.evalset.json``).
    """

    app_name: str
    eval_set_id: str | None
    eval_case_id: str
    user_id: str | None
    state: dict[str, Any]
    context_messages: list[Message]
    invocation: Invocation
    trace: bool = False


def _sort_key(invocation: Invocation) -> tuple[float, str]:
    return (invocation.creation_timestamp or 0.0, invocation.invocation_id or "")


def merge_turn(case: EvalCase | None, turn: RecordedTurn) -> EvalCase | None:
    """``case`` with ``turn`` merged in (rules in the module doc); ``None`` when the turn is
    already recorded. ``case`` is modified in place when given."""
    if case is None:
        case = EvalCase(
            eval_id=turn.eval_case_id,
            eval_mode="trace" if turn.trace else None,
            session_input=SessionInput(
                app_name=turn.app_name, user_id=turn.user_id, state=dict(turn.state)
            ),
            context_messages=list(turn.context_messages) or None,
            creation_timestamp=system_clock(),
        )
    elif case.is_trace != turn.trace:
        have = "trace" if case.is_trace else "default"
        want = "trace" if turn.trace else "default"
        raise RecorderError(
            f"eval case {turn.eval_case_id!r} is recorded in {have} mode; this recorder writes "
            f"{want}-mode cases (use trace={not turn.trace} or another case id)"
        )
    turns = list((case.actual_conversation if turn.trace else case.conversation) or ())
    new_id = turn.invocation.invocation_id
    if any(old.invocation_id == new_id for old in turns):
        return None
    _fill_session(case, turn)
    turns.append(turn.invocation)
    turns.sort(key=_sort_key)
    if turn.trace:
        case.actual_conversation = turns
    else:
        case.conversation = turns
    return case


def _fill_session(case: EvalCase, turn: RecordedTurn) -> None:
    """Fill a missing ``sessionInput`` (or missing fields of it) and ``contextMessages``."""
    session = case.session_input
    if session is None:
        case.session_input = SessionInput(
            app_name=turn.app_name, user_id=turn.user_id, state=dict(turn.state)
        )
    else:
        if not session.app_name:
            session.app_name = turn.app_name
        if session.user_id is None:
            session.user_id = turn.user_id
        if session.state is None:
            session.state = dict(turn.state)
    if not case.context_messages and turn.context_messages:
        case.context_messages = list(turn.context_messages)


@dataclass(slots=True)
class Pending:
    """A turn waiting to be written; ``future`` completes (or fails) once it is written."""

    turn: RecordedTurn
    error: BaseException | None = None
    future: Future[None] = field(default_factory=Future)


class RecordingTarget(ABC):
    """An eval-set destination that applies batches of recorded turns (one at a time)."""

    @property
    @abstractmethod
    def key(self) -> Hashable:
        """Identity of the destination: targets with equal keys share one writer."""

    @abstractmethod
    def apply(self, batch: list[Pending]) -> None:
        """Write the batch; set ``error`` on the turns that could not be stored."""

    def describe(self) -> str:
        return repr(self)


class StoreTarget(RecordingTarget):
    """An :class:`~agenteval_nb.stores.EvalSetStore`. Per batch and eval set: one ``get``
    (``create`` when missing), the merges, one ``save``. Recorders of this process never race
    each other on a store (one writer per store); a change made to the same set by other code
    between that ``get`` and ``save`` would be overwritten."""

    def __init__(self, store: EvalSetStore) -> None:
        for method in ("get", "save"):
            if not callable(getattr(store, method, None)):
                raise TypeError(
                    f"a recording target must be an eval-set store or a *{EVALSET_FILE_SUFFIX} "
                    f"path; {type(store).__name__} has no {method}()"
                )
        self.store = store

    def __repr__(self) -> str:
        return f"StoreTarget({self.store!r})"

    @property
    def key(self) -> Hashable:
        return ("store", id(self.store))

    def apply(self, batch: list[Pending]) -> None:
        for (app, set_id), items in _by_set(batch):
            if set_id is None:
                for item in items:
                    item.error = RecorderError("an eval-set store target needs an eval set id")
                continue
            try:
                try:
                    evalset = self.store.get(app, set_id)
                except NotFoundError:
                    evalset = new_evalset(set_id, system_clock)
                if merge_into(evalset, items):
                    self.store.save(app, evalset)
            except Exception as exc:
                for item in items:
                    if item.error is None:
                        item.error = exc


class FileTarget(RecordingTarget):
    """One eval-set file holding every recorded case; rewritten atomically per batch."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"FileTarget({str(self.path)!r})"

    @property
    def key(self) -> Hashable:
        return ("file", str(self.path.resolve()))

    @property
    def default_eval_set_id(self) -> str:
        name = self.path.name
        if name.endswith(EVALSET_FILE_SUFFIX):
            return name[: -len(EVALSET_FILE_SUFFIX)]
        return self.path.stem

    def apply(self, batch: list[Pending]) -> None:
        if self.path.exists():
            evalset = io.load_evalset(self.path)
        else:
            first = next((p.turn.eval_set_id for p in batch if p.turn.eval_set_id), None)
            evalset = new_evalset(first or self.default_eval_set_id, system_clock)
        fitting = []
        for item in batch:
            wanted = item.turn.eval_set_id
            if wanted is not None and wanted != evalset.eval_set_id:
                item.error = RecorderError(
                    f"{self.path} holds eval set {evalset.eval_set_id!r}, not {wanted!r}; "
                    "a file target records one eval set"
                )
            else:
                fitting.append(item)
        if merge_into(evalset, fitting):
            io.save_evalset(evalset, self.path)


def _by_set(batch: list[Pending]) -> Iterator[tuple[tuple[str, str | None], list[Pending]]]:
    """The batch grouped by (app, eval set), groups in order of first appearance."""
    groups: dict[tuple[str, str | None], list[Pending]] = {}
    for item in batch:
        groups.setdefault((item.turn.app_name, item.turn.eval_set_id), []).append(item)
    yield from groups.items()


def merge_into(evalset: EvalSet, items: list[Pending]) -> bool:
    """Merge the items' turns into their cases of ``evalset`` (new cases appended, in order of
    arrival); a turn that cannot be merged gets its error. True when anything changed."""
    cases = list(evalset.eval_cases or ())
    index: dict[str, int] = {}
    for i, case in enumerate(cases):
        index.setdefault(case.eval_id, i)
    changed = False
    for item in items:
        at = index.get(item.turn.eval_case_id)
        try:
            merged = merge_turn(None if at is None else cases[at], item.turn)
        except RecorderError as exc:
            item.error = exc
            continue
        if merged is None:
            continue
        if at is None:
            index[merged.eval_id] = len(cases)
            cases.append(merged)
        else:
            cases[at] = merged
        changed = True
    if changed:
        evalset.eval_cases = cases
    return changed


_DRAINS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agenteval-recorder")
"""Threads that write recorded turns (at most one per target at a time; started on demand)."""


@dataclass(eq=False)
class Writer:
    """Serialised, batched writes to one target (see the module doc).

    :meth:`submit` queues a turn and, when no drain of this writer is running, starts one in a
    worker thread; the drain writes what is queued, batch after batch, until the queue is
    empty. So writes never block an event loop, never overlap on one target, and a turn
    costs no thread of its own while it waits.
    """

    target: RecordingTarget
    _queue: list[Pending] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _draining: bool = False
    writes: int = 0

    def submit(self, turn: RecordedTurn) -> Future[None]:
        """Queue ``turn``; the returned future completes when it is written (or fails)."""
        pending = Pending(turn)
        with self._lock:
            self._queue.append(pending)
            start = not self._draining
            self._draining = True
        if start:
            try:
                _DRAINS.submit(self._drain)
            except BaseException:
                with self._lock:
                    self._draining = False
                raise
        return pending.future

    def _drain(self) -> None:
        while True:
            with self._lock:
                batch, self._queue = self._queue, []
                if not batch:
                    self._draining = False
                    return
            self._write(batch)

    def _write(self, batch: list[Pending]) -> None:
        waiting = [item for item in batch if item.future.set_running_or_notify_cancel()]
        try:
            self.target.apply(batch)
            self.writes += 1
        except BaseException as exc:  # every turn of the batch learns why; the drain goes on
            for item in batch:
                if item.error is None:
                    item.error = exc
        for item in waiting:
            if item.error is None:
                item.future.set_result(None)
            else:
                item.future.set_exception(item.error)


_WRITERS: weakref.WeakValueDictionary[Hashable, Writer] = weakref.WeakValueDictionary()
_WRITERS_GUARD = threading.Lock()


def writer_for(target: RecordingTarget) -> Writer:
    """The process-wide writer of ``target`` (shared by every recorder on the same target)."""
    with _WRITERS_GUARD:
        writer = _WRITERS.get(target.key)
        if writer is None:
            writer = Writer(target)
            _WRITERS[target.key] = writer
        return writer


def target_of(target: Any) -> RecordingTarget:
    """A store, or a path: ``*.json`` ⇒ that file; anything else ⇒ a local store folder."""
    if isinstance(target, RecordingTarget):
        return target
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.name.endswith(".json"):
            return FileTarget(path)
        return StoreTarget(LocalEvalSetStore(path))
    return StoreTarget(target)
