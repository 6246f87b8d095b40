"""Blocking code around the async core: run coroutines from scripts and notebooks, and sync
twins that show their async function's signature (a room below every other: agents, engine,
analysis and the front door all use it).

With no running event loop the coroutine runs with :func:`asyncio.run`. Inside a running loop
(a Jupyter cell) it runs on a private loop in a worker thread, and the caller blocks until it
finishes; nest_asyncio is never used.

:func:`sync_twin` is the one way a public ``f`` is made from its ``f_async``: same signature,
annotations and documented options, so that an option added to the async function appears in
the sync one (and in Jupyter's shift-tab help) with no edit.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
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


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion and return its result."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_boxed(factory)).value  # type: ignore[no-any-return]
    ctx = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenteval-loop") as pool:
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
