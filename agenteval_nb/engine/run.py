"""An evaluation: runs 1..N, each its cases through the two phases, then the summary (SPEC §8.1).

Per run (:func:`run_one`): BeforeInferenceSet, then the cases in one of two compositions of the
stages of :mod:`.phases`, at most :func:`~.options.case_pool_size` cases in flight, then
AfterEvaluateSet:

* **streaming** (the default, and always on an executor): :func:`~.phases.infer_then_evaluate`
  per case — a case is loaded when its turn comes, evaluated as soon as its turns are in,
  handed to the sink and dropped;
* **all inferences first**, only when callbacks sit between the phases (AfterInferenceSet,
  BeforeEvaluateSet see the whole set): the inference stage over every case, those callbacks,
  then the evaluation stage over every inference.

Session ids are drawn in case order when a run starts. A set-level callback error fails the
evaluation (``run <id> inference: …`` / ``run <id> evaluate: …``); case results already handed
to the sink stay there.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from .._gc import gc_frozen, gc_paused
from ..errors import ConfigError
from ..evaluators.registry import Registry
from ..io import CaseSource, as_source
from ..schema import EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult
from .bulk import bulk_metrics
from .callbacks import CallbackPoint, Callbacks
from .case import PlannedMetric, plan_metric
from .executor import CaseJob, CaseRunner
from .options import (
    CASES_PER_JUDGE_SLOT,
    DEFAULT_CASE_PARALLELISM,
    EngineOptions,
    ResultSink,
    case_id_list,
    case_pool_size,
    positive_int,
)
from .phases import (
    Evaluation,
    EvaluationError,
    Finished,
    Inferred,
    RunState,
    evaluate_stage,
    fire_or_fail,
    infer_stage,
    infer_then_evaluate,
)
from .pool import for_each_bounded, map_bounded
from .summary import SummaryParts, summary_parts

__all__ = [  # the engine's entry points, with the option helpers users of the engine need
    "CASES_PER_JUDGE_SLOT",
    "DEFAULT_CASE_PARALLELISM",
    "CollectedResults",
    "EngineOptions",
    "EngineOutput",
    "EvaluationError",
    "ResultSink",
    "case_id_list",
    "case_pool_size",
    "plan_metrics",
    "plan_runs",
    "positive_int",
    "run_evaluation",
    "selected_indices",
]

T = TypeVar("T")


@dataclass(slots=True)
class CollectedResults:
    """The default sink: keeps every case result model (``ordered()``: in position order)."""

    results: dict[int, EvalCaseResult] = field(default_factory=dict)

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        self.results[position] = result

    def ordered(self) -> list[EvalCaseResult]:
        return [self.results[p] for p in sorted(self.results)]


@dataclass(slots=True)
class EngineOutput:
    """What the engine returns: the result (with its case results and whole summary when no
    sink was given; else without them: the sink has the results, ``summary_parts`` the case
    summaries), the sources evaluated, and what the analysis layer wants to know."""

    result: EvalSetResult
    summary_parts: SummaryParts | None
    """With a sink: the summary's parts (``result.summary`` is then its head, without
    ``evalCaseSummaries``, which :meth:`SummaryParts.case_summaries` builds on request)."""
    sources: list[CaseSource]
    metrics: list[EvalMetric]
    warnings: list[str] = field(default_factory=list)
    app_name: str = ""
    elapsed_s: float = 0.0


def plan_runs(evalsets: Sequence[EvalSet | CaseSource], num_runs: int) -> list[Any]:
    r"""The eval set of each run 1..N: one set repeated ``num_runs`` times, or several sets as the
    recorded runs of one eval set (eval set models or :class:`~agenteval_nb.io.CaseSource`\ s,
    returned as given).

    Raises :class:`~agenteval_nb.errors.ConfigError` when no set is given, when sets given
    together have different ``evalSetId``s (they are not runs of one set: evaluate each on its
    own), when ``num_runs`` is neither 1 nor the number of recorded runs, and when a set holds an
    ``evalId`` twice (a case would be two runs of itself, and pass@k would count it twice).
    """
    if not evalsets:
        raise ConfigError("no eval set given")
    for evalset in evalsets:
        _check_unique_ids(evalset)
    if len(evalsets) == 1:
        return [evalsets[0]] * num_runs
    ids = list(dict.fromkeys(_set_id(es) for es in evalsets))
    if len(ids) > 1:
        raise ConfigError(
            f"{len(evalsets)} eval sets with different evalSetIds ({', '.join(map(repr, ids))}) "
            "were passed together; a list of eval sets is read as the recorded runs 1..N of one "
            "eval set, which share its evalSetId. Give the recorded runs the same evalSetId, or "
            "evaluate different eval sets one at a time (one ae.evaluate call per set)."
        )
    if num_runs not in (1, len(evalsets)):
        raise ConfigError(f"num_runs={num_runs} conflicts with {len(evalsets)} recorded runs")
    return list(evalsets)


def _set_id(evalset: EvalSet | CaseSource) -> str:
    return evalset.eval_set_id if isinstance(evalset, EvalSet) else evalset.header.eval_set_id


def _case_ids(evalset: EvalSet | CaseSource) -> list[str]:
    if isinstance(evalset, EvalSet):
        return [c.eval_id for c in evalset.eval_cases or () if c is not None]
    return evalset.eval_ids


def _check_unique_ids(evalset: EvalSet | CaseSource) -> None:
    seen: dict[str, int] = {}
    for i, eval_id in enumerate(_case_ids(evalset)):
        if eval_id in seen:
            raise ConfigError(
                f"eval set {_set_id(evalset)!r}: evalId {eval_id!r} appears twice "
                f"(evalCases[{seen[eval_id]}] and evalCases[{i}]); eval ids must be unique"
            )
        seen[eval_id] = i


def _app_name(source: CaseSource, explicit: str | None) -> str:
    return explicit or source.app_name or source.header.eval_set_id


def plan_metrics(
    metrics: Sequence[EvalMetric], registry: Registry
) -> tuple[list[PlannedMetric], list[str]]:
    """Look up every metric's evaluator; unknown ones are skipped with a warning (not silently).

    A compare / tokenizer name no hook is registered under fails the evaluation (SPEC §8.2).
    """
    try:
        registry.resolve_names(metrics)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from exc
    plan: list[PlannedMetric] = []
    warnings: list[str] = []
    for metric in metrics:
        evaluator = registry.lookup(metric)
        if evaluator is None:
            warnings.append(
                f"metric {metric.metric_name!r}: no evaluator registered as "
                f"{metric.evaluator_key!r}; the metric was skipped"
            )
            continue
        plan.append(plan_metric(metric, evaluator))
    return plan, warnings


async def run_evaluation(
    evalsets: Sequence[EvalSet | CaseSource], metrics: Sequence[EvalMetric], options: EngineOptions
) -> EngineOutput:
    """Evaluate ``evalsets`` as runs 1..N (one eval set repeated ``num_runs`` times, or a list of
    recorded runs that share case ids) and summarise. Case results go to ``options.sink`` as
    they finish (else they are collected into the returned result)."""
    if options.agents.runs_agents:
        with gc_frozen():  # live agents make cycles: collect them, not the loaded data
            return await _run_evaluation(evalsets, metrics, options)
    with gc_paused(keep=True):  # the results are long-lived: no rescan of them afterwards
        return await _run_evaluation(evalsets, metrics, options)


async def _run_evaluation(
    evalsets: Sequence[EvalSet | CaseSource], metrics: Sequence[EvalMetric], options: EngineOptions
) -> EngineOutput:
    started = time.perf_counter()
    run_sets: list[CaseSource] = [as_source(s) for s in plan_runs(evalsets, options.num_runs)]
    app_name = _app_name(run_sets[0], options.app_name)
    plan, warnings = plan_metrics(metrics, options.registry)
    warnings.extend(_unknown_case_ids(run_sets, options.case_ids))
    _check_composition(options)
    collected = CollectedResults() if options.sink is None else None
    sink: ResultSink = options.sink or collected  # type: ignore[assignment]
    evaluation = Evaluation(options, app_name, plan, Finished(sink), bulk_metrics(options, plan))
    await run_all(evaluation, run_sets)
    warnings.extend(_load_warning(evaluation.finished.load_errors))
    result, parts = summarise(evaluation, run_sets[0].header.eval_set_id, len(run_sets), collected)
    return EngineOutput(
        result=result,
        summary_parts=parts,
        sources=_unique(run_sets),
        metrics=list(metrics),
        warnings=warnings,
        app_name=app_name,
        elapsed_s=time.perf_counter() - started,
    )


async def run_all(evaluation: Evaluation, run_sets: Sequence[CaseSource]) -> None:
    """Runs 1..N one after the other, or all at once with ``runs_parallel``."""
    offsets = _offsets(run_sets, evaluation.options.case_ids)
    runs = [(run_id, source, offsets[run_id - 1]) for run_id, source in enumerate(run_sets, 1)]
    if evaluation.options.runs_parallel and len(runs) > 1:
        await asyncio.gather(*(run_one(evaluation, *run) for run in runs))
    else:
        for run in runs:
            await run_one(evaluation, *run)


def summarise(
    evaluation: Evaluation, set_id: str, num_runs: int, collected: CollectedResults | None
) -> tuple[EvalSetResult, SummaryParts | None]:
    """The evaluation's result, summarised from its case outcomes: whole when the engine
    collected the case results; else its summary's head, with the summary's parts."""
    app_name = evaluation.app_name
    result_id = f"{app_name}_{set_id}_{uuid.uuid4()}"
    outcomes = evaluation.finished.outcomes
    parts = summary_parts([outcomes[p] for p in sorted(outcomes)], num_runs)
    result = EvalSetResult(
        eval_set_result_id=result_id,
        eval_set_result_name=result_id,
        eval_set_id=set_id,
        eval_case_results=collected.ordered() if collected is not None else None,
        summary=parts.whole() if collected is not None else parts.head,
        creation_timestamp=time.time(),
    )
    return result, None if collected is not None else parts


_BETWEEN_PHASES = (CallbackPoint.AFTER_INFERENCE_SET, CallbackPoint.BEFORE_EVALUATE_SET)


def _has(callbacks: Callbacks | None, *points: CallbackPoint) -> bool:
    return callbacks is not None and any(callbacks.has(p) for p in points)


def _check_composition(options: EngineOptions) -> None:
    """An executor runs each case end to end: it cannot wait between the phases."""
    if options.executor is not None and _has(options.callbacks, *_BETWEEN_PHASES):
        raise EvaluationError(
            "AfterInferenceSet / BeforeEvaluateSet callbacks see every inference before any "
            "evaluation; that needs executor='local'"
        )


async def run_one(evaluation: Evaluation, run_id: int, source: CaseSource, offset: int) -> None:
    """Run ``run_id`` over ``source``: its set callbacks around its cases (SPEC §8.2, §8.3);
    each case result goes to the sink at position ``offset + index`` as soon as it is done."""
    options = evaluation.options
    selected = selected_indices(source, options.case_ids)
    session_ids = [options.session_id_factory() for _ in selected]  # before the first await
    runner = await _open_runner(evaluation, run_id, source)
    run = RunState(evaluation, run_id, source, selected, session_ids, offset, runner)
    pool = case_pool_size(options)
    try:
        await fire_or_fail(run, "inference", CallbackPoint.BEFORE_INFERENCE_SET)
        if _has(options.callbacks, *_BETWEEN_PHASES):
            results = await infer_all_then_evaluate(run, pool)
        else:
            stage = _admitted(run, infer_then_evaluate)
            results = await _each_case(run, stage, range(len(selected)), pool)
        await fire_or_fail(run, "evaluate", CallbackPoint.AFTER_EVALUATE_SET, result=results)
    finally:
        if runner is not None:
            await runner.close()


async def infer_all_then_evaluate(run: RunState, pool: int) -> list[EvalCaseResult]:
    """The composition for callbacks between the phases: every case's inference, then
    AfterInferenceSet and BeforeEvaluateSet, then every evaluation."""
    infer = _admitted(run, infer_stage)
    inferred = [
        each
        for each in await map_bounded(range(len(run.selected)), partial(infer, run), pool)
        if each is not None
    ]
    inferences = [each.inference for each in inferred if isinstance(each, Inferred)]
    await fire_or_fail(run, "inference", CallbackPoint.AFTER_INFERENCE_SET, result=inferences)
    await fire_or_fail(run, "evaluate", CallbackPoint.BEFORE_EVALUATE_SET)
    return await _each_case(run, evaluate_stage, inferred, pool)


def _admitted(
    run: RunState, stage: Callable[[RunState, int], Awaitable[T]]
) -> Callable[[RunState, int], Awaitable[T | None]]:
    """``stage`` for case-runs the options' ``admit`` lets start (all without one); a case-run
    left out is absent from the run: no result, no outcome."""
    admit = run.evaluation.options.admit
    if admit is None:
        return stage
    eval_ids = run.source.eval_ids

    async def admitted(run: RunState, index: int) -> T | None:
        if not admit(run.run_id, eval_ids[run.selected[index]]):
            return None
        return await stage(run, index)

    return admitted


async def _each_case(
    run: RunState,
    stage: Callable[[RunState, T], Awaitable[EvalCaseResult | None]],
    items: Sequence[T],
    pool: int,
) -> list[EvalCaseResult]:
    """``stage(run, item)`` for every item, ``pool`` at a time; the results are kept only for
    AfterEvaluateSet callbacks (the sink has them anyway; with callbacks no case takes the bulk
    path, whose result is None)."""
    if _has(run.evaluation.options.callbacks, CallbackPoint.AFTER_EVALUATE_SET):
        results = await map_bounded(items, partial(stage, run), pool)
        return [result for result in results if result is not None]
    await for_each_bounded(items, partial(stage, run), pool)
    return []


async def _open_runner(
    evaluation: Evaluation, run_id: int, source: CaseSource
) -> CaseRunner | None:
    """The executor's runner of this run (None: the cases run in this process)."""
    options = evaluation.options
    if options.executor is None:
        return None
    job = CaseJob(
        evaluation.app_name,
        source.header.eval_set_id,
        run_id,
        evaluation.plan,
        options.case_aggregator,
        options.agents,
    )
    return await options.executor.open(job, options.context)


def _offsets(sources: Sequence[CaseSource], case_ids: Sequence[str] | None) -> list[int]:
    """The position of each run's first case in the evaluation."""
    offsets = [0]
    for source in sources[:-1]:
        offsets.append(offsets[-1] + len(selected_indices(source, case_ids)))
    return offsets


def _load_warning(load_errors: Sequence[str]) -> list[str]:
    if not load_errors:
        return []
    more = " …" if len(load_errors) > 1 else ""
    return [
        f"{len(load_errors)} case(s) could not be loaded and failed with the reason as their "
        f"errorMessage: {load_errors[0]}{more}"
    ]


def selected_indices(source: CaseSource, case_ids: Sequence[str] | None) -> list[int]:
    """Indices of the cases of ``source`` to evaluate (all, or those in ``case_ids``)."""
    if case_ids is None:
        return list(range(len(source.eval_ids)))
    wanted = set(case_ids)
    return [i for i, eval_id in enumerate(source.eval_ids) if eval_id in wanted]


def _unknown_case_ids(sources: Sequence[CaseSource], case_ids: Sequence[str] | None) -> list[str]:
    """A warning naming requested case ids that no eval set holds (the reference ignores them)."""
    if case_ids is None:
        return []
    known = {eval_id for source in sources for eval_id in source.eval_ids}
    unknown = [i for i in dict.fromkeys(case_ids) if i not in known]
    if not unknown:
        return []
    shown = ", ".join(map(repr, unknown[:5])) + (" …" if len(unknown) > 5 else "")
    return [f"case_ids: {len(unknown)} id(s) not in the eval set were ignored: {shown}"]


def _unique(sources: Sequence[CaseSource]) -> list[CaseSource]:
    seen: set[int] = set()
    out = []
    for source in sources:
        if id(source) not in seen:
            seen.add(id(source))
            out.append(source)
    return out
