"""The OpenAI Agents SDK: an ``agents.Agent`` over the Chat Completions model (sync, async) and
the Responses model streamed with ``Runner.run_streamed`` (streaming); sync uses a model
(an async client) per turn, as ``run_sync`` runs an event loop per worker thread. Async passes the agent as
it is (the toolkit's way: ``Runner.run``); sync and streaming go through ``ae.agent`` with a call
that keeps the session's items itself, as a user's notebook would."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agenteval_nb as ae

from ..contract import Gap

FRAMEWORK = "OpenAI Agents SDK"
PACKAGE = "agents"
CALLED = (
    "`await Runner.run(agent, items)` (the object as it is); sync: `Runner.run_sync` (a model "
    "per turn) and "
    "streaming: `Runner.run_streamed` through `ae.agent(agent, call=…)`"
)
MEMORY = "the session's `result.to_input_list()` plus the new user message"


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)

    def chat_model() -> Any:
        return OpenAIChatCompletionsModel("m", AsyncOpenAI(base_url=base_url, api_key="k"))

    if mode == "streaming":
        model: Any = OpenAIResponsesModel("m", AsyncOpenAI(base_url=base_url, api_key="k"))
    else:
        model = chat_model()
    agent = Agent(
        name="trip",
        instructions="Answer with the tools.",
        model=model,
        tools=[function_tool(fn) for fn in tools],
    )
    if mode == "async":
        return agent
    sessions: dict[str, list[Any]] = {}

    def items(turn: ae.Turn) -> list[Any]:
        earlier = sessions.get(turn.session_id, []) if turn.turn_index else []
        return [*earlier, {"role": "user", "content": turn.text}]

    if mode == "sync":

        def run_sync(agent: Any, turn: ae.Turn) -> Any:
            # run_sync runs an event loop per worker thread: a client shared by concurrent
            # turns would be bound to the first thread's loop, so a model per turn
            result = Runner.run_sync(agent.clone(model=chat_model()), items(turn))
            sessions[turn.session_id] = result.to_input_list()
            return result

        return ae.agent(agent, call=run_sync)

    async def run_streamed(agent: Any, turn: ae.Turn) -> Any:
        result = Runner.run_streamed(agent, items(turn))
        async for _ in result.stream_events():
            pass
        sessions[turn.session_id] = result.to_input_list()
        return result

    return ae.agent(agent, call=run_streamed)
