"""Scorer ``single_score`` (template evaluator, SPEC §4.4).

Expected answer: ``{"score": number, "reason": str}``. Errors, in order: ``score is
required``, ``reason is required``, ``score must be between 0 and 1`` (plus the JSON reading
errors of :mod:`..responsejson`). Result: that score, value numeric, that reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....schema import EvalMetric, ScoreValue
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, field, unmarshal_content

__all__ = ["score_single_score"]


def score_single_score(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    payload = unmarshal_content(response)
    score = field(payload, "score", "number")
    reason = field(payload, "reason", "string")
    if score is None:
        raise JudgeOutputError("score is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    if score < 0 or score > 1:
        raise JudgeOutputError("score must be between 0 and 1")
    value = float(score)
    return ScoreResult(score=value, reason=reason, value=ScoreValue(kind="numeric", numeric=value))
