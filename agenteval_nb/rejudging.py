"""``ae.rejudge``: a recorded run's judge metrics scored again by another judge (JUDGES.md §4).

Rules:

* **the recorded turns are the inference**: each case result that was scored becomes a
  trace-mode case whose ``actualConversation`` / ``conversation`` are the recorded actual and
  expected turns (as evaluated: context messages already in them) and whose rubrics are the
  eval case's, when the run knows it. The engine's inference stage only reads them back: the
  agent (and the expected runner, the user simulator) is never called;
* **only the judge metrics run** (those with ``criterion.llmJudge``; ``metrics=`` narrows them);
  after each case is scored, the recorded results of the other metrics are copied in as they
  are — overall and per turn, in the run's metric order — and the case score and status are
  aggregated again (``case_aggregator``, default: all metrics must pass);
* a case result the run could not score (its inference or evaluation failed: no turns) is
  copied as it is; a judge failure fails its case with the reason, as in ``ae.evaluate``;
* ``judge``: ``None`` asks each metric's own ``judgeModel`` again (a cached repeat is free);
  a ``judgeModel`` spec — :class:`~agenteval_nb.schema.JudgeModelOptions` or a dict of its
  fields (``{"modelName": "gpt-4o-mini"}``) — replaces the fields it sets in every judge
  metric's ``judgeModel`` (the rest stays: endpoint, ``numSamples``, generation config);
  anything else ``ae.evaluate(judge=...)`` takes (a callable, a ``JudgeClient``) is handed on
  as it is. Over HTTP the judge cache (``cache=``) answers repeated requests;
* the new run keeps the run's ids, session ids, eval sets and human marks (they judge the same
  recorded turns), and says where it came from in ``info["rejudged"]``.
"""

from __future__ import annotations

import inspect
import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .analysis.record import RecordBuilder, RunRecord
from .analysis.reviews import marks_of
from .api import Progress, close_judge, evaluation_run, judge_settings, open_judge
from .engine.aggregate import (
    CaseAggregationInput,
    CaseAggregator,
    check_aggregation,
    default_case_aggregator,
)
from .engine.callbacks import CallbackEvent, CallbackPoint, Callbacks
from .engine.inference import AgentSetup, InferenceResult
from .engine.options import EngineOptions, positive_int, uuid_session_id
from .engine.run import run_evaluation
from .errors import ConfigError
from .evalrun import EvalRun
from .evaluators.base import EvaluationContext
from .evaluators.registry import Registry
from .io import CaseSource, ModelCases
from .runs import as_run
from .schema import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalSet,
    EvalStatus,
    Invocation,
    JudgeModelOptions,
    SessionInput,
)
from .syncio import sync_twin

__all__ = [
    "StandIns",
    "chosen_metrics",
    "judge_label",
    "judge_metric_names",
    "judge_stand_ins",
    "model_spec",
    "rejudge",
    "rejudge_async",
    "with_judge_model",
]


def judge_metric_names(metrics: Sequence[EvalMetric]) -> list[str]:
    """Names of the metrics scored by an LLM judge (``criterion.llmJudge`` set)."""
    return [m.metric_name for m in metrics if m.criterion is not None and m.criterion.llm_judge]


def model_spec(judge: Any) -> JudgeModelOptions | None:
    """``judge`` as a ``judgeModel`` spec, or None when it is another kind of judge."""
    if isinstance(judge, JudgeModelOptions):
        return judge
    if isinstance(judge, dict):  # a plain dict: other mappings may be judges (a panel)
        return JudgeModelOptions.model_validate(judge)
    return None


def with_judge_model(metrics: Sequence[EvalMetric], spec: JudgeModelOptions) -> list[EvalMetric]:
    """``metrics`` with the fields ``spec`` sets replacing those of each judge metric's
    ``judgeModel`` (a metric without one takes ``spec``); other metrics unchanged."""
    fields = {name: getattr(spec, name) for name in spec.model_fields_set}
    out = []
    for metric in metrics:
        llm = metric.criterion.llm_judge if metric.criterion is not None else None
        if llm is None:
            out.append(metric)
            continue
        model = llm.judge_model.model_copy(update=fields) if llm.judge_model else spec
        criterion = metric.criterion.model_copy(  # type: ignore[union-attr]
            update={"llm_judge": llm.model_copy(update={"judge_model": model})}
        )
        out.append(metric.model_copy(update={"criterion": criterion}))
    return out


def judge_label(judge: Any) -> str:
    """A short name for ``judge`` (never its API key): the model of a spec, the callable's
    name, else its type."""
    spec = model_spec(judge)
    if spec is not None:
        return spec.model_name or "judgeModel"
    if judge is None:
        return "the run's judge"
    inner = getattr(judge, "judge", judge)
    return str(getattr(inner, "__qualname__", None) or type(inner).__name__)


# -- the recorded run as trace-mode eval sets ---------------------------------------------------


def _turns(result: EvalCaseResult) -> tuple[list[Invocation], list[Invocation]] | None:
    """The recorded (actual, expected) turns of a scored case result, else None."""
    per_turn = result.eval_metric_result_per_invocation or []
    actuals = [p.actual_invocation for p in per_turn]
    expecteds = [p.expected_invocation for p in per_turn]
    if not per_turn or any(a is None for a in actuals) or any(e is None for e in expecteds):
        return None
    return actuals, expecteds  # type: ignore[return-value]


def _stand_in(record: RunRecord, result: EvalCaseResult) -> EvalCase:
    """The trace-mode case that replays ``result``'s recorded turns (module rules); a case
    result without turns gives a case without turns (its recorded result is kept)."""
    turns = _turns(result)
    original = record.eval_case(result.eval_id or "")
    return EvalCase(
        eval_id=result.eval_id or "",
        eval_mode="trace",
        session_input=SessionInput(app_name=record.app_name or None, user_id=result.user_id),
        conversation=turns[1] if turns else None,
        actual_conversation=turns[0] if turns else None,
        rubrics=original.rubrics if original is not None else None,
    )


@dataclass(frozen=True, slots=True)
class Recorded:
    """The recorded run laid out for the engine: one trace eval set per run id 1..N (a run
    the record lacks is an empty set, so every case keeps its run id) and the recorded case
    result and stand-in of each (run id, eval id)."""

    sets: list[EvalSet]
    results: dict[tuple[int, str], EvalCaseResult]
    cases: dict[tuple[int, str], EvalCase]


def recorded_sets(record: RunRecord) -> Recorded:
    """The run's case results as trace eval sets, run by run (module rules); a case result
    without a run id is run 1's."""
    by_run: dict[int, list[EvalCaseResult]] = {}
    for result in record.case_results():
        by_run.setdefault(result.run_id or 1, []).append(result)
    set_id = record.header.eval_set_id or "rejudged"
    sets, results, cases = [], {}, {}
    for run_id in range(1, max(by_run, default=1) + 1):
        stand_ins = []
        for result in by_run.get(run_id, ()):
            case = _stand_in(record, result)
            stand_ins.append(case)
            results[(run_id, case.eval_id)] = result
            cases[(run_id, case.eval_id)] = case
        sets.append(EvalSet(eval_set_id=set_id, eval_cases=stand_ins))
    return Recorded(sets, results, cases)


# -- copying the other metrics back in ----------------------------------------------------------


def _replaced(
    recorded: Sequence[EvalMetricResult], judged: Sequence[EvalMetricResult], names: set[str]
) -> list[EvalMetricResult]:
    """The recorded metric results in their order, those named in ``names`` replaced by the
    judged ones (a judged metric the run did not record is appended)."""
    new = {r.metric_name: r for r in judged}
    out = [new.get(r.metric_name, r) if r.metric_name in names else r for r in recorded]
    seen = {r.metric_name for r in recorded}
    return out + [r for r in judged if r.metric_name not in seen]


@dataclass(slots=True)
class Merger:
    """The AfterEvaluateCase callback of a rejudge: completes each judged case result in place
    with the recorded results of the other metrics (module rules), before the engine
    summarises it and hands it on."""

    recorded: Recorded
    judged: set[str]
    metrics: list[EvalMetric]
    aggregator: CaseAggregator
    app_name: str

    async def __call__(self, event: CallbackEvent) -> None:
        key = (event.run_id, event.eval_case_id or "")
        result: EvalCaseResult = event.result
        old = self.recorded.results[key]
        if _turns(old) is None:  # nothing was scored: the recorded result stands
            for name in type(old).model_fields:
                setattr(result, name, getattr(old, name))
            return
        if result.eval_metric_result_per_invocation is None:
            return  # the judge failed the case: its reason stands, as in ae.evaluate
        result.overall_eval_metric_results = _replaced(
            old.overall_eval_metric_results or [],
            result.overall_eval_metric_results or [],
            self.judged,
        )
        for new_turn, old_turn in zip(
            result.eval_metric_result_per_invocation,
            old.eval_metric_result_per_invocation or [],
            strict=True,
        ):
            new_turn.eval_metric_results = _replaced(
                old_turn.eval_metric_results or [],
                new_turn.eval_metric_results or [],
                self.judged,
            )
        await self._aggregate(key, result)

    async def _aggregate(self, key: tuple[int, str], result: EvalCaseResult) -> None:
        case = self.recorded.cases[key]
        inference = InferenceResult(
            eval_case_id=result.eval_id or "",
            session_id=result.session_id or "",
            user_id=result.user_id,
            status=EvalStatus.PASSED,
            inferences=list(case.actual_conversation or ()),
            expected_inferences=list(case.conversation or ()),
        )
        outcome = self.aggregator(
            CaseAggregationInput(
                app_name=self.app_name,
                eval_set_id=result.eval_set_id or "",
                eval_case=case,
                inference_result=inference,
                eval_metrics=self.metrics,
                metric_results=result.overall_eval_metric_results or [],
            )
        )
        if inspect.isawaitable(outcome):
            outcome = await outcome
        checked = check_aggregation(outcome)
        result.score, result.final_eval_status = checked.score, str(checked.status)


# -- the judge phase over stand-ins ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StandIns:
    """What a judge phase scores: trace eval sets (one per run), the judge metrics to run
    (``planned``), every metric the resulting run lists (``metrics``) and the eval sets it
    says it evaluated (``sources``)."""

    sets: list[EvalSet]
    planned: list[EvalMetric]
    metrics: list[EvalMetric]
    sources: list[CaseSource]


async def judge_stand_ins(
    stand_ins: StandIns,
    context: EvaluationContext,
    registry: Registry,
    *,
    app_name: str,
    case_aggregator: CaseAggregator = default_case_aggregator,
    callbacks: Callbacks | None = None,
    session_ids: Iterator[str] | None = None,
    progress: bool | str = False,
    results_dir: str | os.PathLike[str] | None = None,
    result_store: Any = None,
) -> EvalRun:
    """The engine over trace-mode stand-ins with no agent: each case's inference reads its
    turns back, its evaluation runs the planned judge metrics with ``context``'s judge (opened
    and closed by the caller); the run as :func:`agenteval_nb.evaluate` builds it."""
    builder = RecordBuilder(stand_ins.metrics)
    total = sum(len(s.eval_cases or ()) for s in stand_ins.sets)
    label = progress if isinstance(progress, str) else "rejudge"
    bars = Progress.open(total, False, label) if progress else Progress()
    options = EngineOptions(
        registry=registry,
        context=context,
        num_runs=len(stand_ins.sets),
        app_name=app_name or None,
        callbacks=callbacks,
        case_aggregator=case_aggregator,
        session_id_factory=uuid_session_id if session_ids is None else session_ids.__next__,
        on_case_done=bars.case_done,
        sink=builder,
    )
    try:
        out = await run_evaluation(stand_ins.sets, stand_ins.planned, options)
    finally:
        bars.close()
    out.metrics, out.sources = stand_ins.metrics, stand_ins.sources
    return evaluation_run(out, builder, context, AgentSetup(), results_dir, result_store)


# -- the front door -----------------------------------------------------------------------------


def chosen_metrics(metrics: Sequence[EvalMetric], wanted: str | Sequence[str] | None) -> list[str]:
    """The judge metrics to score again: all of ``metrics``' judge metrics, or those named in
    ``wanted`` (a name or a list; a name that is not a judge metric is an error)."""
    all_judge = judge_metric_names(metrics)
    if wanted is None:
        return all_judge
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    unknown = [n for n in names if n not in all_judge]
    if unknown:
        raise ConfigError(
            f"metrics={unknown!r}: not judge metrics of the run (its judge metrics: {all_judge!r})"
        )
    return names


async def rejudge_async(
    run: Any,
    judge: Any = None,
    *,
    metrics: str | Sequence[str] | None = None,
    registry: Registry | None = None,
    case_aggregator: CaseAggregator = default_case_aggregator,
    cache: bool | str | os.PathLike[str] = True,
    judge_num_samples: int | None = None,
    judge_concurrency: int = 32,
    judge_max_retries: int = 4,
    judge_timeout: float | None = 180.0,
    requests_per_minute: float | None = None,
    price_table: dict[str, tuple[float, float]] | None = None,
    progress: bool | str = True,
    results_dir: str | os.PathLike[str] | None = None,
    result_store: Any = None,
) -> EvalRun:
    """The run ``run`` (an ``EvalRun``, a result file …) with its judge metrics scored again by
    ``judge`` from the recorded turns (awaitable; rules in :mod:`agenteval_nb.rejudging`).

    ``metrics``: the judge metrics to score again (a name or a list; default all of them).
    ``progress``: a tqdm bar over the cases (a str labels it).
    The judge keywords are those of :func:`agenteval_nb.evaluate`; ``registry`` holds the judge
    evaluators (default ``Registry.default()``). The run must know its metrics (a run from
    ``ae.evaluate``, or ``ae.load_run(..., metrics=...)``).
    """
    source = run if isinstance(run, RunRecord) else as_run(run, "ae.rejudge").record
    if not source.metrics:
        raise ConfigError(
            "ae.rejudge needs the run's metrics: a run from ae.evaluate, or one loaded with "
            "ae.load_run(path, metrics=...)"
        )
    names = chosen_metrics(source.metrics, metrics)
    spec = model_spec(judge)
    all_metrics = with_judge_model(source.metrics, spec) if spec is not None else source.metrics
    planned = [m for m in all_metrics if m.metric_name in names]
    recorded = recorded_sets(source)
    merger = Merger(recorded, set(names), all_metrics, case_aggregator, source.app_name)
    extras = {}
    if judge_num_samples is not None:
        extras["judge_num_samples"] = positive_int("judge_num_samples", judge_num_samples)
    settings = judge_settings(
        judge=None if spec is not None else judge,
        cache=cache,
        judge_concurrency=judge_concurrency,
        judge_max_retries=judge_max_retries,
        judge_timeout=judge_timeout,
        requests_per_minute=requests_per_minute,
        price_table=price_table,
    )
    registry = registry or Registry.default()
    client, owns = open_judge(settings, planned)
    context = EvaluationContext(hooks=registry.hooks(), judge=client, extras=extras)
    sessions = itertools.chain.from_iterable(
        [recorded.results[(k, c.eval_id)].session_id or "" for c in s.eval_cases or ()]
        for k, s in enumerate(recorded.sets, 1)
    )
    try:
        rejudged = await judge_stand_ins(
            StandIns(
                recorded.sets, planned, all_metrics, [ModelCases(es) for es in source.evalsets]
            ),
            context,
            registry,
            app_name=source.app_name,
            case_aggregator=case_aggregator,
            callbacks=Callbacks().register(CallbackPoint.AFTER_EVALUATE_CASE, merger, "rejudge"),
            session_ids=sessions,
            progress=progress,
            results_dir=results_dir,
            result_store=result_store,
        )
    finally:
        await close_judge(client, owns)
    rejudged.record.marks = marks_of(source)
    rejudged.info["rejudged"] = {
        "from": source.header.eval_set_result_id,
        "judge": judge_label(judge),
        "metrics": names,
    }
    return rejudged


@sync_twin(rejudge_async)
def rejudge() -> EvalRun:  # type: ignore[empty-body]
    """The run ``run`` with its judge metrics scored again by ``judge`` from the recorded turns;
    the agent is never called.

    Works in a plain script and inside a running event loop (Jupyter).
    """
