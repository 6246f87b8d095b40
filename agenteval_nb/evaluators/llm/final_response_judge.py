"""``llm_final_response``: is the agent's final answer equivalent to the reference answer?
(SPEC §2, §4.3, §4.4)

Prompt (last turn): the user prompt, the actual final answer and the expected final answer;
errors ``actuals is empty``, ``expecteds is empty``. No structured output: the judge answers
in two plain-text lines ``reasoning: …`` and ``is_the_agent_response_valid: valid|invalid``.

Scoring a sample: the first match of
``(?ms)reasoning:\\s*(.*?)\\s*is_the_agent_response_valid:\\s*(.*?)\\s*$`` (RE2) is read: label
= group 2 trimmed and lower-cased; score 1 iff the label is ``valid`` — **any other label scores
0** (not an error); reason = group 1 trimmed. Errors: ``no choices in response``, ``empty
response text``, ``no final response blocks found in response``.

Aggregation: the contract's defaults (majority vote over samples, average over turns).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import re2

from ...schema import EvalMetric, ScoreValue
from .judge_contract import LLMJudgeEvaluator, PromptMessages, ScoreResult, TurnInput
from .judge_text import (
    JudgeOutputError,
    fill,
    go_trim,
    last,
    response_content,
    section,
    sections,
    text,
    user_message,
)
from .operator_registry import OperatorRegistry

__all__ = ["FINAL_RESPONSE_PROMPT", "LLMFinalResponseEvaluator", "score_final_response"]

FINAL_RESPONSE_PROMPT = (
    """\
You are grading the final answer of an AI agent against a reference answer. Be strict.

How to decide:
1. The reference answer is the ground truth. Do not question it and do not work the problem \
out yourself.
2. An answer that asks the user a clarifying question, refuses, or avoids committing to a \
definite answer is invalid.
3. Differences in wording, formatting, number formatting (for example "1,000" and "1000") or \
the order of independent facts are fine when the meaning is the same.
4. The answer is invalid if it leaves out or changes any key information of the reference, \
including numbers, units, names and dates.

"""
    + sections(section("user_prompt"), section("agent_response"), section("reference_answer"))
    + """\
Reply with exactly these two lines of plain text and nothing else:
reasoning: <a short explanation of your decision>
is_the_agent_response_valid: <valid or invalid>
"""
)


def final_response_messages(turn: TurnInput) -> PromptMessages:
    """The prompt of one turn (module doc)."""
    if not turn.actuals:
        raise ValueError("actuals is empty")
    if not turn.expecteds:
        raise ValueError("expecteds is empty")
    actual, expected = last(turn.actuals), last(turn.expecteds)
    return user_message(
        fill(
            FINAL_RESPONSE_PROMPT,
            user_prompt=text(actual.user_content if actual else None),
            agent_response=text(actual.final_response if actual else None),
            reference_answer=text(expected.final_response if expected else None),
        )
    )


_BLOCK = re2.compile(r"(?ms)reasoning:\s*(.*?)\s*is_the_agent_response_valid:\s*(.*?)\s*$")


def score_final_response(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    """Score a ``reasoning: … / is_the_agent_response_valid: …`` answer (module doc)."""
    content = response_content(response)
    if not go_trim(content):
        raise JudgeOutputError("empty response text")
    match = _BLOCK.search(content)
    if match is None:
        raise JudgeOutputError("no final response blocks found in response")
    score = 1.0 if go_trim(match.group(2)).lower() == "valid" else 0.0
    return ScoreResult(
        score=score,
        reason=go_trim(match.group(1)),
        value=ScoreValue(kind="numeric", numeric=score),
    )


class LLMFinalResponseEvaluator(LLMJudgeEvaluator):
    """``llm_final_response``; keyword arguments swap a stage (callable or name in
    ``operators``), e.g. ``LLMFinalResponseEvaluator(samples_aggregator="min")``."""

    name = "llm_final_response"
    description = "LLM judge: is the final answer equivalent to the reference answer?"

    def __init__(self, *, operators: OperatorRegistry | None = None, **stages: Any) -> None:
        stages.setdefault("scorer", score_final_response)
        super().__init__(operators=operators or OperatorRegistry.default(), **stages)

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        return final_response_messages(turn)
