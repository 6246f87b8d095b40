"""The agent protocol and the adaptation of plain Python callables to it.

An agent under test is anything with ``async run_turn(turn) -> str | Message | Invocation`` and
a ``tools`` list of :class:`~agenteval_nb.agents.tools.ToolSpec` (the tools the toolkit offers
it, recorded and mockable). :func:`as_agent` accepts:

1. a **plain function** ``f(text: str) -> str`` (sync or async): gets the user's text;
2. a **turn function**: a callable whose single parameter is annotated ``Turn`` or named
   ``turn``: gets the whole :class:`~agenteval_nb.agents.turn.Turn`;
3. an object with ``run_turn`` (``OpenAIAgent``, framework adapters, ``ae.record`` wrappers);
   it may also have ``async aclose()`` (called on the evaluation's loop when it ends) and
   ``secrets()`` (keys to redact from error texts);
4. an agent of a framework (a LangGraph graph, an Agents SDK or PydanticAI agent):
   called the framework's way (:mod:`~agenteval_nb.agents.frameworks`); what it did is captured
   from its model calls on the wire (:mod:`~agenteval_nb.agents.capture`), as for any agent
   that returns text.

Synchronous callables run in a worker thread, so a blocking agent does not stall the other
cases. Wrap a callable in :class:`FunctionAgent` to give it tools.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from ..schema import Invocation, Message
from .frameworks import FrameworkAgent, way_of
from .tools import ToolFunction, ToolSpec, run_blocking, tool_specs
from .turn import Turn

AgentOutput = str | Message | Invocation


@runtime_checkable
class Agent(Protocol):
    """What the inference phase runs: one call per user turn."""

    tools: list[ToolSpec]

    async def run_turn(self, turn: Turn) -> AgentOutput: ...


def _is_async_callable(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 — async __call__ objects
    )


def takes_turn(fn: Callable[..., Any]) -> bool:
    """True when ``fn``'s single parameter is annotated ``Turn`` or named ``turn``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if len(params) != 1:
        return False
    param = params[0]
    annotation = param.annotation
    if isinstance(annotation, str):
        return annotation.rsplit(".", 1)[-1] == "Turn" or param.name == "turn"
    return annotation is Turn or param.name == "turn"


class FunctionAgent:
    """A plain or turn function as an agent, with optional ``tools`` it may call.

    ``FunctionAgent(fn, tools=[get_weather])``: ``fn`` reaches the tools through
    ``turn.tools.call(name, arguments)`` (sync code) or ``await turn.tools.acall(...)``.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        tools: Iterable[ToolFunction] | Mapping[str, ToolFunction] | None = None,
        name: str | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"an agent must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.tools = tool_specs(tools)
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__
        self._wants_turn = takes_turn(fn)
        self._is_async = _is_async_callable(fn)
        if not self._wants_turn:
            try:
                inspect.signature(fn).bind("text")
            except TypeError as exc:
                raise TypeError(
                    f"agent {self.name!r} must take one argument: the user text (str) or an "
                    "ae.Turn (annotate it `turn: ae.Turn` or name it `turn`)"
                ) from exc
            except ValueError:
                pass

    def __repr__(self) -> str:
        form = "turn function" if self._wants_turn else "text function"
        return f"FunctionAgent({self.name}, {form}, tools={[t.name for t in self.tools]})"

    async def run_turn(self, turn: Turn) -> AgentOutput:
        argument: Any = turn if self._wants_turn else turn.text
        if self._is_async:
            return await self.fn(argument)
        result = await run_blocking(self.fn, argument)
        if inspect.isawaitable(result):
            result = await result
        return result


def as_agent(agent: Any) -> Agent:
    """``agent`` as an :class:`Agent` (the forms in the module doc); ``TypeError`` otherwise."""
    if hasattr(agent, "run_turn"):
        if not hasattr(agent, "tools"):
            raise TypeError(f"{type(agent).__name__} has run_turn but no `tools` list")
        return agent
    if way_of(agent) is not None:
        return FrameworkAgent(agent)
    if callable(agent):
        return FunctionAgent(agent)
    raise TypeError(
        f"agent must be a function (text -> str, or turn: ae.Turn -> str | Message | "
        f"Invocation) or an object with run_turn(turn); got {type(agent).__name__}"
    )


def agent(
    obj: Any,
    *,
    call: Callable[..., Any] | None = None,
    output: Callable[[Any], Any] | None = None,
    name: str | None = None,
) -> Agent:
    """``ae.agent``: ``obj`` as an agent under test — a framework's agent
    (:mod:`~agenteval_nb.agents.frameworks`), a plain callable, or anything at all with
    ``call(obj, turn)`` (how to call it) and ``output(result)`` (how to read the answer)."""
    if call is None and output is None and way_of(obj) is None and callable(obj):
        return FunctionAgent(obj, name=name)
    return FrameworkAgent(obj, call=call, output=output, name=name)


def agent_name(agent: Agent) -> str:
    """A readable name of the agent for run info and reports."""
    return str(getattr(agent, "name", None) or type(agent).__name__)
