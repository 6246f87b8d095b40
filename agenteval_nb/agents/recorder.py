"""``ae.record``: serve an agent and record every turn it serves into an eval set (SPEC §8.9).

``wrapped = ae.record(agent, target)`` is itself an agent (same ``tools``, ``run_turn``): use it
in ``ae.evaluate(..., agent=wrapped)``, or serve turns directly with ``wrapped.respond(text,
session_id=...)`` / ``await wrapped.arespond(...)``, which keep each session's history. Every
turn becomes an invocation of the case it belongs to:

* ``invocationId`` = the captured invocation's id (the id the evaluation reports for the turn),
  ``creationTimestamp`` = when the turn finished (an agent-given one is kept); user message,
  tool calls (decoded arguments and results, from the turn's tool log or the returned
  invocation), final response, intermediate responses (as returned, else the assistant
  messages without tool calls that precede the final one in ``turn.messages``);
* the turn's state (copied before the agent runs, made JSON data) → ``sessionInput.state``, the
  context messages → ``contextMessages``, the user id → ``sessionInput.userId``, ``app_name``
  (default ``"default"``) → ``sessionInput.appName``;
* a turn that raises (or is cancelled, e.g. by ``agent_timeout``) is recorded with the final
  response ``"[RUN_ERROR] <type or unknown>: <message or unknown>"``, keys redacted, and the
  exception is re-raised;
* eval set id: ``eval_set_id`` (a string, or a function of the :class:`Turn`); by default the
  session id for a store, the file's own id (else its name without ``.evalset.json``) for a
  file. Case id: ``case_id`` (string or function), by default the session id;
* ``trace=True`` records trace-mode cases (turns in ``actualConversation``) that evaluate as
  they were served; the default records default-mode cases whose recorded answers are the
  expected ones. The merge rules and the write discipline are those of
  :mod:`agenteval_nb.agents.recordings`. Writes run in a worker thread (the event loop goes
  on) and finish before the turn returns, so a recorded evaluation is complete when
  ``ae.evaluate`` returns.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import math
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pydantic

from ..errors import exception_message, exception_type_name
from ..schema import Invocation, Message, message_text
from ..secrets import redact
from ..syncio import run_sync
from .base import Agent, agent_name, as_agent
from .recordings import FileTarget, RecordedTurn, target_of, writer_for
from .tools import ToolBox, ToolSpec
from .turn import Session, Turn, to_invocation

DEFAULT_APP_NAME = "default"
RUN_ERROR_PREFIX = "[RUN_ERROR]"

Resolver = str | Callable[[Turn], str] | None
"""A fixed id, or a function of the turn that returns one."""


def run_error_text(exc: BaseException | None, *secrets: str | None) -> str:
    """``[RUN_ERROR] <type or unknown>: <message or unknown>`` with keys redacted."""
    kind = exception_type_name(exc) if exc is not None else "unknown"
    message = exception_message(exc) if exc is not None else ""
    return redact(f"{RUN_ERROR_PREFIX} {kind}: {message or 'unknown'}", *secrets)


def json_value(value: Any) -> Any:
    """``value`` as JSON data: mappings (keys as ``str``), sequences and sets (as lists),
    pydantic models and dataclasses (dumped); a non-finite float or anything else → ``str``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((json_value(v) for v in value), key=repr)
    if isinstance(value, pydantic.BaseModel):
        return json_value(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_value(dataclasses.asdict(value))
    return str(value)


def _resolve(resolver: Resolver, turn: Turn, what: str) -> str | None:
    if resolver is None:
        return None
    value = resolver(turn) if callable(resolver) else resolver
    if not isinstance(value, str) or not value:
        raise ValueError(f"the {what} resolver must give a non-empty string, got {value!r}")
    return value


def _has_payload(message: Message) -> bool:
    return bool(message.content or message.content_parts or message.reasoning_content)


def intermediate_responses(messages: Iterable[Message], final: Message | None) -> list[Message]:
    """Assistant messages with a payload and no tool calls, the final response excluded."""
    found = [m for m in messages if m.role == "assistant" and not m.tool_calls and _has_payload(m)]
    if found and final is not None and found[-1] == final:
        found.pop()
    return found


class RecordingAgent:
    """An agent that records each turn it serves (see the module doc); made by :func:`record`."""

    def __init__(
        self,
        agent: Any,
        target: Any,
        *,
        eval_set_id: Resolver = None,
        trace: bool = False,
        app_name: str | None = None,
        case_id: Resolver = None,
    ) -> None:
        self.agent: Agent = as_agent(agent)
        self.target = target_of(target)
        self._writer = writer_for(self.target)
        self.eval_set_id = eval_set_id
        self.case_id = case_id
        self.trace = bool(trace)
        self.app_name = app_name or DEFAULT_APP_NAME
        self.name = agent_name(self.agent)
        self.default_session_id = str(uuid.uuid4())
        self._sessions: dict[str, Session] = {}
        self._turn_counts: dict[str, int] = {}

    def __repr__(self) -> str:
        mode = "trace" if self.trace else "default"
        return f"RecordingAgent({self.name}, {self.target.describe()}, mode={mode})"

    @property
    def tools(self) -> list[ToolSpec]:
        """The wrapped agent's tools."""
        return self.agent.tools

    def secrets(self) -> tuple[str, ...]:
        """The wrapped agent's keys (redacted from recorded errors and evaluation errors)."""
        found = getattr(self.agent, "secrets", None)
        return tuple(found()) if callable(found) else ()

    def _where(self, turn: Turn) -> tuple[str | None, str]:
        set_id = _resolve(self.eval_set_id, turn, "eval set id")
        if set_id is None and not isinstance(self.target, FileTarget):
            set_id = turn.session_id
        case_id = _resolve(self.case_id, turn, "eval case id") or turn.session_id
        if not case_id:
            raise ValueError("the turn has no session id to name its eval case")
        return set_id, case_id

    async def run_turn(self, turn: Turn) -> Invocation:
        """Run the wrapped agent on ``turn``, record the turn, return the captured invocation."""
        set_id, case_id = self._where(turn)
        state = json_value(turn.state)
        context = list(turn.context_messages)

        def recorded(invocation: Invocation) -> RecordedTurn:
            return RecordedTurn(
                app_name=self.app_name,
                eval_set_id=set_id,
                eval_case_id=case_id,
                user_id=turn.user_id,
                state=state,
                context_messages=context,
                invocation=invocation,
                trace=self.trace,
            )

        try:
            invocation = to_invocation(await self.agent.run_turn(turn), turn)
        except asyncio.CancelledError as exc:
            await asyncio.shield(self._save_failure(recorded, turn, exc))
            raise
        except Exception as exc:
            await self._save_failure(recorded, turn, exc)
            raise
        kept = invocation.model_copy()  # shares parts: nothing edits them before the write
        if kept.intermediate_responses is None and turn.messages is not None:
            kept.intermediate_responses = (
                intermediate_responses(turn.messages, kept.final_response) or None
            )
        await self._save(recorded(kept))
        return invocation

    async def _save(self, turn: RecordedTurn) -> None:
        await asyncio.wrap_future(self._writer.submit(turn))

    async def _save_failure(
        self, recorded: Callable[[Invocation], RecordedTurn], turn: Turn, exc: BaseException
    ) -> None:
        """Record the failed turn; a failure to record is noted on ``exc``, never raised."""
        failed = to_invocation(run_error_text(exc, *self.secrets()), turn)
        failed.tools = [t.model_copy(deep=True) for t in turn.tools.log.calls] or None
        try:
            await self._save(recorded(failed))
        except Exception as err:
            exc.add_note(f"recording the failed turn failed too: {type(err).__name__}: {err}")

    async def arespond(
        self,
        text: str | Message,
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        context_messages: Iterable[Message] | None = None,
    ) -> str:
        """Serve one user turn outside an evaluation and return the final response's text.

        The session (default: one per recorder) keeps its history; ``user_id``, ``state`` and
        ``context_messages`` given here replace the session's from this turn on. Turns of one
        session must be served one after another.
        """
        sid = session_id or self.default_session_id
        session = self._sessions.get(sid)
        if session is None:
            session = Session(sid, user_id, {}, [])
            self._sessions[sid] = session
        if user_id is not None:
            session.user_id = user_id
        if state is not None:
            session.state = dict(state)
        if context_messages is not None:
            session.context_messages = list(context_messages)
        user = text if isinstance(text, Message) else Message(role="user", content=text)
        index = self._turn_counts.get(sid, 0)
        turn = Turn(
            user_content=user,
            session_id=sid,
            user_id=session.user_id,
            state=copy.deepcopy(session.state),
            context_messages=list(session.context_messages),
            history=list(session.history),
            tools=ToolBox(self.tools, loop=asyncio.get_running_loop()),
            turn_index=index,
        )
        self._turn_counts[sid] = index + 1
        invocation = await self.run_turn(turn)
        session.remember(turn, invocation)
        return message_text(invocation.final_response)

    def respond(
        self,
        text: str | Message,
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        context_messages: Iterable[Message] | None = None,
    ) -> str:
        """:meth:`arespond` from synchronous code (a script, or a Jupyter cell)."""
        return run_sync(
            lambda: self.arespond(
                text,
                session_id=session_id,
                user_id=user_id,
                state=state,
                context_messages=context_messages,
            )
        )

    def history(self, session_id: str | None = None) -> list[Message]:
        """The transcript of a directly served session (a copy)."""
        session = self._sessions.get(session_id or self.default_session_id)
        return list(session.history) if session is not None else []

    def end_session(self, session_id: str | None = None) -> None:
        """Forget a directly served session (its recorded turns stay recorded)."""
        sid = session_id or self.default_session_id
        self._sessions.pop(sid, None)
        self._turn_counts.pop(sid, None)


def record(
    agent: Any,
    target: Any,
    *,
    eval_set_id: Resolver = None,
    trace: bool = False,
    app_name: str | None = None,
    case_id: Resolver = None,
) -> RecordingAgent:
    """Wrap ``agent`` (any form :func:`~agenteval_nb.agents.as_agent` accepts) so that every turn
    it serves is recorded into ``target``: an eval-set store (``agenteval_nb.stores``), a
    ``*.evalset.json`` file path, or a folder path (a local eval-set store). Rules in the
    module doc of :mod:`agenteval_nb.agents.recorder`.
    """
    return RecordingAgent(
        agent, target, eval_set_id=eval_set_id, trace=trace, app_name=app_name, case_id=case_id
    )
