"""The step records: what one model call, tool run or agent run did, source-independent.

Plain data (slotted dataclasses). A source fills what it saw and leaves the rest ``None``;
``None`` always means "not known", never "empty". Text fields hold the text, or ``None`` when
the source did not carry it; why it is absent is said by :class:`Content`.

Times are Unix nanoseconds. Ids are the source's ids made canonical (lower-case hex where the
source used hex; the original string otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Content(StrEnum):
    """Whether a step's text content was there to read."""

    PRESENT = "present"
    MISSING = "missing"
    """the producer did not capture content (the default of the official OTel packages)"""
    REDACTED = "redacted"
    """content replaced by a placeholder (``__REDACTED__``, ADK ``<not specified>``)"""
    EXTERNAL = "external"
    """content lives elsewhere (``…_ref`` attributes) and was not resolved"""
    TRUNCATED = "truncated"
    """the value was cut by a length limit"""


@dataclass(slots=True)
class Usage:
    """Token counts of one model call (input includes cached tokens, as OTel counts)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass(slots=True)
class ToolUse:
    """A tool call: as the model asked for it (in a model call's output), or as it ran (a tool
    step). ``arguments`` is decoded JSON when the source's string parses, else the raw string.
    ``has_result`` tells a ``None`` result from no result seen."""

    id: str | None
    name: str | None
    arguments: Any = None
    result: Any = None
    has_result: bool = False
    error: str | None = None
    server: bool = False
    """a provider-side tool (no local execution span)"""


@dataclass(slots=True)
class ToolResult:
    """A tool result as the *next* model call's input carries it (a ``tool`` message)."""

    call_id: str | None
    name: str | None
    result: Any


@dataclass(slots=True)
class ModelCall:
    """One call to a model: the part of its input that matters for a turn, and its output.

    The input resends the whole history, so only ``last_user_text`` (the last user message of
    the input) and ``tool_results`` (tool messages of the input) are kept.
    ``output_text`` is the assistant text of choice 0; ``tool_calls`` the calls it requested,
    in request order.
    """

    span_id: str
    start_ns: int | None = None
    end_ns: int | None = None
    model: str | None = None
    last_user_text: str | None = None
    tool_results: list[ToolResult] = field(default_factory=list)
    output_text: str | None = None
    tool_calls: list[ToolUse] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    content: Content = Content.PRESENT
    error: str | None = None
    parent_span_id: str | None = None
    response_id: str | None = None
    """the id the model's reply carried (``chatcmpl-…``, ``resp_…``; ``gen_ai.response.id``)"""


@dataclass(slots=True)
class ToolRun:
    """One executed tool (an ``execute_tool`` / TOOL / function span)."""

    span_id: str
    tool: ToolUse
    start_ns: int | None = None
    end_ns: int | None = None
    content: Content = Content.PRESENT
    parent_span_id: str | None = None


@dataclass(slots=True)
class AgentRun:
    """One agent invocation (``invoke_agent`` / AGENT / CHAIN root). ``input_text`` /
    ``output_text``: what the agent was given and returned, when the span says so."""

    span_id: str
    name: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    input_text: str | None = None
    output_text: str | None = None
    content: Content = Content.PRESENT
    error: str | None = None
    parent_span_id: str | None = None


@dataclass(slots=True)
class OtherStep:
    """A span no dialect claims (HTTP, a chain, a retriever …): kept as a step, never an error."""

    span_id: str
    name: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    error: str | None = None
    parent_span_id: str | None = None


Step = ModelCall | ToolRun | AgentRun | OtherStep
"""Any step; a turn's steps are kept in start-time order (file order breaks ties)."""


@dataclass(slots=True)
class TurnSteps:
    """Everything a source knows about one turn, handed to the builder.

    ``user_text`` / ``final_text`` override what the builder would derive from the steps
    (the turn root's input, an agent's return value). ``gaps`` are the flags the source
    already found (``open_span``, ``orphan``, ``dropped_attributes`` …); the builder adds its own.
    """

    turn_id: str
    steps: list[Step]
    user_text: str | None = None
    final_text: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    trace_id: str | None = None
    root_span_id: str | None = None
    gaps: set[str] = field(default_factory=set)
