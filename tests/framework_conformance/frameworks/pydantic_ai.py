"""PydanticAI: an ``Agent`` over ``OpenAIChatModel``. Async passes the agent as it is (the
toolkit's way: ``agent.run``); sync (``run_sync`` with a model per turn: it runs an event loop
per worker thread, and an async client binds to the first) and streaming (``run`` with an
``event_stream_handler``, which makes the model stream) go through ``ae.agent`` with a call
that keeps the session's messages itself."""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Sequence
from typing import Any

import agenteval_nb as ae

from ..contract import Gap

FRAMEWORK = "PydanticAI"
PACKAGE = "pydantic_ai"
CALLED = (
    "`await agent.run(text, message_history=…)` (the object as it is); sync: `run_sync` (a "
    "model per turn) and "
    "streaming: `run(…, event_stream_handler=…)` through `ae.agent(agent, call=…)`"
)
MEMORY = "the session's `result.all_messages()` as `message_history`"


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    def chat_model() -> Any:
        return OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))

    agent = Agent(chat_model(), tools=list(tools))
    if mode == "async":
        return agent
    sessions: dict[str, list[Any]] = {}

    def history(turn: ae.Turn) -> list[Any] | None:
        return sessions.get(turn.session_id) if turn.turn_index else None

    if mode == "sync":

        def run_sync(agent: Any, turn: ae.Turn) -> Any:
            # run_sync runs an event loop per worker thread: a model (an async client) shared
            # by concurrent turns would be bound to the first thread's loop, so one per turn
            result = agent.run_sync(turn.text, message_history=history(turn), model=chat_model())
            sessions[turn.session_id] = result.all_messages()
            return result

        return ae.agent(agent, call=run_sync)

    async def drain(_: Any, events: AsyncIterable[Any]) -> None:
        async for _event in events:
            pass

    async def run_streaming(agent: Any, turn: ae.Turn) -> Any:
        result = await agent.run(
            turn.text, message_history=history(turn), event_stream_handler=drain
        )
        sessions[turn.session_id] = result.all_messages()
        return result

    return ae.agent(agent, call=run_streaming)
