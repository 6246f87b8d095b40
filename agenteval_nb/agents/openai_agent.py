"""``OpenAIAgent``: a tool-calling agent on the ``openai`` chat-completions API.

The loop of one turn:

1. messages = system prompt (if any) + the case's ``contextMessages`` + this session's earlier
   messages (user, assistant tool calls, tool results, answers) + the user's message;
2. call the model with the tools' JSON schemas (``tool_choice`` auto) and the generation
   options; the session id is sent as ``user``;
3. an answer with ``tool_calls``: its text (if any) becomes an intermediate response; every
   call runs through the turn's :class:`~agenteval_nb.agents.tools.ToolBox` (recorded,
   mockable; a failing tool answers ``"error: …"`` to the model); repeat from 2;
4. an answer without tool calls is the final response. More than ``max_steps`` model calls
   without a final answer fail the turn.

Endpoint: ``base_url`` argument, else ``$OPENAI_BASE_URL``, else OpenAI. Key: ``api_key``
argument, else ``$OPENAI_API_KEY``; a non-OpenAI endpoint without a key gets a placeholder.
The key is registered for redaction (:func:`agenteval_nb.secrets.register_secret`) when the
agent is made, like a judge key: it is never shown (repr, errors, logs) nor written, and every
captured invocation is redacted (:func:`agenteval_nb.agents.turn.redacted_invocation`, for any
agent), so a model or a tool that echoes the key does not carry it into results. Token usage
of every call is added to the run's ``info["agent_usage"]``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

import openai

from ..openai_pool import LoopClients
from ..schema import FunctionCall, Invocation, Message, ToolCall
from ..secrets import register_secret
from .tools import ToolFunction, tool_specs
from .turn import Turn

OPENAI_BASE_URL = "https://api.openai.com/v1"
_LOCAL_KEY = "agenteval-no-key"


class AgentModelError(RuntimeError):
    """The model endpoint answered with something that is not a usable chat completion."""


def to_openai_message(message: Message) -> dict[str, Any]:
    """A :class:`Message` as a chat-completions request message."""
    out: dict[str, Any] = {"role": message.role or "user", "content": message.content or ""}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in message.tool_calls
        ]
        if not message.content:
            out["content"] = None
    if message.role == "tool":
        out["tool_call_id"] = message.tool_id
    return out


def _tool_message(call_id: str, name: str, result: Any) -> Message:
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return Message(role="tool", content=content, tool_id=call_id, tool_name=name)


class OpenAIAgent:
    """An agent that answers with an OpenAI-compatible chat model and Python tools.

    ``OpenAIAgent("gpt-4o-mini", tools=[get_weather], system_prompt="…", temperature=0)``;
    ``**generation`` options (``temperature``, ``max_tokens``, ``seed`` …) go into every request.
    """

    def __init__(
        self,
        model: str,
        *,
        tools: Iterable[ToolFunction] | Mapping[str, ToolFunction] | None = None,
        system_prompt: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_steps: int = 10,
        timeout: float | None = 120.0,
        max_retries: int = 2,
        name: str | None = None,
        **generation: Any,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty model name")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got {max_steps!r}")
        for reserved in ("messages", "tools", "model", "stream", "user"):
            if reserved in generation:
                raise TypeError(f"{reserved!r} is set by the agent, not a generation option")
        self.model = model.strip()
        self.tools = tool_specs(tools)
        self.system_prompt = system_prompt
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL).rstrip(
            "/"
        )
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        register_secret(self._api_key)
        self.max_steps = max_steps
        self.timeout = timeout
        self.max_retries = max_retries
        self.generation = dict(generation)
        self.name = name or f"OpenAIAgent({self.model})"
        self._clients = LoopClients()

    def __repr__(self) -> str:
        tools = [t.name for t in self.tools]
        return (
            f"OpenAIAgent(model={self.model!r}, base_url={self.base_url!r}, tools={tools}, "
            f"max_steps={self.max_steps})"
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickle state without the per-loop HTTP clients (made again on first use)."""
        state = dict(self.__dict__)
        state.pop("_clients", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._clients = LoopClients()

    def secrets(self) -> tuple[str, ...]:
        """The key to redact from error texts (never shown)."""
        return (self._api_key,) if self._api_key else ()

    def _client(self) -> openai.AsyncOpenAI:
        key = self._api_key
        if not key:
            if self.base_url == OPENAI_BASE_URL:
                raise AgentModelError(
                    "no API key for the agent model: pass api_key= or set OPENAI_API_KEY"
                )
            key = _LOCAL_KEY
        return self._clients.get(
            self.base_url,
            lambda: openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=key,
                timeout=self.timeout,
                max_retries=self.max_retries,
            ),
        )

    async def aclose(self) -> None:
        """Close the HTTP clients of the running loop (the engine calls it after a run)."""
        await self._clients.close_running()

    async def run_turn(self, turn: Turn) -> Invocation:
        client = self._client()
        transcript: list[Message] = [turn.user_content]
        prefix: list[Message] = []
        if self.system_prompt:
            prefix.append(Message(role="system", content=self.system_prompt))
        prefix.extend(turn.context_messages)
        prefix.extend(turn.history)
        tools = [spec.openai_tool() for spec in turn.tools.specs]
        intermediate: list[Message] = []
        for _ in range(self.max_steps):
            request: dict[str, Any] = {
                "model": self.model,
                "messages": [to_openai_message(m) for m in (*prefix, *transcript)],
                "user": turn.session_id,
                **self.generation,
            }
            if tools:
                request["tools"] = tools
            if turn.output_schema is not None:
                request["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": turn.output_schema},
                }
            completion = await client.chat.completions.create(**request)
            message = self._message(completion, turn)
            if not message.tool_calls:
                transcript.append(message)
                turn.messages = transcript
                return Invocation(
                    final_response=message,
                    intermediate_responses=intermediate or None,
                    tools=turn.tools.log.calls or None,
                )
            transcript.append(message)
            if message.content:
                intermediate.append(Message(role="assistant", content=message.content))
            for call in message.tool_calls:
                call_id = call.id or ""
                result, _failed = await turn.tools.run(
                    call.function.name, call.function.arguments, call_id=call_id or None
                )
                transcript.append(_tool_message(call_id, call.function.name, result))
        turn.messages = transcript
        raise AgentModelError(f"no final answer after {self.max_steps} model calls (max_steps)")

    def _message(self, completion: Any, turn: Turn) -> Message:
        """The assistant message of a completion; usage added to the turn."""
        usage = getattr(completion, "usage", None)
        if usage is not None:
            turn.add_usage(
                prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                calls=1,
            )
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list):
            raise AgentModelError("the agent model's answer is not a chat completion (no choices)")
        if not choices:
            raise AgentModelError("no choices in response")
        raw = choices[0].message
        calls = [
            ToolCall(
                type="function",
                id=c.id,
                function=FunctionCall(name=c.function.name, arguments=c.function.arguments or ""),
            )
            for c in (raw.tool_calls or ())
            if getattr(c, "function", None) is not None
        ]
        return Message(role="assistant", content=raw.content or "", tool_calls=calls or None)
