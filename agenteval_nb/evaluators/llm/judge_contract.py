"""The judge contract: the stages every ``llm_*`` evaluator has, their types, and the loop that
runs them (SPEC §4.1, §4.5, §4.6). Read this module first; each built-in judge is one file.

One metric on one case:

1. ``criterion.llmJudge`` and a judge (injected, or ``judgeModel``) are required (``missing
   required fields in eval metric``); the judge is the run's client in
   ``EvaluationContext.judge`` (else ``no judge configured: …``). The judge parses its own
   options once (:meth:`LLMJudgeEvaluator.judge_options`).
2. ``numSamples``: with an injected judge its own count (``extras["judge_num_samples"]``, else
   a ``num_samples`` attribute of the callable, else 1) and ``judgeModel.numSamples`` is
   ignored; otherwise ``judgeModel.numSamples`` or 1. A count ``<= 0`` ⇒ ``num samples must be
   greater than 0``; ``sampleParallelism < 0`` ⇒ ``sample parallelism must be non-negative``.
3. ``len(actuals) != len(expecteds)`` ⇒ ``actual invocations (A) and expected invocations (E)
   count mismatch``; a stage named but not registered ⇒ its ``unsupported …`` text.
4. For each turn i, in order, with the prefixes ``actuals[:i+1]`` / ``expecteds[:i+1]``:
   **build the messages** (error ⇒ ``construct messages: …``), then the structured output
   (error ⇒ ``resolve structured output: …``).
5. **Call the judge** ``numSamples`` times (error ⇒ ``judge response: …``) and **score each
   sample** (error ⇒ ``score based on response: …``), ``status = passed iff score >=
   threshold``. Samples run concurrently only when ``sampleParallelismEnabled`` and
   ``numSamples > 1``, at most ``sampleParallelism`` at a time (0 ⇒ CPU count), kept in sample
   order; the first failing sample (lowest index) fails the metric.
6. **Aggregate the samples** into the turn result (default :func:`majority_vote`; error ⇒
   ``aggregate samples: …``); after the last turn **aggregate the turns** (default
   :func:`average`; error ⇒ ``aggregate invocations: …``).

**A panel** (``EvaluationContext.panel``, or the metric's ``judgeModels``; rules in
:mod:`agenteval_nb.judge.panel`): steps 4–6 run once per judge (:meth:`LLMJudgeEvaluator.opinion`,
concurrently), each judge with its own session and ``numSamples``, reducing its own samples;
then the panel decides the turn (:meth:`LLMJudgeEvaluator.panel_decision`, the verifier pools
instead) and :meth:`LLMJudgeEvaluator.panel_result` records every judge's samples and vote. A
judge's call or parse error, or any error once it was asked, is its abstention; an error before
any call (the metric's) fails the metric as above. Undecided turns are kept even when the
invocations aggregator would drop them, so their reasons (the votes) reach the result.

Each turn's ``details.judge`` (:class:`JudgeRecord`) keeps the rendered prompt, every sample
(raw answer, score, status, reason, rubric scores, cache hit, tokens, latency), which one was
``chosen``, extra calls, and ``heuristic`` (an answer whose ``model`` is
:data:`HEURISTIC_MODEL` came from the offline heuristic judge, not an LLM).

Stages are callables (sync or async) — a judge wires its own by direct reference:

* ``ResponseScorer(response: dict, metric) -> ScoreResult | float`` (raise to fail the metric);
* ``SamplesAggregator(samples: list[SampleResult], metric) -> SampleResult``;
* ``InvocationsAggregator(turns: list[PerInvocationResult], metric) -> EvaluateResult``;
* ``StructuredOutputProvider(turn: TurnInput) -> {"type": "json_schema", …} | None``.

A stage may also be given by *name*: names are looked up in the evaluator's ``operators``
(an ``OperatorRegistry``, :mod:`.operator_registry`); ``metric.extension = {"operators":
{"responseScorer", "samplesAggregator", "invocationsAggregator", "structuredOutput"}}``
overrides a judge's stages by name for one metric (absent keys keep the judge's).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ...criteria.gofmt import go_quote
from ...errors import exception_message, exception_type_name
from ...judge import JudgeCall
from ...judge.panel import (
    ABSTAIN,
    FAIL,
    PASS,
    JudgePanel,
    PanelDecision,
    Vote,
    open_panel,
    overlay_model,
)
from ...judge.planning import feeds_prompt, judged_turn
from ...schema import (
    Criterion,
    EvalMetric,
    EvalMetricResultDetails,
    EvalStatus,
    Invocation,
    JudgeModelOptions,
    LLMCriterion,
    RubricScore,
    ScoreValue,
    status_for,
)
from ...schema.extras import (
    JudgeRecord,
    JudgeSample,
    PanelRecord,
    PanelVote,
    PromptMessage,
    with_extras,
)
from ...schema.status import passes
from ..base import EvaluateResult, EvaluationContext, EvaluatorError, PerInvocationResult

__all__ = [
    "HEURISTIC_MODEL",
    "AggregationError",
    "InvocationsAggregator",
    "JudgeSession",
    "JudgeStages",
    "LLMJudgeEvaluator",
    "MessagesConstructor",
    "OperatorLookup",
    "Opinion",
    "PromptMessages",
    "ResponseScorer",
    "SampleError",
    "SampleResult",
    "SamplesAggregator",
    "ScoreResult",
    "Seat",
    "Seating",
    "StructuredOutputProvider",
    "TurnInput",
    "average",
    "error_text",
    "judge_criterion",
    "majority_vote",
    "maybe_await",
    "mean_samples",
    "min_sample",
    "open_seating",
    "open_session",
]

HEURISTIC_MODEL = "agenteval-heuristic-judge"
"""The ``model`` of every completion produced by the offline heuristic judge."""

PromptMessages = list[dict[str, str]]
"""Judge messages: ``[{"role": "user", "content": "..."}]``."""


# the data between the stages ------------------------------------------------------------------


@dataclass(slots=True)
class ScoreResult:
    """What a response scorer reads from one judge answer.

    ``value`` defaults to ``{kind: numeric, numeric: score}``; ``data`` is scorer-specific
    (the verifier keeps its label distributions there).
    """

    score: float
    reason: str = ""
    value: ScoreValue | None = None
    rubric_scores: list[RubricScore] | None = None
    data: Any = None


@dataclass(slots=True)
class SampleResult:
    """One scored judge sample: ``status = passed iff score >= threshold``."""

    index: int
    score: float
    status: EvalStatus | str
    reason: str = ""
    value: ScoreValue | None = None
    rubric_scores: list[RubricScore] | None = None
    data: Any = None
    call: JudgeCall | None = None
    record: JudgeSample | None = None


@dataclass(slots=True)
class TurnInput:
    """Everything the stages may read for turn ``index``.

    ``actuals`` / ``expecteds`` are the prefixes ``[: index + 1]``; ``options`` is what the
    judge parsed from the metric once (:meth:`LLMJudgeEvaluator.judge_options`); ``state``
    carries data from one stage to the later ones of the same turn.
    """

    actuals: list[Invocation]
    expecteds: list[Invocation]
    metric: EvalMetric
    index: int
    judge: JudgeSession
    options: Any = None
    extra_calls: list[JudgeSample] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    async def extra_call(self, messages: PromptMessages, *, purpose: str) -> JudgeCall:
        """A judge call outside the scored samples (recorded in ``JudgeRecord.extra_calls``);
        its answer may go into a later prompt (:func:`~agenteval_nb.judge.planning.feeds_prompt`:
        batch planning never makes it up)."""
        with feeds_prompt():
            call = await self.judge.call(messages, sample_index=0)
        self.record_extra(call, reason=purpose)
        return call

    def record_extra(
        self,
        call: JudgeCall,
        *,
        reason: str,
        sample_index: int | None = None,
        score: float | None = None,
    ) -> JudgeSample:
        """Keep ``call`` in ``JudgeRecord.extra_calls`` with what it was for (and its score)."""
        record = sample_record(call, sample_index)
        record.reason = reason
        record.score = score
        self.extra_calls.append(record)
        return record


ResponseScorer = Callable[[dict[str, Any], EvalMetric], "ScoreResult | float | Awaitable[Any]"]
SamplesAggregator = Callable[[Sequence[SampleResult], EvalMetric], "SampleResult | Awaitable[Any]"]
InvocationsAggregator = Callable[
    [Sequence[PerInvocationResult], EvalMetric], "EvaluateResult | Awaitable[Any]"
]
StructuredOutputProvider = Callable[[TurnInput], "dict[str, Any] | Awaitable[Any] | None"]


@runtime_checkable
class MessagesConstructor(Protocol):
    """Builds the judge prompt of one turn (for judges assembled from parts)."""

    async def construct(self, turn: TurnInput) -> PromptMessages: ...


class OperatorLookup(Protocol):
    """Stages by name (an ``OperatorRegistry``); unknown names raise ``LookupError``."""

    def scorer(self, name: str) -> ResponseScorer: ...
    def samples_aggregator(self, name: str) -> SamplesAggregator: ...
    def invocations_aggregator(self, name: str) -> InvocationsAggregator: ...
    def structured_output(self, name: str) -> StructuredOutputProvider: ...


@dataclass(frozen=True, slots=True)
class JudgeStages:
    """The stages one metric evaluation runs, resolved to callables."""

    scorer: ResponseScorer
    samples_aggregator: SamplesAggregator
    invocations_aggregator: InvocationsAggregator
    structured_output: StructuredOutputProvider | None = None


def error_text(exc: BaseException) -> str:
    """The message of an error, never empty (the type name when it has none)."""
    return exception_message(exc) or exception_type_name(exc)


async def maybe_await(value: Any) -> Any:
    """``await value`` if it is awaitable (stages may be sync or async)."""
    return await value if inspect.isawaitable(value) else value


# the judge as one metric evaluation sees it (steps 1-2) ---------------------------------------


def response_model(call: JudgeCall) -> str | None:
    """The ``model`` the endpoint says answered (falls back to the requested model)."""
    model = call.response.get("model")
    return model if isinstance(model, str) and model else call.model


def sample_record(call: JudgeCall, sample_index: int | None = None) -> JudgeSample:
    """A :class:`JudgeSample` with the call's raw answer and accounting (no score yet)."""
    return JudgeSample(
        sample_index=call.sample_index if sample_index is None else sample_index,
        raw=call.content,
        cache_hit=call.cache_hit,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        cached_tokens=call.cached_tokens,
        reasoning_tokens=call.reasoning_tokens,
        latency_ms=round(call.latency_s * 1000.0, 3),
        cost_usd=call.cost,
        batch=True if call.usage.batch else None,
    )


def prompt_record(messages: Iterable[Mapping[str, Any]]) -> list[PromptMessage]:
    """The rendered prompt as stored in ``JudgeRecord.prompt``."""
    return [
        PromptMessage(role=str(m.get("role") or ""), content=str(m.get("content") or ""))
        for m in messages
    ]


class JudgeSession:
    """Judge calls of one metric on one case, remembering which models answered."""

    def __init__(
        self,
        client: Any,
        judge_model: JudgeModelOptions | None,
        *,
        request_overrides: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.judge_model = judge_model
        self.request_overrides = dict(request_overrides or {})
        self.models: list[str] = []
        self.heuristic = False
        self.asked = 0

    async def call(
        self,
        messages: PromptMessages,
        *,
        structured_output: Mapping[str, Any] | None = None,
        sample_index: int = 0,
    ) -> JudgeCall:
        """One judge completion (raises the client's ``JudgeError`` on failure)."""
        self.asked += 1
        call = await self.client.complete(
            self.judge_model,
            messages,
            structured_output=structured_output,
            sample_index=sample_index,
            request_overrides=self.request_overrides or None,
        )
        model = response_model(call)
        if model and model not in self.models:
            self.models.append(model)
        self.heuristic = self.heuristic or call.response.get("model") == HEURISTIC_MODEL
        return call


def judge_criterion(metric: EvalMetric) -> LLMCriterion:
    """``criterion.llmJudge`` or ``missing required fields in eval metric``."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise EvaluatorError("missing required fields in eval metric")
    return metric.criterion.llm_judge


def _num_samples(
    judge_model: JudgeModelOptions | None, client: Any, context: EvaluationContext | None
) -> int:
    injected = getattr(client, "injected", None)
    if injected is not None:
        count = context.extras.get("judge_num_samples") if context is not None else None
        if count is None:
            count = getattr(getattr(injected, "judge", injected), "num_samples", None)
        count = 1 if count is None else count
    else:
        configured = judge_model.num_samples if judge_model is not None else None
        count = 1 if configured is None else configured
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        raise EvaluatorError("num samples must be greater than 0")
    return count


def open_session(
    metric: EvalMetric,
    context: EvaluationContext | None,
    *,
    request_overrides: Mapping[str, Any] | None = None,
) -> tuple[JudgeSession, int]:
    """Steps 1–2 of the module doc: a session on the run's judge and ``numSamples``."""
    llm = judge_criterion(metric)
    client = context.judge if context is not None else None
    if client is None:
        raise EvaluatorError(
            "no judge configured: LLM metrics need a judge client "
            "(pass judge= or a judgeModel endpoint to evaluate)"
        )
    if getattr(client, "injected", None) is None and llm.judge_model is None:
        raise EvaluatorError("missing required fields in eval metric")
    count = _num_samples(llm.judge_model, client, context)
    if llm.sample_parallelism is not None and llm.sample_parallelism < 0:
        raise EvaluatorError("sample parallelism must be non-negative")
    return JudgeSession(client, llm.judge_model, request_overrides=request_overrides), count


@dataclass(slots=True)
class Seat:
    """One panel judge as one metric evaluation sees it: its session and ``numSamples``."""

    name: str
    session: JudgeSession
    n_samples: int


@dataclass(slots=True)
class Seating:
    """The panel judging one metric: its rules and one seat per judge, sorted by name."""

    panel: JudgePanel
    seats: list[Seat]


def _metric_panel(metric: EvalMetric, llm: LLMCriterion) -> JudgePanel:
    """The panel of ``judgeModels``; ``extension.panel`` may set ``vote`` (a rule name) and
    ``minVotes`` (errors ``panel extension: …``)."""
    extension = metric.extension if isinstance(metric.extension, Mapping) else {}
    raw = extension.get("panel") or {}
    if not isinstance(raw, Mapping):
        raise EvaluatorError("panel extension: must be an object")
    try:
        return JudgePanel.of_models(
            llm.judge_models or [], raw.get("vote", "majority"), raw.get("minVotes")
        )
    except (TypeError, ValueError) as exc:
        raise EvaluatorError(f"panel extension: {exc}") from exc


def open_seating(
    metric: EvalMetric,
    context: EvaluationContext | None,
    *,
    request_overrides: Mapping[str, Any] | None = None,
) -> Seating | None:
    """The panel of this metric, or None for a lone judge: the evaluation's panel
    (``context.panel``), else the metric's ``judgeModels`` unless a judge is injected.

    Each judge's model is its own laid over ``judgeModel`` (:func:`overlay_model`) and its
    ``numSamples`` is counted as a lone judge's; a judge with no model at all is ``missing
    required fields in eval metric``.
    """
    llm = judge_criterion(metric)
    opened = context.panel if context is not None else None
    client = context.judge if context is not None else None
    if opened is None:
        if not llm.judge_models or client is None or getattr(client, "injected", None):
            return None
        opened = open_panel(_metric_panel(metric, llm), client)
    if llm.sample_parallelism is not None and llm.sample_parallelism < 0:
        raise EvaluatorError("sample parallelism must be non-negative")
    seats = []
    for member in opened.members:
        model = overlay_model(member.model, llm.judge_model)
        if model is None and getattr(member.client, "injected", None) is None:
            raise EvaluatorError(
                f"missing required fields in eval metric: panel judge {member.name!r} has no "
                "judge model (set judgeModel, or give the judge a model)"
            )
        session = JudgeSession(member.client, model, request_overrides=request_overrides)
        seats.append(Seat(member.name, session, _num_samples(model, member.client, context)))
    return Seating(opened.panel, seats)


# aggregation (step 6) ----------------------------------------------------------------------


class SampleError(EvaluatorError):
    """A judge sample failed: its call or the scoring of its answer (``sample_index``)."""

    def __init__(self, message: str, sample_index: int) -> None:
        super().__init__(message)
        self.sample_index = sample_index


class AggregationError(ValueError):
    """A samples or invocations aggregator cannot produce a result."""


def _evaluated(samples: Sequence[SampleResult]) -> list[SampleResult]:
    return [s for s in samples if s.status != EvalStatus.NOT_EVALUATED]


def majority_vote(samples: Sequence[SampleResult], metric: EvalMetric) -> SampleResult:
    """SPEC §4.5, the default: no samples ⇒ ``no samples``; ``not_evaluated`` samples are
    skipped (none left ⇒ the first sample); more passing than failing ⇒ the **first passing**
    sample, otherwise (tie included) the **first failing** one — returned unchanged, scores
    are never averaged."""
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
    """The strictest vote (named ``min``): the lowest-scoring evaluated sample, first on ties;
    no evaluated sample ⇒ the first."""
    if not samples:
        raise AggregationError("no samples")
    evaluated = _evaluated(samples) or list(samples)
    return min(evaluated, key=lambda s: s.score)


def mean_samples(samples: Sequence[SampleResult], metric: EvalMetric) -> SampleResult:
    """Named ``mean``: a new, un-chosen result whose score is the mean of the evaluated
    samples' scores, rubric scores averaged per id."""
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
    """SPEC §4.6, the default: mean score over turns whose status is not ``not_evaluated`` (an
    empty status counts as evaluated); none ⇒ ``not_evaluated``, score 0 and **no** per-turn
    results; else ``status_for(mean, threshold)`` (a NaN mean is failed, where the reference's
    ``mean < threshold`` would say passed) and all turns."""
    evaluated = [t for t in turns if t.status != EvalStatus.NOT_EVALUATED]
    mean = sum(t.score for t in evaluated) / len(evaluated) if evaluated else None
    status = status_for(mean, metric.threshold_value)
    return EvaluateResult(0.0 if mean is None else mean, status, list(turns) if evaluated else [])


# the loop ---------------------------------------------------------------------------------------

_OVERRIDE_KEYS = (
    "responseScorer",
    "samplesAggregator",
    "invocationsAggregator",
    "structuredOutput",
)


class _NoOperators:
    """The lookup of an evaluator given no registry: every name is unknown."""

    def _unknown(self, kind: str, name: str) -> Any:
        raise LookupError(f"unsupported {kind} {go_quote(name)}")

    def scorer(self, name: str) -> ResponseScorer:
        return self._unknown("response scorer", name)

    def samples_aggregator(self, name: str) -> SamplesAggregator:
        return self._unknown("samples aggregator", name)

    def invocations_aggregator(self, name: str) -> InvocationsAggregator:
        return self._unknown("invocations aggregator", name)

    def structured_output(self, name: str) -> StructuredOutputProvider:
        return self._unknown("structured output", name)


class LLMJudgeEvaluator:
    """The loop of the module doc; a judge subclasses it and fills in its hooks.

    Hooks, in the order the loop calls them: :meth:`judge_options` (once per metric),
    :meth:`request_overrides`, :meth:`stages_for` (on :meth:`own_stages`), then per turn
    :meth:`build_messages`, :meth:`turn_stages`, :meth:`judge_sample` (per sample; it asks
    and scores through :meth:`call_and_score`),
    :meth:`turn_result`; at the end :meth:`invocations_aggregator`. ``scorer`` /
    ``samples_aggregator`` / ``invocations_aggregator`` / ``structured_output`` are callables or
    names in ``operators``.
    """

    name: str = "llm_judge"
    description: str = "LLM judge evaluator"

    def __init__(
        self,
        constructor: MessagesConstructor | None = None,
        *,
        scorer: ResponseScorer | str,
        samples_aggregator: SamplesAggregator | str = majority_vote,
        invocations_aggregator: InvocationsAggregator | str = average,
        structured_output: StructuredOutputProvider | str | None = None,
        operators: OperatorLookup | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        self.constructor = constructor
        self.operators: OperatorLookup = operators if operators is not None else _NoOperators()
        if structured_output is None and constructor is not None:
            structured_output = getattr(constructor, "structured_output", None)
        self._stages = (scorer, samples_aggregator, invocations_aggregator, structured_output)
        if name is not None:
            self.name = name
        if description is not None:
            self.description = description

    def __repr__(self) -> str:
        stages = ", ".join(getattr(s, "__name__", None) or str(s) for s in self._stages if s)
        return f"{type(self).__name__}(name={self.name!r}, stages=[{stages}])"

    # hooks --------------------------------------------------------------------------------

    def judge_options(self, metric: EvalMetric) -> Any:
        """This judge's options parsed from the metric, once (``TurnInput.options``)."""
        return None

    def request_overrides(self, metric: EvalMetric, options: Any) -> dict[str, Any] | None:
        """Extra request fields for every judge call of the metric (none by default)."""
        return None

    def own_stages(self, options: Any) -> tuple[Any, Any, Any, Any]:
        """This judge's scorer, samples and invocations aggregators and structured output
        (callables or names) before the metric's overrides."""
        return self._stages

    def stages_for(self, metric: EvalMetric, options: Any) -> JudgeStages | None:
        """The judge's stages with the metric's ``extension.operators`` names applied.

        ``None`` means the judge resolves its stages per turn (:meth:`turn_stages`).
        """
        chosen = list(self.own_stages(options))
        extension = metric.extension if isinstance(metric.extension, Mapping) else {}
        overrides = extension.get("operators")
        if isinstance(overrides, Mapping):
            for i, key in enumerate(_OVERRIDE_KEYS):
                if isinstance(overrides.get(key), str) and overrides[key]:
                    chosen[i] = overrides[key]
        scorer, samples, invocations, structured = chosen
        lookup = self.operators
        return JudgeStages(
            scorer=lookup.scorer(scorer) if isinstance(scorer, str) else scorer,
            samples_aggregator=(
                lookup.samples_aggregator(samples) if isinstance(samples, str) else samples
            ),
            invocations_aggregator=(
                lookup.invocations_aggregator(invocations)
                if isinstance(invocations, str)
                else invocations
            ),
            structured_output=(
                lookup.structured_output(structured) if isinstance(structured, str) else structured
            ),
        )

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        """The judge prompt of one turn (step 4)."""
        if self.constructor is None:
            raise NotImplementedError(f"{type(self).__name__} builds no messages")
        return await self.constructor.construct(turn)

    def turn_stages(self, turn: TurnInput, stages: JudgeStages | None) -> JudgeStages:
        """The stages of this turn (those of :meth:`stages_for` unless the judge says else)."""
        assert stages is not None, "stages_for returned None without a turn_stages hook"
        return stages

    def invocations_aggregator(
        self, metric: EvalMetric, stages: JudgeStages | None
    ) -> InvocationsAggregator:
        assert stages is not None, "stages_for returned None without this hook"
        return stages.invocations_aggregator

    def turn_criterion(self, turn: TurnInput, messages: PromptMessages) -> Criterion | None:
        """The criterion stored with this turn's result (``None`` = the metric's)."""
        return None

    # the loop -------------------------------------------------------------------------------

    async def evaluate(
        self,
        actuals: list[Invocation],
        expecteds: list[Invocation],
        metric: EvalMetric,
        *,
        context: EvaluationContext | None = None,
    ) -> EvaluateResult:
        """Score every turn with the judge (module doc)."""
        judge_criterion(metric)
        options = self.judge_options(metric)
        overrides = self.request_overrides(metric, options)
        seating = open_seating(metric, context, request_overrides=overrides)
        if seating is None:
            session, n_samples = open_session(metric, context, request_overrides=overrides)
        if len(actuals) != len(expecteds):
            raise EvaluatorError(
                f"actual invocations ({len(actuals)}) and expected invocations "
                f"({len(expecteds)}) count mismatch"
            )
        try:
            stages = self.stages_for(metric, options)
        except LookupError as exc:
            raise EvaluatorError(error_text(exc)) from exc
        turns: list[PerInvocationResult] = []
        for i in range(len(actuals)):
            prefixes = list(actuals[: i + 1]), list(expecteds[: i + 1])
            with judged_turn():
                if seating is None:
                    turn = TurnInput(*prefixes, metric, i, session, options)
                    turns.append(await self.judge_turn(turn, stages, n_samples))
                    continue
                seat_turns = [
                    TurnInput(*prefixes, metric, i, s.session, options) for s in seating.seats
                ]
                turns.append(await self.panel_turn(seat_turns, seating, stages))
        try:
            aggregate = self.invocations_aggregator(metric, stages)
            result: EvaluateResult = await maybe_await(aggregate(turns, metric))
        except Exception as exc:
            raise EvaluatorError(f"aggregate invocations: {error_text(exc)}") from exc
        if seating is not None and turns and not result.per_invocation_results:
            result.per_invocation_results = turns  # undecided turns keep their listed votes
        return result

    async def judge_turn(
        self, turn: TurnInput, stages: JudgeStages | None, n_samples: int
    ) -> PerInvocationResult:
        """Steps 4–6 for one turn."""
        messages, turn_stages, structured = await self.prepare_turn(turn, stages)
        samples = await self.collect_samples(turn, messages, structured, n_samples, turn_stages)
        chosen = await self.reduce_samples(turn, turn_stages, samples)
        return self.turn_result(turn, messages, samples, chosen)

    async def prepare_turn(
        self, turn: TurnInput, stages: JudgeStages | None
    ) -> tuple[PromptMessages, JudgeStages, dict[str, Any] | None]:
        """Step 4: the turn's messages, stages and structured output."""
        try:
            messages = await self.build_messages(turn)
        except EvaluatorError:
            raise
        except Exception as exc:
            raise EvaluatorError(f"construct messages: {error_text(exc)}") from exc
        try:
            turn_stages = self.turn_stages(turn, stages)
            provider = turn_stages.structured_output
            structured = None if provider is None else await maybe_await(provider(turn))
        except Exception as exc:
            raise EvaluatorError(f"resolve structured output: {error_text(exc)}") from exc
        return messages, turn_stages, structured

    async def reduce_samples(
        self, turn: TurnInput, stages: JudgeStages, samples: list[SampleResult]
    ) -> SampleResult:
        """Step 6: the samples aggregator's pick (error ⇒ ``aggregate samples: …``)."""
        try:
            chosen: SampleResult = await maybe_await(
                stages.samples_aggregator(samples, turn.metric)
            )
        except Exception as exc:
            raise EvaluatorError(f"aggregate samples: {error_text(exc)}") from exc
        return chosen

    async def collect_samples(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        n_samples: int,
        stages: JudgeStages,
    ) -> list[SampleResult]:
        """``n_samples`` samples, concurrently when the metric enables it (sample order kept)."""
        llm = judge_criterion(turn.metric)
        if not (llm.sample_parallelism_enabled and n_samples > 1):
            return [
                await self.judge_sample(turn, messages, structured, k, stages)
                for k in range(n_samples)
            ]
        gate = asyncio.Semaphore(min(llm.sample_parallelism or os.cpu_count() or 1, n_samples))

        async def bounded(k: int) -> SampleResult:
            async with gate:
                return await self.judge_sample(turn, messages, structured, k, stages)

        return await _gather_in_order([bounded(k) for k in range(n_samples)])

    async def judge_sample(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        index: int,
        stages: JudgeStages,
    ) -> SampleResult:
        """One judge call and its score (step 5)."""
        call, result = await self.call_and_score(turn, messages, structured, index, stages.scorer)
        return self.sample_result(turn, index, call, result)

    async def call_and_score(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        index: int,
        scorer: ResponseScorer,
        *,
        prefix: str = "",
    ) -> tuple[JudgeCall, ScoreResult]:
        """Ask the judge for sample ``index`` and score the answer (step 5); errors read
        ``judge response: <prefix><error>`` and ``score based on response: <prefix><error>``.
        Judges that ask more than once per sample (the verifier's swapped order) use it too."""
        try:
            call = await turn.judge.call(messages, structured_output=structured, sample_index=index)
        except Exception as exc:
            raise SampleError(f"judge response: {prefix}{error_text(exc)}", index) from exc
        try:
            return call, await self.score_call(turn, call, scorer, prefix=prefix)
        except EvaluatorError as exc:
            raise SampleError(str(exc), index) from exc.__cause__

    async def score_call(
        self, turn: TurnInput, call: JudgeCall, scorer: ResponseScorer, *, prefix: str = ""
    ) -> ScoreResult:
        """``scorer`` on the call's answer (a bare number is a score); error ⇒ ``score based on
        response: <prefix><error>``."""
        try:
            value = await maybe_await(scorer(call.response, turn.metric))
            if isinstance(value, ScoreResult):
                return value
            if isinstance(value, int | float) and not isinstance(value, bool):
                return ScoreResult(score=float(value))
            raise TypeError(
                f"a response scorer must return a ScoreResult or a number, got {value!r}"
            )
        except Exception as exc:
            raise EvaluatorError(f"score based on response: {prefix}{error_text(exc)}") from exc

    def sample_result(
        self, turn: TurnInput, index: int, call: JudgeCall, result: ScoreResult
    ) -> SampleResult:
        """A :class:`SampleResult` (with its inspection record) from a scored call."""
        status = status_for(result.score, turn.metric.threshold_value)
        record = sample_record(call, index)
        record.score = result.score
        record.status = str(status)
        record.reason = result.reason
        record.rubric_scores = result.rubric_scores
        return SampleResult(
            index=index,
            score=result.score,
            status=status,
            reason=result.reason,
            value=result.value or ScoreValue(kind="numeric", numeric=result.score),
            rubric_scores=result.rubric_scores,
            data=result.data,
            call=call,
            record=record,
        )

    def turn_result(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        samples: Sequence[SampleResult],
        chosen: SampleResult,
    ) -> PerInvocationResult:
        """The per-invocation result with its ``details.judge`` record."""
        for sample in samples:
            if sample.record is not None:
                sample.record.chosen = sample is chosen
        details = EvalMetricResultDetails(
            reason=chosen.reason or None,
            score=chosen.score,
            value=chosen.value or ScoreValue(kind="numeric", numeric=chosen.score),
            rubric_scores=chosen.rubric_scores or None,
        )
        session = turn.judge
        record = JudgeRecord(
            evaluator=self.name,
            model=", ".join(session.models) or None,
            heuristic=session.heuristic,
            prompt=prompt_record(messages),
            extra_calls=turn.extra_calls or None,
            samples=[s.record for s in samples if s.record is not None],
        )
        with_extras(details, judge=record)
        return PerInvocationResult(
            actual_invocation=turn.actuals[-1],
            expected_invocation=turn.expecteds[-1],
            score=chosen.score,
            status=chosen.status,
            details=details,
            criterion=self.turn_criterion(turn, messages),
        )

    # a panel (module doc of :mod:`agenteval_nb.judge.panel`) ------------------------------------

    async def panel_turn(
        self, turns: Sequence[TurnInput], seating: Seating, stages: JudgeStages | None
    ) -> PerInvocationResult:
        """One turn judged by every seat (concurrently), then decided by the panel; an error
        that is not a judge's (a bad metric) fails the metric as for a lone judge."""
        outcomes = await asyncio.gather(
            *(self.opinion(t, seat, stages) for t, seat in zip(turns, seating.seats, strict=True)),
            return_exceptions=True,
        )
        for outcome in outcomes:  # seat order = name order: the same error whatever the order
            if isinstance(outcome, BaseException):
                raise outcome
        opinions: list[Opinion] = list(outcomes)  # type: ignore[arg-type]
        decision = self.panel_decision(seating.panel, opinions, turns[0].metric)
        return self.panel_result(seating, opinions, decision)

    async def opinion(self, turn: TurnInput, seat: Seat, stages: JudgeStages | None) -> Opinion:
        """One seat's reduced verdict: its samples reduced as a lone judge's. Its call or
        parse error, or an error after it was asked (the hallucination judge's segmentation),
        is an abstention; an error before it was asked is the metric's and raises."""
        try:
            messages, turn_stages, structured = await self.prepare_turn(turn, stages)
        except EvaluatorError as exc:
            if not turn.judge.asked:
                raise
            return Opinion(seat, turn, None, [], None, error_text(exc))
        try:
            samples = await self.collect_samples(
                turn, messages, structured, seat.n_samples, turn_stages
            )
        except SampleError as exc:
            return Opinion(seat, turn, messages, [], None, error_text(exc), exc.sample_index)
        chosen = await self.reduce_samples(turn, turn_stages, samples)
        return Opinion(seat, turn, messages, samples, chosen)

    def panel_decision(
        self, panel: JudgePanel, opinions: Sequence[Opinion], metric: EvalMetric
    ) -> PanelDecision:
        """The panel's vote rule over the seats' votes."""
        return panel.decide((o.vote() for o in opinions), metric.threshold_value)

    def panel_result(
        self, seating: Seating, opinions: Sequence[Opinion], decision: PanelDecision
    ) -> PerInvocationResult:
        """The turn's result: the decision's score, status and reason; ``details.judge`` with
        every seat's samples and extra calls (each naming its judge) and ``details.panel``
        with every vote."""
        samples: list[JudgeSample] = []
        extra_calls: list[JudgeSample] = []
        prompted = [o for o in opinions if o.messages is not None]
        prompt = prompt_record(prompted[0].messages or []) if prompted else None
        votes = []
        for o in opinions:
            name = o.seat.name
            for sample in o.samples:
                if sample.record is not None:
                    sample.record.chosen = sample is o.chosen
                    sample.record.judge = name
                    samples.append(sample.record)
            for call in sorted(o.turn.extra_calls, key=lambda record: record.sample_index):
                call.judge = name
                extra_calls.append(call)
            if o.error is not None:
                samples.append(JudgeSample(judge=name, sample_index=o.error_index, error=o.error))
            vote = o.vote()
            own = prompt_record(o.messages) if o.messages is not None else None
            votes.append(
                PanelVote(
                    judge=name,
                    model=", ".join(o.seat.session.models) or _model_name(o.seat.session),
                    vote=vote.verdict,
                    score=vote.score,
                    reason=(o.chosen.reason or None) if o.chosen is not None else None,
                    error=vote.reason if vote.verdict == ABSTAIN else None,
                    n_samples=len(o.samples),
                    prompt=own if own != prompt else None,
                )
            )
        counted = [o.chosen for o in opinions if o.seat.name in decision.counted and o.chosen]
        details = EvalMetricResultDetails(
            reason=decision.reason,
            score=decision.score,
            value=ScoreValue(kind="numeric", numeric=decision.score),
            rubric_scores=_mean_rubric_scores(counted) or None,
        )
        sessions = [o.seat.session for o in opinions]
        record = JudgeRecord(
            evaluator=self.name,
            model=", ".join(sorted({m for s in sessions for m in s.models})) or None,
            heuristic=any(s.heuristic for s in sessions),
            prompt=prompt,
            extra_calls=extra_calls or None,
            samples=samples,
        )
        panel = seating.panel
        with_extras(
            details,
            judge=record,
            panel=PanelRecord(
                vote=panel.vote_name,
                size=panel.size,
                min_votes=panel.quorum,
                status=str(decision.status),
                votes=votes,
                counted=list(decision.counted),
            ),
        )
        first = opinions[0].turn
        return PerInvocationResult(
            actual_invocation=first.actuals[-1],
            expected_invocation=first.expecteds[-1],
            score=decision.score,
            status=decision.status,
            details=details,
            criterion=self.turn_criterion(prompted[0].turn, prompted[0].messages or [])
            if prompted
            else None,
        )


@dataclass(slots=True)
class Opinion:
    """One seat's judgement of a turn: its samples and the one its aggregator chose, or the
    error that made it abstain (with the failing sample's index)."""

    seat: Seat
    turn: TurnInput
    messages: PromptMessages | None
    samples: list[SampleResult]
    chosen: SampleResult | None
    error: str | None = None
    error_index: int = 0

    def vote(self) -> Vote:
        """``pass`` / ``fail`` by the chosen sample's status; ``abstain`` on an error or
        when every sample is ``not_evaluated``."""
        name, chosen = self.seat.name, self.chosen
        if chosen is None:
            return Vote(name, ABSTAIN, None, self.error or "no answer")
        if chosen.status == EvalStatus.NOT_EVALUATED:
            return Vote(name, ABSTAIN, None, "every sample not evaluated")
        verdict = PASS if chosen.status == EvalStatus.PASSED else FAIL
        return Vote(name, verdict, chosen.score, chosen.reason)


def _model_name(session: JudgeSession) -> str | None:
    return session.judge_model.model_name if session.judge_model is not None else None


def _mean_rubric_scores(chosen: Sequence[SampleResult]) -> list[RubricScore]:
    """Per rubric id, the mean score over the chosen samples that scored it; ids in the order
    they first appear in any of them (ties by id), so the judges' order does not matter."""
    totals: dict[str, list[float]] = {}
    first: dict[str, int] = {}
    for sample in chosen:
        for position, rubric in enumerate(sample.rubric_scores or ()):
            rid = rubric.id or ""
            totals.setdefault(rid, []).append(rubric.score or 0.0)
            first[rid] = min(first.get(rid, position), position)
    return [
        RubricScore(
            id=rid,
            score=sum(totals[rid]) / len(totals[rid]),
            reason=(f"mean of {len(totals[rid])} judges"),
        )
        for rid in sorted(totals, key=lambda r: (first[r], r))
    ]


async def _gather_in_order(coros: Sequence[Awaitable[SampleResult]]) -> list[SampleResult]:
    """Run concurrently; on failure cancel the rest and raise the lowest-index error."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        pending = [t for t in tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    return [t.result() for t in tasks]
