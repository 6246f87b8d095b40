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
or to one ``*.evalset.json`` file (written atomically). Writes to one target are serialised by
one lock shared by every recorder of the process on that target (the same store object, or the
same resolved file path), which is stronger than the per-(app, set, case) lock of the
reference: parallel turns never lose an update. Turns that arrive while a write is under way
are written together by the next one (group commit), so a busy evaluation costs one
read-modify-write per batch rather than per turn. Each turn still learns its own outcome.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import io
from ..schema import EvalCase, EvalSet, Invocation, Message, SessionInput
from ..stores.base import EvalSetStore
from ..stores.errors import AlreadyExistsError, NotFoundError
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
    """A turn waiting to be written, and afterwards its outcome."""

    turn: RecordedTurn
    done: bool = False
    error: BaseException | None = None

    def result(self) -> None:
        """Raise the write's error, if any."""
        if not self.done:
            raise RecorderError("the recorded turn was not written")
        if self.error is not None:
            raise self.error


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
    """An :class:`~agenteval_nb.stores.EvalSetStore`: cases are added or updated one by one
    (each a read-modify-write of that case under the store's own lock)."""

    def __init__(self, store: EvalSetStore) -> None:
        for method in ("create", "get_case", "add_case", "update_case"):
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
        for (app, set_id, case_id), items in _grouped(batch):
            if set_id is None:
                for item in items:
                    item.error = RecorderError("an eval-set store target needs an eval set id")
                continue
            try:
                self._apply_case(app, set_id, case_id, items)
            except Exception as exc:
                for item in items:
                    if item.error is None:
                        item.error = exc

    def _apply_case(self, app: str, set_id: str, case_id: str, items: list[Pending]) -> None:
        for attempt in range(2):
            try:
                case: EvalCase | None = self.store.get_case(app, set_id, case_id)
            except NotFoundError:
                case = None
            merged = _merge_all(case, items)
            if merged is None:
                return
            if case is not None:
                self.store.update_case(app, set_id, merged)
                return
            with contextlib.suppress(AlreadyExistsError):
                self.store.create(app, set_id)
            try:
                self.store.add_case(app, set_id, merged)
                return
            except AlreadyExistsError:
                if attempt:  # added by someone else twice in a row: give up loudly
                    raise
                for item in items:  # someone else added the case meanwhile: merge again
                    item.error = None


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
        evalset: EvalSet | None = io.load_evalset(self.path) if self.path.exists() else None
        changed = False
        for item in batch:
            wanted = item.turn.eval_set_id
            if evalset is None:
                evalset = new_evalset(wanted or self.default_eval_set_id, system_clock)
                changed = True
            elif wanted is not None and wanted != evalset.eval_set_id:
                item.error = RecorderError(
                    f"{self.path} holds eval set {evalset.eval_set_id!r}, not {wanted!r}; "
                    "a file target records one eval set"
                )
                continue
            cases = list(evalset.eval_cases or ())
            index = next(
                (i for i, c in enumerate(cases) if c.eval_id == item.turn.eval_case_id), None
            )
            try:
                merged = merge_turn(None if index is None else cases[index], item.turn)
            except RecorderError as exc:
                item.error = exc
                continue
            if merged is None:
                continue
            if index is None:
                cases.append(merged)
            else:
                cases[index] = merged
            evalset.eval_cases = cases
            changed = True
        if changed and evalset is not None:
            io.save_evalset(evalset, self.path)


def _grouped(batch: list[Pending]) -> Iterator[tuple[tuple[str, str | None, str], list[Pending]]]:
    """The batch grouped by (app, set, case), groups in order of first appearance."""
    groups: dict[tuple[str, str | None, str], list[Pending]] = {}
    for item in batch:
        t = item.turn
        groups.setdefault((t.app_name, t.eval_set_id, t.eval_case_id), []).append(item)
    yield from groups.items()


def _merge_all(case: EvalCase | None, items: list[Pending]) -> EvalCase | None:
    """Merge every item into ``case``; the merged case, or ``None`` when nothing changed."""
    changed = False
    for item in items:
        try:
            merged = merge_turn(case, item.turn)
        except RecorderError as exc:
            item.error = exc
            continue
        if merged is not None:
            case = merged
            changed = True
    return case if changed else None


@dataclass(eq=False)
class Writer:
    """Serialised, batched writes to one target (see the module doc)."""

    target: RecordingTarget
    _queue: list[Pending] = field(default_factory=list)
    _queue_lock: threading.Lock = field(default_factory=threading.Lock)
    _write_lock: threading.Lock = field(default_factory=threading.Lock)
    writes: int = 0

    def submit(self, turn: RecordedTurn) -> Pending:
        """Queue a turn; :meth:`flush` (in a worker thread) writes it."""
        pending = Pending(turn)
        with self._queue_lock:
            self._queue.append(pending)
        return pending

    def flush(self) -> None:
        """Write everything queued (blocking). When it returns, every turn queued before the
        call is written or has its error set."""
        with self._write_lock:
            with self._queue_lock:
                batch, self._queue = self._queue, []
            if not batch:
                return
            try:
                self.target.apply(batch)
                self.writes += 1
            except Exception as exc:
                for item in batch:
                    if item.error is None:
                        item.error = exc
            finally:
                for item in batch:
                    item.done = True


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
