"""``llm_verifier_pairwise``: LLM-as-a-Verifier, scored from the judge's token logprobs
(SPEC §5). README → this file → :mod:`agenteval_nb.verifier.scoring` is where a score comes from.

Prompt (§5.1), sections: Mission, Score Scale, Evaluation Criteria, Evaluation Rules, Output
Format, User Request, Candidate A (= the actual final response), Candidate B (= the expected
final response). The judge grades each candidate independently on the 20-letter scale A (best)
… T (worst), writes a short analysis, then ``<score_A>L</score_A>`` and ``<score_B>L</score_B>``.
Criteria = the trimmed rubrics text. Errors, in order: ``actuals is empty``, ``expecteds is
empty``, ``eval metric is nil``, ``llm judge criterion is required``, ``actual invocation is
nil``, ``expected invocation is nil``, ``expected final response is required for
llm_verifier_pairwise``, ``actual final response is required for llm_verifier_pairwise``, ``llm
judge rubrics are required``. Every request asks for logprobs: ``logprobs: true`` and
``top_logprobs`` (``topLogprobs`` below, else generationConfig's, else 20).

Scoring a sample (§5.2): the answer's token logprobs are read once; the label distributions at
``<score_A>`` and ``<score_B>`` give expected scores ``sA``, ``sB``
(:func:`~agenteval_nb.verifier.scoring.label_distribution`); score = ``clamp(0.5 + (sA −
sB)/2, 0, 1)`` — above 0.5 the actual response is better; reason ``Computed from score_A %.4f
and score_B %.4f log probabilities.``. Errors are the scoring's texts (prefixed ``score_A: `` /
``score_B: ``); without logprobs ``logprobs are missing: `` followed by what to do.

Aggregation: majority vote over samples (a representative sample, not a mean), average over
turns. Each turn's ``details.verifier`` (:class:`VerifierRecord`) keeps, per sample, both label
distributions (all labels with their probabilities, expected score, sampled label, valid mass,
entropy, whether they came from logprobs).

In a judge panel (:mod:`agenteval_nb.judge.panel`) each judge reduces its samples as above;
the panel then pools the label distributions of the judges' chosen samples (the mean of their
probabilities, :func:`~agenteval_nb.verifier.pooling.pool_distributions`) and scores the pooled
``sA`` and ``sB`` — whatever the vote rule, given its quorum (``min_votes``, default a strict
majority of the panel; fewer ⇒ ``not_evaluated`` listing the votes). With ``swap: "mean"`` the
pooled score is averaged with the mean of the judges' swapped scores. ``details.verifier`` keeps
each judge's samples (its expected scores) and the pooled distributions (``pooled``).

Options beyond the reference, all off by default so scores stay identical, parsed once per
metric from ``metric.extension`` (a bad value ⇒ ``verifier extension: …``)::

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
  pointwise mode. Errors of the swapped call read ``…: swapped candidates: …``.
* ``textFallback``: when the response carries no token logprobs, the labels inside
  ``<score_A>`` / ``<score_B>`` in the answer text give one-hot distributions
  (``from_logprobs: false``; errors ``score_A: … (text fallback, no logprobs)``).
* ``mode: "pointwise"``: the prompt shows only the actual response (one ``<score_A>`` tag, no
  expected response needed); the score is ``sA`` itself; only distribution ``a`` is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...judge.panel import JudgePanel, PanelDecision, decided, undecided
from ...schema import EvalMetric, EvalStatus, ScoreValue, status_for
from ...schema.extras import LabelDistributionRecord, VerifierRecord, VerifierSample, with_extras
from ...verifier.labels import DEFAULT_SCALE, LabelScale
from ...verifier.pooling import pool_distributions
from ...verifier.scoring import (
    TAG_A,
    TAG_B,
    LabelDistribution,
    VerifierScoreError,
    comparison_score,
    label_distribution,
    text_fallback_label,
)
from ..base import EvaluatorError, PerInvocationResult
from .judge_contract import (
    InvocationsAggregator,
    JudgeStages,
    LLMJudgeEvaluator,
    Opinion,
    PromptMessages,
    ResponseScorer,
    SampleResult,
    SamplesAggregator,
    ScoreResult,
    Seating,
    TurnInput,
    average,
    error_text,
    majority_vote,
)
from .judge_text import (
    JudgeOutputError,
    fill,
    go_trim,
    last,
    response_content,
    rubrics_text,
    section,
    text,
    user_message,
)
from .operator_registry import OperatorRegistry

__all__ = [
    "POINTWISE_PROMPT",
    "VERIFIER_PROMPT",
    "LLMVerifierPairwiseEvaluator",
    "VerifierJudgement",
    "VerifierOptions",
    "VerifierScorer",
    "distribution_record",
    "verifier_messages",
]

NAME = "llm_verifier_pairwise"
DEFAULT_TOP_LOGPROBS = 20


# options ------------------------------------------------------------------------------------


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
        if swap not in (None, "report", "mean"):
            raise EvaluatorError('verifier extension: swap must be "report" or "mean"')
        fallback = raw.get("textFallback", False)
        if not isinstance(fallback, bool):
            raise EvaluatorError("verifier extension: textFallback must be true or false")
        mode = raw.get("mode") or "pairwise"
        if mode not in ("pairwise", "pointwise"):
            raise EvaluatorError('verifier extension: mode must be "pairwise" or "pointwise"')
        top = raw.get("topLogprobs")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 0):
            raise EvaluatorError("verifier extension: topLogprobs must be a non-negative integer")
        return cls(swap=swap, text_fallback=fallback, mode=mode, top_logprobs=top)


# the prompt ---------------------------------------------------------------------------------

_SCALE = """\
## Score Scale
Use one letter from A (best) to T (worst):
- A: completely correct; nothing to improve.
- B, C, D: correct, with minor issues.
- E, F, G: better than average, with some noticeable gaps.
- H, I, J: uncertain, leaning towards success.
- K, L, M: uncertain, leaning towards failure.
- N, O, P: below average, with significant problems.
- Q, R, S: failed, although some progress was made.
- T: clear failure.
"""

_RULES = """\
## Evaluation Rules
- Apply every criterion to each candidate on its own.
- Score only what the candidate actually says. Do not reward length, confidence or polish.
- A candidate that ignores the request, contradicts itself or invents facts scores low.
"""

_REQUEST_AND_A = (
    "## User Request\n" + section("user_request") + "\n## Candidate A\n" + section("candidate_a")
)

VERIFIER_PROMPT = (
    """\
## Mission
You are a verifier. Two candidate responses to the same user request are shown below. Grade \
how well each candidate fulfils the request under the evaluation criteria. Grade each \
candidate independently; do not rank them against each other.

"""
    + _SCALE
    + """Both candidates may receive the same letter.

## Evaluation Criteria
<criteria>
${criteria}
</criteria>

"""
    + _RULES
    + """
## Output Format
First write a short analysis of each candidate. Then finish with exactly these two tags, each \
holding one letter from A to T:
<score_A>LETTER</score_A>
<score_B>LETTER</score_B>

"""
    + _REQUEST_AND_A
    + "\n## Candidate B\n"
    + section("candidate_b")
)

POINTWISE_PROMPT = (
    """\
## Mission
You are a verifier. A candidate response to a user request is shown below. Grade how well it \
fulfils the request under the evaluation criteria.

"""
    + _SCALE
    + """
## Evaluation Criteria
<criteria>
${criteria}
</criteria>

"""
    + _RULES
    + """
## Output Format
First write a short analysis of the candidate. Then finish with exactly this tag, holding one \
letter from A to T:
<score_A>LETTER</score_A>

"""
    + _REQUEST_AND_A
)


def verifier_messages(
    turn: TurnInput, *, swapped: bool = False, pointwise: bool = False
) -> PromptMessages:
    """The verifier prompt (module doc); ``swapped`` puts the expected response in slot A."""
    if not turn.actuals:
        raise JudgeOutputError("actuals is empty")
    if not turn.expecteds and not pointwise:
        raise JudgeOutputError("expecteds is empty")
    metric = turn.metric
    if metric is None:
        raise JudgeOutputError("eval metric is nil")
    if metric.criterion is None or metric.criterion.llm_judge is None:
        raise JudgeOutputError("llm judge criterion is required")
    actual = last(turn.actuals)
    expected = last(turn.expecteds)
    if actual is None:
        raise JudgeOutputError("actual invocation is nil")
    if pointwise:
        if actual.final_response is None:
            raise JudgeOutputError(f"actual final response is required for {NAME}")
    else:
        if expected is None:
            raise JudgeOutputError("expected invocation is nil")
        if expected.final_response is None:
            raise JudgeOutputError(f"expected final response is required for {NAME}")
        if actual.final_response is None:
            raise JudgeOutputError(f"actual final response is required for {NAME}")
    criteria = go_trim(rubrics_text(metric))
    if not criteria:
        raise JudgeOutputError("llm judge rubrics are required")
    request = text(actual.user_content)
    if pointwise:
        return user_message(
            fill(
                POINTWISE_PROMPT,
                criteria=criteria,
                user_request=request,
                candidate_a=text(actual.final_response),
            )
        )
    assert expected is not None  # checked above for the pairwise prompt
    first, second = text(actual.final_response), text(expected.final_response)
    if swapped:
        first, second = second, first
    return user_message(
        fill(
            VERIFIER_PROMPT,
            criteria=criteria,
            user_request=request,
            candidate_a=first,
            candidate_b=second,
        )
    )


# scoring a sample ---------------------------------------------------------------------------

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
    """``choices[0].logprobs.content`` (``logprobs are missing`` without choices or logprobs)."""
    choices = response.get("choices") if response is not None else None
    if not choices:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    logprobs = choices[0].get("logprobs")
    if logprobs is None:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    return logprobs.get("content") if isinstance(logprobs, Mapping) else None


class VerifierScorer:
    """The verifier's response scorer for one metric's options (module doc)."""

    def __init__(
        self, options: VerifierOptions = VerifierOptions(), scale: LabelScale = DEFAULT_SCALE
    ) -> None:
        self.options = options
        self.scale = scale
        pairs = (("score_A: ", TAG_A), ("score_B: ", TAG_B))
        self.tags = pairs[:1] if options.pointwise else pairs

    def __repr__(self) -> str:
        return f"VerifierScorer({self.options})"

    def __call__(self, response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
        try:
            judgement = self._from_logprobs(response)
        except VerifierScoreError as exc:
            if exc.kind not in _FALLBACK_KINDS:
                raise JudgeOutputError(str(exc)) from None
            if not self.options.text_fallback:
                raise JudgeOutputError(f"{exc}: {NO_LOGPROBS_HINT}") from None
            judgement = self._from_text(response)
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

    def _from_logprobs(self, response: Mapping[str, Any]) -> VerifierJudgement:
        tokens = _token_logprobs(response)
        dists: list[LabelDistribution] = []
        for prefix, tag in self.tags:
            try:
                dists.append(label_distribution(tokens, tag, scale=self.scale))
            except VerifierScoreError as exc:
                raise exc.with_prefix(prefix) from exc
        return self._judgement(dists, from_logprobs=True)

    def _from_text(self, response: Mapping[str, Any]) -> VerifierJudgement:
        answer = response_content(response)
        dists: list[LabelDistribution] = []
        for prefix, tag in self.tags:
            try:
                dists.append(text_fallback_label(answer, tag, self.scale))
            except VerifierScoreError as exc:
                raise JudgeOutputError(f"{prefix}{exc} (text fallback, no logprobs)") from None
        return self._judgement(dists, from_logprobs=False)

    def _judgement(
        self, dists: list[LabelDistribution], *, from_logprobs: bool
    ) -> VerifierJudgement:
        if len(dists) == 1:
            return VerifierJudgement(dists[0].expected_score, dists[0], None, from_logprobs)
        score = comparison_score(dists[0].expected_score, dists[1].expected_score)
        return VerifierJudgement(score, dists[0], dists[1], from_logprobs)


# the judge ----------------------------------------------------------------------------------


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


def _sample_data(sample: SampleResult | None) -> _SampleData:
    data = sample.data if sample is not None else None
    return data if isinstance(data, _SampleData) else _SampleData(None)


@dataclass(frozen=True, slots=True)
class _Pool:
    """The panel's pooled verifier judgement over the judges that voted."""

    judges: tuple[str, ...]
    a: LabelDistribution
    b: LabelDistribution | None
    score: float


def _pool(opinions: Sequence[Opinion], swap_mean: bool) -> _Pool | None:
    """Pool the chosen samples' distributions of the judges that voted (None: none did)."""
    voted = [
        (o.seat.name, _sample_data(o.chosen))
        for o in opinions
        if o.chosen is not None and o.chosen.status != EvalStatus.NOT_EVALUATED
    ]
    voted = [(name, data) for name, data in voted if data.judgement is not None]
    if not voted:
        return None
    judgements = [data.judgement for _, data in voted if data.judgement is not None]
    a = pool_distributions([j.dist_a for j in judgements])
    b_dists = [j.dist_b for j in judgements if j.dist_b is not None]
    b = pool_distributions(b_dists) if len(b_dists) == len(judgements) else None
    score = a.expected_score if b is None else comparison_score(a.expected_score, b.expected_score)
    swapped = [data.swapped_score for _, data in voted if data.swapped_score is not None]
    if swap_mean and b is not None and len(swapped) == len(voted):
        score = (score + sum(swapped) / len(swapped)) / 2.0
    return _Pool(tuple(name for name, _ in voted), a, b, score)


class LLMVerifierPairwiseEvaluator(LLMJudgeEvaluator):
    """The ``llm_verifier_pairwise`` evaluator (rules and options in the module doc)."""

    name = NAME
    description = (
        "LLM-as-a-Verifier: pairwise preference from label logprobs (>0.5 = actual better)"
    )

    def __init__(
        self,
        *,
        operators: OperatorRegistry | None = None,
        samples_aggregator: SamplesAggregator | str = majority_vote,
        invocations_aggregator: InvocationsAggregator | str = average,
        scale: LabelScale = DEFAULT_SCALE,
    ) -> None:
        super().__init__(
            scorer=VerifierScorer(scale=scale),
            samples_aggregator=samples_aggregator,
            invocations_aggregator=invocations_aggregator,
            operators=operators if operators is not None else OperatorRegistry.default(),
        )
        self.scale = scale

    def judge_options(self, metric: EvalMetric) -> VerifierOptions:
        return VerifierOptions.from_metric(metric)

    def request_overrides(self, metric: EvalMetric, options: VerifierOptions) -> dict[str, Any]:
        top = options.top_logprobs
        if top is None:
            llm = metric.criterion.llm_judge if metric.criterion else None
            config = llm.judge_model.generation_config if llm and llm.judge_model else None
            top = config.top_logprobs if config and config.top_logprobs is not None else None
        return {"logprobs": True, "top_logprobs": DEFAULT_TOP_LOGPROBS if top is None else top}

    def own_stages(self, options: VerifierOptions) -> tuple[Any, Any, Any, Any]:
        """The scorer for this metric's options; the aggregators as given."""
        _, samples, invocations, structured = super().own_stages(options)
        return VerifierScorer(options, self.scale), samples, invocations, structured

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        return verifier_messages(turn, pointwise=turn.options.pointwise)

    async def judge_sample(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        index: int,
        stages: JudgeStages,
    ) -> SampleResult:
        """The sample, then its swapped twin when ``swap`` is on (module doc)."""
        result = await super().judge_sample(turn, messages, structured, index, stages)
        judgement = result.data if isinstance(result.data, VerifierJudgement) else None
        result.data = data = _SampleData(judgement)
        options: VerifierOptions = turn.options
        if options.swap is None or options.pointwise:
            return result
        swapped = await self._swapped_score(turn, index, stages.scorer)
        data.swapped_score = swapped
        data.swap_gap = result.score - swapped
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
            messages = verifier_messages(turn, swapped=True)
        except Exception as exc:
            raise EvaluatorError(f"construct messages: {prefix}{error_text(exc)}") from exc
        call, swapped = await self.call_and_score(
            turn, messages, None, index, scorer, prefix=prefix
        )
        turn.record_extra(
            call,
            sample_index=index,
            score=1.0 - swapped.score,
            reason=f"swapped candidates (raw score {swapped.score:.4f}): {swapped.reason}",
        )
        return 1.0 - swapped.score

    def panel_decision(
        self, panel: JudgePanel, opinions: Sequence[Opinion], metric: EvalMetric
    ) -> PanelDecision:
        """The pooled score of the judges that voted, given the panel's quorum (module doc)."""
        ballot = panel.ballot((o.vote() for o in opinions), metric.threshold_value)
        options: VerifierOptions = opinions[0].turn.options
        pool = _pool(opinions, options.swap == "mean")
        if pool is None or len(pool.judges) < ballot.min_votes:
            voted = 0 if pool is None else len(pool.judges)
            return undecided(
                ballot,
                f"no quorum to pool: {voted} of {ballot.size} judges voted, "
                f"{ballot.min_votes} needed",
            )
        status = status_for(pool.score, metric.threshold_value)
        counted = [v for v in ballot.votes if v.judge in pool.judges]
        return decided(ballot, "pooled", status, pool.score, counted)

    def panel_result(
        self, seating: Seating, opinions: Sequence[Opinion], decision: PanelDecision
    ) -> PerInvocationResult:
        """The contract's panel result plus ``details.verifier``: every judge's samples and
        the pooled distributions."""
        result = super().panel_result(seating, opinions, decision)
        options: VerifierOptions = opinions[0].turn.options
        records = [
            record for o in opinions for record in _verifier_samples(o.samples, judge=o.seat.name)
        ]
        pool = _pool(opinions, options.swap == "mean")
        pooled = None
        if pool is not None and decision.status != EvalStatus.NOT_EVALUATED:
            pooled = VerifierSample(
                sample_index=0,
                score=pool.score,
                a=distribution_record(pool.a),
                b=distribution_record(pool.b),
            )
        swap_mode = None if options.pointwise else options.swap
        if result.details is not None:
            with_extras(
                result.details,
                verifier=VerifierRecord(samples=records, swap_mode=swap_mode, pooled=pooled),
            )
        return result

    def turn_result(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        samples: Sequence[SampleResult],
        chosen: SampleResult,
    ) -> PerInvocationResult:
        """The contract's result plus ``details.verifier``."""
        turn.extra_calls.sort(key=lambda record: record.sample_index)
        result = super().turn_result(turn, messages, samples, chosen)
        records = _verifier_samples(samples)
        options: VerifierOptions = turn.options
        swap_mode = None if options.pointwise else options.swap
        if result.details is not None:
            with_extras(
                result.details, verifier=VerifierRecord(samples=records, swap_mode=swap_mode)
            )
        return result


def _verifier_samples(
    samples: Sequence[SampleResult], judge: str | None = None
) -> list[VerifierSample]:
    """The stored form of each sample's distributions (``judge``: the panel member)."""
    records = []
    for sample in samples:
        data = _sample_data(sample)
        judgement = data.judgement
        records.append(
            VerifierSample(
                judge=judge,
                sample_index=sample.index,
                score=sample.score,
                a=distribution_record(judgement.dist_a if judgement else None),
                b=distribution_record(judgement.dist_b if judgement else None),
                swapped_score=data.swapped_score,
                swap_gap=data.swap_gap,
            )
        )
    return records
