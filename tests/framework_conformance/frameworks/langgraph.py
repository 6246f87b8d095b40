"""LangGraph: a prebuilt ReAct graph over ``ChatOpenAI``, passed to ``ae.evaluate`` as it is
(async and streaming: the toolkit's way, ``ainvoke``) or through ``ae.agent`` with the blocking
``invoke`` (sync)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agenteval_nb as ae

from ..contract import Gap

FRAMEWORK = "LangGraph"
PACKAGE = "langgraph"
CALLED = (
    "`await graph.ainvoke({'messages': …}, config={'configurable': {'thread_id': session}})` "
    "(the object as it is); sync: `ae.agent(graph, call=…invoke…)` (a worker thread)"
)
MEMORY = (
    "the graph's checkpointer (thread id = session id) when it has one, else the session's "
    "messages passed back"
)


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.prebuilt import create_react_agent

    llm = ChatOpenAI(
        model="m",
        base_url=base_url,
        api_key="k",
        streaming=mode == "streaming",
        stream_usage=True,
    )
    lc_tools = [tool(fn) for fn in tools]
    if mode == "async":  # no checkpointer: the way passes the session's messages back
        return create_react_agent(llm, lc_tools)
    graph = create_react_agent(llm, lc_tools, checkpointer=InMemorySaver())
    if mode == "streaming":
        return graph

    def call(graph: Any, turn: ae.Turn) -> Any:
        config = {"configurable": {"thread_id": turn.session_id}}
        return graph.invoke({"messages": [("user", turn.text)]}, config=config)

    return ae.agent(graph, call=call)
