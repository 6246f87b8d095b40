"""LLM-as-a-Verifier scoring from judge token logprobs (SPEC §5.2)."""

from .labels import DEFAULT_SCALE, LabelScale
from .pooling import pool_distributions
from .scoring import (
    LabelDistribution,
    PairScore,
    VerifierScoreError,
    comparison_score,
    expected_score,
    label_distribution,
    score_pair,
    text_fallback_label,
)

__all__ = [
    "DEFAULT_SCALE",
    "LabelDistribution",
    "LabelScale",
    "PairScore",
    "VerifierScoreError",
    "comparison_score",
    "expected_score",
    "label_distribution",
    "pool_distributions",
    "score_pair",
    "text_fallback_label",
]
