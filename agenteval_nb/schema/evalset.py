"""Eval set file (SPEC §1.2): ``<base>/<app>/<evalSetId>.evalset.json``."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from .base import WireModel
from .message import Message
from .metric import RubricContent
from .trace import Trace

EVAL_MODES = ("", "trace")
"""Legal ``evalMode`` values: default (run the agent) or trace (score recorded turns)."""

EpochTime = float
"""Unix time in float seconds; the zero time is written as ``0``."""


class Tool(WireModel):
    """A tool call with its decoded ``arguments`` and ``result`` (any JSON).

    ``mock`` (agenteval_nb only; Go readers ignore it): set on calls that a ``toolMock`` rule
    answered during inference — ``{"side": "actual"|"expected", "rule": <0-based index>,
    "kind": "static"|"llmGenerator"}``.
    """

    id: str | None = None
    name: str | None = None
    arguments: Any = None
    result: Any = None
    mock: dict[str, Any] | None = None


class ArgumentsMatch(WireModel):
    """How a tool mock rule matches call arguments (numberTolerance absent ⇒ exact)."""

    ignore: bool | None = None
    expected: Any = None
    only_tree: dict[str, Any] | None = None
    ignore_tree: dict[str, Any] | None = None
    number_tolerance: float | None = None


class LLMGenerator(WireModel):
    prompt: str | None = None


class ToolMockTool(WireModel):
    """One mock rule: a tool name, an optional argument match and a static or generated result."""

    name: str | None = None
    arguments: ArgumentsMatch | None = None
    result: Any = None
    llm_generator: LLMGenerator | None = None


class ToolMock(WireModel):
    """Inference-time tool mocks for the tested runner (``actual``) and the ExpectedRunner."""

    actual: list[ToolMockTool] | None = None
    expected: list[ToolMockTool] | None = None


TEXT_GAPS = ("content_missing", "content_redacted", "content_external", "no_final_response")
"""Gaps of a recorded turn that leave its text unscoreable (:func:`text_gap_reason`)."""


class InvocationSource(WireModel):
    """agenteval_nb only (Go readers ignore it): where a turn built from spans or captured
    traffic came from, and what could not be recovered.

    ``spanIds``: every source span of the turn, in start order; ``gaps``: sorted flags such as
    ``content_missing``, ``content_redacted``, ``content_external``, ``no_final_response``,
    ``tool_without_result``, ``no_model_call``, ``open_span``, ``orphan`` (docs/traces.md);
    ``capture``: a captured turn's counts (model calls, calls without usage …), the capture
    report's (:mod:`agenteval_nb.agents.capture.report`).
    """

    trace_id: str | None = None
    root_span_id: str | None = None
    span_ids: list[str] | None = None
    gaps: list[str] | None = None
    capture: dict[str, int] | None = None


class Invocation(WireModel):
    """One turn: the user's message, the final response and the tools called."""

    invocation_id: str | None = None
    context_messages: list[Message] | None = None
    user_content: Message | None = None
    final_response: Message | None = None
    tools: list[Tool] | None = None
    tool_mock: ToolMock | None = None
    intermediate_responses: list[Message] | None = None
    creation_timestamp: EpochTime | None = None
    execution_trace: Trace | None = None
    simulated_user: bool | None = None
    """agenteval_nb only (Go readers ignore it): ``true`` when a user simulator wrote
    ``userContent`` (``conversationScenario`` cases)."""
    source: InvocationSource | None = None
    """agenteval_nb only: provenance and gaps of a turn built from traces."""


def text_gap_reason(invocation: Invocation | None) -> str | None:
    """Why this recorded turn's text cannot be scored, or ``None`` when it can.

    The rule of "a turn without content is never scored as a pass on a text metric": only a
    turn that carries a :data:`TEXT_GAPS` flag in ``source.gaps`` is unscoreable; every other
    turn (all Go-written files) is scored as before.
    """
    source = invocation.source if invocation is not None else None
    if source is None or not source.gaps:
        return None
    found = [gap for gap in source.gaps if gap in TEXT_GAPS]
    if not found:
        return None
    return "turn text not recovered from its trace (" + ", ".join(found) + ")"


class SessionInput(WireModel):
    app_name: str | None = None
    user_id: str | None = None
    state: dict[str, Any] | None = None


class ConversationScenario(WireModel):
    """A simulated-user scenario (default mode only)."""

    driver: str | None = None
    starting_prompt: str | None = None
    conversation_plan: str | None = None
    stop_signal: str | None = None
    max_allowed_invocations: int | None = None


class EvalCaseRubric(WireModel):
    """A case-level rubric appended to the rubrics of the metric named ``metricName``."""

    metric_name: str | None = None
    id: str | None = None
    content: RubricContent | None = None
    description: str | None = None
    type: str | None = None


class EvalCase(WireModel):
    """One case: a conversation (expected, or recorded actual in trace mode) and its setup."""

    eval_id: str = Field(alias="evalId")
    eval_mode: str | None = None
    expected_runner_enabled: bool | None = None
    context_messages: list[Message] | None = None
    conversation: list[Invocation] | None = None
    conversation_scenario: ConversationScenario | None = None
    actual_conversation: list[Invocation] | None = None
    session_input: SessionInput | None = None
    rubrics: list[EvalCaseRubric] | None = None
    creation_timestamp: EpochTime | None = None

    @field_validator("eval_mode")
    @classmethod
    def _known_mode(cls, value: str | None) -> str | None:
        if value is not None and value not in EVAL_MODES:
            raise ValueError(f'evalMode must be "" or "trace", got {value!r}')
        return value

    @property
    def is_trace(self) -> bool:
        return self.eval_mode == "trace"


class EvalSet(WireModel):
    """A named list of eval cases."""

    eval_set_id: str = Field(alias="evalSetId")
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase] | None = None
    creation_timestamp: EpochTime | None = None

    @field_validator("eval_cases", mode="before")
    @classmethod
    def _null_cases(cls, value: Any) -> Any:
        return [] if value is None else value

    def case(self, eval_id: str) -> EvalCase:
        """The case with this id (``KeyError`` when absent)."""
        for case in self.eval_cases or ():
            if case.eval_id == eval_id:
                return case
        raise KeyError(eval_id)
