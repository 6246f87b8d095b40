"""``llm_verifier_pairwise``: LLM-as-a-Verifier scoring from token logprobs (SPEC §5).

Reference behaviour (the default): one judge call per sample grades Candidate A (the actual
final response) and Candidate B (the expected one) on the letters A..T; the score is computed
from the label distributions in the judge's logprobs (:mod:`agenteval_nb.verifier`):
``clamp(0.5 + (sA − sB)/2, 0, 1)`` — above 0.5 the actual response is better. Samples are
combined by majority vote (a representative sample, not a mean), turns by average. Every
request asks for logprobs: ``logprobs: true`` and ``top_logprobs`` (see below); an endpoint
that returns none fails the metric with ``logprobs are missing: …`` and what to do about it.

Kept for inspection in each turn's ``details.verifier`` (:class:`VerifierRecord`): per sample,
both label distributions (all labels with their probabilities, expected score, sampled label,
valid mass, entropy, whether they came from logprobs).

Options beyond the reference, all off by default so scores stay identical, set per metric in
``metric.extension``::

    {"verifier": {
        "swap": "report" | "mean",   # position-bias control (default: off)
        "textFallback": true,         # read labels from the text when no logprobs (default: false)
        "mode": "pointwise",          # grade the actual response alone (default: "pairwise")
        "topLogprobs": 20             # top_logprobs (default: generationConfig's, else 20)
    }}

* ``swap``: every sample is also judged with the candidates swapped (expected in slot A); that
  call is recorded in ``JudgeRecord.extra_calls``; ``swapped_score`` = 1 − its score (A's point
  of view) and ``swap_gap`` = score − swapped_score are stored per sample. ``"report"`` only
  records them; ``"mean"`` scores the sample with the mean of both orders. Ignored in
  pointwise mode.
* ``textFallback``: when the response carries no logprobs, the labels inside ``<score_A>`` /
  ``<score_B>`` in the answer text give one-hot distributions (``from_logprobs: false``).
* ``mode: "pointwise"``: the prompt shows only the actual response; the score is its expected
  label value ``sA`` (no expected response needed); only distribution ``a`` is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema import EvalMetric, ScoreValue, status_for
from ...schema.extras import LabelDistributionRecord, VerifierRecord, VerifierSample, with_extras
from ...verifier import DEFAULT_SCALE, LabelDistribution, LabelScale
from ..base import EvaluatorError, PerInvocationResult
from .constructors.verifier import VerifierConstructor
from .operator_registry import OperatorRegistry
from .operators import PromptMessages, ResponseScorer, SampleResult, ScoreResult, TurnInput
from .pipeline import LLMJudgeEvaluator, _as_score_result, error_text, maybe_await
from .scorers.verifier import VerifierJudgement, VerifierScorer, score_verifier_pairwise

__all__ = ["LLMVerifierPairwiseEvaluator", "VerifierOptions", "distribution_record"]

DEFAULT_TOP_LOGPROBS = 20
_SWAP_MODES = (None, "report", "mean")
_MODES = ("pairwise", "pointwise")


@dataclass(frozen=True, slots=True)
class VerifierOptions:
    """The ``metric.extension["verifier"]`` options (module doc); defaults = reference."""

    swap: str | None = None
    text_fallback: bool = False
    mode: str = "pairwise"
    top_logprobs: int | None = None

    @property
    def pointwise(self) -> bool:
        return self.mode == "pointwise"

    @classmethod
    def from_metric(cls, metric: EvalMetric) -> VerifierOptions:
        """Parse and check the options; a bad value raises ``verifier extension: …``."""
        extension = metric.extension if isinstance(metric.extension, Mapping) else {}
        raw = extension.get("verifier")
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise EvaluatorError("verifier extension: must be an object")
        swap = raw.get("swap")
        if swap not in _SWAP_MODES:
            raise EvaluatorError('verifier extension: swap must be "report" or "mean"')
        fallback = raw.get("textFallback", False)
        if not isinstance(fallback, bool):
            raise EvaluatorError("verifier extension: textFallback must be true or false")
        mode = raw.get("mode") or "pairwise"
        if mode not in _MODES:
            raise EvaluatorError('verifier extension: mode must be "pairwise" or "pointwise"')
        top = raw.get("topLogprobs")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 0):
            raise EvaluatorError("verifier extension: topLogprobs must be a non-negative integer")
        return cls(swap=swap, text_fallback=fallback, mode=mode, top_logprobs=top)


def distribution_record(dist: LabelDistribution | None) -> LabelDistributionRecord | None:
    """The stored form of a label distribution: every label of the scale with its probability."""
    if dist is None:
        return None
    return LabelDistributionRecord(
        labels=list(dist.scale.labels),
        probs=list(dist.probs),
        expected_score=dist.expected_score,
        sampled_label=dist.sampled_label,
        valid_mass=dist.valid_mass,
        entropy=dist.entropy,
        from_logprobs=dist.from_logprobs,
    )


@dataclass(slots=True)
class _SampleData:
    judgement: VerifierJudgement | None
    swapped_score: float | None = None
    swap_gap: float | None = None


class _VerifierMessages:
    """The verifier prompt for the metric's mode."""

    async def construct(self, turn: TurnInput) -> PromptMessages:
        options = VerifierOptions.from_metric(turn.metric)
        return await VerifierConstructor(pointwise=options.pointwise).construct(turn)


class LLMVerifierPairwiseEvaluator(LLMJudgeEvaluator):
    """The ``llm_verifier_pairwise`` evaluator (rules and options in the module doc)."""

    name = "llm_verifier_pairwise"
    description = (
        "LLM-as-a-Verifier: pairwise preference from label logprobs (>0.5 = actual better)"
    )

    def __init__(
        self,
        *,
        operators: OperatorRegistry | None = None,
        samples_aggregator: str = "majority_vote",
        invocations_aggregator: str = "average",
        scale: LabelScale = DEFAULT_SCALE,
    ) -> None:
        super().__init__(
            _VerifierMessages(),
            scorer="verifier_pairwise",
            samples_aggregator=samples_aggregator,
            invocations_aggregator=invocations_aggregator,
            operators=operators,
        )
        self.scale = scale

    def request_overrides(self, metric: EvalMetric) -> dict[str, Any]:
        options = VerifierOptions.from_metric(metric)
        top = options.top_logprobs
        if top is None:
            llm = metric.criterion.llm_judge if metric.criterion else None
            config = llm.judge_model.generation_config if llm and llm.judge_model else None
            top = config.top_logprobs if config and config.top_logprobs is not None else None
        return {"logprobs": True, "top_logprobs": DEFAULT_TOP_LOGPROBS if top is None else top}

    def scorer_for(self, turn: TurnInput) -> ResponseScorer:
        scorer = super().scorer_for(turn)
        if scorer is not score_verifier_pairwise:
            return scorer
        options = VerifierOptions.from_metric(turn.metric)
        return VerifierScorer(
            pointwise=options.pointwise, text_fallback=options.text_fallback, scale=self.scale
        )

    async def sample(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        index: int,
        scorer: ResponseScorer,
    ) -> SampleResult:
        result = await super().sample(turn, messages, structured, index, scorer)
        judgement = result.data if isinstance(result.data, VerifierJudgement) else None
        result.data = _SampleData(judgement)
        options = VerifierOptions.from_metric(turn.metric)
        if options.swap is None or options.pointwise:
            return result
        swapped = await self._swapped_score(turn, index, scorer)
        result.data.swapped_score = swapped
        result.data.swap_gap = result.score - swapped
        if options.swap == "mean":
            mean = (result.score + swapped) / 2.0
            result.reason = (
                f"{result.reason} Mean of both candidate orders: {result.score:.4f} and "
                f"{swapped:.4f} (swapped) give {mean:.4f}."
            )
            result.score = mean
            result.status = status_for(mean, turn.metric.threshold_value)
            result.value = ScoreValue(kind="numeric", numeric=mean)
            if result.record is not None:
                result.record.score, result.record.status = mean, str(result.status)
                result.record.reason = result.reason
        return result

    async def _swapped_score(self, turn: TurnInput, index: int, scorer: ResponseScorer) -> float:
        """Judge the swapped prompt; returns 1 − its score (A's point of view)."""
        prefix = "swapped candidates: "
        try:
            messages = await VerifierConstructor(swapped=True).construct(turn)
        except Exception as exc:
            raise EvaluatorError(f"construct messages: {prefix}{error_text(exc)}") from exc
        try:
            call = await turn.judge.call(messages, sample_index=index)
        except Exception as exc:
            raise EvaluatorError(f"judge response: {prefix}{error_text(exc)}") from exc
        try:
            swapped: ScoreResult = _as_score_result(
                await maybe_await(scorer(call.response, turn.metric))
            )
        except Exception as exc:
            raise EvaluatorError(f"score based on response: {prefix}{error_text(exc)}") from exc
        record = turn.judge.sample_record(call, index)
        record.score = 1.0 - swapped.score
        record.reason = f"swapped candidates (raw score {swapped.score:.4f}): {swapped.reason}"
        turn.extra_calls.append(record)
        return 1.0 - swapped.score

    def turn_result(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        samples: Sequence[SampleResult],
        chosen: SampleResult,
    ) -> PerInvocationResult:
        turn.extra_calls.sort(key=lambda record: record.sample_index)
        result = super().turn_result(turn, messages, samples, chosen)
        options = VerifierOptions.from_metric(turn.metric)
        records = []
        for sample in samples:
            data = sample.data if isinstance(sample.data, _SampleData) else _SampleData(None)
            judgement = data.judgement
            records.append(
                VerifierSample(
                    sample_index=sample.index,
                    score=sample.score,
                    a=distribution_record(judgement.dist_a if judgement else None),
                    b=distribution_record(judgement.dist_b if judgement else None),
                    swapped_score=data.swapped_score,
                    swap_gap=data.swap_gap,
                )
            )
        swap_mode = None if options.pointwise else options.swap
        if result.details is not None:
            with_extras(
                result.details, verifier=VerifierRecord(samples=records, swap_mode=swap_mode)
            )
        return result
