"""Per-endpoint limits: concurrent requests and, optionally, requests per minute.

Rules:

* at most ``max_concurrency`` holders at once (default 32); waiters are served first come,
  first served;
* with ``requests_per_minute`` set, a token bucket of ``burst`` tokens (default 1, i.e. requests
  evenly spaced by ``60 / rpm`` seconds) refilled at ``rpm / 60`` tokens per second; the token
  is taken after the concurrency slot, right before the request goes out;
* one limiter serves every coroutine of every event loop and thread that shares it (the run's
  private loop in a worker thread, a second run started meanwhile …): its state lives behind a
  ``threading.Lock`` and a waiter is woken on its own loop with ``call_soon_threadsafe``, so
  no asyncio primitive is ever bound to a foreign loop;
* cancellation while waiting never leaks a slot;
* the cap can change while the limiter is in use (:meth:`EndpointLimiter.set_limit`, driven by
  :mod:`.adaptive`): raising it hands the new slots to waiters at once; lowering it lets the
  holders finish, and a released slot is then withdrawn instead of handed over until fewer than
  the new cap are held.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class EndpointLimiter:
    """Concurrency cap plus optional request-rate cap for one endpoint (module rules)."""

    def __init__(
        self,
        max_concurrency: int = 32,
        requests_per_minute: float | None = None,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        """``clock`` and ``sleep`` drive the rate bucket (replaceable for tests)."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if requests_per_minute is not None and not (
            math.isfinite(requests_per_minute) and requests_per_minute > 0
        ):
            raise ValueError("requests_per_minute must be a positive number")
        if burst < 1:
            raise ValueError("burst must be at least 1")
        self.max_concurrency = max_concurrency
        self.requests_per_minute = requests_per_minute
        self.burst = burst
        self._lock = threading.Lock()
        self._in_use = 0
        self._max_in_use = 0
        self._waiters: deque[_Waiter] = deque()
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._stamp = clock()

    def __repr__(self) -> str:
        return (
            f"EndpointLimiter(max_concurrency={self.max_concurrency}, "
            f"requests_per_minute={self.requests_per_minute}, in_use={self.in_use})"
        )

    @property
    def in_use(self) -> int:
        with self._lock:
            return self._in_use

    @property
    def max_in_use(self) -> int:
        """Largest number of simultaneous holders seen so far."""
        with self._lock:
            return self._max_in_use

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one concurrency slot (and one rate token) for the body of the ``async with``."""
        await self.acquire()
        try:
            await self._take_token()
            yield
        finally:
            self.release()

    async def acquire(self) -> None:
        """Wait for a concurrency slot; pair with :meth:`release`."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._in_use < self.max_concurrency and not self._waiters:
                self._grant_locked()
                return
            future: asyncio.Future[None] = loop.create_future()
            entry = (loop, future)
            self._waiters.append(entry)
        try:
            await future
        except BaseException:
            with self._lock:
                try:
                    self._waiters.remove(entry)
                    queued = True
                except ValueError:
                    queued = False
            if not queued:
                if future.done() and not future.cancelled():
                    self.release()  # the slot was handed over just as we were cancelled
                else:
                    future.cancel()  # a hand-over is scheduled; _hand_over will give it back
            raise

    def release(self) -> None:
        """Give a slot back: hand it to the oldest waiter still waiting, or free it.

        A waiter on the calling thread's running loop is woken directly; one on another loop
        through that loop's ``call_soon_threadsafe``.
        """
        try:
            current: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        with self._lock:
            while self._waiters and self._in_use <= self.max_concurrency:
                loop, future = self._waiters.popleft()
                if loop is current:
                    if future.done():  # cancelled while queued: try the next one
                        continue
                    future.set_result(None)
                    return
                if loop.is_closed():
                    continue
                try:
                    loop.call_soon_threadsafe(self._hand_over, future)
                except RuntimeError:  # loop closed meanwhile
                    continue
                return
            self._in_use -= 1

    def set_limit(self, max_concurrency: int) -> None:
        """Change the cap (module rule); waiters are served up to a raised cap."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        with self._lock:
            self.max_concurrency = max_concurrency
            grants = []
            while self._waiters and self._in_use < max_concurrency:
                loop, future = self._waiters.popleft()
                if loop.is_closed() or future.done():
                    continue
                self._in_use += 1  # counted now; _hand_over gives it back if unwanted
                grants.append((loop, future))
            self._max_in_use = max(self._max_in_use, self._in_use)
        for loop, future in grants:
            try:
                loop.call_soon_threadsafe(self._hand_over, future)
            except RuntimeError:  # loop closed meanwhile
                self.release()

    def _grant_locked(self) -> None:
        self._in_use += 1
        self._max_in_use = max(self._max_in_use, self._in_use)

    def _hand_over(self, future: asyncio.Future[None]) -> None:
        # Runs on the waiter's loop; the slot stays counted in _in_use while it changes hands.
        if future.done():
            self.release()
        else:
            future.set_result(None)

    async def _take_token(self) -> None:
        if self.requests_per_minute is None:
            return
        rate = self.requests_per_minute / 60.0
        with self._lock:
            now = self._clock()
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * rate)
            self._stamp = now
            self._tokens -= 1.0
            wait = 0.0 if self._tokens >= 0 else -self._tokens / rate
        if wait > 0:
            try:
                await self._sleep(wait)
            except BaseException:
                with self._lock:
                    self._tokens += 1.0
                raise
