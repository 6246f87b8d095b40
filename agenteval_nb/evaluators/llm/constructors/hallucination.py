"""Messages constructor of ``llm_hallucinations`` (SPEC §4.3): two judge stages.

1. **Segmentation** (once per turn, not per sample; no structured output; recorded in
   ``JudgeRecord.extra_calls``): the judge splits the last final answer into claims, one per
   line as ``<sentence>…</sentence>`` (``<sentence>[EMPTY_RESPONSE]</sentence>`` for an empty
   answer). Every ``(?s)<sentence>(.*?)</sentence>`` match is trimmed; empty ones are skipped
   but numbering follows match position: ``<sentence id="N">\\n<text>\\n</sentence>`` joined by
   ``\\n``. Errors: ``no segmented sentences found in response``, ``no non-empty segmented
   sentences found in response``; a failed call ⇒ ``segment final answer: <judge error>``.
2. **Validation** prompt (the scored samples): the grounding context of all prefix turns
   (:mod:`.grounding`) and the numbered sentences; the judge labels each sentence
   (``supported``, ``unsupported``, ``contradictory``, ``disputed``, ``not_applicable``) and
   answers in ``ID / Reason / Label / Verdict`` blocks (read by the ``hallucination`` scorer).

Precondition: ``actuals is empty``.
"""

from __future__ import annotations

import re2

from ..content import go_trim, last, text
from ..operators import PromptMessages, TurnInput
from ..responsejson import JudgeOutputError
from .grounding import grounding_context
from .prompt import fill, user_message

__all__ = [
    "SEGMENTATION_PROMPT",
    "VALIDATION_PROMPT",
    "HallucinationConstructor",
    "number_sentences",
]

SEGMENTATION_PROMPT = """\
Split the final answer of an AI agent into separate factual claims.

Rules:
- Write every claim on its own line as <sentence>claim</sentence>.
- Keep the original wording. Do not paraphrase, merge, add or drop information.
- If the answer is empty, write exactly <sentence>[EMPTY_RESPONSE]</sentence>.
Output only the sentence lines.

<agent_response>
${agent_response}
</agent_response>
"""

VALIDATION_PROMPT = """\
You check whether each sentence of an AI agent's answer is grounded in what the agent had \
available: the user prompt, context messages, tool calls and tool outputs shown in the context.

Give every sentence exactly one label:
- supported: the context backs the sentence;
- unsupported: nothing in the context backs the sentence;
- contradictory: the context says otherwise;
- disputed: parts of the context back it and other parts contradict it;
- not_applicable: the sentence makes no factual claim (a greeting, a question, an offer to \
help).
The verdict is yes for supported and not_applicable, and no for every other label.
If the only sentence is [EMPTY_RESPONSE], write a single block with ID: 1, Label: unsupported \
and Verdict: no.

<context>
${context}
</context>

<segmented_sentences>
${sentences}
</segmented_sentences>

For every sentence, in order, write one block in exactly this form, with a blank line between \
blocks:
ID: <sentence id>
Reason: <short justification>
Label: <label>
Verdict: <yes or no>
"""

_SENTENCE = re2.compile(r"(?s)<sentence>(.*?)</sentence>")


def number_sentences(segmentation: str) -> str:
    """Numbered sentence blocks from a segmentation answer (rules in the module doc)."""
    matches = _SENTENCE.findall(segmentation or "")
    if not matches:
        raise JudgeOutputError("no segmented sentences found in response")
    blocks = [
        f'<sentence id="{n}">\n{go_trim(sentence)}\n</sentence>'
        for n, sentence in enumerate(matches, start=1)
        if go_trim(sentence)
    ]
    if not blocks:
        raise JudgeOutputError("no non-empty segmented sentences found in response")
    return "\n".join(blocks)


class HallucinationConstructor:
    """Segment the final answer (extra judge call), then build the validation prompt."""

    async def construct(self, turn: TurnInput) -> PromptMessages:
        if not turn.actuals:
            raise JudgeOutputError("actuals is empty")
        actual = last(turn.actuals)
        segmentation = user_message(
            fill(
                SEGMENTATION_PROMPT, agent_response=text(actual.final_response if actual else None)
            )
        )
        try:
            call = await turn.extra_call(segmentation, purpose="segmentation")
        except Exception as exc:
            raise JudgeOutputError(f"segment final answer: {exc}") from exc
        sentences = number_sentences(call.content or "")
        return user_message(
            fill(VALIDATION_PROMPT, context=grounding_context(turn.actuals), sentences=sentences)
        )
