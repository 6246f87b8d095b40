"""Inference phase (SPEC §8.3): the actual turns of each case.

Trace mode needs no agent: the actual turns are the recorded ``actualConversation`` (or
``conversation`` when no actual one is recorded). Default-mode cases need an agent; until the
agents layer exists such a case fails with "no agent given" rather than being skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schema import EvalCase, EvalStatus, Invocation


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


def infer_case(case: EvalCase, session_id: str) -> InferenceResult:
    """Inference for one case without an agent: trace mode replays, default mode fails."""
    user_id = case.session_input.user_id if case.session_input else None
    try:
        if case.session_input is None:
            raise InferenceError("session input is nil")
        if not case.is_trace:
            if case.actual_conversation:
                raise InferenceError("actualConversation is only supported in trace mode")
            raise InferenceError("no agent given: default-mode cases need an agent to run")
        actuals = trace_actuals(case)
    except InferenceError as exc:
        return InferenceResult(
            eval_case_id=case.eval_id,
            session_id=session_id,
            user_id=user_id,
            status=EvalStatus.FAILED,
            error_message=(
                f"inference eval case (evalCaseID={case.eval_id}, sessionID={session_id}): {exc}"
            ),
        )
    return InferenceResult(
        eval_case_id=case.eval_id,
        session_id=session_id,
        user_id=user_id,
        status=EvalStatus.PASSED,
        inferences=actuals,
    )
