"""``openai.AsyncOpenAI`` clients per event loop, shared by the judge and agent clients.

An HTTP connection pool cannot move between event loops, and ``ae.evaluate`` in a notebook
runs every evaluation on a fresh private loop. So a long-lived object (an agent, a judge
client) keeps one ``AsyncOpenAI`` per (loop, endpoint), reuses it for every call on that loop,
forgets clients of closed loops, and closes the running loop's clients at the end of a run.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable, Hashable

import openai


class LoopClients:
    """``get(key, factory)`` → the loop's client for ``key``, created by ``factory()`` once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[Hashable, openai.AsyncOpenAI]
        ] = weakref.WeakKeyDictionary()

    def get(self, key: Hashable, factory: Callable[[], openai.AsyncOpenAI]) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.get(loop)
            if pool is None:
                for dead in [other for other in self._pools if other.is_closed()]:
                    del self._pools[dead]  # their connections died with their loop
                pool = self._pools[loop] = {}
            client = pool.get(key)
            if client is None:
                client = pool[key] = factory()
            return client

    async def close_running(self) -> None:
        """Close the clients of the running loop (call it before that loop ends)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.pop(loop, {})
        for client in pool.values():
            await client.close()

    async def close_all(self) -> None:
        """Close every loop's clients: on the running loop directly, on other running loops
        through that loop; clients of stopped loops are dropped."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pools = list(self._pools.items())
            self._pools = weakref.WeakKeyDictionary()
        for owner, pool in pools:
            for client in pool.values():
                if owner is loop:
                    await client.close()
                elif owner.is_running():
                    asyncio.run_coroutine_threadsafe(client.close(), owner)
