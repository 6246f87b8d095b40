"""LangGraph: a prebuilt ReAct graph over ``ChatOpenAI``, passed to ``ae.evaluate`` as it is
(sync and streaming: the toolkit's way) or through ``ae.agent`` with ``ainvoke`` (async)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agenteval_nb as ae

from ..contract import Gap

FRAMEWORK = "LangGraph"
PACKAGE = "langgraph"
CALLED = (
    "`graph.invoke({'messages': …}, config={'configurable': {'thread_id': session}})` in a "
    "worker thread (the object as it is); async: `ae.agent(graph, call=…ainvoke…)`"
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
    if mode == "sync":  # no checkpointer: the way passes the session's messages back
        return create_react_agent(llm, lc_tools)
    graph = create_react_agent(llm, lc_tools, checkpointer=InMemorySaver())
    if mode == "streaming":
        return graph

    async def call(graph: Any, turn: ae.Turn) -> Any:
        config = {"configurable": {"thread_id": turn.session_id}}
        return await graph.ainvoke({"messages": [("user", turn.text)]}, config=config)

    return ae.agent(graph, call=call)
