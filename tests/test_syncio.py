"""Sync twins (agenteval_nb/syncio.py): the blocking function shows its async twin's signature and docs."""

from __future__ import annotations

import asyncio
import inspect
import pydoc

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
