"""Runs of an evaluation: inference then evaluate phase per run, then the summary (SPEC §8.1)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Protocol

from .._gc import gc_frozen, gc_paused
from ..errors import ConfigError, FormatError
from ..evaluators.base import EvaluationContext
from ..evaluators.registry import Registry
from ..io import CaseSource, as_source
from ..schema import EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, EvalStatus
from .aggregate import CaseAggregator, default_case_aggregator
from .callbacks import CallbackEvent, CallbackPoint, Callbacks
from .case import PlannedMetric, evaluate_case, plan_metric
from .executor import CaseExecutor, CaseJob
from .inference import AgentSetup, InferenceResult, failed_inference, infer_case
from .pool import map_bounded
from .summary import CaseOutcome, SummaryParts, case_outcome, summary_parts

DEFAULT_CASE_PARALLELISM = 8
"""Cases evaluated at once when no judge is involved and none was asked for."""

CASES_PER_JUDGE_SLOT = 2
"""With a judge, cases in flight per request slot of its endpoint limiter (see
:func:`case_pool_size`)."""


class EvaluationError(RuntimeError):
    """The evaluation as a whole failed (bad configuration or a callback error)."""


class ResultSink(Protocol):
    """Where finished case results go, one at a time, while the run goes on.

    ``position`` orders the case results of the whole evaluation (run by run, cases in eval-set
    order); results arrive in completion order. ``case`` is the eval case (None when it could
    not be loaded). The sink owns the result from then on: the engine keeps only its
    :data:`~.summary.CaseOutcome`.
    """

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None: ...


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


@dataclass(slots=True)
class EngineOptions:
    """Knobs of one evaluation (see :func:`agenteval_nb.evaluate`)."""

    registry: Registry
    context: EvaluationContext
    num_runs: int = 1
    app_name: str | None = None
    callbacks: Callbacks | None = None
    case_aggregator: CaseAggregator = default_case_aggregator
    case_parallelism: int | None = None
    runs_parallel: bool = False
    case_ids: Sequence[str] | None = None
    session_id_factory: Callable[[], str] = lambda: str(uuid.uuid4())
    on_case_done: Callable[[], None] | None = None
    on_case_inferred: Callable[[], None] | None = None
    agents: AgentSetup = field(default_factory=AgentSetup)
    executor: CaseExecutor | None = None
    sink: ResultSink | None = None

    def __post_init__(self) -> None:
        self.num_runs = positive_int("num_runs", self.num_runs)
        if self.case_parallelism is not None:
            self.case_parallelism = positive_int("case_parallelism", self.case_parallelism)
        self.case_ids = case_id_list(self.case_ids)


def positive_int(name: str, value: Any) -> int:
    """``value`` as an ``int`` when it is an integer ≥ 1 (numpy integers included); bools,
    floats and strings are a ``TypeError``, ``0`` and negatives a
    :class:`~agenteval_nb.errors.ConfigError` (SPEC §8.1: greater than 0)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a positive int, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ConfigError(f"{name} must be greater than 0, got {value}")
    return int(value)


def case_id_list(case_ids: Any) -> list[str] | None:
    """``case_ids`` as a list: one string is one id (never its characters); None keeps every
    case; any other iterable must hold strings only."""
    if case_ids is None:
        return None
    if isinstance(case_ids, str):
        return [case_ids]
    if isinstance(case_ids, (bytes, Mapping)) or not isinstance(case_ids, Iterable):
        raise TypeError(f"case_ids must be a str or a list of str, got {type(case_ids).__name__}")
    ids = list(case_ids)
    bad = [i for i in ids if not isinstance(i, str)]
    if bad:
        raise TypeError(f"case_ids must hold strings, got {bad[0]!r} ({type(bad[0]).__name__})")
    return ids


def plan_runs(evalsets: Sequence[EvalSet | CaseSource], num_runs: int) -> list[Any]:
    r"""The eval set of each run 1..N: one set repeated ``num_runs`` times, or several sets as the
    recorded runs of one eval set (eval set models or :class:`~agenteval_nb.sources.CaseSource`\ s,
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


def case_pool_size(options: EngineOptions) -> int:
    """How many cases are in flight at once (inference and evaluation).

    ``case_parallelism`` when given. Otherwise :data:`DEFAULT_CASE_PARALLELISM`, except for
    judge-bound work — a judge (``context.judge``) and no agent to run — where it is the
    judge's per-endpoint concurrency times :data:`CASES_PER_JUDGE_SLOT` (at least the default):
    the judge's endpoint limiter, not the case pool, then bounds the judge requests, while the
    extra cases do their own CPU work between calls; in-flight cases stay bounded. Agents have
    no such limiter, so with an agent the default keeps bounding its endpoint.
    """
    if options.case_parallelism is not None:
        return options.case_parallelism
    if options.agents.runs_agents:
        return DEFAULT_CASE_PARALLELISM
    judge_slots = getattr(options.context.judge, "max_concurrency", None)
    if isinstance(judge_slots, int) and judge_slots > 0:
        return max(DEFAULT_CASE_PARALLELISM, CASES_PER_JUDGE_SLOT * judge_slots)
    return DEFAULT_CASE_PARALLELISM


def _app_name(source: CaseSource, explicit: str | None) -> str:
    return explicit or source.app_name or source.header.eval_set_id


def plan_metrics(
    metrics: Sequence[EvalMetric], registry: Registry
) -> tuple[list[PlannedMetric], list[str]]:
    """Look up every metric's evaluator; unknown ones are skipped with a warning (not silently)."""
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
    primary = run_sets[0]
    app_name = _app_name(primary, options.app_name)
    try:
        options.registry.resolve_names(metrics)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from exc
    plan, warnings = plan_metrics(metrics, options.registry)
    warnings.extend(_unknown_case_ids(run_sets, options.case_ids))
    state: dict[str, Any] = {}
    collected = CollectedResults() if options.sink is None else None
    sink: ResultSink = options.sink or collected  # type: ignore[assignment]
    outcomes: dict[int, CaseOutcome] = {}
    unloadable: list[str] = []

    def keep(position: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        outcomes[position] = case_outcome(result)
        sink.add(position, case, result)

    offsets = [0]
    for source in run_sets:
        offsets.append(offsets[-1] + len(selected_indices(source, options.case_ids)))

    async def one_run(run_id: int) -> None:
        source = run_sets[run_id - 1]
        await _run_once(
            run_id, source, app_name, plan, options, state, offsets[run_id - 1], keep, unloadable
        )

    if options.runs_parallel and len(run_sets) > 1:
        await asyncio.gather(*(one_run(r) for r in range(1, len(run_sets) + 1)))
    else:
        for r in range(1, len(run_sets) + 1):
            await one_run(r)

    if unloadable:
        warnings.append(
            f"{len(unloadable)} case(s) could not be loaded and failed with the reason as their "
            f"errorMessage: {unloadable[0]}" + (" …" if len(unloadable) > 1 else "")
        )
    set_id = primary.header.eval_set_id
    result_id = f"{app_name}_{set_id}_{uuid.uuid4()}"
    parts = summary_parts([outcomes[p] for p in sorted(outcomes)], len(run_sets))
    result = EvalSetResult(
        eval_set_result_id=result_id,
        eval_set_result_name=result_id,
        eval_set_id=set_id,
        eval_case_results=collected.ordered() if collected is not None else None,
        summary=parts.whole() if collected is not None else parts.head,
        creation_timestamp=time.time(),
    )
    return EngineOutput(
        result=result,
        summary_parts=None if collected is not None else parts,
        sources=_unique(run_sets),
        metrics=list(metrics),
        warnings=warnings,
        app_name=app_name,
        elapsed_s=time.perf_counter() - started,
    )


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


class _PhaseError(Exception):
    """A set-level failure inside a case task, tagged with its phase for the run's message."""

    def __init__(self, phase: str, cause: Exception) -> None:
        super().__init__(str(cause))
        self.phase = phase
        self.cause = cause


_BETWEEN_PHASES = (CallbackPoint.AFTER_INFERENCE_SET, CallbackPoint.BEFORE_EVALUATE_SET)


async def _run_once(
    run_id: int,
    source: CaseSource,
    app_name: str,
    plan: list[PlannedMetric],
    options: EngineOptions,
    state: dict[str, Any],
    offset: int,
    keep: Callable[[int, EvalCase | None, EvalCaseResult], None],
    unloadable: list[str],
) -> None:
    """One run: inference then evaluation of every case (SPEC §8.2, §8.3); each case result goes
    to ``keep`` at position ``offset + index`` as soon as it is done.

    Cases flow through both phases one by one (a case is loaded from its source when its turn
    comes, evaluated as soon as its turns are in, and dropped), at most :func:`case_pool_size`
    at a time. Only when callbacks sit between the phases (AfterInferenceSet,
    BeforeEvaluateSet) does the run wait for every inference first, as those callbacks see the
    whole set. Session ids are drawn in case order. A case that cannot be loaded becomes a
    failed case result with the loader's message.
    """
    selected = selected_indices(source, options.case_ids)
    ids = [source.eval_ids[i] for i in selected]
    set_id = source.header.eval_set_id
    session_ids = [options.session_id_factory() for _ in selected]
    callbacks = options.callbacks
    between_phases = bool(callbacks) and any(callbacks.has(p) for p in _BETWEEN_PHASES)  # type: ignore[union-attr]
    whole_set = bool(callbacks) and callbacks.has(CallbackPoint.AFTER_EVALUATE_SET)  # type: ignore[union-attr]
    run_results: list[EvalCaseResult | None] = [None] * len(selected) if whole_set else []
    loaded: dict[int, EvalCase] = {}

    def case_at(index: int) -> EvalCase:
        """Case ``index`` validated from the source (kept only when both phases need it)."""
        case = loaded.get(index)
        if case is None:
            case = source.case(selected[index])
            if between_phases:
                loaded[index] = case
        return case

    def done(index: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        """Hand the result on; nothing here keeps it (unless AfterEvaluateSet wants the set)."""
        if whole_set:
            run_results[index] = result
        keep(offset + index, case, result)
        if options.on_case_done is not None:
            options.on_case_done()

    def unloaded(index: int, exc: FormatError) -> None:
        unloadable.append(str(exc))
        failed = EvalCaseResult(
            eval_set_id=set_id,
            eval_id=ids[index],
            run_id=run_id,
            final_eval_status=EvalStatus.FAILED.value,
            error_message=str(exc),
            session_id=session_ids[index],
        )
        done(index, None, failed)

    async def fire(point: CallbackPoint, case_id: str | None = None, **kw: Any) -> None:
        """Run the callbacks of ``point``; the event is built only when there are callbacks."""
        if options.callbacks:
            event = CallbackEvent(point, app_name, set_id, run_id, state, case_id, **kw)
            await options.callbacks.fire(event)

    async def infer_one(index: int, case: EvalCase) -> InferenceResult:
        inference = await _infer_with_callbacks(case, session_ids[index], options, fire)
        if options.on_case_inferred is not None:
            options.on_case_inferred()
        return inference

    async def evaluate_one(
        index: int,
        case: EvalCase,
        inference: InferenceResult,
        finished: EvalCaseResult | None = None,
    ) -> None:
        """Evaluate (unless an executor already did: ``finished``) with the case callbacks."""
        try:
            await fire(CallbackPoint.BEFORE_EVALUATE_CASE, case.eval_id)
            if finished is not None:
                result = finished
            else:
                result = await evaluate_case(
                    app_name=app_name,
                    eval_set_id=set_id,
                    case=case,
                    inference=inference,
                    plan=plan,
                    context=options.context,
                    aggregator=options.case_aggregator,
                )
                result.run_id = run_id
            await fire(CallbackPoint.AFTER_EVALUATE_CASE, case.eval_id, result=result)
        except Exception as exc:
            raise _PhaseError("evaluate", exc) from exc
        done(index, case, result)

    executor = options.executor

    async def elsewhere(index: int) -> None:
        """One case on the executor; the case callbacks fire here, around it."""
        try:
            case = case_at(index)
        except FormatError as exc:
            return unloaded(index, exc)
        session_id = session_ids[index]
        try:
            await fire(CallbackPoint.BEFORE_INFERENCE_CASE, case.eval_id)
        except Exception as exc:
            return await evaluate_one(index, case, failed_inference(case, session_id, str(exc)))
        inference, result = await runner.run(case, session_id)  # type: ignore[union-attr]
        try:
            await fire(CallbackPoint.AFTER_INFERENCE_CASE, case.eval_id, result=inference)
        except Exception as exc:
            return await evaluate_one(index, case, failed_inference(case, session_id, str(exc)))
        if options.on_case_inferred is not None:
            options.on_case_inferred()
        return await evaluate_one(index, case, inference, result)

    async def both(index: int) -> None:
        try:
            case = case_at(index)
        except FormatError as exc:
            return unloaded(index, exc)
        return await evaluate_one(index, case, await infer_one(index, case))

    async def infer_only(index: int) -> InferenceResult | FormatError:
        try:
            case = case_at(index)
        except FormatError as exc:
            return exc
        return await infer_one(index, case)

    async def evaluate_inferred(index: int, inference: InferenceResult | FormatError) -> None:
        if isinstance(inference, FormatError):
            return unloaded(index, inference)
        return await evaluate_one(index, case_at(index), inference)

    indices = list(range(len(selected)))
    pool = case_pool_size(options)
    runner = None
    if executor is not None:
        if between_phases:
            raise EvaluationError(
                "AfterInferenceSet / BeforeEvaluateSet callbacks see every inference before any "
                "evaluation; that needs executor='local'"
            )
        pool = executor.in_flight(pool)
        job = CaseJob(app_name, set_id, run_id, plan, options.case_aggregator, options.agents)
        runner = await executor.open(job, options.context)
    try:
        try:
            await fire(CallbackPoint.BEFORE_INFERENCE_SET)
        except Exception as exc:
            raise _PhaseError("inference", exc) from exc
        if executor is not None:
            await map_bounded(indices, elsewhere, pool)
        elif between_phases:
            inferences = await map_bounded(indices, infer_only, pool)
            try:
                await fire(
                    CallbackPoint.AFTER_INFERENCE_SET,
                    result=[i for i in inferences if not isinstance(i, FormatError)],
                )
            except Exception as exc:
                raise _PhaseError("inference", exc) from exc
            try:
                await fire(CallbackPoint.BEFORE_EVALUATE_SET)
            except Exception as exc:
                raise _PhaseError("evaluate", exc) from exc
            await map_bounded(indices, lambda i: evaluate_inferred(i, inferences[i]), pool)
        else:
            await map_bounded(indices, both, pool)
        try:
            await fire(CallbackPoint.AFTER_EVALUATE_SET, result=run_results)
        except Exception as exc:
            raise _PhaseError("evaluate", exc) from exc
    except _PhaseError as exc:
        raise EvaluationError(f"run {run_id} {exc.phase}: {exc.cause}") from exc.cause
    finally:
        if runner is not None:
            await runner.close()


async def _infer_with_callbacks(
    case: EvalCase,
    session_id: str,
    options: EngineOptions,
    fire: Callable[..., Awaitable[None]],
) -> InferenceResult:
    try:
        await fire(CallbackPoint.BEFORE_INFERENCE_CASE, case.eval_id)
    except Exception as exc:
        return failed_inference(case, session_id, str(exc))
    inference = await infer_case(case, session_id, options.agents)
    try:
        await fire(CallbackPoint.AFTER_INFERENCE_CASE, case.eval_id, result=inference)
    except Exception as exc:
        return failed_inference(case, session_id, str(exc))
    return inference
