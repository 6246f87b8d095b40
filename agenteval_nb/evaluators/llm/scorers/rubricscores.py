"""Scorer ``rubric_scores`` (all ``llm_rubric_*`` evaluators and the template scorer, SPEC §4.4).

Expected answer: ``{"rubricScores": [{"id": str, "score": number, "reason": str}, ...]}``.

Checks, in order: ``rubricScores is empty``; when the metric has at least one visible rubric,
the configured ids must be usable (``llm judge rubric id is required for structured output``,
``duplicate llm judge rubric id "x"``); then per item: ``rubric score id is empty`` (id absent
or blank; ids are trimmed), ``duplicate rubric score id "x"``, ``unexpected rubric score id
"x"`` (only with configured rubrics), ``rubric score is required``, ``rubric score reason is
required`` (an empty string is a reason), ``rubric score must be between 0 and 1``; finally
``missing rubric score id "x"`` (first missing id in configured order).

Result: score = mean of item scores (any value in [0, 1], not only 0/1); rubric scores in the
judge's order; reason = item reasons joined by ``\\n``; value numeric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....schema import EvalMetric, RubricScore, ScoreValue
from ..content import go_trim, visible_rubrics
from ..gojson import go_quote
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, field, unmarshal_content

__all__ = ["score_rubric_scores", "structured_rubric_ids"]


def structured_rubric_ids(metric: EvalMetric) -> list[str]:
    """Trimmed ids of the visible rubrics, validated for structured output (SPEC §4.7).

    Errors: ``llm judge rubrics are required``, ``llm judge rubric id is required for structured
    output``, ``duplicate llm judge rubric id "x"``.
    """
    ids = [go_trim(r.id) for r in visible_rubrics(metric)]
    if not ids:
        raise JudgeOutputError("llm judge rubrics are required")
    seen: set[str] = set()
    for rid in ids:
        if not rid:
            raise JudgeOutputError("llm judge rubric id is required for structured output")
        if rid in seen:
            raise JudgeOutputError(f"duplicate llm judge rubric id {go_quote(rid)}")
        seen.add(rid)
    return ids


def score_rubric_scores(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    """Score a ``rubricScores`` JSON answer (rules in the module doc)."""
    payload = unmarshal_content(response)
    items = [
        (
            field(item, "id", "string", "rubricScores"),
            field(item, "score", "number", "rubricScores"),
            field(item, "reason", "string", "rubricScores"),
        )
        for item in field(payload, "rubricScores", "array") or []
    ]
    if not items:
        raise JudgeOutputError("rubricScores is empty")
    expected = structured_rubric_ids(metric) if visible_rubrics(metric) else None
    seen: set[str] = set()
    scores: list[RubricScore] = []
    reasons: list[str] = []
    for raw_id, score, reason in items:
        rid = go_trim(raw_id)
        if not rid:
            raise JudgeOutputError("rubric score id is empty")
        if rid in seen:
            raise JudgeOutputError(f"duplicate rubric score id {go_quote(rid)}")
        if expected is not None and rid not in expected:
            raise JudgeOutputError(f"unexpected rubric score id {go_quote(rid)}")
        seen.add(rid)
        if score is None:
            raise JudgeOutputError("rubric score is required")
        if reason is None:
            raise JudgeOutputError("rubric score reason is required")
        if score < 0 or score > 1:
            raise JudgeOutputError("rubric score must be between 0 and 1")
        scores.append(RubricScore(id=rid, reason=reason, score=float(score)))
        reasons.append(reason)
    if expected is not None:
        for rid in expected:
            if rid not in seen:
                raise JudgeOutputError(f"missing rubric score id {go_quote(rid)}")
    total = sum(s.score or 0.0 for s in scores) / len(scores)
    return ScoreResult(
        score=total,
        reason="\n".join(reasons),
        value=ScoreValue(kind="numeric", numeric=total),
        rubric_scores=scores,
    )
