"""Google ADK: an ``LlmAgent`` on ``LiteLlm("openai/…")`` over the loopback server.

Async is the toolkit's own way (an ``InMemoryRunner`` per case, ``run_async``); sync and
streaming go through ``ae.agent(agent, call=...)``: ADK's blocking ``runner.run`` (it runs
``run_async`` on a thread of its own, in a copy of the caller's context, so its calls keep their
case), and ``run_async`` with ``RunConfig(streaming_mode=StreamingMode.SSE)``.
"""

from __future__ import annotations

from typing import Any

import agenteval_nb as ae

FRAMEWORK = "Google ADK"
PACKAGE = "google.adk"
CALLED = (
    "`InMemoryRunner(agent).run_async(user_id, session_id, new_message=Content(...))`; "
    "answer: the last final-response event's text"
)
MEMORY = (
    "one ADK session per toolkit session (created on the case's first turn, state from its "
    "session input): ADK keeps the conversation"
)


def _agent(base_url: str, tools: list[Any]) -> Any:
    from google.adk.agents import LlmAgent
    from google.adk.models.lite_llm import LiteLlm

    model = LiteLlm(model="openai/scripted", api_base=base_url, api_key="k", num_retries=0)
    return LlmAgent(
        name="assistant", model=model, instruction="Answer with the tools.", tools=tools
    )


class _Sessions:
    """What an escape-hatch call keeps: one runner, an ADK session per toolkit session."""

    def __init__(self, agent: Any) -> None:
        from google.adk.runners import InMemoryRunner

        self.runner = InMemoryRunner(agent=agent)

    def where(self, turn: ae.Turn) -> dict[str, str]:
        return {
            "app_name": self.runner.app_name,
            "user_id": turn.user_id or "user",
            "session_id": turn.session_id,
        }

    @staticmethod
    def message(turn: ae.Turn) -> Any:
        from google.genai import types

        return types.Content(role="user", parts=[types.Part(text=turn.text)])


def _blocking(agent: Any) -> Any:
    sessions = _Sessions(agent)

    def call(obj: Any, turn: ae.Turn) -> list[Any]:
        where = sessions.where(turn)
        if turn.turn_index == 0:
            sessions.runner.session_service.create_session_sync(**where)
        return list(
            sessions.runner.run(
                user_id=where["user_id"],
                session_id=where["session_id"],
                new_message=sessions.message(turn),
            )
        )

    return ae.agent(agent, call=call)


def _streamed(agent: Any) -> Any:
    from google.adk.agents.run_config import RunConfig, StreamingMode

    sessions = _Sessions(agent)
    config = RunConfig(streaming_mode=StreamingMode.SSE)

    async def call(obj: Any, turn: ae.Turn) -> list[Any]:
        where = sessions.where(turn)
        if turn.turn_index == 0:
            await sessions.runner.session_service.create_session(**where)
        events = sessions.runner.run_async(
            user_id=where["user_id"],
            session_id=where["session_id"],
            new_message=sessions.message(turn),
            run_config=config,
        )
        return [event async for event in events if not event.partial]

    return ae.agent(agent, call=call)


def make(base_url: str, mode: str, tools: list[Any]) -> Any:
    agent = _agent(base_url, tools)
    if mode == "sync":
        return _blocking(agent)
    if mode == "streaming":
        return _streamed(agent)
    return agent
