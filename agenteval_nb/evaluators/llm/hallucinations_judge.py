"""``llm_hallucinations``: the share of the final answer's claims grounded in what the agent
had (SPEC §2, §4.3, §4.4). Two judge stages per turn.

1. **Segmentation** (once per turn, not per sample; no structured output; recorded in
   ``JudgeRecord.extra_calls``): the judge splits the last final answer into claims, one per
   line as ``<sentence>…</sentence>`` (``<sentence>[EMPTY_RESPONSE]</sentence>`` for an empty
   answer). Every ``(?s)<sentence>(.*?)</sentence>`` match is trimmed; empty ones are skipped
   but numbering follows match position: ``<sentence id="N">\\n<text>\\n</sentence>`` joined by
   ``\\n``. Errors: ``actuals is empty``, ``no segmented sentences found in response``, ``no
   non-empty segmented sentences found in response``; a failed call ⇒ ``segment final answer:
   <judge error>``.
2. **Validation** prompt (the scored samples): the grounding context of all prefix turns and
   the numbered sentences; the judge labels each sentence (``supported``, ``unsupported``,
   ``contradictory``, ``disputed``, ``not_applicable``) in ``ID / Reason / Label / Verdict``
   blocks.

Grounding context, per actual turn, the non-empty sections joined by a blank line:
``User prompt:\\n`` + the trimmed user text; ``Context messages:\\n`` + one line ``- [<role>]
<trimmed content>`` per context message with non-blank content; ``tool_calls:\\n`` + a 2-space
indented JSON array of ``{id?, name?, args?}``; ``tool_outputs:\\n`` + the same for ``{id?,
name?, output?}`` (Go's ``MarshalIndent`` with HTML escaping; ``args``/``output`` omitted only
when null). The contexts of all turns of the prefix are joined by a blank line; none at all ⇒
``No validation context was captured.``

Scoring a sample: blocks matched by the RE2 pattern
``(?ms)ID:\\s*(.*?)\\s*Reason:\\s*(.*?)\\s*Label:\\s*(.*?)\\s*Verdict:\\s*(.*?)(?:\\n\\s*\\n|\\z)``.
Per block: label = trimmed, lower-cased, spaces → ``_``; ``supported`` / ``not_applicable`` ⇒ 1,
``unsupported`` / ``contradictory`` / ``disputed`` ⇒ 0; an empty label falls back to the verdict
(trimmed, lower-cased ``yes`` ⇒ 1, else 0); any other label is an error ``score sentence <id>:
unexpected label "x"``. An empty id becomes the 1-based block index. Score = mean over blocks;
rubric scores ``{id, reason: "[label] reason" (or reason when the label is empty), score}``;
reason = the block reasons joined by ``\\n``. Errors: ``response is nil``, ``no choices in
response``, ``no sentence blocks found in response``.

Aggregation: the contract's defaults (majority vote over samples, average over turns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import re2

from ...criteria.gofmt import go_quote
from ...schema import EvalMetric, Invocation, RubricScore
from .judge_contract import LLMJudgeEvaluator, PromptMessages, ScoreResult, TurnInput
from .judge_text import (
    JudgeOutputError,
    Struct,
    fill,
    go_trim,
    last,
    marshal,
    response_content,
    text,
    user_message,
)
from .operator_registry import OperatorRegistry
from .rubric_scoring import rubric_mean

__all__ = [
    "LABEL_SCORES",
    "NO_CONTEXT",
    "SEGMENTATION_PROMPT",
    "VALIDATION_PROMPT",
    "LLMHallucinationsEvaluator",
    "grounding_context",
    "number_sentences",
    "score_hallucination",
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


NO_CONTEXT = "No validation context was captured."


def _tools_json(actual: Invocation) -> tuple[str, str]:
    calls: list[Struct] = []
    outputs: list[Struct] = []
    for tool in actual.tools or ():
        if tool is None:
            continue
        call, output = Struct(), Struct()
        for obj in (call, output):
            if tool.id:
                obj["id"] = tool.id
            if tool.name:
                obj["name"] = tool.name
        if tool.arguments is not None:
            call["args"] = tool.arguments
        if tool.result is not None:
            output["output"] = tool.result
        calls.append(call)
        outputs.append(output)
    if not calls:
        return "", ""
    return (
        marshal(calls, escape_html=True, indent="  "),
        marshal(outputs, escape_html=True, indent="  "),
    )


def turn_context(actual: Invocation | None) -> str:
    """The sections of one turn joined by a blank line (``""`` when there are none)."""
    if actual is None:
        return ""
    sections: list[str] = []
    prompt = go_trim(text(actual.user_content))
    if prompt:
        sections.append("User prompt:\n" + prompt)
    lines = [
        f"- [{message.role}] {go_trim(text(message))}"
        for message in actual.context_messages or ()
        if message is not None and go_trim(text(message))
    ]
    if lines:
        sections.append("Context messages:\n" + "\n".join(lines))
    calls, outputs = _tools_json(actual)
    if calls:
        sections.append("tool_calls:\n" + calls)
        sections.append("tool_outputs:\n" + outputs)
    return "\n\n".join(sections)


def grounding_context(actuals: Sequence[Invocation | None]) -> str:
    """The context of every turn of the prefix (rules in the module doc)."""
    parts = [part for part in (turn_context(a) for a in actuals) if part]
    return "\n\n".join(parts) if parts else NO_CONTEXT


_BLOCK = re2.compile(
    r"(?ms)ID:\s*(.*?)\s*Reason:\s*(.*?)\s*Label:\s*(.*?)\s*Verdict:\s*(.*?)(?:\n\s*\n|\z)"
)

LABEL_SCORES = {
    "supported": 1.0,
    "not_applicable": 1.0,
    "unsupported": 0.0,
    "contradictory": 0.0,
    "disputed": 0.0,
}


def score_hallucination(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    """Score validator blocks (rules in the module doc)."""
    content = response_content(response)
    blocks = list(_BLOCK.finditer(content))
    if not blocks:
        raise JudgeOutputError("no sentence blocks found in response")
    rubric_scores: list[RubricScore] = []
    reasons: list[str] = []
    for position, block in enumerate(blocks, start=1):
        sentence_id = go_trim(block.group(1)) or str(position)
        reason = go_trim(block.group(2))
        label = go_trim(block.group(3)).lower().replace(" ", "_")
        verdict = go_trim(block.group(4)).lower()
        if not label:
            score = 1.0 if verdict == "yes" else 0.0
        elif label in LABEL_SCORES:
            score = LABEL_SCORES[label]
        else:
            raise JudgeOutputError(
                f"score sentence {sentence_id}: unexpected label {go_quote(label)}"
            )
        rubric_scores.append(
            RubricScore(
                id=sentence_id, reason=f"[{label}] {reason}" if label else reason, score=score
            )
        )
        reasons.append(reason)
    return rubric_mean(rubric_scores, reasons)


class LLMHallucinationsEvaluator(LLMJudgeEvaluator):
    """``llm_hallucinations``; keyword arguments swap a stage (callable or name)."""

    name = "llm_hallucinations"
    description = "LLM judge: share of the final answer's sentences grounded in the context"

    def __init__(self, *, operators: OperatorRegistry | None = None, **stages: Any) -> None:
        stages.setdefault("scorer", score_hallucination)
        super().__init__(operators=operators or OperatorRegistry.default(), **stages)

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        """Segment the final answer (an extra judge call), then the validation prompt."""
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
