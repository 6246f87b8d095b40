"""Simulated users for ``conversationScenario`` cases (SPEC §8.4).

A simulator is started once per case and run; each :meth:`SimulatedUser.next` returns the next
user message, or ``None`` to end the conversation.

:class:`AgentUserSimulator` (and :class:`LLMUserSimulator`, the same on an OpenAI-compatible
model) follows the reference rules:

* start: the scenario needs a non-blank ``conversationPlan``; stop signal = the option, else
  the scenario's ``stopSignal`` (trimmed); max turns = the option, else
  ``maxAllowedInvocations`` (0 = unlimited, negative ⇒ error); neither ⇒ ``stop signal and max
  allowed invocations cannot both be disabled``;
* a system prompt built from the plan (and the fixed starting prompt, if any) is given as a
  context message on every simulator turn;
* ``next``: stop once ``max`` messages were generated (``max > 0``); the first message is the
  ``startingPrompt`` when set (it counts as generated); otherwise the simulator model gets the
  agent's last reply (``""`` before the first) and a copy of the session state; an answer equal
  to the stop signal **ignoring case and surrounding whitespace** stops (a longer text that
  merely contains it does not); anything else is the next user message.

Any callable ``fn(scenario, conversation, last_reply) -> str | Message | None`` (sync or
async) is a simulator too: ``conversation`` is the list of messages so far (user and agent
turns, the last reply included), ``last_reply`` the agent's last answer (``""`` at the start).
It stops on ``None``, on the scenario's stop signal (same rule) or after the scenario's
``maxAllowedInvocations`` messages; the plan is not required.
"""

from __future__ import annotations

import copy
import inspect
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..schema import ConversationScenario, Message, message_text
from .base import Agent, as_agent
from .openai_agent import OpenAIAgent
from .tools import ToolBox, run_blocking
from .turn import Session, to_invocation


class SimulatorError(ValueError):
    """The scenario cannot be simulated (bad plan, limits) or the simulator failed."""


@runtime_checkable
class SimulatedUser(Protocol):
    async def next(self, last_reply: str) -> Message | None: ...


@runtime_checkable
class UserSimulator(Protocol):
    def start(self, scenario: ConversationScenario, state: dict[str, Any]) -> SimulatedUser: ...


def simulator_prompt(scenario: ConversationScenario, stop_signal: str) -> str:
    """The system prompt of a simulated user (one message per turn, follow the plan, stop)."""
    lines = [
        "You play the user in a conversation with an AI assistant, to test the assistant.",
        "Write only the user's next message: one message per turn, in the user's voice, "
        "without commentary or role labels.",
        "Follow the conversation plan below, one step at a time, and react to what the "
        "assistant actually said.",
    ]
    if stop_signal:
        lines.append(
            f"When the plan is complete, or the conversation cannot go on, answer with "
            f"exactly {stop_signal} and nothing else."
        )
    if scenario.starting_prompt:
        lines.append(
            f"The conversation was opened with this fixed message: {scenario.starting_prompt}"
        )
    lines.append("")
    lines.append("Conversation plan:")
    lines.append((scenario.conversation_plan or "").strip())
    return "\n".join(lines)


def _limits(
    scenario: ConversationScenario, stop_signal: str | None, max_turns: int | None
) -> tuple[str, int]:
    if not (scenario.conversation_plan or "").strip():
        raise SimulatorError("conversation plan is empty")
    stop = (stop_signal if stop_signal is not None else scenario.stop_signal or "").strip()
    limit = max_turns if max_turns is not None else scenario.max_allowed_invocations or 0
    if limit < 0:
        raise SimulatorError(f"max allowed invocations must be >= 0, got {limit}")
    if not stop and limit == 0:
        raise SimulatorError("stop signal and max allowed invocations cannot both be disabled")
    return stop, limit


def is_stop(text: str, stop_signal: str) -> bool:
    """True when ``text`` is the stop signal, ignoring case and surrounding whitespace."""
    return bool(stop_signal) and text.strip().casefold() == stop_signal.casefold()


@dataclass(slots=True)
class _AgentSimulation:
    agent: Agent
    scenario: ConversationScenario
    stop_signal: str
    limit: int
    session: Session
    generated: int = 0

    async def next(self, last_reply: str) -> Message | None:
        if self.limit > 0 and self.generated >= self.limit:
            return None
        if self.generated == 0 and self.scenario.starting_prompt:
            self.generated += 1
            return Message(role="user", content=self.scenario.starting_prompt)
        turn = self.session.turn(
            Message(role="user", content=last_reply), ToolBox(), "user-simulator", self.generated
        )
        invocation = to_invocation(await self.agent.run_turn(turn), turn)
        self.session.remember(turn, invocation)
        text = message_text(invocation.final_response)
        if is_stop(text, self.stop_signal):
            return None
        self.generated += 1
        return Message(role="user", content=text)


class AgentUserSimulator:
    """A simulated user played by any agent (rules in the module doc).

    ``stop_signal`` / ``max_allowed_invocations`` override the scenario's values.
    """

    def __init__(
        self,
        agent: Any,
        *,
        stop_signal: str | None = None,
        max_allowed_invocations: int | None = None,
    ) -> None:
        self.agent = as_agent(agent)
        self.stop_signal = stop_signal
        self.max_allowed_invocations = max_allowed_invocations

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.agent!r})"

    def start(self, scenario: ConversationScenario, state: dict[str, Any]) -> SimulatedUser:
        stop, limit = _limits(scenario, self.stop_signal, self.max_allowed_invocations)
        session = Session(
            session_id=f"user-simulator-{uuid.uuid4()}",
            user_id=None,
            state=copy.deepcopy(state),
            context_messages=[Message(role="system", content=simulator_prompt(scenario, stop))],
        )
        return _AgentSimulation(self.agent, scenario, stop, limit, session)

    async def aclose(self) -> None:
        close = getattr(self.agent, "aclose", None)
        if close is not None:
            await close()

    def secrets(self) -> tuple[str, ...]:
        return tuple(getattr(self.agent, "secrets", lambda: ())())


class LLMUserSimulator(AgentUserSimulator):
    """The default simulated user: an OpenAI-compatible chat model.

    ``LLMUserSimulator("gpt-4o-mini", temperature=0.7)``; ``base_url`` / ``api_key`` as for
    :class:`~agenteval_nb.agents.OpenAIAgent` (env fallbacks, the key never shown).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        stop_signal: str | None = None,
        max_allowed_invocations: int | None = None,
        **generation: Any,
    ) -> None:
        super().__init__(
            OpenAIAgent(
                model,
                base_url=base_url,
                api_key=api_key,
                name=f"LLMUserSimulator({model})",
                **generation,
            ),
            stop_signal=stop_signal,
            max_allowed_invocations=max_allowed_invocations,
        )


@dataclass(slots=True)
class _CallableSimulation:
    fn: Callable[..., Any]
    scenario: ConversationScenario
    conversation: list[Message] = field(default_factory=list)
    generated: int = 0

    async def next(self, last_reply: str) -> Message | None:
        limit = self.scenario.max_allowed_invocations or 0
        if limit > 0 and self.generated >= limit:
            return None
        if self.conversation or last_reply:
            self.conversation.append(Message(role="assistant", content=last_reply))
        history = list(self.conversation)
        if inspect.iscoroutinefunction(self.fn):
            out = await self.fn(self.scenario, history, last_reply)
        else:
            out = await run_blocking(self.fn, self.scenario, history, last_reply)
        if out is None:
            return None
        if isinstance(out, str):
            message = Message(role="user", content=out)
        elif isinstance(out, Message):
            message = out if out.role else out.model_copy(update={"role": "user"})
        else:
            raise SimulatorError(
                f"the user simulator returned {type(out).__name__}; expected str, Message or None"
            )
        if is_stop(message_text(message), (self.scenario.stop_signal or "").strip()):
            return None
        self.generated += 1
        self.conversation.append(message)
        return message


class CallableUserSimulator:
    """A function as a simulated user (see the module doc)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __repr__(self) -> str:
        return f"CallableUserSimulator({getattr(self.fn, '__qualname__', self.fn)!r})"

    def start(self, scenario: ConversationScenario, state: dict[str, Any]) -> SimulatedUser:
        return _CallableSimulation(self.fn, scenario)


def as_user_simulator(simulator: Any) -> UserSimulator:
    """A :class:`UserSimulator` from a simulator object or a callable."""
    if hasattr(simulator, "start"):
        return simulator
    if callable(simulator):
        return CallableUserSimulator(simulator)
    raise TypeError(
        "user_simulator must be ae.agents.LLMUserSimulator, an AgentUserSimulator, or a "
        "function (scenario, conversation, last_reply) -> str | None; "
        f"got {type(simulator).__name__}"
    )
