"""Sync twins (agenteval_nb/syncio.py): the blocking function shows its async twin's signature and docs."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import pydoc
import threading

import agenteval_nb as ae
from agenteval_nb.syncio import run_sync, sync_twin


def test_evaluate_has_the_signature_of_evaluate_async():
    sync_sig = inspect.signature(ae.evaluate)
    assert sync_sig == inspect.signature(ae.evaluate_async)
    assert "kwargs" not in sync_sig.parameters
    assert {"agent", "num_runs", "case_ids", "judge", "results_dir"} <= set(sync_sig.parameters)
    assert ae.evaluate.__wrapped__ is ae.evaluate_async
    assert ae.evaluate.__annotations__ == ae.evaluate_async.__annotations__
    assert ae.evaluate.__name__ == "evaluate" and ae.evaluate.__module__ == "agenteval_nb.api"
    assert not inspect.iscoroutinefunction(ae.evaluate)


def test_help_of_evaluate_documents_the_options():
    text = pydoc.render_doc(ae.evaluate, renderer=pydoc.plaintext)
    assert "evaluate(evalset: " in text and "num_runs: 'int | None' = None" in text
    assert "Jupyter" in text  # the sync twin's own paragraph
    assert "``case_ids`` keeps only these cases" in text  # the async twin's options
    assert "``agent`` runs default-mode cases" in text
    assert "Blocking twin of :func:`evaluate_async`" in text


def test_best_of_n_has_the_signature_of_best_of_n_async():
    assert inspect.signature(ae.best_of_n) == inspect.signature(ae.best_of_n_async)
    assert "require_passing" in (ae.best_of_n.__doc__ or "")


async def _scaled(x: int, *, factor: int = 2, offset: int = 0) -> int:
    """Scale a number (awaitable).

    ``factor`` multiplies, ``offset`` is added.
    """
    await asyncio.sleep(0)
    return x * factor + offset


def test_a_parameter_added_to_the_async_function_reaches_the_twin():
    @sync_twin(_scaled)
    def scaled():
        """Scale a number; blocks."""

    params = inspect.signature(scaled).parameters
    assert list(params) == ["x", "factor", "offset"]
    assert params["factor"].kind is inspect.Parameter.KEYWORD_ONLY
    assert scaled(3, offset=1) == 7
    assert inspect.getdoc(scaled).splitlines()[0] == "Scale a number; blocks."
    assert "``offset`` is added." in inspect.getdoc(scaled)


def test_twin_runs_inside_a_running_event_loop():
    @sync_twin(_scaled)
    def scaled():
        """Scale."""

    async def notebook_cell() -> int:
        return scaled(5, factor=3)

    assert asyncio.run(notebook_cell()) == 15


def test_the_result_is_not_formatted_on_the_way_out():
    """asyncio.run formats its main task (result included) when it restores the SIGINT
    handler; a 100k-case run's repr costs seconds, so the result travels in a box."""

    class Counted:
        calls = 0

        def __repr__(self) -> str:
            Counted.calls += 1
            return "Counted()"

    async def make() -> Counted:
        return Counted()

    assert isinstance(run_sync(make), Counted)
    assert Counted.calls == 0


def _returns_within(seconds: float, call) -> BaseException | object:
    """``call()``'s result or exception, or ``TimeoutError`` of the test when it does not
    return in time (a daemon thread: a hang fails the test instead of stalling the suite)."""
    out: list[object] = []

    def target() -> None:
        try:
            out.append(call())
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"no answer within {seconds} s"
    return out[0]


def test_a_timeout_the_coroutine_raises_reaches_the_caller():
    """The caller waits in slices; since Python 3.11 ``concurrent.futures.TimeoutError`` *is*
    ``TimeoutError``, and a wait that took the coroutine's own ``TimeoutError`` for the end of a
    slice waited forever (the Ray executor's start timeout hung the run that way)."""

    async def late() -> None:
        raise TimeoutError("workers not placed")

    raised = _returns_within(10, lambda: run_sync(late))
    assert isinstance(raised, TimeoutError) and str(raised) == "workers not placed"


def test_blocking_calls_share_one_loop_and_see_the_caller_s_context():
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")

    async def where() -> tuple[asyncio.AbstractEventLoop, str, str]:
        return asyncio.get_running_loop(), threading.current_thread().name, marker.get()

    marker.set("caller")
    first, second = run_sync(where), run_sync(where)
    assert first[0] is second[0] and not first[0].is_closed()
    assert first[1:] == second[1:] == ("agenteval-loop", "caller")


def test_a_blocking_call_made_on_the_loop_runs_on_a_private_loop():
    async def inner() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    async def outer() -> tuple[asyncio.AbstractEventLoop, asyncio.AbstractEventLoop]:
        return asyncio.get_running_loop(), run_sync(inner)

    shared, private = _returns_within(10, lambda: run_sync(outer))
    assert shared is not private


def test_a_forked_child_starts_a_loop_of_its_own():
    async def pid() -> int:
        return os.getpid()

    assert run_sync(pid) == os.getpid()  # the parent's loop thread is running
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        code = 0 if run_sync(pid) == os.getpid() else 1
        os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
