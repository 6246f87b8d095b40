"""Samples aggregators (one turn's samples → the turn result) and invocations aggregators.

``majority_vote`` (SPEC §4.5, the default): no samples ⇒ error ``no samples``; samples with
status ``not_evaluated`` are skipped; the rest split into positives (``passes(score, threshold)``)
and negatives; none left ⇒ the first sample; more positives than negatives ⇒ the **first
positive**, otherwise (tie or more negatives) the **first negative**. The chosen sample is
returned unchanged — scores are never averaged.

Examples of alternatives (registered as ``min`` and ``mean``):

* ``min``: the evaluated sample with the lowest score (first on ties), i.e. the strictest vote;
* ``mean``: a new result whose score is the mean of the evaluated samples' scores, rubric scores
  averaged per id; no sample is "chosen".

``average`` (SPEC §4.6, the default invocations aggregator): mean score over turns whose status
is not ``not_evaluated`` (an empty status counts as evaluated); none ⇒ ``not_evaluated``, score
0 and **no** per-turn results; else ``status_for(mean, threshold)`` (a NaN mean — every turn
failed to score — is failed, where the reference's ``mean < threshold`` would say passed), all
turns returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schema import EvalMetric, EvalStatus, RubricScore, ScoreValue, status_for
from ...schema.status import passes
from ..base import EvaluateResult, PerInvocationResult
from .operators import SampleResult

__all__ = ["average", "majority_vote", "mean_samples", "min_sample"]


class AggregationError(ValueError):
    """A samples or invocations aggregator cannot produce a result."""


def _evaluated(samples: Sequence[SampleResult]) -> list[SampleResult]:
    return [s for s in samples if s.status != EvalStatus.NOT_EVALUATED]


def majority_vote(samples: Sequence[SampleResult], metric: EvalMetric) -> SampleResult:
    """SPEC §4.5 (rules in the module doc)."""
    if not samples:
        raise AggregationError("no samples")
    threshold = metric.threshold_value
    evaluated = _evaluated(samples)
    if not evaluated:
        return samples[0]
    positives = [s for s in evaluated if passes(s.score, threshold)]
    negatives = [s for s in evaluated if not passes(s.score, threshold)]
    if len(positives) > len(negatives):
        return positives[0]
    return negatives[0]


def min_sample(samples: Sequence[SampleResult], metric: EvalMetric) -> SampleResult:
    """The lowest-scoring evaluated sample (first on ties); no evaluated sample ⇒ the first."""
    if not samples:
        raise AggregationError("no samples")
    evaluated = _evaluated(samples) or list(samples)
    return min(evaluated, key=lambda s: s.score)


def mean_samples(samples: Sequence[SampleResult], metric: EvalMetric) -> SampleResult:
    """Mean score of the evaluated samples as a new, un-chosen result."""
    if not samples:
        raise AggregationError("no samples")
    evaluated = _evaluated(samples)
    if not evaluated:
        return samples[0]
    score = sum(s.score for s in evaluated) / len(evaluated)
    totals: dict[str, list[float]] = {}
    for sample in evaluated:
        for rubric in sample.rubric_scores or ():
            totals.setdefault(rubric.id or "", []).append(rubric.score or 0.0)
    rubric_scores = [
        RubricScore(id=rid, score=sum(v) / len(v), reason=f"mean of {len(v)} samples")
        for rid, v in totals.items()
    ]
    return SampleResult(
        index=-1,
        score=score,
        status=status_for(score, metric.threshold_value),
        reason=f"mean of {len(evaluated)} samples: " + "; ".join(f"{s.score:g}" for s in evaluated),
        value=ScoreValue(kind="numeric", numeric=score),
        rubric_scores=rubric_scores or None,
    )


def average(turns: Sequence[PerInvocationResult], metric: EvalMetric) -> EvaluateResult:
    """SPEC §4.6 (rules in the module doc)."""
    evaluated = [t for t in turns if t.status != EvalStatus.NOT_EVALUATED]
    mean = sum(t.score for t in evaluated) / len(evaluated) if evaluated else None
    status = status_for(mean, metric.threshold_value)
    return EvaluateResult(0.0 if mean is None else mean, status, list(turns) if evaluated else [])
