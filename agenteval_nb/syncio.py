"""Blocking code around the async core: run coroutines from scripts and notebooks, and sync
twins that show their async function's signature (a room below every other: agents, engine,
analysis and the front door all use it).

The rule: every blocking call (``ae.evaluate`` and the other twins) runs its coroutine on **one
long-lived event loop** of the process, served by a daemon thread (``agenteval-loop``), and the
caller blocks until it ends — from a script and from a Jupyter cell alike; nest_asyncio is
never used. One loop, because agent frameworks keep their async clients bound to the loop that
made them (an ``AsyncOpenAI`` made on a first turn, LangChain's client cached per process): a
loop per call would hand a later evaluation a client of a closed loop ("Event loop is closed",
"bound to a different event loop"). The coroutine runs in a copy of the caller's context
(context variables set around the call are seen inside).

* The caller waits in short slices, so an interrupt (Ctrl-C, a notebook's stop button) reaches
  it on every platform; it then cancels the coroutine's task, waits up to
  :data:`CANCEL_GRACE_S` for its cleanup (a second interrupt stops waiting) and raises the
  interrupt again. The loop serves on.
* ``KeyboardInterrupt`` or ``SystemExit`` raised *on* the loop (by a task, or by a callback an
  agent scheduled) ends every call then waiting, as it would end :func:`asyncio.run`: their
  tasks are cancelled and each caller raises it; the loop serves on.
* Whatever the coroutine raises reaches the caller as it is (``TimeoutError`` included: a
  slice of waiting that ends is never mistaken for the coroutine's own timeout).
* A blocking call made *on* the loop's thread (a coroutine of ours calling a blocking twin)
  cannot wait on its own loop: it runs on a private loop in a worker thread.
* A forked child process starts a loop of its own on first use (the parent's thread does not
  exist there).

Code that runs its own loop (``asyncio.run(ae.evaluate_async(...))``) keeps its clients on
that loop: an agent whose clients must not cross loops is given as a factory there.

:func:`sync_twin` is the one way a public ``f`` is made from its ``f_async``: same signature,
annotations and documented options, so that an option added to the async function appears in
the sync one (and in Jupyter's shift-tab help) with no edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import os
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")

WAIT_SLICE_S = 0.25
"""How often a waiting caller wakes (a signal handed to another thread does not wake a thread
blocked on a lock everywhere; Python's handler runs when it wakes)."""

CANCEL_GRACE_S = 5.0
"""How long an interrupted caller waits for its cancelled coroutine to clean up."""


class _Box:
    """A coroutine's result on its way out of :func:`asyncio.run`, which formats its main task
    (the result's ``repr`` included) when it restores the SIGINT handler: the box's ``repr``
    costs nothing, whatever the result's does (a 100k-case run's: seconds)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<result>"


async def _boxed(factory: Callable[[], Coroutine[Any, Any, T]]) -> _Box:
    return _Box(await factory())


class _Call:
    """One blocking call on the shared loop: its task (set on the loop), the event set when
    the task is done, and the interrupt raised on the loop while it waited, if any."""

    __slots__ = ("done", "interrupt", "task")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.task: asyncio.Task[_Box] | None = None
        self.interrupt: BaseException | None = None


_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_calls: set[_Call] = set()
"""The blocking calls waiting on the shared loop."""


def _forget_loop() -> None:
    """In a forked child: the parent's loop thread is not there, its lock may be held."""
    global _loop_lock, _loop, _loop_thread, _calls
    _loop_lock, _loop, _loop_thread, _calls = threading.Lock(), None, None, set()


os.register_at_fork(after_in_child=_forget_loop)


def shared_loop() -> asyncio.AbstractEventLoop:
    """The process's long-lived event loop (started on first use, in a daemon thread)."""
    global _loop, _loop_thread
    with _loop_lock:
        if _loop is None or _loop.is_closed() or not _loop_thread or not _loop_thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=_serve, args=(loop,), name="agenteval-loop", daemon=True
            )
            thread.start()
            _loop, _loop_thread = loop, thread
        return _loop


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The loop thread: serve forever; an interrupt raised on the loop ends the calls then
    waiting (module doc) and the loop serves on."""
    asyncio.set_event_loop(loop)
    while True:
        try:
            loop.run_forever()
            return
        except (KeyboardInterrupt, SystemExit) as interrupt:
            with _loop_lock:
                for call in _calls:
                    call.interrupt = call.interrupt or interrupt
            for task in asyncio.all_tasks(loop):
                task.cancel()


def _start(loop: asyncio.AbstractEventLoop, call: _Call, factory: Callable[[], Any]) -> None:
    """On the loop, in a copy of the caller's context: the call's task."""
    call.task = loop.create_task(_boxed(factory))
    call.task.add_done_callback(lambda _: call.done.set())


def _cancel(call: _Call) -> None:
    """On the loop (after :func:`_start`, if that was scheduled): cancel the call's task."""
    if call.task is None:
        call.done.set()
    else:
        call.task.cancel()


def _wait(done: threading.Event, limit: float | None = None) -> bool:
    """Wait for ``done`` in slices of :data:`WAIT_SLICE_S` (at most ``limit`` seconds)."""
    deadline = None if limit is None else time.monotonic() + limit
    while not done.wait(WAIT_SLICE_S):
        if deadline is not None and time.monotonic() >= deadline:
            return False
    return True


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion on the shared loop and return its result (module doc)."""
    loop = shared_loop()
    if threading.current_thread() is _loop_thread:
        return _run_private(factory)
    call = _Call()
    with _loop_lock:
        _calls.add(call)
    try:
        try:
            loop.call_soon_threadsafe(_start, loop, call, factory)  # copies the caller's context
            _wait(call.done)
        except BaseException:  # the caller is interrupted (maybe before the task started)
            loop.call_soon_threadsafe(_cancel, call)
            with contextlib.suppress(KeyboardInterrupt):  # a second one stops the wait
                _wait(call.done, CANCEL_GRACE_S)
            raise
        if call.interrupt is not None:
            raise call.interrupt
        assert call.task is not None
        return call.task.result().value  # type: ignore[no-any-return]
    finally:
        with _loop_lock:
            _calls.discard(call)


def _run_private(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``factory()`` on a private loop in a worker thread, in a copy of the caller's context."""
    ctx = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenteval-nested") as pool:
        box = pool.submit(ctx.run, lambda: asyncio.run(_boxed(factory))).result()
    return box.value  # type: ignore[no-any-return]


def sync_twin(
    async_fn: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[[Callable[..., Any]], Callable[P, T]]:
    """Decorator: replace a stub with the blocking twin of ``async_fn``.

    The twin calls ``async_fn`` with the same arguments through :func:`run_sync`. It takes the
    stub's name, module and first docstring paragraph, and everything else from ``async_fn``:
    ``__signature__``, ``__annotations__``, ``__wrapped__`` and the rest of its docstring (the
    options). The stub's body is never run::

        @sync_twin(evaluate_async)
        def evaluate():
            \"\"\"Evaluate … (blocking; works in scripts and in Jupyter).\"\"\"
    """

    def decorate(stub: Callable[..., Any]) -> Callable[P, T]:
        @functools.wraps(async_fn)
        def twin(*args: P.args, **kwargs: P.kwargs) -> T:
            return run_sync(lambda: async_fn(*args, **kwargs))

        twin.__name__ = stub.__name__
        twin.__qualname__ = stub.__qualname__
        twin.__module__ = stub.__module__
        twin.__signature__ = inspect.signature(async_fn)  # type: ignore[attr-defined]
        twin.__doc__ = _twin_doc(stub, async_fn)
        return twin

    return decorate


def _twin_doc(stub: Callable[..., Any], async_fn: Callable[..., Any]) -> str:
    """The stub's docstring, then ``async_fn``'s after its first paragraph, then a pointer."""
    own = inspect.getdoc(stub) or ""
    theirs = (inspect.getdoc(async_fn) or "").split("\n\n", 1)
    options = theirs[1] if len(theirs) > 1 else ""
    note = f"Blocking twin of :func:`{async_fn.__name__}` (same arguments)."
    return "\n\n".join(part for part in (own, options, note) if part)
