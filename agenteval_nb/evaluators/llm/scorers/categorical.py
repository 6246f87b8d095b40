"""Scorer ``categorical`` (template evaluator, SPEC §4.4, §6.5).

Configuration ``template.responseScorerOptions.categories`` (``[{label, score}]``) is checked on
every use, in order: ``template is nil``, ``responseScorerOptions is required``,
``categorical response scorer categories are required`` (empty list), then per item
``categorical category is nil``, ``categorical category label is empty``,
``categorical category "x" score must be between 0 and 1``, ``duplicate categorical category
label "x"``.

Expected answer: ``{"category": str, "reason": str}`` (errors ``category is required``,
``reason is required``). Score = the configured score of the label (exact, case-sensitive);
an unknown label scores 0 with reason ``unknown categorical label "<x>": <reason>`` (not an
error). Value ``{kind: categorical, categorical: label}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....schema import EvalMetric, ScoreValue
from ..gojson import go_quote
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, field, unmarshal_content

__all__ = ["category_scores", "score_categorical"]


def category_scores(metric: EvalMetric) -> dict[str, float]:
    """Validated ``{label: score}`` in configured order (errors in the module doc)."""
    llm = metric.criterion.llm_judge if metric.criterion else None
    if llm is None:
        raise JudgeOutputError("llm judge criterion is required")
    template = llm.template
    if template is None:
        raise JudgeOutputError("template is nil")
    options = template.response_scorer_options
    if options is None:
        raise JudgeOutputError("responseScorerOptions is required")
    if not options.categories:
        raise JudgeOutputError("categorical response scorer categories are required")
    scores: dict[str, float] = {}
    for category in options.categories:
        if category is None:
            raise JudgeOutputError("categorical category is nil")
        label = category.label or ""
        if not label:
            raise JudgeOutputError("categorical category label is empty")
        if category.score < 0 or category.score > 1:
            raise JudgeOutputError(
                f"categorical category {go_quote(label)} score must be between 0 and 1"
            )
        if label in scores:
            raise JudgeOutputError(f"duplicate categorical category label {go_quote(label)}")
        scores[label] = float(category.score)
    return scores


def score_categorical(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    scores = category_scores(metric)
    payload = unmarshal_content(response)
    label = field(payload, "category", "string")
    reason = field(payload, "reason", "string")
    if label is None:
        raise JudgeOutputError("category is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    value = ScoreValue(kind="categorical", categorical=label)
    if label not in scores:
        return ScoreResult(
            score=0.0, reason=f"unknown categorical label {go_quote(label)}: {reason}", value=value
        )
    return ScoreResult(score=scores[label], reason=reason, value=value)
