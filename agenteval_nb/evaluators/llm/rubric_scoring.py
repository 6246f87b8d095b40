"""What the rubric judges share (SPEC §4.3, §4.4, §4.7): the answer they ask for, how it is
scored, and its JSON schema. The judges themselves are in :mod:`.rubric_judges`; the template
judge uses the same scorer and schema under the name ``rubric_scores``.

Answer: ``{"rubricScores": [{"id": str, "score": number, "reason": str}, ...]}``, one item per
rubric, in order, exact ids.

Scoring (``rubric_scores``), checks in order: ``rubricScores is empty``; when the metric has at
least one visible rubric, the configured ids must be usable (:func:`structured_rubric_ids`);
then per item: ``rubric score id is empty`` (id absent or blank; ids are trimmed), ``duplicate
rubric score id "x"``, ``unexpected rubric score id "x"`` (only with configured rubrics),
``rubric score is required``, ``rubric score reason is required`` (an empty string is a
reason), ``rubric score must be between 0 and 1``; finally ``missing rubric score id "x"``
(first missing id in configured order). Result: score = mean of item scores (any value in [0,
1], not only 0/1); rubric scores in the judge's order; reason = item reasons joined by ``\\n``.

Schemas: a built-in rubric judge sends ``rubricScores`` with ``minItems = maxItems = #visible
rubrics``, item ``id`` an enum of the configured ids (in order), ``score`` an enum ``[0, 1]``
(ids validated first); the template's ``rubric_scores_result`` has no enum and no item counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...criteria.gofmt import go_quote
from ...schema import EvalMetric, RubricScore, ScoreValue
from .judge_contract import ScoreResult, TurnInput
from .judge_text import (
    JudgeOutputError,
    field,
    go_trim,
    json_schema_output,
    object_schema,
    section,
    sections,
    unmarshal_content,
    visible_rubrics,
)

__all__ = [
    "RUBRIC_ANSWER_FORMAT",
    "rubric_judge_output",
    "rubric_mean",
    "rubric_prompt_sections",
    "rubric_scores_output",
    "score_rubric_scores",
    "structured_rubric_ids",
]

RUBRIC_ANSWER_FORMAT = """\
Answer with a single JSON object and nothing else, shaped like this:
{"rubricScores": [{"id": "<rubric id>", "score": <0 or 1>, "reason": "<one or two sentences>"}]}
Give exactly one item per rubric item, in the order listed, and copy each id exactly as it \
appears before the colon.
"""


def rubric_prompt_sections(*middle: str) -> str:
    """User prompt, ``middle`` sections, rubrics, then :data:`RUBRIC_ANSWER_FORMAT`."""
    rubrics = section("rubrics", close_on_new_line=False)
    return sections(section("user_prompt"), *middle, rubrics) + RUBRIC_ANSWER_FORMAT


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
    return rubric_mean(scores, reasons)


def rubric_mean(scores: list[RubricScore], reasons: Sequence[str]) -> ScoreResult:
    """The result of a per-item answer (rubric scores, a hallucination judge's sentences): the
    mean of the item scores, the items' reasons one per line."""
    total = sum(s.score or 0.0 for s in scores) / len(scores)
    return ScoreResult(
        score=total,
        reason="\n".join(reasons),
        value=ScoreValue(kind="numeric", numeric=total),
        rubric_scores=scores,
    )


def _rubric_item(id_schema: dict[str, Any], score_schema: dict[str, Any]) -> dict[str, Any]:
    return object_schema({"id": id_schema, "score": score_schema, "reason": {"type": "string"}})


def rubric_judge_output(name: str, turn: TurnInput) -> dict[str, Any]:
    """Schema of a built-in rubric judge (``rubric_response_scores``, …)."""
    ids = structured_rubric_ids(turn.metric)
    items = _rubric_item({"type": "string", "enum": ids}, {"type": "number", "enum": [0, 1]})
    array = {"type": "array", "minItems": len(ids), "maxItems": len(ids), "items": items}
    return json_schema_output(
        name,
        "One score (0 or 1) with a reason per rubric item.",
        object_schema({"rubricScores": array}),
    )


def rubric_scores_output(turn: TurnInput) -> dict[str, Any]:
    """The template provider ``rubric_scores`` (``rubric_scores_result``)."""
    unit = {"type": "number", "minimum": 0, "maximum": 1}
    array = {"type": "array", "items": _rubric_item({"type": "string"}, unit)}
    return json_schema_output(
        "rubric_scores_result",
        "A score between 0 and 1 with a reason per rubric item.",
        object_schema({"rubricScores": array}),
    )
