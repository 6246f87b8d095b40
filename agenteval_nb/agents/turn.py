"""What an agent under test receives for one user turn, and what it may return.

A turn function gets a :class:`Turn` (SPEC §8.3: the turn's user content, the case's session,
a copy of ``sessionInput.state`` every turn, the case's ``contextMessages`` every turn, the
messages of earlier turns of this session, and the tools). It returns the final answer as
``str``, an :class:`~agenteval_nb.schema.Message`, or a whole
:class:`~agenteval_nb.schema.Invocation`; :func:`to_invocation` turns any of them into the
captured invocation.
"""

from __future__ import annotations

import copy
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..schema import Invocation, Message, message_text
from ..secrets import redact_json
from .capture.attribution import Recording
from .capture.turns import captured_invocation
from .tools import ToolBox


@dataclass(slots=True)
class Turn:
    """One user turn of a case, as the agent sees it."""

    user_content: Message
    session_id: str
    user_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    context_messages: list[Message] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)
    tools: ToolBox = field(default_factory=ToolBox)
    eval_id: str | None = None
    turn_index: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    messages: list[Message] | None = None
    output_schema: dict[str, Any] | None = None
    """A JSON schema the answer must follow (set for tool-mock generators when the mocked tool
    declares its result type); agents that support structured output honour it."""

    @property
    def text(self) -> str:
        """The user's text (``userContent.content``, ``""`` when absent)."""
        return message_text(self.user_content)

    def add_usage(self, **tokens: int) -> None:
        """Add token counts (``prompt_tokens=…, completion_tokens=…``) to the run's agent usage."""
        for key, value in tokens.items():
            self.usage[key] = self.usage.get(key, 0) + int(value or 0)


@dataclass(slots=True)
class Session:
    """The state the toolkit keeps for one case in one run: ids, state and the transcript."""

    session_id: str
    user_id: str | None
    state: dict[str, Any]
    context_messages: list[Message]
    history: list[Message] = field(default_factory=list)

    def turn(self, user_content: Message, tools: ToolBox, eval_id: str, index: int) -> Turn:
        """The :class:`Turn` for the next user message (state copied, history snapshotted)."""
        return Turn(
            user_content=user_content,
            session_id=self.session_id,
            user_id=self.user_id,
            state=copy.deepcopy(self.state),
            context_messages=list(self.context_messages),
            history=list(self.history),
            tools=tools,
            eval_id=eval_id,
            turn_index=index,
        )

    def remember(self, turn: Turn, invocation: Invocation) -> None:
        """Append this turn to the transcript: the agent's own message list when it kept one
        (``turn.messages``), else the user message, intermediate responses and final answer."""
        if turn.messages is not None:
            self.history.extend(turn.messages)
            return
        self.history.append(turn.user_content)
        self.history.extend(invocation.intermediate_responses or ())
        if invocation.final_response is not None:
            self.history.append(invocation.final_response)


def assistant(text: str) -> Message:
    return Message(role="assistant", content=text)


def to_invocation(output: Any, turn: Turn, captured: Recording | None = None) -> Invocation:
    """The captured invocation of a turn from what the agent returned.

    ``str`` ⇒ the final response text; ``Message`` ⇒ the final response; either way, when the
    agent's model calls were captured (``captured``: on the wire, and on spans), the rest of
    the turn — tool uses and results, intermediate responses, usage, source — comes from them
    (:mod:`agenteval_nb.agents.capture.turns`). ``Invocation`` ⇒ used as given (the agent
    captured its own turn), with a missing id, user content, timestamp or tool list filled in
    (tools from the toolkit's call log). Anything else is a ``TypeError`` naming the type.
    """
    recorded = turn.tools.log.calls or None
    if isinstance(output, str | Message):
        message = assistant(output) if isinstance(output, str) else output
        if not message.role:
            message = message.model_copy(update={"role": "assistant"})
        built = (
            captured_invocation(
                f"{turn.session_id}#{turn.turn_index}",
                turn.text,
                message_text(message),
                captured,
                recorded,
            )
            if captured is not None
            else None
        )
        invocation = built or Invocation(tools=recorded)
        invocation.final_response = message
    elif isinstance(output, Invocation):
        invocation = output.model_copy()
        if invocation.tools is None and recorded:
            invocation.tools = recorded
    else:
        raise TypeError(
            f"the agent returned {type(output).__name__}; expected str, ae.Message or ae.Invocation"
        )
    if invocation.invocation_id is None:
        invocation.invocation_id = str(uuid.uuid4())
    if invocation.user_content is None:
        invocation.user_content = turn.user_content
    if invocation.creation_timestamp is None:
        invocation.creation_timestamp = time.time()
    return redacted_invocation(invocation)


def redacted_invocation(invocation: Invocation) -> Invocation:
    """``invocation`` with every key redacted (:func:`agenteval_nb.secrets.redact_json`) from its
    texts, tool arguments and tool results — whatever agent produced it, a model or a tool that
    echoes a key leaks nothing (the same object when nothing had to change)."""
    data = invocation.model_dump(by_alias=True, exclude_unset=True)
    clean = redact_json(data)
    return invocation if clean is data else Invocation.model_validate(clean)
