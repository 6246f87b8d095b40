"""Bounded concurrency with results in input order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


async def map_bounded(items: Sequence[T], fn: Callable[[T], Awaitable[R]], limit: int) -> list[R]:
    """Await ``fn(item)`` for every item with at most ``limit`` in flight; results keep order.

    A pool of ``limit`` workers pulls the next index, so a million items cost ``limit`` tasks.
    """
    if limit < 1:
        raise ValueError("parallelism must be > 0")
    results: list[R] = [None] * len(items)  # type: ignore[list-item]
    if limit == 1 or len(items) <= 1:
        for i, item in enumerate(items):
            results[i] = await fn(item)
        return results
    next_index = iter(range(len(items)))

    async def worker() -> None:
        for i in next_index:
            results[i] = await fn(items[i])

    await asyncio.gather(*(worker() for _ in range(min(limit, len(items)))))
    return results
