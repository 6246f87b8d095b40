"""PydanticAI: an ``Agent`` over ``OpenAIChatModel``. Async passes the agent as it is (the
toolkit's way: ``agent.run``); sync (``run_sync``) and streaming (``run`` with an
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
    "`await agent.run(text, message_history=…)` (the object as it is); sync: `run_sync` and "
    "streaming: `run(…, event_stream_handler=…)` through `ae.agent(agent, call=…)`"
)
MEMORY = "the session's `result.all_messages()` as `message_history`"


def check_loop_bound(run: Any) -> None:
    """Some case failed on the loop binding, and no case failed otherwise."""
    errors = [c.error_message for c in run.result.eval_case_results if c.error_message]
    assert errors, "every case ran: the loop-binding gap is gone, make sync a plain mode"
    assert all("bound to a different event loop" in e for e in errors), errors


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    agent = Agent(model, tools=list(tools))
    if mode == "async":
        return agent
    sessions: dict[str, list[Any]] = {}

    def history(turn: ae.Turn) -> list[Any] | None:
        return sessions.get(turn.session_id) if turn.turn_index else None

    if mode == "sync":

        def run_sync(agent: Any, turn: ae.Turn) -> Any:
            result = agent.run_sync(turn.text, message_history=history(turn))
            sessions[turn.session_id] = result.all_messages()
            return result

        return Gap(
            "`run_sync` from the toolkit's worker threads runs each thread's own event loop; "
            "the provider's async client binds to the first one, so the other cases fail "
            "(`… is bound to a different event loop`): use the async way",
            ae.agent(agent, call=run_sync),
            check_loop_bound,
        )

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
