"""Blocking code around the async core: run coroutines from scripts and notebooks, and sync
twins that show their async function's signature (a room below every other: agents, engine,
analysis and the front door all use it).

Every blocking call runs its coroutine on **one long-lived event loop** of the process, in a
daemon thread (``agenteval-loop``), and the caller blocks until it finishes — from a script and
from a Jupyter cell alike; nest_asyncio is never used. One loop, because agent frameworks keep
their HTTP clients bound to the loop that made them (LangChain caches its async client per
process): a loop per call would hand the second evaluation a client of a closed loop. An
interrupt of the waiting caller (Ctrl-C, a cell's stop button) cancels the coroutine's task
and is raised again. A blocking call made *on* that loop's thread (a coroutine of ours calling
a blocking twin) cannot wait on its own loop: it runs on a private loop in a worker thread.

:func:`sync_twin` is the one way a public ``f`` is made from its ``f_async``: same signature,
annotations and documented options, so that an option added to the async function appears in
the sync one (and in Jupyter's shift-tab help) with no edit.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


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


_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None


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


_in_flight: dict[Future[Any], BaseException | None] = {}
"""The blocking calls waiting on the shared loop, and the interrupt that ended each, if any."""


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The loop thread: serve forever. ``KeyboardInterrupt`` or ``SystemExit`` raised on the
    loop (by a task, or by a callback an agent scheduled) ends every call then waiting, as it
    would end :func:`asyncio.run`: each such call is told the interrupt, its tasks are
    cancelled, the caller raises it; the loop then serves on."""
    while True:
        try:
            loop.run_forever()
            return
        except (KeyboardInterrupt, SystemExit) as interrupt:
            with _loop_lock:
                for waiting in _in_flight:
                    _in_flight[waiting] = _in_flight[waiting] or interrupt
            for task in asyncio.all_tasks(loop):
                task.cancel()


def _wait(future: Future[_Box]) -> _Box:
    """The future's result, waited for in short slices: a signal (Ctrl-C) that the OS hands to
    another thread does not wake a thread blocked on a lock, so the waiting thread looks up every
    quarter second and Python's handler can raise ``KeyboardInterrupt`` in it."""
    while True:
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            continue


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion on the shared loop and return its result (module doc)."""
    loop = shared_loop()
    if threading.current_thread() is _loop_thread:
        ctx = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenteval-nested") as pool:
            box = pool.submit(ctx.run, lambda: asyncio.run(_boxed(factory))).result()
        return box.value  # type: ignore[no-any-return]
    future = asyncio.run_coroutine_threadsafe(_boxed(factory), loop)
    with _loop_lock:
        _in_flight[future] = None
    try:
        return _wait(future).value  # type: ignore[no-any-return]
    except BaseException as failure:
        future.cancel()
        with _loop_lock:
            interrupt = _in_flight.get(future)
        if interrupt is not None and interrupt is not failure:
            raise interrupt from None
        raise
    finally:
        with _loop_lock:
            _in_flight.pop(future, None)


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
