"""Pooling verifier label distributions across judges (a judge panel, JUDGES.md §1).

Rule: the pooled distribution of one candidate is the per-label mean of the judges'
probabilities (each judge's distribution counts once, whatever its valid mass); its expected
score is ``Σ_k p̄_k·value_k``, which equals the mean of the judges' expected scores. The
pooled ``valid_mass`` is the judges' mean, ``entropy`` that of the pooled probabilities; the
pool has no sampled label and comes from logprobs only when every judge's did.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .scoring import LabelDistribution

__all__ = ["pool_distributions"]


def pool_distributions(dists: Sequence[LabelDistribution]) -> LabelDistribution:
    """The mean of ``dists`` (module doc); all on one scale, at least one."""
    if not dists:
        raise ValueError("no distributions to pool")
    scale = dists[0].scale
    if any(d.scale != scale for d in dists):
        raise ValueError("cannot pool distributions on different label scales")
    n = len(dists)
    probs = tuple(sum(d.probs[k] for d in dists) / n for k in range(scale.size))
    expected = sum(p * v for p, v in zip(probs, scale.values, strict=True))
    entropy = -sum(p * math.log(p) for p in probs if p > 0.0)
    return LabelDistribution(
        probs=probs,
        expected_score=expected,
        sampled_label=None,
        valid_mass=sum(d.valid_mass for d in dists) / n,
        entropy=entropy,
        token_index=-1,
        from_logprobs=all(d.from_logprobs for d in dists),
        scale=scale,
    )
