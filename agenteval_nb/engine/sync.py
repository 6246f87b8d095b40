"""Run the async engine from synchronous code, in a script or inside Jupyter.

With no running event loop the coroutine runs with :func:`asyncio.run`. Inside a running loop
(a Jupyter cell) it runs on a private loop in a worker thread, and the caller blocks until it
finishes; nest_asyncio is never used.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion and return its result."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    ctx = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenteval-loop") as pool:
        return pool.submit(ctx.run, lambda: asyncio.run(factory())).result()
