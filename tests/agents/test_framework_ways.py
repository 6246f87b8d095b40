"""The framework ways keep each session's memory apart when sessions interleave on one agent
object (smolagents: the agent holds one conversation; LlamaIndex: a buffer per session), and a
session's first turn never continues an earlier conversation. Real frameworks against the
loopback server; skipped when a framework is not installed in this environment."""

from __future__ import annotations

import asyncio

import pytest
from framework_conformance.cases import TOOLS, scripted_model

import agenteval_nb as ae
from agenteval_nb.agents.frameworks import FrameworkAgent
from agenteval_nb.testing.fake_server import FakeOpenAIServer


def turn(session: str, index: int, text: str) -> ae.Turn:
    return ae.Turn(
        user_content=ae.Message(role="user", content=text), session_id=session, turn_index=index
    )


INTERLEAVED = [
    turn("oslo", 0, "What is the weather in Oslo?"),
    turn("paris", 0, "What is the weather in Paris?"),
    turn("oslo", 1, "What should I pack for the trip?"),
    turn("paris", 1, "What should I pack for the trip?"),
    turn("oslo", 0, "What should I pack for the trip?"),  # a new run of the session id
]
EXPECTED = [
    "It is rainy in Oslo.",
    "It is sunny in Paris.",
    "Pack an umbrella for Oslo.",
    "Pack sunglasses for Paris.",
    None,  # a new run of a session id: no city remembered (the tool fails or is not called)
]


def answers(agent: FrameworkAgent) -> list[str]:
    async def run() -> list[str]:
        return [await agent.run_turn(t) for t in INTERLEAVED]

    return asyncio.run(run())


def check(got: list[str]) -> None:
    assert got[:4] == EXPECTED[:4]
    assert "Oslo" not in got[4] and "Paris" not in got[4], got[4]


def test_smolagents_sessions_interleave_on_one_agent_object():
    pytest.importorskip("smolagents", reason="the frameworks extra is not installed")
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    with FakeOpenAIServer(scripted_model()) as server:
        model = OpenAIServerModel("m", api_base=server.base_url, api_key="k")
        agent = ToolCallingAgent(
            tools=[tool(fn) for fn in TOOLS], model=model, max_steps=4, verbosity_level=-1
        )
        wrapped = FrameworkAgent(agent)
        assert wrapped.framework == "smolagents"
        check(answers(wrapped))


def test_llama_index_sessions_interleave_on_one_workflow():
    pytest.importorskip("llama_index.llms.openai_like", reason="its own environment (docs)")
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.llms.openai_like import OpenAILike

    with FakeOpenAIServer(scripted_model()) as server:
        llm = OpenAILike(
            model="m",
            api_base=server.base_url,
            api_key="k",
            is_chat_model=True,
            is_function_calling_model=True,
        )
        wrapped = FrameworkAgent(FunctionAgent(tools=list(TOOLS), llm=llm, streaming=False))
        assert wrapped.framework == "llama-index"
        check(answers(wrapped))
