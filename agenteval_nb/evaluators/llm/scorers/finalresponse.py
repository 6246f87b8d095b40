"""Scorer ``finalresponse`` (``llm_final_response``, SPEC §4.4).

The judge answers in plain text with a ``reasoning:`` line and an
``is_the_agent_response_valid:`` line. The first match of
``(?ms)reasoning:\\s*(.*?)\\s*is_the_agent_response_valid:\\s*(.*?)\\s*$`` (RE2) is read:
label = group 2 trimmed and lower-cased; score 1 iff the label is ``valid`` — **any other label
scores 0** (not an error); reason = group 1 trimmed; value numeric.

Errors: ``no choices in response``, ``empty response text``, ``no final response blocks found
in response``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import re2

from ....schema import EvalMetric, ScoreValue
from ..content import go_trim
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, response_content

__all__ = ["score_final_response"]

_BLOCK = re2.compile(r"(?ms)reasoning:\s*(.*?)\s*is_the_agent_response_valid:\s*(.*?)\s*$")


def score_final_response(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    """Score a ``reasoning: … / is_the_agent_response_valid: …`` answer."""
    content = response_content(response)
    if not go_trim(content):
        raise JudgeOutputError("empty response text")
    match = _BLOCK.search(content)
    if match is None:
        raise JudgeOutputError("no final response blocks found in response")
    label = go_trim(match.group(2)).lower()
    score = 1.0 if label == "valid" else 0.0
    return ScoreResult(
        score=score,
        reason=go_trim(match.group(1)),
        value=ScoreValue(kind="numeric", numeric=score),
    )
