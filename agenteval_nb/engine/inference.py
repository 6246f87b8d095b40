"""Inference phase (SPEC §8.3): the actual turns of each case in one run.

* **Trace mode** needs no agent: the actual turns are the recorded ``actualConversation``
  (or ``conversation`` when no actual one is recorded).
* **Default mode** runs the agent under test: the static ``conversation``'s user turns in
  order, in one session per case and run (``userId`` from ``sessionInput``, a copy of
  ``sessionInput.state`` and the case's ``contextMessages`` every turn). A turn that raises,
  times out (``agent_timeout`` seconds) or returns something that is not a str / Message /
  Invocation stops the case: the case fails with the reason (secrets redacted); every other
  case goes on. Without an agent a default-mode case fails with ``no agent given``.
* ``expectedRunnerEnabled``: the expected agent runs the same turns in session
  ``<sessionId>-expected`` and its invocations become the expecteds (none given ⇒ the case
  fails with ``expected runner is nil``, SPEC §8.8).
* A case failure is a result with ``status: failed`` and ``errorMessage``
  ``inference eval case (evalCaseID=<id>, sessionID=<sid>): <reason>`` — never an exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import Agent
from ..agents.tools import ToolBox
from ..agents.turn import Session, to_invocation
from ..schema import EvalCase, EvalStatus, Invocation
from ..secrets import redact


@dataclass(slots=True)
class InferenceResult:
    """Actual turns of one case in one run, or the reason there are none."""

    eval_case_id: str
    session_id: str
    user_id: str | None
    status: EvalStatus
    inferences: list[Invocation] = field(default_factory=list)
    expected_inferences: list[Invocation] | None = None
    error_message: str | None = None


class InferenceError(Exception):
    """A case could not produce its actual turns."""


@dataclass(slots=True)
class AgentSetup:
    """The agents of an evaluation and how each turn is run."""

    agent: Agent | None = None
    expected_agent: Agent | None = None
    timeout_s: float | None = None
    usage: dict[str, int] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    def add_usage(self, tokens: dict[str, int]) -> None:
        for key, value in tokens.items():
            self.usage[key] = self.usage.get(key, 0) + value


def trace_actuals(case: EvalCase) -> list[Invocation]:
    """The recorded actual turns of a trace-mode case (SPEC §8.3, trace mode)."""
    if case.conversation_scenario is not None:
        raise InferenceError("conversationScenario is not supported in trace mode")
    actual = case.actual_conversation or []
    if actual:
        expected = case.conversation or []
        if expected and len(expected) != len(actual):
            raise InferenceError(
                f"actualConversation length {len(actual)} does not match "
                f"conversation length {len(expected)}"
            )
        for i, inv in enumerate(actual):
            if inv.user_content is None:
                raise InferenceError(f"actualConversation[{i}] userContent is required")
        return list(actual)
    if not case.conversation:
        raise InferenceError("invocations are empty")
    return list(case.conversation)


def _static_turns(case: EvalCase) -> list[Invocation]:
    """The user turns a default-mode case drives the agent with (SPEC §8.3, default mode)."""
    if case.actual_conversation:
        raise InferenceError("actualConversation is only supported in trace mode")
    if case.conversation and case.conversation_scenario is not None:
        raise InferenceError("conversation and conversationScenario cannot both be set")
    if case.conversation_scenario is not None:
        raise InferenceError("conversationScenario needs a user simulator")
    if not case.conversation:
        raise InferenceError("invocations are empty")
    for i, turn in enumerate(case.conversation):
        if turn.user_content is None:
            raise InferenceError(f"conversation[{i}] userContent is required")
    return list(case.conversation)


async def run_turns(
    agent: Agent,
    case: EvalCase,
    turns: Sequence[Invocation],
    session_id: str,
    setup: AgentSetup,
) -> list[Invocation]:
    """Run ``agent`` over the user turns in one session; the captured invocations in order.

    Raises :class:`InferenceError` naming the 1-based turn when a turn fails.
    """
    session_input = case.session_input
    session = Session(
        session_id=session_id,
        user_id=session_input.user_id if session_input else None,
        state=dict(session_input.state or {}) if session_input else {},
        context_messages=list(case.context_messages or ()),
    )
    loop = asyncio.get_running_loop()
    captured: list[Invocation] = []
    for index, planned in enumerate(turns):
        tools = ToolBox(agent.tools, loop=loop)
        turn = session.turn(planned.user_content, tools, case.eval_id, index)  # type: ignore[arg-type]
        try:
            if setup.timeout_s is None:
                output = await agent.run_turn(turn)
            else:
                async with asyncio.timeout(setup.timeout_s):
                    output = await agent.run_turn(turn)
            invocation = to_invocation(output, turn)
        except TimeoutError as exc:
            raise InferenceError(
                f"turn {index + 1}: the agent did not answer within {setup.timeout_s:g} s"
            ) from exc
        except Exception as exc:
            raise InferenceError(f"turn {index + 1}: {_describe(exc)}") from exc
        finally:
            setup.add_usage(turn.usage)
        session.remember(turn, invocation)
        captured.append(invocation)
    return captured


def _describe(exc: BaseException) -> str:
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


async def infer_case(case: EvalCase, session_id: str, setup: AgentSetup) -> InferenceResult:
    """The actual (and, when enabled, expected) turns of ``case``; failures become results."""
    user_id = case.session_input.user_id if case.session_input else None
    expected: list[Invocation] | None = None
    try:
        if case.session_input is None:
            raise InferenceError("session input is nil")
        if case.is_trace:
            actuals = trace_actuals(case)
            turns = actuals
        else:
            turns = _static_turns(case)
            if setup.agent is None:
                raise InferenceError("no agent given: default-mode cases need an agent to run")
            actuals = await run_turns(setup.agent, case, turns, session_id, setup)
        if case.expected_runner_enabled:
            if setup.expected_agent is None:
                raise InferenceError("expected runner is nil")
            expected = await run_turns(
                setup.expected_agent, case, turns, f"{session_id}-expected", setup
            )
    except InferenceError as exc:
        message = f"inference eval case (evalCaseID={case.eval_id}, sessionID={session_id}): {exc}"
        return InferenceResult(
            eval_case_id=case.eval_id,
            session_id=session_id,
            user_id=user_id,
            status=EvalStatus.FAILED,
            error_message=redact(message, *setup.secrets),
        )
    return InferenceResult(
        eval_case_id=case.eval_id,
        session_id=session_id,
        user_id=user_id,
        status=EvalStatus.PASSED,
        inferences=actuals,
        expected_inferences=expected,
    )


def needs_agent(case: EvalCase) -> bool:
    """True for cases whose actual turns come from running an agent (default mode)."""
    return not case.is_trace


def describe_agent_secrets(*agents: Any) -> tuple[str, ...]:
    """The API keys the agents hold, to be redacted from every error text."""
    keys: list[str] = []
    for agent in agents:
        for key in getattr(agent, "secrets", lambda: ())():
            if key:
                keys.append(key)
    return tuple(keys)


async def close_agents(setup: AgentSetup) -> None:
    """Let agents release what they hold on the running loop (their optional ``aclose``)."""
    for agent in (setup.agent, setup.expected_agent):
        close = getattr(agent, "aclose", None)
        if close is not None:
            await close()
