"""``openai.AsyncOpenAI`` clients per event loop, shared by the judge and agent clients.

An HTTP connection pool cannot move between event loops, and ``ae.evaluate`` in a notebook
runs every evaluation on a fresh private loop. So a long-lived object (an agent, a judge
client) keeps one ``AsyncOpenAI`` per (loop, endpoint) and reuses it for every call on that
loop.

Every client is closed **on its own loop, before that loop closes**: by ``close_running`` /
``close_all`` when the owner closes it, and otherwise when the loop shuts down. A client left
open past its loop (the loop closed, the client collected later) makes its sockets' transports
call into the closed loop from the garbage collector: ``RuntimeError: Event loop is closed``
and unclosed-socket ``ResourceWarning``s at random later points. The shutdown hook is an async
generator started on the loop when its first client is made: ``asyncio.run``,
``asyncio.Runner`` and anyio close a loop with ``loop.shutdown_asyncgens()``, which runs the
generator's ``finally`` — closing that loop's clients — while the loop still runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import AsyncGenerator, Callable, Hashable

import openai


class _LoopPool:
    """The clients of one loop and the generator that closes them at the loop's shutdown."""

    def __init__(self) -> None:
        self.clients: dict[Hashable, openai.AsyncOpenAI] = {}
        self.closer = self._close_at_shutdown()
        # step the generator to its ``yield`` now (it does not await before it): it is then
        # registered with the running loop, and its ``finally`` runs at shutdown_asyncgens
        step = self.closer.__anext__()
        with contextlib.suppress(StopIteration):
            step.send(None)

    async def _close_at_shutdown(self) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            await self.close_clients()

    async def close_clients(self) -> None:
        clients, self.clients = list(self.clients.values()), {}
        for client in clients:
            await client.close()

    async def close(self) -> None:
        """Close the clients and finish the shutdown generator (on the pool's loop)."""
        await self.close_clients()
        await self.closer.aclose()


class LoopClients:
    """``get(key, factory)`` → the loop's client for ``key``, created by ``factory()`` once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopPool] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, key: Hashable, factory: Callable[[], openai.AsyncOpenAI]) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.get(loop)
            if pool is None:
                for dead in [other for other in self._pools if other.is_closed()]:
                    del self._pools[dead]  # closed at their loop's shutdown already
                pool = self._pools[loop] = _LoopPool()
            client = pool.clients.get(key)
            if client is None:
                client = pool.clients[key] = factory()
            return client

    async def close_running(self) -> None:
        """Close the clients of the running loop (call it before that loop ends)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.pop(loop, None)
        if pool is not None:
            await pool.close()

    async def close_all(self) -> None:
        """Close every loop's clients: on the running loop directly, on other running loops
        through that loop; a stopped loop's clients are closed when it shuts down."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pools = list(self._pools.items())
            self._pools = weakref.WeakKeyDictionary()
        for owner, pool in pools:
            if owner is loop:
                await pool.close()
            elif owner.is_running():
                asyncio.run_coroutine_threadsafe(pool.close(), owner)
            elif not owner.is_closed():
                with self._lock:  # keep it: its shutdown generator still has to run
                    self._pools[owner] = pool
