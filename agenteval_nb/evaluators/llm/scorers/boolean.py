"""Scorer ``boolean`` (template evaluator, SPEC §4.4).

Expected answer: ``{"passed": bool, "reason": str}``. Errors, in order: ``passed is
required``, ``reason is required``. Result: score 1 if passed else 0, value
``{kind: boolean, boolean: passed}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....schema import EvalMetric, ScoreValue
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, field, unmarshal_content

__all__ = ["score_boolean"]


def score_boolean(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    payload = unmarshal_content(response)
    passed = field(payload, "passed", "bool")
    reason = field(payload, "reason", "string")
    if passed is None:
        raise JudgeOutputError("passed is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    return ScoreResult(
        score=1.0 if passed else 0.0,
        reason=reason,
        value=ScoreValue(kind="boolean", boolean=bool(passed)),
    )
