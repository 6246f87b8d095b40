"""Where the cases of a run execute: in this process (the default) or elsewhere (Ray).

The unit of work is **one case of one run, end to end**: its inference (the agent's turns) and
its evaluation (every metric), :func:`run_case`. A :class:`CaseExecutor` runs that unit
somewhere else; the engine keeps everything around it in this process — the order of results,
the progress bar, the callbacks (case callbacks fire here before the case is sent and after its
result is back) and the run summary.

A :class:`CaseJob` is what a remote worker needs besides the case: it is sent once per run, so
it must be picklable (agents, judges, custom evaluators and aggregators included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..evaluators.base import EvaluationContext
from ..schema import EvalCase, EvalCaseResult
from .aggregate import CaseAggregator
from .case import PlannedMetric, evaluate_case
from .inference import AgentSetup, InferenceResult, infer_case


@dataclass(slots=True)
class CaseJob:
    """One run's setup, shared by all its cases."""

    app_name: str
    eval_set_id: str
    run_id: int
    plan: list[PlannedMetric]
    aggregator: CaseAggregator
    agents: AgentSetup


async def run_case(
    job: CaseJob, context: EvaluationContext, case: EvalCase, session_id: str
) -> tuple[InferenceResult, EvalCaseResult]:
    """Infer and evaluate one case (no callbacks); failures are results, never raises."""
    inference = await infer_case(case, session_id, job.agents)
    result = await evaluate_case(
        app_name=job.app_name,
        eval_set_id=job.eval_set_id,
        case=case,
        inference=inference,
        plan=job.plan,
        context=context,
        aggregator=job.aggregator,
    )
    result.run_id = job.run_id
    return inference, result


@runtime_checkable
class CaseRunner(Protocol):
    """The cases of one run on an executor: ``run`` per case (a case lost beyond retries comes
    back as a failed result naming why; a result of None: the engine evaluates the inference
    in this process), ``close`` after the run's last case (it also hands the usage totals
    gathered remotely back to the run's context)."""

    async def run(
        self, case: EvalCase, session_id: str
    ) -> tuple[InferenceResult, EvalCaseResult | None]: ...

    async def close(self) -> None: ...


@runtime_checkable
class CaseExecutor(Protocol):
    """Runs :func:`run_case` somewhere else.

    ``open(job, context)`` before a run's first case returns that run's :class:`CaseRunner`
    (runs of one evaluation may be open at the same time); ``in_flight(d)``: how many cases to
    keep in flight, given the engine's default ``d``.
    """

    def in_flight(self, default: int) -> int: ...

    async def open(self, job: CaseJob, context: EvaluationContext) -> CaseRunner: ...


def describe(obj: Any) -> str:
    """A short name of an object for error messages."""
    name = getattr(obj, "name", None) or getattr(obj, "__qualname__", None)
    return f"{type(obj).__name__} {name!r}" if name else type(obj).__name__
