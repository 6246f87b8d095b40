"""Messages constructor of ``llm_final_response`` (SPEC §4.3).

Inputs (last turn): user prompt, actual final answer, expected final answer. Errors:
``actuals is empty``, ``expecteds is empty``. Output format asked for: two plain-text lines
``reasoning: …`` and ``is_the_agent_response_valid: valid|invalid`` (read by the
``finalresponse`` scorer). No structured output.
"""

from __future__ import annotations

from ..content import last, text
from ..operators import PromptMessages, TurnInput
from .prompt import fill, section, sections, user_message

__all__ = ["FINAL_RESPONSE_PROMPT", "FinalResponseConstructor"]

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


class FinalResponseConstructor:
    """Prompt: is the agent's final answer equivalent to the reference answer?"""

    async def construct(self, turn: TurnInput) -> PromptMessages:
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
