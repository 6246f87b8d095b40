"""Tool mocks for tools the toolkit does not run: ``ae.mockable(fn)`` (SPEC §8.4).

A framework runs its agent's tools itself; a ``toolMock`` rule can only answer a call the
toolkit sees. ``ae.mockable(fn)`` is ``fn`` (sync or async) wrapped so that it asks first:

* while a turn runs, the engine sets the turn's :class:`TurnMocks` in a context variable; a
  call of the wrapper whose tool (``fn.__name__``) has rules in that turn is answered by the
  turn's interceptor (:class:`~agenteval_nb.agents.tool_mocks.ToolMockInterceptor`: first
  matching rule, static result or generator; no rule matched ⇒ the call raises
  ``LookupError``) instead of calling ``fn``; otherwise — no turn, no rules for it — ``fn`` runs;
* the wrapper keeps ``fn``'s name, signature, type hints and docstring (``functools.wraps``), so
  frameworks build the same tool schema from it: give it wherever the framework takes a plain
  function (LangGraph ``tool(ae.mockable(fn))``, PydanticAI ``tools=[ae.mockable(fn)]``, …);
* the arguments the rules compare are the call's, bound to ``fn``'s parameter names; a first
  parameter holding the framework's context (a value whose type name ends in ``Context``, e.g.
  PydanticAI's ``RunContext``) is left out;
* a sync wrapper called in a worker thread waits for the interceptor on the turn's loop; called
  on the loop's own thread it can only take a static rule (a generator rule needs the loop: the
  call raises :class:`~agenteval_nb.agents.tool_mocks.ToolMockError` saying to make the tool
  async).

After the turn, :meth:`TurnMocks.settle` checks the invocation: every use of a tool that has
rules in the turn must have been seen by the interceptor (through the toolkit's tool box or a
mockable wrapper) — else the agent ran its own, unwrapped tool and the case fails naming the
tool and the fix. Uses answered by a rule get the rule's note (``Tool.mock``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..schema import Invocation
from .tool_mocks import ToolMockError, ToolMockInterceptor
from .tools import NOT_INTERCEPTED, Mocked, json_ready

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(eq=False)
class TurnMocks:
    """One turn's tool mocks: the interceptor, its loop, and what it was asked (name,
    arguments, the note of the rule that answered or ``None``) in call order."""

    interceptor: ToolMockInterceptor
    loop: asyncio.AbstractEventLoop
    seen: list[tuple[str, Any, dict[str, Any] | None]] = field(default_factory=list)

    async def intercept(self, name: str, arguments: Any) -> Any:
        """The interceptor's answer (:class:`Mocked` or ``NOT_INTERCEPTED``), recorded."""
        if name not in self.interceptor.names:
            return NOT_INTERCEPTED
        try:
            answer = await self.interceptor(name, arguments)
        except BaseException:
            self.seen.append((name, arguments, None))
            raise
        self.seen.append((name, arguments, answer.note if isinstance(answer, Mocked) else None))
        return answer

    def intercept_blocking(self, name: str, arguments: Any) -> Any:
        """:meth:`intercept` from sync code (module doc)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not self.loop:
            asking = asyncio.run_coroutine_threadsafe(self.intercept(name, arguments), self.loop)
            return asking.result()
        step = self.intercept(name, arguments)
        try:
            step.send(None)
        except StopIteration as done:
            return done.value
        step.close()
        raise ToolMockError(
            f'the mock of tool "{name}" needs the event loop (an llmGenerator rule) but the '
            "sync tool was called on the loop's own thread: make the tool an async function"
        )

    def settle(self, invocation: Invocation) -> Invocation:
        """``invocation`` with mock notes on the uses the rules answered; ``ToolMockError``
        naming a tool with rules that ran without the interceptor (module doc)."""
        names = self.interceptor.names
        pending = list(self.seen)
        tools = list(invocation.tools or ())
        changed = False
        for index, tool in enumerate(tools):
            if tool.name not in names:
                continue
            entry = _take(pending, tool.name, tool.arguments)
            if entry is None:
                raise ToolMockError(_unwrapped(tool.name or ""))
            if tool.mock is None and entry[2] is not None:
                tools[index] = tool.model_copy(update={"mock": entry[2]})
                changed = True
        return invocation.model_copy(update={"tools": tools}) if changed else invocation


def _take(
    pending: list[tuple[str, Any, dict[str, Any] | None]], name: str | None, arguments: Any
) -> tuple[str, Any, dict[str, Any] | None] | None:
    """Remove and return the first entry of ``name`` with these arguments, else the first of
    ``name`` (a framework may coerce arguments on their way to the function)."""
    same_name = [i for i, entry in enumerate(pending) if entry[0] == name]
    for i in same_name:
        if pending[i][1] == arguments:
            return pending.pop(i)
    return pending.pop(same_name[0]) if same_name else None


def _unwrapped(name: str) -> str:
    return (
        f'tool "{name}" has toolMock rules in this turn, but the agent ran its own "{name}" '
        "(the toolkit never saw the call, so the real tool ran): give the framework "
        f"ae.mockable({name}) instead of {name} (frameworks that take plain Python functions: "
        "see agenteval_nb.agents.frameworks)"
    )


_TURN: contextvars.ContextVar[TurnMocks | None] = contextvars.ContextVar(
    "agenteval_turn_mocks", default=None
)


@contextlib.contextmanager
def mocking(mocks: TurnMocks | None) -> Iterator[None]:
    """Within the block, mockable tools ask ``mocks`` (the engine, around one turn)."""
    token = _TURN.set(mocks)
    try:
        yield
    finally:
        _TURN.reset(token)


def _call_arguments(signature: inspect.Signature, args: Any, kwargs: Any) -> dict[str, Any]:
    """The call's arguments by parameter name, JSON-ready, without a framework context."""
    try:
        bound = signature.bind_partial(*args, **kwargs).arguments
    except TypeError:
        return {"args": json_ready(list(args)), **json_ready(kwargs)}
    out: dict[str, Any] = {}
    for position, (name, value) in enumerate(bound.items()):
        if position == 0 and type(value).__name__.endswith("Context"):
            continue
        out[name] = json_ready(value)
    return out


def mockable(fn: F) -> F:
    """``fn`` answered by the current turn's ``toolMock`` rules when it has any (module doc).

    Use it where the framework takes the function: ``tools=[ae.mockable(get_weather)]``.
    """
    if not inspect.isfunction(fn) and not inspect.ismethod(fn):
        raise TypeError(
            f"ae.mockable wraps a plain function, got {type(fn).__name__}: wrap the function "
            "before the framework's decorator, e.g. tool(ae.mockable(get_weather))"
        )
    name = fn.__name__
    signature = inspect.signature(fn)

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def answer_async(*args: Any, **kwargs: Any) -> Any:
            mocks = _TURN.get()
            if mocks is not None and name in mocks.interceptor.names:
                answer = await mocks.intercept(name, _call_arguments(signature, args, kwargs))
                if isinstance(answer, Mocked):
                    return answer.result
            return await fn(*args, **kwargs)

        wrapper: Any = answer_async
    else:

        @functools.wraps(fn)
        def answer(*args: Any, **kwargs: Any) -> Any:
            mocks = _TURN.get()
            if mocks is not None and name in mocks.interceptor.names:
                arguments = _call_arguments(signature, args, kwargs)
                found = mocks.intercept_blocking(name, arguments)
                if isinstance(found, Mocked):
                    return found.result
            return fn(*args, **kwargs)

        wrapper = answer
    return wrapper  # type: ignore[no-any-return]
