"""Async agents run on one long-lived event loop (agenteval_nb/syncio.py): a client made on a
first turn serves later turns and later evaluations; an interrupt of the waiting caller ends
the run and cancels the agent's task; the loop serves on afterwards."""

from __future__ import annotations

import _thread
import asyncio
import threading
import time

import pytest
from _agent_builders import default_case, evalset, metrics
from openai import AsyncOpenAI

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer

TWO_TURNS = evalset(
    default_case("a", [("one", "one"), ("two", "two")]),
    default_case("b", [("three", "three")]),
)


def _statuses(run: ae.EvalRun) -> list[tuple[str, str | None]]:
    return [(r.final_eval_status, r.error_message) for r in run.result.eval_case_results]


def test_an_async_client_made_on_the_first_turn_serves_later_evaluations() -> None:
    """With a loop per evaluation the second one fails: the client's pooled connections
    belong to the first, closed loop ("Event loop is closed")."""
    with FakeOpenAIServer() as server:
        made: list[AsyncOpenAI] = []

        async def agent(text: str) -> str:
            if not made:
                made.append(AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0))
            reply = await made[0].chat.completions.create(
                model="m", messages=[{"role": "user", "content": text}]
            )
            return reply.choices[0].message.content or ""

        runs = [
            ae.evaluate(TWO_TURNS, metrics(), agent=agent, progress=False, cache=False)
            for _ in range(2)
        ]
    assert [_statuses(run) for run in runs] == [[("passed", None)] * 2] * 2
    assert len(made) == 1


def test_the_caller_s_interrupt_ends_the_run_and_cancels_the_agent() -> None:
    """Ctrl-C while ``ae.evaluate`` waits (a notebook's stop button): ``KeyboardInterrupt``
    comes out promptly, the agent's task is cancelled (its cleanup runs before the caller
    gets control back) and the next evaluation runs on the same loop."""
    started, cleaned = threading.Event(), threading.Event()

    async def slow(text: str) -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            cleaned.set()
        return text

    def interrupt_when_started() -> None:
        if started.wait(30):
            _thread.interrupt_main()

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ae.evaluate(TWO_TURNS, metrics(), agent=slow, progress=False, cache=False)
    assert time.monotonic() - began < 30
    assert cleaned.is_set()

    async def quick(text: str) -> str:
        return text

    again = ae.evaluate(TWO_TURNS, metrics(), agent=quick, progress=False, cache=False)
    assert _statuses(again) == [("passed", None)] * 2


def test_an_interrupt_raised_on_the_loop_ends_every_waiting_call() -> None:
    """A callback an agent scheduled raises ``KeyboardInterrupt`` on the loop (outside any
    task): the run it interrupted ends with it, as ``asyncio.run`` would end."""

    def stop() -> None:
        raise KeyboardInterrupt

    async def agent(text: str) -> str:
        asyncio.get_running_loop().call_soon(stop)
        await asyncio.sleep(60)
        return text

    with pytest.raises(KeyboardInterrupt):
        ae.evaluate(TWO_TURNS, metrics(), agent=agent, progress=False, cache=False)

    async def quick(text: str) -> str:
        return text

    again = ae.evaluate(TWO_TURNS, metrics(), agent=quick, progress=False, cache=False)
    assert _statuses(again) == [("passed", None)] * 2


def test_a_langgraph_app_serves_two_evaluations() -> None:
    """LangChain caches its async HTTP client per process, bound to the loop of its first
    use: the graph is called with ``ainvoke``, and a second evaluation must find that loop
    alive."""
    pytest.importorskip("langgraph", reason="the frameworks extra is not installed")
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    with FakeOpenAIServer() as server:
        llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        graph = create_react_agent(llm, [])
        runs = [
            ae.evaluate(TWO_TURNS, metrics(), agent=graph, progress=False, cache=False)
            for _ in range(2)
        ]
    assert [_statuses(run) for run in runs] == [[("passed", None)] * 2] * 2
