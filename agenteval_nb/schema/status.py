"""Evaluation status strings (SPEC §0) and the status summary rule (SPEC §8.2)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class EvalStatus(StrEnum):
    """Status of a metric, an invocation, a case or a run."""

    UNKNOWN = "unknown"
    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"


def status_for(score: float, threshold: float) -> EvalStatus:
    """Threshold rule everywhere: passed iff ``score >= threshold``."""
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


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
