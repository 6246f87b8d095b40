"""Scorer ``hallucination`` (``llm_hallucinations`` validator answers, SPEC §4.4).

The judge writes one block per sentence, matched by the RE2 pattern
``(?ms)ID:\\s*(.*?)\\s*Reason:\\s*(.*?)\\s*Label:\\s*(.*?)\\s*Verdict:\\s*(.*?)(?:\\n\\s*\\n|\\z)``.
Per block: label = trimmed, lower-cased, spaces → ``_``; ``supported`` / ``not_applicable`` ⇒ 1,
``unsupported`` / ``contradictory`` / ``disputed`` ⇒ 0; an empty label falls back to the verdict
(trimmed, lower-cased ``yes`` ⇒ 1, else 0); any other label is an error
``score sentence <id>: unexpected label "x"``. An empty id becomes the 1-based block index.

Result: score = mean over blocks; rubric scores ``{id, reason: "[label] reason" (or reason
when the label is empty), score}``; reason = the block reasons joined by ``\\n``; value numeric.

Errors: ``response is nil``, ``no choices in response``, ``no sentence blocks found in
response``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import re2

from ....schema import EvalMetric, RubricScore, ScoreValue
from ..content import go_trim
from ..gojson import go_quote
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, response_content

__all__ = ["LABEL_SCORES", "score_hallucination"]

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
    score = sum(r.score or 0.0 for r in rubric_scores) / len(rubric_scores)
    return ScoreResult(
        score=score,
        reason="\n".join(reasons),
        value=ScoreValue(kind="numeric", numeric=score),
        rubric_scores=rubric_scores,
    )
