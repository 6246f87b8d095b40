"""The stages of the LLM-judge pipeline (SPEC §4.1) as interfaces, and the data between them.

One turn is judged as: a **messages constructor** builds the prompt (and optionally a
**structured output** schema) from the prefix of turns → the judge is called ``numSamples``
times → a **response scorer** turns each answer into a :class:`ScoreResult` → a **samples
aggregator** picks the turn's result from the :class:`SampleResult` list → after the last turn
an **invocations aggregator** makes the metric result.

Operators are plain callables (sync or async, both accepted):

* ``ResponseScorer(response: dict, metric: EvalMetric) -> ScoreResult | float`` — ``response``
  is the chat-completion dict; raise to fail the metric (``score based on response: …``);
* ``SamplesAggregator(samples: list[SampleResult], metric) -> SampleResult``;
* ``InvocationsAggregator(turns: list[PerInvocationResult], metric) -> EvaluateResult``;
* ``StructuredOutputProvider(turn: TurnInput) -> dict | None`` — a
  ``{"type": "json_schema", "json_schema": {...}}`` object;
* a messages constructor has ``async construct(turn) -> list[{"role", "content"}]`` and may
  have ``structured_output(turn)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...schema import EvalMetric, EvalStatus, Invocation, RubricScore, ScoreValue
from ...schema.extras import JudgeSample
from ..base import EvaluateResult, PerInvocationResult

if TYPE_CHECKING:
    from ...judge import JudgeCall
    from .judging import JudgeSession

__all__ = [
    "InvocationsAggregator",
    "MessagesConstructor",
    "PromptMessages",
    "ResponseScorer",
    "SampleResult",
    "SamplesAggregator",
    "ScoreResult",
    "StructuredOutputProvider",
    "TurnInput",
]

PromptMessages = list[dict[str, str]]
"""Judge messages: ``[{"role": "user", "content": "..."}]``."""


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
    """Everything a constructor or provider may read for turn ``index``.

    ``actuals`` / ``expecteds`` are the prefixes ``[: index + 1]``; ``state`` carries data from
    the constructor to later stages of the same turn (e.g. resolved template operators).
    """

    actuals: list[Invocation]
    expecteds: list[Invocation]
    metric: EvalMetric
    index: int
    judge: JudgeSession
    extra_calls: list[JudgeSample] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    async def extra_call(self, messages: PromptMessages, *, purpose: str) -> JudgeCall:
        """A judge call outside the scored samples (recorded in ``JudgeRecord.extra_calls``)."""
        call = await self.judge.call(messages, sample_index=0)
        record = self.judge.sample_record(call)
        record.reason = purpose
        self.extra_calls.append(record)
        return call


@runtime_checkable
class MessagesConstructor(Protocol):
    """Builds the judge prompt of one turn."""

    async def construct(self, turn: TurnInput) -> PromptMessages: ...


ResponseScorer = Callable[[dict[str, Any], EvalMetric], "ScoreResult | float | Awaitable[Any]"]
SamplesAggregator = Callable[[Sequence[SampleResult], EvalMetric], "SampleResult | Awaitable[Any]"]
InvocationsAggregator = Callable[
    [Sequence[PerInvocationResult], EvalMetric], "EvaluateResult | Awaitable[Any]"
]
StructuredOutputProvider = Callable[[TurnInput], "dict[str, Any] | Awaitable[Any] | None"]
