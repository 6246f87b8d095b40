"""Adaptive concurrency: the judge finds an endpoint's rate limit instead of being told it.

Rules (``judge_concurrency="adaptive"`` or an :class:`Adaptive`; AIMD, after inspect_ai):

* one :class:`AdaptiveController` per endpoint and API key (base URL + a hash of the key),
  driving that pair's :class:`~.limiter.EndpointLimiter` through ``set_limit``; the limit
  stays within ``[min, max]`` and begins at ``start``;
* every 429 reaches the controller: the openai client is told not to retry a 429 itself (the
  ``x-should-retry: false`` header is set on 429 responses by :class:`RateLimitSignal`; its
  other retries are unchanged) and the judge client retries it in its own loop;
* **clean round**: ``max(limit, 4)`` clean successes in a row — a success whose request was
  answered at its first attempt, while the limit was saturated (at least 80 % of it in use when
  the answer came), outside a cooldown. Until the first 429 (slow start) each clean round
  doubles the limit; afterwards each adds ``max(1, round(5 % of limit))``;
* **cut** on a 429: ``limit × decrease`` (default 0.8) rounded down, at least ``min`` — once
  per episode: a 429 to a request sent before the last cut (under the old limit, :attr:`epoch`)
  does not cut again. A cut starts a cooldown of ``max(cooldown_s, Retry-After)`` (a running
  longer one is kept) during which successes are not counted (no growth);
* **neutral**: a success after retries (5xx, timeouts retried by the openai client) or a failure
  other than 429 resets the clean round and never cuts;
* **retry wait** of a 429 (:func:`retry_delay`): the ``retry-after-ms`` / ``Retry-After`` header
  when present (seconds or an HTTP date), else ``0.5 × 2^n`` s capped at 8 s; plus up to 10 %
  jitter. A call keeps retrying until answered or until its rate-limit waits would pass
  ``max_wait_s`` (default 300 s), then fails with a :class:`~.judge_errors.JudgeError` saying so:
  nothing is lost to rate limits silently;
* every limit change is logged as ``(t, key, old, new, reason)`` — reason ``slow_start``,
  ``steady_up`` or ``rate_limit`` — at most 200 entries per controller (:meth:`history`).
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx2

from .limiter import EndpointLimiter

HISTORY_SIZE = 200
SATURATION = 0.8
MIN_ROUND = 4
GROWTH = 0.05


@dataclass(frozen=True, slots=True)
class Adaptive:
    """Settings of adaptive judge concurrency (module rules)."""

    min: int = 1
    start: int = 10
    max: int = 100
    decrease: float = 0.8
    cooldown_s: float = 10.0
    max_wait_s: float = 300.0

    def __post_init__(self) -> None:
        ints = {"min": self.min, "start": self.start, "max": self.max}
        for name, value in ints.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Adaptive.{name} must be an int >= 1, got {value!r}")
        if not self.min <= self.start <= self.max:
            raise ValueError(
                f"Adaptive needs min <= start <= max, got {self.min}, {self.start}, {self.max}"
            )
        if not 0 < self.decrease < 1:
            raise ValueError(f"Adaptive.decrease must be in (0, 1), got {self.decrease!r}")
        for name in ("cooldown_s", "max_wait_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"Adaptive.{name} must be a number of seconds >= 0")


def divided(settings: Adaptive, share: int) -> Adaptive:
    """``settings`` for one of ``share`` workers: ``min``, ``start`` and ``max`` divided (rounded
    down, at least 1), so that the workers together start and stay within the whole's limits."""

    def part(value: int) -> int:
        return max(1, value // max(1, share))

    return replace(
        settings, min=part(settings.min), start=part(settings.start), max=part(settings.max)
    )


def adaptive_setting(value: Any) -> Adaptive | None:
    """``"adaptive"`` ⇒ the default :class:`Adaptive`; an :class:`Adaptive` as is; else None
    (a fixed concurrency)."""
    if isinstance(value, Adaptive):
        return value
    if value == "adaptive":
        return Adaptive()
    return None


class AdaptiveController:
    """The AIMD limit of one endpoint and key (module rules); thread- and loop-safe."""

    def __init__(
        self,
        settings: Adaptive,
        limiter: EndpointLimiter,
        *,
        key: str = "",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        """``clock`` times cooldowns and the history; ``sleep`` waits before a 429 is retried
        (both replaceable for tests)."""
        self.settings = settings
        self.limiter = limiter
        self.key = key
        self.sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._limit = settings.start
        self._clean = 0
        self._slow_start = True
        self._cooldown_until = -math.inf
        self._epoch = 0
        self._rate_limits = 0
        self._history: deque[tuple[float, str, int, int, str]] = deque(maxlen=HISTORY_SIZE)
        self._t0 = clock()
        limiter.set_limit(self._limit)

    def __repr__(self) -> str:
        return f"AdaptiveController(key={self.key!r}, limit={self.limit}, {self.settings!r})"

    @property
    def limit(self) -> int:
        with self._lock:
            return self._limit

    @property
    def rate_limits(self) -> int:
        """429 answers seen so far."""
        with self._lock:
            return self._rate_limits

    @property
    def epoch(self) -> int:
        """Cuts so far: read it when a request is sent, give it back with its 429."""
        with self._lock:
            return self._epoch

    def history(self) -> list[dict[str, Any]]:
        """The limit changes, oldest first: ``t`` (s since the controller began), ``key``,
        ``old``, ``new``, ``reason``."""
        with self._lock:
            return [
                {"t": t, "key": key, "old": old, "new": new, "reason": reason}
                for t, key, old, new, reason in self._history
            ]

    def succeeded(self, *, clean: bool) -> None:
        """A call was answered; ``clean`` when at its first attempt (module rules)."""
        in_use = self.limiter.in_use  # called while the answer still holds its slot
        with self._lock:
            now = self._clock()
            if not clean:
                self._clean = 0
                return
            if now < self._cooldown_until or in_use < SATURATION * self._limit:
                return
            self._clean += 1
            if self._clean < max(self._limit, MIN_ROUND):
                return
            self._clean = 0
            old = self._limit
            if self._slow_start:
                new, reason = min(self.settings.max, old * 2), "slow_start"
            else:
                step = max(1, round(GROWTH * old))
                new, reason = min(self.settings.max, old + step), "steady_up"
            self._change_locked(now, old, new, reason)

    def neutral(self) -> None:
        """A failure other than a 429: growth waits for a new clean round."""
        with self._lock:
            self._clean = 0

    def rate_limited(self, retry_after: float | None, *, sent_at: int) -> None:
        """A 429 to a request sent at epoch ``sent_at``: cut once per episode and start the
        cooldown (module rules)."""
        with self._lock:
            now = self._clock()
            self._rate_limits += 1
            self._clean = 0
            self._slow_start = False
            if sent_at != self._epoch:
                return
            self._epoch += 1
            cooldown = now + max(self.settings.cooldown_s, retry_after or 0.0)
            self._cooldown_until = max(self._cooldown_until, cooldown)
            old = self._limit
            new = max(self.settings.min, math.floor(old * self.settings.decrease))
            self._change_locked(now, old, new, "rate_limit")

    def _change_locked(self, now: float, old: int, new: int, reason: str) -> None:
        if new == old:
            return
        self._limit = new
        self._history.append((now - self._t0, self.key, old, new, reason))
        self.limiter.set_limit(new)


def retry_after_s(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """The wait a response asks for: ``retry-after-ms``, else ``Retry-After`` in seconds or as
    an HTTP date; ``None`` when absent or unreadable."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
            if math.isfinite(value) and value >= 0:
                return value
        except ValueError:
            pass
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
        return value if math.isfinite(value) and value >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_delay(retry_after: float | None, attempt: int, rng: random.Random | None = None) -> float:
    """How long to wait before retrying a 429 (module rule); ``attempt`` counts from 0."""
    base = retry_after if retry_after is not None else min(8.0, 0.5 * 2.0**attempt)
    return base * (1 + 0.1 * (rng or random).random())


class RateLimitSignal(httpx2.AsyncBaseTransport):
    """Marks every 429 response ``x-should-retry: false`` so the openai client hands it back at
    once instead of retrying it unseen (module rules)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if response.status_code == 429:
            response.headers["x-should-retry"] = "false"
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
