"""How to call an agent of a framework for one user turn, and how to read its answer.

A few lines per framework, chosen by duck typing; the framework is never imported unless the
object comes from it. What the agent *did* (model calls, tool uses and results, usage) is not
read here: the wire recorder captures it the same way for every framework
(:mod:`agenteval_nb.agents.capture`). Each way keeps the framework's own memory of a case's
earlier turns, per session id (the last :data:`MAX_SESSIONS` sessions):

* **LangGraph** (a compiled graph: ``get_graph`` and ``ainvoke``): ``await graph.ainvoke(
  {"messages": [...]}, config={"configurable": {"thread_id": <session>}})`` — on the process's
  one long-lived loop (:mod:`agenteval_nb.syncio`), where LangChain's async client, cached per
  process and bound to its first loop, keeps working; a graph with a checkpointer keeps the
  thread itself and gets the new user message only, one without gets the session's messages
  so far plus the new one. Answer: the text of the last message.
* **OpenAI Agents SDK** (``agents.Agent``): ``Runner.run(agent, items)`` where ``items`` is the
  session's ``result.to_input_list()`` so far plus the user message. Answer: ``final_output``.
* **PydanticAI** (``pydantic_ai.Agent``): ``agent.run(text, message_history=...)`` with the
  session's ``all_messages()``. Answer: ``output``.
* **any callable**: ``f(text)`` or ``f(turn)`` as :class:`~agenteval_nb.agents.base.FunctionAgent`
  (:func:`agenteval_nb.agents.base.as_agent` decides).

``ae.agent(obj, call=..., output=...)`` is the escape hatch: ``call(obj, turn)`` (sync or
async) makes the call, ``output(result)`` reads the answer (default: ``str`` as is, else the
framework's rule above, else ``str(result)``).

Tool mocks (``toolMock``, SPEC §8.4): the framework runs the tools, so a rule can only answer a
tool given to the framework as ``ae.mockable(fn)`` (:mod:`agenteval_nb.agents.mockable`). That
works wherever the framework takes a plain Python function as a tool: LangGraph / LangChain
(``tool(ae.mockable(fn))`` or the function in ``create_react_agent``'s list), PydanticAI
(``tools=[ae.mockable(fn)]``), the Agents SDK (``function_tool(ae.mockable(fn))``), smolagents
(``@tool`` over the wrapper), LlamaIndex (``FunctionTool.from_defaults(ae.mockable(fn))``),
Google ADK (plain functions in ``tools=``) and DSPy (``dspy.Tool(ae.mockable(fn))``). A tool
the framework builds otherwise (a class with its own ``_run``, a remote or MCP tool, a built-in
search) cannot be mocked: a case whose rules name a tool the agent ran without the wrapper
fails, naming the tool and the fix — the real tool's result is never scored as the mock's.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .tools import ToolSpec, run_blocking
from .turn import Turn

MAX_SESSIONS = 1024
"""Sessions whose framework memory is kept (least recently used dropped first)."""

Call = Callable[[Any, Turn, "SessionMemory"], Any]
Output = Callable[[Any], Any]


class SessionMemory:
    """What a framework needs to continue a case's conversation, per session id (bounded)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._limit = limit
        self._items: OrderedDict[str, Any] = OrderedDict()

    def get(self, turn: Turn, default: Any) -> Any:
        """The session's memory; ``default`` on its first turn (memory of an earlier run with
        the same session id is never reused)."""
        if turn.turn_index == 0:
            self._items.pop(turn.session_id, None)
            return default
        if turn.session_id not in self._items:
            return default
        self._items.move_to_end(turn.session_id)
        return self._items[turn.session_id]

    def put(self, turn: Turn, value: Any) -> None:
        self._items[turn.session_id] = value
        self._items.move_to_end(turn.session_id)
        while len(self._items) > self._limit:
            self._items.popitem(last=False)


def _module(obj: Any) -> str:
    return type(obj).__module__ or ""


def message_text(message: Any) -> str:
    """The text of a LangChain message (``content`` as a string or a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
        )
    return str(content)


# -- the ways ------------------------------------------------------------------------------


async def _langgraph(graph: Any, turn: Turn, memory: SessionMemory) -> Any:
    config = {"configurable": {"thread_id": turn.session_id}}
    if getattr(graph, "checkpointer", None) is not None:
        return await graph.ainvoke({"messages": [("user", turn.text)]}, config=config)
    history = memory.get(turn, [])
    result = await graph.ainvoke({"messages": [*history, ("user", turn.text)]}, config=config)
    memory.put(turn, list(result.get("messages", [])) if isinstance(result, dict) else history)
    return result


def _langgraph_output(result: Any) -> str:
    messages = result.get("messages") if isinstance(result, dict) else None
    return message_text(messages[-1]) if messages else str(result)


async def _agents_sdk(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    from agents import Runner  # the object is an Agents SDK agent: the package is there

    items = [*memory.get(turn, []), {"role": "user", "content": turn.text}]
    result = await Runner.run(agent, items)
    memory.put(turn, result.to_input_list())
    return result


async def _pydantic_ai(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    result = await agent.run(turn.text, message_history=memory.get(turn, None))
    memory.put(turn, result.all_messages())
    return result


@dataclass(frozen=True)
class Way:
    """How one framework's agents are called and answered."""

    framework: str
    call: Call
    output: Output


def _attribute_output(name: str) -> Output:
    def read(result: Any) -> Any:
        return getattr(result, name, result)

    return read


WAYS: tuple[tuple[Callable[[Any], bool], Way], ...] = (
    (
        lambda o: hasattr(o, "get_graph") and hasattr(o, "ainvoke"),
        Way("langgraph", _langgraph, _langgraph_output),
    ),
    (
        lambda o: _module(o).startswith("agents.") and type(o).__name__ == "Agent",
        Way("openai-agents", _agents_sdk, _attribute_output("final_output")),
    ),
    (
        lambda o: _module(o).startswith("pydantic_ai") and hasattr(o, "run"),
        Way("pydantic-ai", _pydantic_ai, _attribute_output("output")),
    ),
)
"""First match wins; a callable that matches none is a plain function agent."""


def way_of(obj: Any) -> Way | None:
    """The framework way that calls ``obj``, or ``None`` (a plain callable)."""
    for matches, way in WAYS:
        try:
            if matches(obj):
                return way
        except Exception:
            continue
    return None


def answer_text(value: Any) -> str:
    """What the engine scores as the final answer: a ``str`` as is, a pydantic model as its
    JSON, ``None`` as ``""``, anything else as ``str``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    return str(value)


class FrameworkAgent:
    """A framework's agent (or any object with a ``call``) as an agent under test.

    The toolkit does not run the agent's tools (``tools`` is empty): they run inside the
    framework and are captured from the wire. ``toolMock`` rules answer the tools given to the
    framework as ``ae.mockable(fn)``; a case whose rules name a tool the agent ran unwrapped
    fails saying so (module doc).
    """

    tools: list[ToolSpec]

    def __init__(
        self,
        obj: Any,
        *,
        call: Callable[..., Any] | None = None,
        output: Output | None = None,
        name: str | None = None,
    ) -> None:
        way = way_of(obj) if call is None else None
        if call is None and way is None:
            raise TypeError(
                f"no known way to call a {type(obj).__name__}; pass ae.agent(obj, call=lambda "
                "obj, turn: ..., output=lambda result: ...)"
            )
        self.obj = obj
        self.framework = way.framework if way else "custom"
        self._call = call
        self._way = way
        self._output = output or (way.output if way else (lambda result: result))
        self._memory = SessionMemory()
        self.tools = []
        self.name = name or f"{self.framework}:{type(obj).__name__}"

    def __repr__(self) -> str:
        return f"FrameworkAgent({self.name})"

    async def run_turn(self, turn: Turn) -> str:
        if self._call is not None and inspect.iscoroutinefunction(self._call):
            result = await self._call(self.obj, turn)
        elif self._call is not None:
            result = await run_blocking(self._call, self.obj, turn)
            if inspect.isawaitable(result):
                result = await result
        else:
            assert self._way is not None
            result = await self._way.call(self.obj, turn, self._memory)
        return answer_text(self._output(result))
