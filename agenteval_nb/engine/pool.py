"""Bounded concurrency: a pool of workers that pull the next item, so a million items cost
``limit`` tasks. :func:`for_each_bounded` keeps nothing; :func:`map_bounded` keeps the results
in input order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


async def for_each_bounded(
    items: Sequence[T], fn: Callable[[T], Awaitable[Any]], limit: int
) -> None:
    """Await ``fn(item)`` for every item, at most ``limit`` at once, items started in order."""
    if limit < 1:
        raise ValueError("parallelism must be > 0")
    if limit == 1 or len(items) <= 1:
        for item in items:
            await fn(item)
        return
    pending = iter(items)

    async def worker() -> None:
        for item in pending:
            await fn(item)

    await asyncio.gather(*(worker() for _ in range(min(limit, len(items)))))


async def map_bounded(items: Sequence[T], fn: Callable[[T], Awaitable[R]], limit: int) -> list[R]:
    """:func:`for_each_bounded`, returning ``fn``'s results in input order."""
    results: list[R] = [None] * len(items)  # type: ignore[list-item]

    async def put(i: int) -> None:
        results[i] = await fn(items[i])

    await for_each_bounded(range(len(items)), put, limit)
    return results
