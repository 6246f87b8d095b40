"""Evaluation status strings (SPEC §0), the pass rule and the status summary rule (SPEC §8.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum


class EvalStatus(StrEnum):
    """Status of a metric, an invocation, a case or a run."""

    UNKNOWN = "unknown"
    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"


def passes(score: float | None, threshold: float | None) -> bool:
    """The threshold rule (SPEC §0): passed ⇔ ``score >= threshold`` — the one place it lives.

    * ``threshold`` None reads as 0, the reference's zero value (Go omits a zero threshold);
    * ``score`` None (nothing was evaluated) never passes;
    * a score must be a finite number to pass: NaN (e.g. every turn failed to score) and ±inf
      are failures, never passes (the reference cannot even write them to a result file);
    * a NaN threshold passes nothing; ±inf thresholds compare as numbers.
    """
    if score is None or not math.isfinite(score):
        return False
    return score >= (0.0 if threshold is None else threshold)


def status_for(score: float | None, threshold: float | None) -> EvalStatus:
    """Status of a score under :func:`passes`; ``score`` None ⇒ not_evaluated.

    Pass None for an average over no evaluated results (the caller stores score 0 then, as the
    reference does).
    """
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if passes(score, threshold) else EvalStatus.FAILED


def summarize_statuses(statuses: Iterable[str | EvalStatus]) -> EvalStatus:
    """Any failed ⇒ failed; else any passed ⇒ passed; else not_evaluated.

    Raises ``ValueError`` on ``unknown`` or any other string, as the reference does.
    """
    seen_passed = False
    seen_failed = False
    for status in statuses:
        if status == EvalStatus.FAILED:
            seen_failed = True
        elif status == EvalStatus.PASSED:
            seen_passed = True
        elif status != EvalStatus.NOT_EVALUATED:
            raise ValueError(f"unexpected eval status {str(status)!r}")
    if seen_failed:
        return EvalStatus.FAILED
    if seen_passed:
        return EvalStatus.PASSED
    return EvalStatus.NOT_EVALUATED
