"""Evaluation status strings (SPEC §0), the pass rule, the status summary rule (SPEC §8.2) and
the cross-run rule (SPEC §8.6, §8.7): how a metric's per-run results and a case's runs combine."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import NamedTuple, TypeVar

T = TypeVar("T")


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


# -- across runs (SPEC §8.6, §8.7) ----------------------------------------------------------------


def is_evaluated(status: str | None) -> bool:
    """Whether a run's metric result counts across runs: any status but not_evaluated (the
    reference skips that one status only, so results without a status count too)."""
    return status != EvalStatus.NOT_EVALUATED


class AcrossRuns(NamedTuple):
    """A metric's per-run results combined (:func:`combine_runs`)."""

    score: float | None
    """Mean score of the evaluated runs; None when no run was evaluated."""
    threshold: float | None
    """The threshold the mean is held to (None reads as 0, as in :func:`passes`)."""
    status: EvalStatus
    """:func:`status_for` of the mean: not_evaluated without evaluated runs."""
    n_evaluated: int


def combine_runs(
    runs: Iterable[tuple[float | None, str | None, float | None]],
    *,
    first_seen_threshold: bool = False,
) -> AcrossRuns:
    """Combine one metric's ``(score, status, threshold)`` per run, in run order.

    Runs whose status is not_evaluated are skipped (:func:`is_evaluated`); a missing score of
    an evaluated run reads as 0 (Go omits a zero score). ``score`` is the mean of the rest,
    ``threshold`` the first evaluated run's, ``status`` passed iff :func:`passes` of the mean
    (a NaN mean fails). ``first_seen_threshold``: the first run's threshold, evaluated or not —
    the §8.6 summary reads it so, the §8.7 case aggregation does not (both as the reference).
    """
    scores: list[float] = []
    threshold: float | None = None
    first = True
    for score, status, run_threshold in runs:
        if first and first_seen_threshold:
            threshold = run_threshold
        if is_evaluated(status):
            if not scores and not first_seen_threshold:
                threshold = run_threshold
            scores.append(0.0 if score is None else score)
        first = False
    mean = _mean(scores)
    return AcrossRuns(mean, threshold, status_for(mean, threshold), len(scores))


def _mean(scores: Sequence[float]) -> float | None:
    """Exactly rounded mean (``math.fsum``); NaN once a score is NaN or infinities cancel; a
    sum that leaves the float range on the way is the running sum's (±inf, as Go sums)."""
    if not scores:
        return None
    if all(math.isfinite(s) for s in scores):
        try:
            return math.fsum(scores) / len(scores)
        except OverflowError:
            pass
    return sum(scores) / len(scores)


def by_metric(results: Iterable[T], name: Callable[[T], str | None]) -> list[tuple[str, list[T]]]:
    """Results grouped by metric name (a missing name reads as ``""``), in run order within a
    group; the groups — a case's combined metrics — sorted by name."""
    groups: dict[str, list[T]] = {}
    for result in results:
        groups.setdefault(name(result) or "", []).append(result)
    return sorted(groups.items())


def case_status(
    run_statuses: Iterable[str | None],
    metric_statuses: Iterable[str | None],
    run_error: bool,
    single_run: bool,
) -> EvalStatus:
    """A case's overall status across runs: for a single run the summary of its final status
    (so a custom case aggregator's verdict stands), else of its combined metric statuses;
    not_evaluated becomes failed when a run of the case has an error message."""
    statuses = run_statuses if single_run else metric_statuses
    status = summarize_statuses(s or "" for s in statuses)
    if status == EvalStatus.NOT_EVALUATED and run_error:
        return EvalStatus.FAILED
    return status
