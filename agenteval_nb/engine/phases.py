"""The two phases of a case, as two stages (SPEC §8.2, §8.3, §8.5).

* :func:`infer_stage` — **inference**: load case ``index`` of a run from its source and produce
  its actual turns (trace mode: the recorded ones; default mode: the agent's; scenarios: the
  simulated conversation — :func:`~.inference.infer_case`), between the BeforeInferenceCase and
  AfterInferenceCase callbacks. A callback error fails that case's inference; a case the
  source cannot load comes out :class:`Unloaded`.
* :func:`evaluate_stage` — **evaluation**: score what the inference stage produced
  (:func:`~.case.evaluate_case`), between the BeforeEvaluateCase and AfterEvaluateCase
  callbacks (an error there fails the evaluation: ``run <id> evaluate: <error>``), and hand the
  case result to the evaluation's :class:`Finished`, which passes it on to the sink.
* :func:`infer_then_evaluate` — one case end to end: ``evaluate_stage(infer_stage(case))``,
  or :func:`bulk_stage` when the evaluation runs the bulk path (:mod:`.bulk`) and the case is
  one it takes (a plain trace case, from a file or an eval set in hand: scored without
  models).

With an executor (``RunState.runner``) the case's turns and its score are computed where the
executor runs it; the inference stage brings both back (``Inferred.evaluated``) and the
evaluation stage fires its callbacks around the result it was handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ..agents.capture.attribution import outside
from ..errors import FormatError
from ..io import CaseSource, ModelCases, StreamedCases
from ..schema import EvalCase, EvalCaseResult, EvalStatus
from .bulk import BulkCase, BulkMetric, bulk_case, takes
from .callbacks import CallbackEvent, CallbackPoint
from .case import PlannedMetric, evaluate_case
from .executor import CaseRunner
from .inference import InferenceResult, failed_inference, infer_case
from .options import EngineOptions, ResultSink, TextSink
from .summary import CaseOutcome, case_outcome


class EvaluationError(RuntimeError):
    """The evaluation as a whole failed (bad configuration or a callback error)."""


@dataclass(slots=True)
class Finished:
    """Where the evaluate stage puts finished cases: each one's outcome stays here (for the
    summary) and so do the load errors (for the warning); the result goes on to ``sink``."""

    sink: ResultSink
    outcomes: dict[int, CaseOutcome] = field(default_factory=dict)
    load_errors: list[str] = field(default_factory=list)

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        self.outcomes[position] = case_outcome(result)
        if case is None:
            self.load_errors.append(result.error_message or "")
        self.sink.add(position, case, result)

    def add_bulk(self, position: int, done: BulkCase) -> None:
        """A case of the bulk path: its views and its text go to the sink (a text sink)."""
        self.outcomes[position] = case_outcome(done.result)
        cast(TextSink, self.sink).add_text(
            position, done.case, done.result, done.text, encoded=True
        )


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What every run of one evaluation shares; ``state`` is the callbacks' shared dict."""

    options: EngineOptions
    app_name: str
    plan: list[PlannedMetric]
    finished: Finished
    bulk: tuple[BulkMetric, ...] | None = None
    """The plan on the bulk path (:func:`~.bulk.bulk_metrics`; None: every case takes the
    model path)."""
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunState:
    """One run as its stages see it: the cases to evaluate (``selected`` indices of
    ``source``), their session ids (in case order), the position of the run's first case in the
    evaluation (``offset``) and the executor's runner (None: cases run in this process)."""

    evaluation: Evaluation
    run_id: int
    source: CaseSource
    selected: list[int]
    session_ids: list[str]
    offset: int
    runner: CaseRunner | None = None

    @property
    def set_id(self) -> str:
        return self.source.header.eval_set_id


@dataclass(frozen=True, slots=True)
class Inferred:
    """The inference stage's output for case ``index``: its inference, and the case result when
    an executor already evaluated it (``evaluated``)."""

    index: int
    case: EvalCase
    inference: InferenceResult
    evaluated: EvalCaseResult | None = None


@dataclass(frozen=True, slots=True)
class Unloaded:
    """Case ``index`` could not be loaded from its source: it fails with the loader's message."""

    index: int
    error: FormatError


async def fire(run: RunState, point: CallbackPoint, case_id: str | None = None, **kw: Any) -> None:
    """Run the callbacks of ``point``; the event is built only when there are callbacks."""
    callbacks = run.evaluation.options.callbacks
    if callbacks:
        evaluation = run.evaluation
        event = CallbackEvent(
            point, evaluation.app_name, run.set_id, run.run_id, evaluation.state, case_id, **kw
        )
        await callbacks.fire(event)


async def fire_or_fail(
    run: RunState, phase: str, point: CallbackPoint, case_id: str | None = None, **kw: Any
) -> None:
    """:func:`fire`; an error fails the evaluation as ``run <id> <phase>: <error>`` (SPEC §8.1)."""
    try:
        await fire(run, point, case_id, **kw)
    except Exception as exc:
        raise EvaluationError(f"run {run.run_id} {phase}: {exc}") from exc


async def infer_stage(run: RunState, index: int) -> Inferred | Unloaded:
    """Phase 1 of case ``index``: load it, infer its turns between its callbacks, count it."""
    try:
        case = run.source.case(run.selected[index])
    except FormatError as exc:
        return Unloaded(index, exc)
    inference, evaluated = await _infer_between_callbacks(run, case, run.session_ids[index])
    on_case_inferred = run.evaluation.options.on_case_inferred
    if on_case_inferred is not None:
        on_case_inferred()
    return Inferred(index, case, inference, evaluated)


async def _infer_between_callbacks(
    run: RunState, case: EvalCase, session_id: str
) -> tuple[InferenceResult, EvalCaseResult | None]:
    """The case's inference (and, on an executor, its result); a callback error replaces them
    by a failed inference naming the callback (SPEC §8.5)."""
    try:
        await fire(run, CallbackPoint.BEFORE_INFERENCE_CASE, case.eval_id)
    except Exception as exc:
        return failed_inference(case, session_id, str(exc)), None
    if run.runner is None:
        inference = await infer_case(case, session_id, run.evaluation.options.agents)
        evaluated = None
    else:
        inference, evaluated = await run.runner.run(case, session_id)
    try:
        await fire(run, CallbackPoint.AFTER_INFERENCE_CASE, case.eval_id, result=inference)
    except Exception as exc:
        return failed_inference(case, session_id, str(exc)), None
    return inference, evaluated


async def evaluate_stage(run: RunState, inferred: Inferred | Unloaded) -> EvalCaseResult:
    """Phase 2 of a case: its result between its callbacks, handed on as soon as it is done."""
    if isinstance(inferred, Unloaded):
        return _finish(run, inferred.index, None, unloaded_result(run, inferred))
    case = inferred.case
    await fire_or_fail(run, "evaluate", CallbackPoint.BEFORE_EVALUATE_CASE, case.eval_id)
    result = inferred.evaluated
    if result is None:
        with outside():  # the judge's model calls belong to no agent's turn
            result = await evaluate_case(
                app_name=run.evaluation.app_name,
                eval_set_id=run.set_id,
                case=case,
                inference=inferred.inference,
                plan=run.evaluation.plan,
                context=run.evaluation.options.context,
                aggregator=run.evaluation.options.case_aggregator,
            )
        result.run_id = run.run_id
    await fire_or_fail(
        run, "evaluate", CallbackPoint.AFTER_EVALUATE_CASE, case.eval_id, result=result
    )
    return _finish(run, inferred.index, case, result)


async def infer_then_evaluate(run: RunState, index: int) -> EvalCaseResult | None:
    """Case ``index`` end to end: evaluated as soon as its turns are in — on the bulk path
    when it takes the case (None: its result went to the sink as text), else through the two
    stages."""
    if run.evaluation.bulk is not None and bulk_stage(run, index):
        return None
    return await evaluate_stage(run, await infer_stage(run, index))


def bulk_stage(run: RunState, index: int) -> bool:
    """Case ``index`` on the bulk path (:mod:`.bulk`), counted and handed on; False when the
    case takes the model path."""
    source, metrics = run.source, run.evaluation.bulk
    if metrics is None or not isinstance(source, (StreamedCases, ModelCases)):
        return False
    if isinstance(source, ModelCases) and not takes(source.case(run.selected[index])):
        return False  # the model tells at once; its text is not built for nothing
    data = source.plain(run.selected[index])
    if data is None:
        return False
    options = run.evaluation.options
    done = bulk_case(
        metrics, data, run.set_id, run.run_id, run.session_ids[index], options.context.hooks
    )
    if done is None:
        return False
    if options.on_case_inferred is not None:
        options.on_case_inferred()
    run.evaluation.finished.add_bulk(run.offset + index, done)
    if options.on_case_done is not None:
        options.on_case_done()
    return True


def unloaded_result(run: RunState, unloaded: Unloaded) -> EvalCaseResult:
    """The failed case result of a case that could not be loaded (the loader's message)."""
    return EvalCaseResult(
        eval_set_id=run.set_id,
        eval_id=run.source.eval_ids[run.selected[unloaded.index]],
        run_id=run.run_id,
        final_eval_status=EvalStatus.FAILED.value,
        error_message=str(unloaded.error),
        session_id=run.session_ids[unloaded.index],
    )


def _finish(
    run: RunState, index: int, case: EvalCase | None, result: EvalCaseResult
) -> EvalCaseResult:
    """Hand the result on (position ``offset + index``) and count the case as done."""
    run.evaluation.finished.add(run.offset + index, case, result)
    on_case_done = run.evaluation.options.on_case_done
    if on_case_done is not None:
        on_case_done()
    return result
