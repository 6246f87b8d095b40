"""CrewAI: a standalone ``crewai.Agent`` on ``LLM("openai/…")`` (CrewAI's native OpenAI
provider: the ``openai`` package, 2.x here, on ``httpx``) over the loopback server.

Async is the toolkit's own way (``kickoff_async`` with the session's messages); streaming is
the same way with ``LLM(stream=True)`` (CrewAI asks for the usage chunk itself); sync goes
through ``ae.agent(agent, call=...)`` with CrewAI's blocking ``kickoff``, the messages kept by
the call.
"""

from __future__ import annotations

import os
from typing import Any

import agenteval_nb as ae

FRAMEWORK = "CrewAI"
PACKAGE = "crewai"
CALLED = "`await agent.kickoff_async(messages)`; answer: `raw`"
MEMORY = "the case's earlier user and assistant messages are passed again with the new one"


def _agent(base_url: str, mode: str, tools: list[Any]) -> Any:
    for switch in ("CREWAI_DISABLE_TELEMETRY", "CREWAI_DISABLE_TRACKING", "DO_NOT_TRACK"):
        os.environ.setdefault(switch, "true")
    from crewai import LLM, Agent
    from crewai.tools import tool

    llm = LLM(model="openai/scripted", base_url=base_url, api_key="k", stream=mode == "streaming")
    return Agent(
        role="assistant",
        goal="Answer with the tools.",
        backstory="A scripted test agent.",
        llm=llm,
        tools=[tool(fn) for fn in tools],
        verbose=False,
    )


def _blocking(agent: Any) -> Any:
    sessions: dict[str, list[dict[str, str]]] = {}

    def call(obj: Any, turn: ae.Turn) -> Any:
        earlier = [] if turn.turn_index == 0 else sessions.get(turn.session_id, [])
        asked = [*earlier, {"role": "user", "content": turn.text}]
        result = obj.kickoff(asked)
        sessions[turn.session_id] = [*asked, {"role": "assistant", "content": str(result.raw)}]
        return result

    return ae.agent(agent, call=call)


def make(base_url: str, mode: str, tools: list[Any]) -> Any:
    agent = _agent(base_url, mode, tools)
    return _blocking(agent) if mode == "sync" else agent
