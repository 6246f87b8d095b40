"""Messages constructor of ``llm_verifier_pairwise`` (SPEC §5.1).

Pairwise prompt sections: Mission, Score Scale, Evaluation Criteria, Evaluation Rules, Output
Format, User Request, Candidate A (= the actual final response), Candidate B (= the expected
final response). The judge grades each candidate independently on the 20-letter scale A (best)
… T (worst), writes a short analysis, then ``<score_A>L</score_A>`` and ``<score_B>L</score_B>``.
All criteria go into one prompt: criteria = the trimmed rubrics text.

Errors, in order: ``actuals is empty``, ``expecteds is empty``, ``eval metric is nil``, ``llm
judge criterion is required``, ``actual invocation is nil``, ``expected invocation is nil``,
``expected final response is required for llm_verifier_pairwise``, ``actual final response is
required for llm_verifier_pairwise``, ``llm judge rubrics are required``.

Options (not in the reference): ``swapped=True`` puts the expected response in slot A and the
actual one in slot B (position-bias control); ``pointwise=True`` grades the actual response
alone (one ``<score_A>`` tag, no expected response needed).
"""

from __future__ import annotations

from ..content import go_trim, last, rubrics_text, text
from ..operators import PromptMessages, TurnInput
from ..responsejson import JudgeOutputError
from .prompt import fill, section, user_message

__all__ = ["POINTWISE_PROMPT", "VERIFIER_PROMPT", "VerifierConstructor"]

_SCALE = """\
## Score Scale
Use one letter from A (best) to T (worst):
- A: completely correct; nothing to improve.
- B, C, D: correct, with minor issues.
- E, F, G: better than average, with some noticeable gaps.
- H, I, J: uncertain, leaning towards success.
- K, L, M: uncertain, leaning towards failure.
- N, O, P: below average, with significant problems.
- Q, R, S: failed, although some progress was made.
- T: clear failure.
"""

_RULES = """\
## Evaluation Rules
- Apply every criterion to each candidate on its own.
- Score only what the candidate actually says. Do not reward length, confidence or polish.
- A candidate that ignores the request, contradicts itself or invents facts scores low.
"""

_REQUEST_AND_A = (
    "## User Request\n" + section("user_request") + "\n## Candidate A\n" + section("candidate_a")
)

VERIFIER_PROMPT = (
    """\
## Mission
You are a verifier. Two candidate responses to the same user request are shown below. Grade \
how well each candidate fulfils the request under the evaluation criteria. Grade each \
candidate independently; do not rank them against each other.

"""
    + _SCALE
    + """Both candidates may receive the same letter.

## Evaluation Criteria
<criteria>
${criteria}
</criteria>

"""
    + _RULES
    + """
## Output Format
First write a short analysis of each candidate. Then finish with exactly these two tags, each \
holding one letter from A to T:
<score_A>LETTER</score_A>
<score_B>LETTER</score_B>

"""
    + _REQUEST_AND_A
    + "\n## Candidate B\n"
    + section("candidate_b")
)

POINTWISE_PROMPT = (
    """\
## Mission
You are a verifier. A candidate response to a user request is shown below. Grade how well it \
fulfils the request under the evaluation criteria.

"""
    + _SCALE
    + """
## Evaluation Criteria
<criteria>
${criteria}
</criteria>

"""
    + _RULES
    + """
## Output Format
First write a short analysis of the candidate. Then finish with exactly this tag, holding one \
letter from A to T:
<score_A>LETTER</score_A>

"""
    + _REQUEST_AND_A
)

_NAME = "llm_verifier_pairwise"


class VerifierConstructor:
    """Verifier prompt (rules and options in the module doc)."""

    def __init__(self, *, swapped: bool = False, pointwise: bool = False) -> None:
        self.swapped = swapped
        self.pointwise = pointwise

    async def construct(self, turn: TurnInput) -> PromptMessages:
        if not turn.actuals:
            raise JudgeOutputError("actuals is empty")
        if not turn.expecteds and not self.pointwise:
            raise JudgeOutputError("expecteds is empty")
        metric = turn.metric
        if metric is None:
            raise JudgeOutputError("eval metric is nil")
        if metric.criterion is None or metric.criterion.llm_judge is None:
            raise JudgeOutputError("llm judge criterion is required")
        actual = last(turn.actuals)
        expected = last(turn.expecteds)
        if actual is None:
            raise JudgeOutputError("actual invocation is nil")
        if self.pointwise:
            if actual.final_response is None:
                raise JudgeOutputError(f"actual final response is required for {_NAME}")
        else:
            if expected is None:
                raise JudgeOutputError("expected invocation is nil")
            if expected.final_response is None:
                raise JudgeOutputError(f"expected final response is required for {_NAME}")
            if actual.final_response is None:
                raise JudgeOutputError(f"actual final response is required for {_NAME}")
        criteria = go_trim(rubrics_text(metric))
        if not criteria:
            raise JudgeOutputError("llm judge rubrics are required")
        request = text(actual.user_content)
        if self.pointwise:
            content = fill(
                POINTWISE_PROMPT,
                criteria=criteria,
                user_request=request,
                candidate_a=text(actual.final_response),
            )
            return user_message(content)
        assert expected is not None  # checked above for the pairwise prompt
        first, second = text(actual.final_response), text(expected.final_response)
        if self.swapped:
            first, second = second, first
        content = fill(
            VERIFIER_PROMPT,
            criteria=criteria,
            user_request=request,
            candidate_a=first,
            candidate_b=second,
        )
        return user_message(content)
