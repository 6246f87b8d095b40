"""The base loop every ``llm_*`` evaluator runs (SPEC §4.1).

1. ``criterion.llmJudge`` and a judge (injected, or ``judgeModel``) are required; ``numSamples``
   and ``sampleParallelism`` are validated (:mod:`.judging`).
2. ``len(actuals) != len(expecteds)`` ⇒ ``actual invocations (A) and expected invocations (E)
   count mismatch``.
3. For each turn i, in order, with the prefixes ``actuals[:i+1]`` / ``expecteds[:i+1]``: build
   the messages (error ⇒ ``construct messages: …``), then the structured output if the
   constructor offers one (error ⇒ ``resolve structured output: …``).
4. ``numSamples`` samples: judge call (error ⇒ ``judge response: …``), scoring (error ⇒
   ``score based on response: …``), ``status = passed iff score >= threshold``. Samples run
   concurrently only when ``sampleParallelismEnabled`` and ``numSamples > 1``, at most
   ``sampleParallelism`` at a time (0 ⇒ CPU count), results kept in sample order. Any sample
   error aborts the metric: the case fails with that message.
5. The samples aggregator picks the turn result (default ``majority_vote``; error ⇒ ``aggregate
   samples: …``); after the last turn the invocations aggregator makes the metric result
   (default ``average``).

Everything is kept for inspection in each turn's ``details.judge`` (:class:`JudgeRecord`): the
rendered prompt, every sample (raw answer, score, status, reason, rubric scores, cache hit,
tokens, latency), which one was ``chosen``, extra calls, and ``heuristic``.

Operators are looked up by name in the evaluator's :class:`OperatorRegistry`; the names come
from the evaluator (constructor arguments) and may be overridden per metric with
``metric.extension = {"operators": {"responseScorer": …, "samplesAggregator": …,
"invocationsAggregator": …, "structuredOutput": …}}`` (absent keys keep the evaluator's).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import exception_message, exception_type_name
from ...schema import (
    Criterion,
    EvalMetric,
    EvalMetricResultDetails,
    Invocation,
    ScoreValue,
    status_for,
)
from ...schema.extras import JudgeRecord, with_extras
from ..base import EvaluateResult, EvaluationContext, EvaluatorError, PerInvocationResult
from .judging import JudgeSession, judge_criterion, open_session
from .operator_registry import (
    DEFAULT_INVOCATIONS_AGGREGATOR,
    DEFAULT_SAMPLES_AGGREGATOR,
    OperatorRegistry,
)
from .operators import (
    InvocationsAggregator,
    MessagesConstructor,
    PromptMessages,
    ResponseScorer,
    SampleResult,
    SamplesAggregator,
    ScoreResult,
    TurnInput,
)
from .records import prompt_record

__all__ = ["LLMJudgeEvaluator", "StageNames", "error_text", "maybe_await"]


def error_text(exc: BaseException) -> str:
    """The message of an error, never empty (the type name when it has none)."""
    return exception_message(exc) or exception_type_name(exc)


async def maybe_await(value: Any) -> Any:
    """``await value`` if it is awaitable (operators may be sync or async)."""
    return await value if inspect.isawaitable(value) else value


@dataclass(frozen=True, slots=True)
class StageNames:
    """Which registered operators an evaluator uses."""

    scorer: str
    samples_aggregator: str = DEFAULT_SAMPLES_AGGREGATOR
    invocations_aggregator: str = DEFAULT_INVOCATIONS_AGGREGATOR
    structured_output: str | None = None


_EXTENSION_KEYS = {
    "responseScorer": "scorer",
    "samplesAggregator": "samples_aggregator",
    "invocationsAggregator": "invocations_aggregator",
    "structuredOutput": "structured_output",
}


def _as_score_result(value: Any) -> ScoreResult:
    if isinstance(value, ScoreResult):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return ScoreResult(score=float(value))
    raise TypeError(f"a response scorer must return a ScoreResult or a number, got {value!r}")


class LLMJudgeEvaluator:
    """An LLM-judge evaluator: a messages constructor plus named operators (module doc)."""

    name: str = "llm_judge"
    description: str = "LLM judge evaluator"

    def __init__(
        self,
        constructor: MessagesConstructor,
        *,
        scorer: str,
        samples_aggregator: str = DEFAULT_SAMPLES_AGGREGATOR,
        invocations_aggregator: str = DEFAULT_INVOCATIONS_AGGREGATOR,
        structured_output: str | None = None,
        operators: OperatorRegistry | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        self.constructor = constructor
        self.stages = StageNames(
            scorer, samples_aggregator, invocations_aggregator, structured_output
        )
        self.operators = operators if operators is not None else OperatorRegistry.default()
        if name is not None:
            self.name = name
        if description is not None:
            self.description = description

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, stages={self.stages})"

    # stage resolution ---------------------------------------------------------------------

    def stage_names(self, metric: EvalMetric) -> StageNames:
        """The evaluator's stage names with the metric's ``extension.operators`` overrides."""
        extension = metric.extension if isinstance(metric.extension, Mapping) else {}
        overrides = extension.get("operators")
        if not isinstance(overrides, Mapping):
            return self.stages
        values = {
            attr: overrides[key]
            for key, attr in _EXTENSION_KEYS.items()
            if isinstance(overrides.get(key), str) and overrides[key]
        }
        return StageNames(**{**_names_dict(self.stages), **values})

    def scorer_for(self, turn: TurnInput) -> ResponseScorer:
        return self.operators.scorer(self.stage_names(turn.metric).scorer)

    def samples_aggregator_for(self, turn: TurnInput) -> SamplesAggregator:
        return self.operators.samples_aggregator(self.stage_names(turn.metric).samples_aggregator)

    def invocations_aggregator_for(self, metric: EvalMetric) -> InvocationsAggregator:
        return self.operators.invocations_aggregator(
            self.stage_names(metric).invocations_aggregator
        )

    def check_operators(self, metric: EvalMetric) -> None:
        """Fail early when a named operator is not registered."""
        names = self.stage_names(metric)
        self.operators.scorer(names.scorer)
        self.operators.samples_aggregator(names.samples_aggregator)
        self.operators.invocations_aggregator(names.invocations_aggregator)
        if names.structured_output:
            self.operators.structured_output(names.structured_output)

    async def structured_output(self, turn: TurnInput) -> dict[str, Any] | None:
        """A named structured output (extension or evaluator), else the constructor's."""
        name = self.stage_names(turn.metric).structured_output
        if name:
            return await maybe_await(self.operators.structured_output(name)(turn))
        provider = getattr(self.constructor, "structured_output", None)
        return None if provider is None else await maybe_await(provider(turn))

    def request_overrides(self, metric: EvalMetric) -> dict[str, Any] | None:
        """Extra request fields for every judge call of the metric (none by default)."""
        return None

    def turn_criterion(self, turn: TurnInput, messages: PromptMessages) -> Criterion | None:
        """The criterion stored with this turn's result (``None`` = the metric's)."""
        return None

    # the loop -----------------------------------------------------------------------------

    async def evaluate(
        self,
        actuals: list[Invocation],
        expecteds: list[Invocation],
        metric: EvalMetric,
        *,
        context: EvaluationContext | None = None,
    ) -> EvaluateResult:
        """Score every turn with the judge (SPEC §4.1, rules in the module doc)."""
        judge_criterion(metric)
        session, n_samples = open_session(
            metric, context, request_overrides=self.request_overrides(metric)
        )
        if len(actuals) != len(expecteds):
            raise EvaluatorError(
                f"actual invocations ({len(actuals)}) and expected invocations "
                f"({len(expecteds)}) count mismatch"
            )
        try:
            self.check_operators(metric)
        except LookupError as exc:
            raise EvaluatorError(error_text(exc)) from exc
        turns: list[PerInvocationResult] = []
        for i in range(len(actuals)):
            turn = TurnInput(list(actuals[: i + 1]), list(expecteds[: i + 1]), metric, i, session)
            turns.append(await self.evaluate_turn(turn, n_samples))
        try:
            aggregate = self.invocations_aggregator_for(metric)
            return await maybe_await(aggregate(turns, metric))
        except Exception as exc:
            raise EvaluatorError(f"aggregate invocations: {error_text(exc)}") from exc

    async def evaluate_turn(self, turn: TurnInput, n_samples: int) -> PerInvocationResult:
        """Steps 3–5 of the module doc for one turn."""
        try:
            messages = await self.constructor.construct(turn)
        except EvaluatorError:
            raise
        except Exception as exc:
            raise EvaluatorError(f"construct messages: {error_text(exc)}") from exc
        try:
            structured = await self.structured_output(turn)
        except Exception as exc:
            raise EvaluatorError(f"resolve structured output: {error_text(exc)}") from exc
        samples = await self.collect_samples(turn, messages, structured, n_samples)
        try:
            chosen = await maybe_await(self.samples_aggregator_for(turn)(samples, turn.metric))
        except Exception as exc:
            raise EvaluatorError(f"aggregate samples: {error_text(exc)}") from exc
        return self.turn_result(turn, messages, samples, chosen)

    async def collect_samples(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        n_samples: int,
    ) -> list[SampleResult]:
        """``n_samples`` samples, concurrently when the metric enables it (sample order kept)."""
        scorer = self.scorer_for(turn)
        llm = judge_criterion(turn.metric)
        if not (llm.sample_parallelism_enabled and n_samples > 1):
            return [
                await self.sample(turn, messages, structured, k, scorer) for k in range(n_samples)
            ]
        limit = min(llm.sample_parallelism or os.cpu_count() or 1, n_samples)
        gate = asyncio.Semaphore(limit)

        async def bounded(k: int) -> SampleResult:
            async with gate:
                return await self.sample(turn, messages, structured, k, scorer)

        return await _gather_in_order([bounded(k) for k in range(n_samples)])

    async def sample(
        self,
        turn: TurnInput,
        messages: PromptMessages,
        structured: dict[str, Any] | None,
        index: int,
        scorer: ResponseScorer,
    ) -> SampleResult:
        """One judge call and its score."""
        try:
            call = await turn.judge.call(messages, structured_output=structured, sample_index=index)
        except Exception as exc:
            raise EvaluatorError(f"judge response: {error_text(exc)}") from exc
        try:
            result = _as_score_result(await maybe_await(scorer(call.response, turn.metric)))
        except Exception as exc:
            raise EvaluatorError(f"score based on response: {error_text(exc)}") from exc
        return self.sample_result(turn, index, call, result)

    def sample_result(
        self, turn: TurnInput, index: int, call: Any, result: ScoreResult
    ) -> SampleResult:
        """A :class:`SampleResult` (with its inspection record) from a scored call."""
        status = status_for(result.score, turn.metric.threshold_value)
        value = result.value or ScoreValue(kind="numeric", numeric=result.score)
        record = turn.judge.sample_record(call, index)
        record.score = result.score
        record.status = str(status)
        record.reason = result.reason
        record.rubric_scores = result.rubric_scores
        return SampleResult(
            index=index,
            score=result.score,
            status=status,
            reason=result.reason,
            value=value,
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
        with_extras(details, judge=self.judge_record(turn, messages, samples))
        return PerInvocationResult(
            actual_invocation=turn.actuals[-1],
            expected_invocation=turn.expecteds[-1],
            score=chosen.score,
            status=chosen.status,
            details=details,
            criterion=self.turn_criterion(turn, messages),
        )

    def judge_record(
        self, turn: TurnInput, messages: PromptMessages, samples: Sequence[SampleResult]
    ) -> JudgeRecord:
        session: JudgeSession = turn.judge
        return JudgeRecord(
            evaluator=self.name,
            model=", ".join(session.models) or None,
            heuristic=session.heuristic,
            prompt=prompt_record(messages),
            extra_calls=turn.extra_calls or None,
            samples=[s.record for s in samples if s.record is not None],
        )


def _names_dict(names: StageNames) -> dict[str, Any]:
    return {
        "scorer": names.scorer,
        "samples_aggregator": names.samples_aggregator,
        "invocations_aggregator": names.invocations_aggregator,
        "structured_output": names.structured_output,
    }


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
