"""Scorer ``verifier_pairwise`` (``llm_verifier_pairwise``, SPEC §5.2), built on
:mod:`agenteval_nb.verifier`.

Pairwise (reference): the label distributions at ``<score_A>`` and ``<score_B>`` in the judge's
token logprobs give expected scores ``sA``, ``sB``; score = ``clamp(0.5 + (sA − sB)/2, 0, 1)``;
reason ``Computed from score_A %.4f and score_B %.4f log probabilities.``; value numeric.

Pointwise (option): only ``<score_A>`` is read and the score is ``sA`` itself.

Without logprobs the error is ``logprobs are missing`` followed by what to do; with
``text_fallback`` the labels are instead read from the answer text (one-hot distributions,
``from_logprobs=False``). The distributions travel in ``ScoreResult.data``
(:class:`VerifierJudgement`) so the evaluator can store them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ....schema import EvalMetric, ScoreValue
from ....verifier import (
    DEFAULT_SCALE,
    LabelDistribution,
    LabelScale,
    VerifierScoreError,
    comparison_score,
    label_distribution,
    score_pair,
    text_fallback_label,
)
from ....verifier.scoring import TAG_A, TAG_B
from ..operators import ScoreResult
from ..responsejson import JudgeOutputError, response_content

__all__ = ["VerifierJudgement", "VerifierScorer", "score_verifier_pairwise"]

NO_LOGPROBS_HINT = (
    "the judge endpoint returned no token logprobs although the request asked for them "
    "(logprobs: true); use a model/endpoint that returns logprobs, or set the metric extension "
    '{"verifier": {"textFallback": true}} to read the labels from the answer text'
)
_FALLBACK_KINDS = frozenset({"logprobs_missing", "tokens_empty"})


@dataclass(frozen=True, slots=True)
class VerifierJudgement:
    """One scored verifier answer: the score and the distributions it came from."""

    score: float
    dist_a: LabelDistribution
    dist_b: LabelDistribution | None
    from_logprobs: bool


def _token_logprobs(response: Mapping[str, Any]) -> Any:
    choices = response.get("choices") if response is not None else None
    if not choices:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    logprobs = choices[0].get("logprobs")
    if logprobs is None:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    return logprobs.get("content") if isinstance(logprobs, Mapping) else None


class VerifierScorer:
    """Callable scorer; ``VerifierScorer()`` is the reference ``verifier_pairwise`` scorer."""

    def __init__(
        self,
        *,
        pointwise: bool = False,
        text_fallback: bool = False,
        scale: LabelScale = DEFAULT_SCALE,
    ) -> None:
        self.pointwise = pointwise
        self.text_fallback = text_fallback
        self.scale = scale

    def __repr__(self) -> str:
        return f"VerifierScorer(pointwise={self.pointwise}, text_fallback={self.text_fallback})"

    def __call__(self, response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
        try:
            judgement = self._from_logprobs(response)
        except VerifierScoreError as exc:
            if exc.kind not in _FALLBACK_KINDS:
                raise JudgeOutputError(str(exc)) from None
            if not self.text_fallback:
                raise JudgeOutputError(f"{exc}: {NO_LOGPROBS_HINT}") from None
            judgement = self._from_text(response)
        return self._result(judgement)

    def _from_logprobs(self, response: Mapping[str, Any]) -> VerifierJudgement:
        if not self.pointwise:
            pair = score_pair(response, scale=self.scale)
            return VerifierJudgement(pair.score, pair.dist_a, pair.dist_b, True)
        tokens = _token_logprobs(response)
        try:
            dist = label_distribution(tokens, TAG_A, scale=self.scale)
        except VerifierScoreError as exc:
            raise exc.with_prefix("score_A: ") from exc
        return VerifierJudgement(dist.expected_score, dist, None, True)

    def _from_text(self, response: Mapping[str, Any]) -> VerifierJudgement:
        text = response_content(response)
        dists: list[LabelDistribution] = []
        for tag, prefix in ((TAG_A, "score_A: "), (TAG_B, "score_B: "))[
            : 1 if self.pointwise else 2
        ]:
            try:
                dists.append(text_fallback_label(text, tag, self.scale))
            except VerifierScoreError as exc:
                raise JudgeOutputError(f"{prefix}{exc} (text fallback, no logprobs)") from None
        if self.pointwise:
            return VerifierJudgement(dists[0].expected_score, dists[0], None, False)
        score = comparison_score(dists[0].expected_score, dists[1].expected_score)
        return VerifierJudgement(score, dists[0], dists[1], False)

    def _result(self, judgement: VerifierJudgement) -> ScoreResult:
        s_a = judgement.dist_a.expected_score
        source = "log probabilities" if judgement.from_logprobs else "answer text (no logprobs)"
        if judgement.dist_b is None:
            reason = f"Computed from score_A {s_a:.4f} {source}."
        else:
            s_b = judgement.dist_b.expected_score
            reason = f"Computed from score_A {s_a:.4f} and score_B {s_b:.4f} {source}."
        return ScoreResult(
            score=judgement.score,
            reason=reason,
            value=ScoreValue(kind="numeric", numeric=judgement.score),
            data=judgement,
        )


score_verifier_pairwise = VerifierScorer()
"""The reference scorer (pairwise, logprobs only)."""
