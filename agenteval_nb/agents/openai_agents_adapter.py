"""An agent of the openai-agents SDK (``pip install agenteval_nb[openai-agents]``) as an agent
under test.

``OpenAIAgentsSDKAgent(sdk_agent, run_config=None, max_turns=10)`` runs one
``agents.Runner.run`` per user turn and captures the invocation from the run's items
(SPEC §8.3). ``sdk_agent`` is an ``agents.Agent`` or a zero-argument function that builds one.
An agent's OpenAI client keeps its connections on the first event loop that used it. Blocking
evaluations (``ae.evaluate``) all run on the process's one long-lived loop, so a plain agent
serves them all; an evaluation on another loop (``asyncio.run(ae.evaluate_async(...))``) needs a
**factory**, called once per event loop so that every loop gets fresh clients (a plain agent
there fails its turns with ``Event loop is closed`` or ``bound to a different event loop``; the
error says to pass a factory). Per turn:

* input = the case's ``contextMessages`` (every turn) + this session's SDK conversation so far +
  the user message. The conversation (the SDK input items of earlier turns, tool calls and
  outputs included) is kept per session id, for the last ``max_sessions`` sessions; it starts
  afresh on a session's first turn. A later turn of a session the adapter does not hold (evicted)
  is rebuilt from the turn's text history. Messages are sent as ``{role, content}`` items (text
  parts joined when ``content`` is absent); roles other than system / developer / user /
  assistant are sent as ``user``;
* final response = ``result.final_output`` (a ``str`` as is; a pydantic model as its JSON;
  ``None`` as ``""``; other values as JSON);
* ``tools`` = the run's tool calls in call order, ``{id: call id, name, arguments: decoded JSON
  (raw text when not JSON)}``, each merged with its output by call id (``result`` = the value
  the tool returned, made JSON-ready); an output whose call id is unknown fails the turn with
  ``tool ID <id> not found in tool ID index for tool result response``;
* ``intermediateResponses`` = the run's assistant messages other than the final one (the last
  message when its text is the final response);
* token usage (``prompt_tokens`` / ``completion_tokens`` from the run's usage) is added to the
  turn, hence to the evaluation's ``agent_usage``;
* ``user_from_session=True`` sends the session id as the chat request's ``user`` field (merged
  into ``run_config.model_settings.extra_args``), so that a model whose behaviour depends on it
  — the scripted agent model's ``error_rate`` — differs from run to run as a sampled LLM does;
* a run that raises (model error, ``MaxTurnsExceeded``, a guardrail) fails the turn: the
  inference phase fails that case with the error text.

The SDK's function tools run inside the SDK: they are **not** routed through the toolkit's
:class:`~agenteval_nb.agents.tools.ToolBox` (``tools`` is ``[]``); the calls are captured from
the run items instead. Tool mocks (``toolMock``) do apply: when the turn has a mock interceptor,
the run uses a clone of the agent whose function tools (``FunctionTool``) ask the interceptor
first — a matching rule answers instead of the tool (its note lands on the captured call as
``mock``), an unmocked tool runs for real, and a mock error (``configured for mock but no rule
matched``) is the result the model sees, as ``error: <Type>: <message>``. Tools of agents
reached by handoff are not wrapped; handoffs are not recorded as tool calls.

Tracing: the SDK exports traces to OpenAI unless told otherwise; offline runs should call
``agents.set_tracing_disabled(True)`` or pass ``RunConfig(tracing_disabled=True)``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pydantic

from ..schema import Invocation, Message, Tool
from ..secrets import register_secret
from .tools import NOT_INTERCEPTED, Interceptor, ToolSpec, error_text, json_ready
from .turn import Turn

try:
    from agents import (
        Agent as SDKAgent,
    )
    from agents import (
        FunctionTool,
        ItemHelpers,
        MessageOutputItem,
        ModelSettings,
        RunConfig,
        Runner,
        ToolCallItem,
        ToolCallOutputItem,
    )
except ImportError as exc:  # the optional extra is missing
    raise ImportError(
        "OpenAIAgentsSDKAgent needs the openai-agents SDK: pip install agenteval_nb[openai-agents]"
    ) from exc

__all__ = ["OpenAIAgentsSDKAgent", "ToolResultError", "capture_invocation"]

_MESSAGE_ROLES = frozenset({"system", "developer", "user", "assistant"})
DEFAULT_MAX_SESSIONS = 4096


class ToolResultError(RuntimeError):
    """A tool output refers to a call id the run never made."""


def _input_item(message: Message) -> dict[str, Any]:
    """A message as an SDK input item: its text (``content``, else its text parts joined)."""
    role = message.role if message.role in _MESSAGE_ROLES else "user"
    text = message.content
    if text is None:
        text = "\n".join(p.text for p in message.content_parts or () if p.text)
    return {"role": role, "content": text}


def _decode_arguments(arguments: Any) -> Any:
    """Call arguments as JSON data (a JSON string decoded; raw text kept when it is not JSON)."""
    if not isinstance(arguments, str):
        return json_ready(arguments)
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _final_text(output: Any) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, pydantic.BaseModel):
        return output.model_dump_json()
    return json.dumps(json_ready(output), ensure_ascii=False)


def capture_invocation(
    items: Iterable[Any], final_output: Any, mock_notes: Mapping[str, Any] | None = None
) -> Invocation:
    """The invocation of one SDK run from its ``new_items`` and ``final_output`` (rules in the
    module doc); ``mock_notes`` (call id → tool-mock note) mark mocked calls. Raises
    :class:`ToolResultError` for an output of an unknown call."""
    calls: list[Tool] = []
    by_id: dict[str, Tool] = {}
    texts: list[str] = []
    for item in items:
        if isinstance(item, ToolCallItem):
            raw = item.raw_item
            arguments = (
                raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", None)
            )
            call = Tool(
                id=item.call_id, name=item.tool_name, arguments=_decode_arguments(arguments)
            )
            calls.append(call)
            if item.call_id is not None:
                by_id[item.call_id] = call
        elif isinstance(item, ToolCallOutputItem):
            found = by_id.get(item.call_id) if item.call_id is not None else None
            if found is None:
                raise ToolResultError(
                    f"tool ID {item.call_id} not found in tool ID index for tool result response"
                )
            found.result = json_ready(item.output)
            note = (mock_notes or {}).get(item.call_id) if item.call_id is not None else None
            if note is not None:
                found.mock = note  # an extra wire key, as the ToolBox records mocked calls
        elif isinstance(item, MessageOutputItem):
            texts.append(ItemHelpers.text_message_output(item))
    final = _final_text(final_output)
    if texts and texts[-1] == final:
        texts.pop()
    return Invocation(
        final_response=Message(role="assistant", content=final),
        tools=calls or None,
        intermediate_responses=[Message(role="assistant", content=t) for t in texts] or None,
    )


def _mocked(tool: Any, interceptor: Interceptor, notes: dict[str, Any]) -> Any:
    """``tool`` asking the tool-mock ``interceptor`` first (a ``FunctionTool``; others as is)."""
    if not isinstance(tool, FunctionTool):
        return tool
    real = tool.on_invoke_tool

    async def invoke(context: Any, raw_arguments: str) -> Any:
        try:
            mocked = await interceptor(tool.name, _decode_arguments(raw_arguments))
        except Exception as exc:
            return error_text(exc)
        if mocked is NOT_INTERCEPTED:
            return await real(context, raw_arguments)
        notes[context.tool_call_id] = mocked.note
        return mocked.result

    return dataclasses.replace(tool, on_invoke_tool=invoke)


class OpenAIAgentsSDKAgent:
    """An ``agents.Agent`` of the openai-agents SDK as an agent under test (module doc).

    ``run_config``: an ``agents.RunConfig`` for every run; ``max_turns``: the SDK's model-call
    limit per user turn; ``context_factory``: ``turn -> context`` object handed to the SDK run
    (default: none); ``max_sessions``: how many session conversations are kept;
    ``user_from_session``: send the session id as ``user``.
    """

    def __init__(
        self,
        agent: SDKAgent[Any] | Callable[[], SDKAgent[Any]],
        *,
        run_config: RunConfig | None = None,
        max_turns: int = 10,
        context_factory: Callable[[Turn], Any] | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        user_from_session: bool = False,
        name: str | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self._factory = None if isinstance(agent, SDKAgent) else agent
        if self._factory is not None and not callable(self._factory):
            raise TypeError(
                f"expected an agents.Agent or a function building one, got {type(agent).__name__}"
            )
        self.agent: SDKAgent[Any] = agent if isinstance(agent, SDKAgent) else self._build()
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SDKAgent[Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._unclaimed: SDKAgent[Any] | None = self.agent
        self.run_config = run_config
        self.max_turns = max_turns
        self.context_factory = context_factory
        self.max_sessions = max_sessions
        self.user_from_session = user_from_session
        self.name = name or f"openai-agents:{self.agent.name}"
        self.tools: list[ToolSpec] = []
        self._conversations: OrderedDict[str, list[Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._register_keys()

    def __repr__(self) -> str:
        built = ", per event loop" if self._factory is not None else ""
        return f"OpenAIAgentsSDKAgent({self.agent.name!r}{built}, max_turns={self.max_turns})"

    def _build(self) -> SDKAgent[Any]:
        built = self._factory() if self._factory is not None else None
        if not isinstance(built, SDKAgent):
            raise TypeError(f"the agent factory returned {type(built).__name__}, not agents.Agent")
        return built

    def _loop_agent(self) -> SDKAgent[Any]:
        """The agent of the running loop: the given one, or the factory's for this loop."""
        if self._factory is None:
            return self.agent
        loop = asyncio.get_running_loop()
        with self._lock:
            agent = self._per_loop.get(loop)
            if agent is not None:
                return agent
            agent = self._unclaimed if self._unclaimed is not None else self._build()
            self._unclaimed = None
            self._per_loop[loop] = agent
        self._register_keys()
        return agent

    def _register_keys(self) -> None:
        """Register the keys the agent's models hold, like judge keys (never shown)."""
        for key in self.secrets():
            register_secret(key)

    def secrets(self) -> tuple[str, ...]:
        """API keys of the OpenAI clients the agent's models hold, so error texts redact them."""
        with self._lock:
            agents = [self.agent, *self._per_loop.values()]
        models: Sequence[Any] = (
            *(a.model for a in agents),
            getattr(self.run_config, "model", None),
        )
        keys = []
        for model in models:
            client = getattr(model, "_client", None)  # OpenAIChatCompletionsModel / Responses
            key = getattr(client, "api_key", None)
            if isinstance(key, str) and key and key not in keys:
                keys.append(key)
        return tuple(keys)

    def conversation(self, session_id: str) -> list[Any]:
        """A copy of the SDK input items this adapter holds for ``session_id`` (``[]`` if none)."""
        with self._lock:
            return list(self._conversations.get(session_id, ()))

    async def run_turn(self, turn: Turn) -> Invocation:
        prior = self._prior(turn)
        user_item = _input_item(turn.user_content)
        context = [_input_item(m) for m in turn.context_messages]
        notes: dict[str, Any] = {}
        agent = self._loop_agent()
        if turn.tools.interceptor is not None:
            tools = [_mocked(t, turn.tools.interceptor, notes) for t in agent.tools]
            agent = agent.clone(tools=tools)
        try:
            result = await Runner.run(
                agent,
                input=[*context, *prior, user_item],  # type: ignore[list-item]  # SDK input dicts
                context=self.context_factory(turn) if self.context_factory else None,
                max_turns=self.max_turns,
                run_config=self._run_config(turn),
            )
        except RuntimeError as exc:
            text = str(exc)
            other_loop = "Event loop is closed" in text or "different event loop" in text
            if self._factory is None and other_loop:
                raise RuntimeError(
                    f"{exc}: the SDK agent's OpenAI client belongs to another evaluation's "
                    "event loop; pass OpenAIAgentsSDKAgent(lambda: <build the agent>) so that "
                    "each evaluation builds its own"
                ) from exc
            raise
        usage = result.context_wrapper.usage
        turn.add_usage(prompt_tokens=usage.input_tokens, completion_tokens=usage.output_tokens)
        invocation = capture_invocation(result.new_items, result.final_output, notes)
        produced = [item.to_input_item() for item in result.new_items]
        self._keep(turn.session_id, [*prior, user_item, *produced])
        return invocation

    def _run_config(self, turn: Turn) -> RunConfig | None:
        if not self.user_from_session:
            return self.run_config
        base = self.run_config or RunConfig()
        user = ModelSettings(extra_args={"user": turn.session_id})
        settings = (base.model_settings or ModelSettings()).resolve(user)
        return dataclasses.replace(base, model_settings=settings)

    def _prior(self, turn: Turn) -> list[Any]:
        if turn.turn_index == 0:
            return []
        with self._lock:
            kept = self._conversations.get(turn.session_id)
            if kept is not None:
                self._conversations.move_to_end(turn.session_id)
                return list(kept)
        return [_input_item(m) for m in turn.history]

    def _keep(self, session_id: str, items: list[Any]) -> None:
        with self._lock:
            self._conversations[session_id] = items
            self._conversations.move_to_end(session_id)
            while len(self._conversations) > self.max_sessions:
                self._conversations.popitem(last=False)
