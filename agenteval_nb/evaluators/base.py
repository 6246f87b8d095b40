"""The evaluator contract (SPEC §2).

An evaluator scores the actual turns of one case against the expected turns under one metric.
``evaluate`` is async so that judge-backed evaluators can await their calls; deterministic
evaluators simply do not await. Built-in evaluators also accept a keyword ``context``
(:class:`EvaluationContext`) through which the engine hands them resolved hooks and the judge;
user evaluators may accept it too, or keep the three-argument form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..criteria.hooks import NO_HOOKS, Hooks
from ..schema import Criterion, EvalMetric, EvalMetricResultDetails, EvalStatus, Invocation


@dataclass(slots=True)
class PerInvocationResult:
    """Score of one turn; ``details`` carries reason, typed value and rubric scores.

    ``criterion``, when set, replaces the metric's criterion in this turn's stored result (the
    template evaluator stores the prompt rendered for the turn, SPEC §6.6).
    """

    actual_invocation: Invocation | None
    expected_invocation: Invocation | None
    score: float
    status: EvalStatus | str
    details: EvalMetricResultDetails | None = None
    criterion: Criterion | None = None


@dataclass(slots=True)
class EvaluateResult:
    """Overall score and status of a metric over a case, with the per-turn results."""

    overall_score: float
    overall_status: EvalStatus | str
    per_invocation_results: list[PerInvocationResult] = field(default_factory=list)


@dataclass(slots=True)
class EvaluationContext:
    """Services the engine offers evaluators during one evaluation.

    ``hooks``: compare functions and tokenizers resolved from the registry.
    ``judge``: the judge service of the run (``None`` when no LLM metric runs), see
    :mod:`agenteval_nb.judge`.
    ``extras``: free-form room for services added by later layers or by users.
    ``panel``: the evaluation's judge panel (:class:`~agenteval_nb.judge.panel.OpenPanel`),
    which then scores every LLM metric in place of a lone judge; ``None`` otherwise.
    """

    hooks: Hooks = NO_HOOKS
    judge: Any = None
    extras: dict[str, Any] = field(default_factory=dict)
    panel: Any = None


@runtime_checkable
class Evaluator(Protocol):
    """What the registry holds: a name, a description and an async ``evaluate``."""

    name: str
    description: str

    async def evaluate(
        self,
        actuals: list[Invocation],
        expecteds: list[Invocation],
        metric: EvalMetric,
    ) -> EvaluateResult: ...


class EvaluatorError(Exception):
    """An evaluator could not score a case (the case fails with this message)."""
