"""Inference phase (SPEC §8.3): the actual turns of each case in one run.

* **Trace mode** needs no agent: the actual turns are the recorded ``actualConversation``
  (or ``conversation`` when no actual one is recorded).
* **Default mode** runs the agent under test: the static ``conversation``'s user turns in
  order, in one session per case and run (``userId`` from ``sessionInput``, a copy of
  ``sessionInput.state`` and the case's ``contextMessages`` every turn). A turn that raises
  (anything but an interrupt, :func:`~agenteval_nb.errors.is_interrupt`: ``SystemExit``,
  ``GeneratorExit``, an exception that cannot be printed …), times out (``agent_timeout``
  seconds) or returns something that is not a str / Message / Invocation stops the case: the
  case fails with the reason (secrets redacted); every other case goes on. Without an agent a
  default-mode case fails with ``no agent given``.
* ``conversationScenario`` (default mode): the user simulator writes the user turns
  (:func:`simulate`; driver ``expected`` simulates against the expected runner first and
  replays its user turns on the agent). Tool mocks do not apply to simulated turns.
* ``toolMock.actual`` / ``toolMock.expected`` rules of a turn answer the agent's / the expected
  runner's tool calls (:mod:`agenteval_nb.agents.tool_mocks`); an invalid rule fails the case.
* ``expectedRunnerEnabled``: the expected agent runs the same turns in session
  ``<sessionId>-expected`` and its invocations become the expecteds (none given ⇒ the case
  fails with ``expected runner is nil``, SPEC §8.8); in trace mode it replays the recorded
  actual turns with the aligned ``conversation`` turns' mocks.
* A case failure is a result with ``status: failed`` and ``errorMessage``
  ``inference eval case (evalCaseID=<id>, sessionID=<sid>): <reason>`` — never an exception
  (only an interrupt goes through :func:`infer_case`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import Agent
from ..agents.capture import spans, wire
from ..agents.capture.attribution import outside, recording
from ..agents.capture.turns import turn_usage
from ..agents.mockable import TurnMocks, mocking
from ..agents.simulator import SimulatorError, UserSimulator
from ..agents.tool_mocks import ToolMockError, ToolMockInterceptor, validate_rules
from ..agents.tools import ToolBox
from ..agents.turn import Session, to_invocation
from ..errors import describe_exception, exception_message, is_interrupt
from ..schema import EvalCase, EvalStatus, Invocation, Message, message_text
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


def failed_inference(case: EvalCase, session_id: str, message: str) -> InferenceResult:
    """A failed inference of ``case``: no turns, the reason as ``errorMessage``."""
    return InferenceResult(
        eval_case_id=case.eval_id,
        session_id=session_id,
        user_id=case.session_input.user_id if case.session_input else None,
        status=EvalStatus.FAILED,
        error_message=message,
    )


class InferenceError(Exception):
    """A case could not produce its actual turns."""


@dataclass(slots=True)
class AgentSetup:
    """The agents of an evaluation and how each turn is run."""

    agent: Agent | None = None
    expected_agent: Agent | None = None
    tool_mock_agent: Agent | None = None
    user_simulator: UserSimulator | None = None
    timeout_s: float | None = None
    usage: dict[str, int] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    @property
    def runs_agents(self) -> bool:
        """True when the evaluation runs an agent under test (or an expected runner)."""
        return self.agent is not None or self.expected_agent is not None

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
    if not case.conversation:
        raise InferenceError("invocations are empty")
    for i, turn in enumerate(case.conversation):
        if turn.user_content is None:
            raise InferenceError(f"conversation[{i}] userContent is required")
    return list(case.conversation)


def _interceptors(
    turns: Sequence[Invocation], side: str, setup: AgentSetup, agent: Agent
) -> list[ToolMockInterceptor | None]:
    """Per turn, the tool-mock interceptor of ``toolMock.<side>`` (validated), or ``None``."""
    out: list[ToolMockInterceptor | None] = []
    schemas: dict[str, dict[str, Any]] | None = None
    for index, turn in enumerate(turns):
        rules = getattr(turn.tool_mock, side, None) if turn.tool_mock is not None else None
        if not rules:
            out.append(None)
            continue
        try:
            validate_rules(rules, generator_available=setup.tool_mock_agent is not None)
        except ToolMockError as exc:
            raise InferenceError(f"turn {index + 1}: {exc}") from exc
        if schemas is None:
            schemas = {}
            for spec in agent.tools:
                schema = spec.output_schema()
                if schema is not None:
                    schemas[spec.name] = schema
        out.append(ToolMockInterceptor(rules, setup.tool_mock_agent, side, schemas))
    return out


def _session(case: EvalCase, session_id: str) -> Session:
    """The toolkit's session of a case: user id, state and context messages (SPEC §8.3)."""
    session_input = case.session_input
    return Session(
        session_id=session_id,
        user_id=session_input.user_id if session_input else None,
        state=dict(session_input.state or {}) if session_input else {},
        context_messages=list(case.context_messages or ()),
    )


async def _run_turn(
    agent: Agent,
    session: Session,
    user_content: Message,
    tools: ToolBox,
    case: EvalCase,
    index: int,
    setup: AgentSetup,
    mocks: TurnMocks | None = None,
) -> Invocation:
    """One turn of ``agent`` in ``session``: the captured invocation (errors name the turn);
    ``mocks`` answer its tool calls, mockable functions included (:mod:`..agents.mockable`)."""
    turn = session.turn(user_content, tools, case.eval_id, index)
    deadline = asyncio.timeout(setup.timeout_s)
    wire.install()
    spans.install()
    try:
        with recording(f"{case.eval_id}/{session.session_id}#{index}") as captured, mocking(mocks):
            async with deadline:
                output = await agent.run_turn(turn)
        invocation = to_invocation(output, turn, captured)
        if mocks is not None:
            invocation = mocks.settle(invocation)
        if not isinstance(output, Invocation):
            turn.add_usage(**turn_usage(invocation))
    except BaseException as exc:
        if is_interrupt(exc):
            raise
        if deadline.expired():
            raise InferenceError(
                f"turn {index + 1}: the agent did not answer within {setup.timeout_s:g} s"
            ) from exc
        raise InferenceError(f"turn {index + 1}: {describe_exception(exc)}") from exc
    finally:
        setup.add_usage(turn.usage)
    session.remember(turn, invocation)
    return invocation


async def run_turns(
    agent: Agent,
    case: EvalCase,
    turns: Sequence[Invocation],
    session_id: str,
    setup: AgentSetup,
    mock_side: str = "actual",
) -> list[Invocation]:
    """Run ``agent`` over the user turns in one session; the captured invocations in order.

    ``turns[i].toolMock.<mock_side>`` rules intercept that turn's tool calls. Raises
    :class:`InferenceError` naming the 1-based turn when a turn fails.
    """
    mocks = _interceptors(turns, mock_side, setup, agent)
    session = _session(case, session_id)
    loop = asyncio.get_running_loop()
    captured: list[Invocation] = []
    for index, planned in enumerate(turns):
        interceptor = mocks[index]
        scope = None if interceptor is None else TurnMocks(interceptor, loop)
        tools = ToolBox(agent.tools, interceptor=scope.intercept if scope else None, loop=loop)
        captured.append(
            await _run_turn(
                agent,
                session,
                planned.user_content,  # type: ignore[arg-type]
                tools,
                case,
                index,
                setup,
                scope,
            )
        )
    return captured


MAX_SIMULATED_TURNS = 100
"""Safety cap of a simulated conversation whose simulator never stops."""


async def simulate(
    agent: Agent, case: EvalCase, session_id: str, setup: AgentSetup
) -> list[Invocation]:
    """Let the user simulator drive ``agent`` through the case's scenario (SPEC §8.3, §8.4).

    Each generated message gets role ``user`` when it has none; every agent turn must end
    with a final response (``target final response is nil``). Tool mocks do not apply.
    """
    scenario = case.conversation_scenario
    if setup.user_simulator is None:
        raise InferenceError("conversationScenario needs a user simulator (user_simulator=)")
    session = _session(case, session_id)
    try:
        simulated = setup.user_simulator.start(scenario, dict(session.state))  # type: ignore[arg-type]
    except SimulatorError as exc:
        raise InferenceError(f"user simulator: {exception_message(exc)}") from exc
    except BaseException as exc:
        if is_interrupt(exc):
            raise
        raise InferenceError(f"user simulator: {describe_exception(exc)}") from exc
    loop = asyncio.get_running_loop()
    captured: list[Invocation] = []
    last_reply = ""
    for index in range(MAX_SIMULATED_TURNS + 1):
        try:
            with outside():
                message = await simulated.next(last_reply)
        except BaseException as exc:
            if is_interrupt(exc):
                raise
            text = describe_exception(exc)
            raise InferenceError(f"user simulator, turn {index + 1}: {text}") from exc
        if message is None:
            break
        if index == MAX_SIMULATED_TURNS:
            raise InferenceError(
                f"the user simulator did not stop within {MAX_SIMULATED_TURNS} turns"
            )
        if not message.role:
            message = message.model_copy(update={"role": "user"})
        if message.role != "user":
            raise InferenceError(
                f"user simulator, turn {index + 1}: role {message.role!r} is not user"
            )
        tools = ToolBox(agent.tools, loop=loop)
        invocation = await _run_turn(agent, session, message, tools, case, index, setup)
        if invocation.final_response is None:
            raise InferenceError(f"turn {index + 1}: target final response is nil")
        invocation.simulated_user = True
        captured.append(invocation)
        last_reply = message_text(invocation.final_response)
    if not captured:
        raise InferenceError("invocations are empty")
    return captured


def _with_conversation_mocks(
    actuals: list[Invocation], conversation: Sequence[Invocation]
) -> list[Invocation]:
    """Trace-mode ExpectedRunner inputs: the actual turns, each with the ``toolMock`` of the
    aligned ``conversation`` turn (SPEC §8.3)."""
    if len(conversation) != len(actuals):
        return actuals
    return [
        actual.model_copy(update={"tool_mock": planned.tool_mock})
        if planned.tool_mock is not None
        else actual
        for actual, planned in zip(actuals, conversation, strict=True)
    ]


async def infer_case(case: EvalCase, session_id: str, setup: AgentSetup) -> InferenceResult:
    """The actual (and, when enabled, expected) turns of ``case``; every failure becomes a failed
    result — only an interrupt is raised."""
    user_id = case.session_input.user_id if case.session_input else None
    expected: list[Invocation] | None = None
    try:
        if case.session_input is None:
            raise InferenceError("session input is nil")
        if not case.is_trace:
            _check_default_mode(case)
        if case.is_trace:
            actuals = trace_actuals(case)
            if case.expected_runner_enabled:
                turns = _with_conversation_mocks(actuals, case.conversation or [])
                expected = await _run_expected(case, turns, session_id, setup)
        elif case.conversation_scenario is not None:
            actuals, expected = await _infer_scenario(case, session_id, setup)
        else:
            turns = _static_turns(case)
            actuals = await run_turns(_agent(setup), case, turns, session_id, setup)
            if case.expected_runner_enabled:
                expected = await _run_expected(case, turns, session_id, setup)
    except BaseException as exc:
        if is_interrupt(exc):
            raise
        reason = (
            exception_message(exc) if isinstance(exc, InferenceError) else describe_exception(exc)
        )
        message = (
            f"inference eval case (evalCaseID={case.eval_id}, sessionID={session_id}): {reason}"
        )
        return failed_inference(case, session_id, redact(message, *setup.secrets))
    return InferenceResult(
        eval_case_id=case.eval_id,
        session_id=session_id,
        user_id=user_id,
        status=EvalStatus.PASSED,
        inferences=actuals,
        expected_inferences=expected,
    )


def _check_default_mode(case: EvalCase) -> None:
    if case.actual_conversation:
        raise InferenceError("actualConversation is only supported in trace mode")
    if case.conversation and case.conversation_scenario is not None:
        raise InferenceError("conversation and conversationScenario cannot both be set")


def _agent(setup: AgentSetup) -> Agent:
    if setup.agent is None:
        raise InferenceError("no agent given: default-mode cases need an agent to run")
    return setup.agent


async def _run_expected(
    case: EvalCase, turns: Sequence[Invocation], session_id: str, setup: AgentSetup
) -> list[Invocation]:
    """The ExpectedRunner over ``turns`` in session ``<id>-expected`` (SPEC §8.8)."""
    if setup.expected_agent is None:
        raise InferenceError("expected runner is nil")
    return await run_turns(
        setup.expected_agent, case, turns, f"{session_id}-expected", setup, "expected"
    )


async def _infer_scenario(
    case: EvalCase, session_id: str, setup: AgentSetup
) -> tuple[list[Invocation], list[Invocation] | None]:
    """Scenario cases: ``driver`` ``""``/``actual`` simulates against the agent (the expected
    runner then replays the generated user turns); ``expected`` simulates against the expected
    runner first and replays its user turns against the agent. Expecteds are kept only with
    ``expectedRunnerEnabled``."""
    driver = (case.conversation_scenario.driver or "").strip()  # type: ignore[union-attr]
    if driver in ("", "actual"):
        actuals = await simulate(_agent(setup), case, session_id, setup)
        expected = None
        if case.expected_runner_enabled:
            expected = await _run_expected(case, _user_turns(actuals), session_id, setup)
        return actuals, expected
    if driver == "expected":
        if setup.expected_agent is None:
            raise InferenceError("expected runner is nil")
        driven = await simulate(setup.expected_agent, case, f"{session_id}-expected", setup)
        actuals = await run_turns(_agent(setup), case, _user_turns(driven), session_id, setup)
        for actual in actuals:
            actual.simulated_user = True
        return actuals, driven if case.expected_runner_enabled else None
    raise InferenceError(f'unknown conversationScenario driver "{driver}"')


def _user_turns(invocations: Sequence[Invocation]) -> list[Invocation]:
    return [Invocation(user_content=inv.user_content) for inv in invocations]


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
    for agent in (setup.agent, setup.expected_agent, setup.tool_mock_agent, setup.user_simulator):
        close = getattr(agent, "aclose", None)
        if close is not None:
            await close()
