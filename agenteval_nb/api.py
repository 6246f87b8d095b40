"""The user-facing entry points: ``evaluate`` and ``evaluate_async``.

``evaluate_async`` reads top to bottom: check the keywords, open what the evaluation uses (the
judge client, progress bars, the record builder), build the engine's options once, run the
engine, close what was opened, then build the :class:`EvalRun` (and save it when asked).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .agents.base import agent_name, as_agent
from .agents.simulator import as_user_simulator
from .analysis.capture import CaptureCollector
from .analysis.record import RecordBuilder, RunRecord
from .analysis.reviews import keep_marks_in_store
from .batching import job as batching
from .batching.job import batch_config
from .engine.aggregate import CaseAggregator, default_case_aggregator
from .engine.callbacks import Callbacks
from .engine.executor import CaseExecutor
from .engine.inference import AgentSetup, close_agents, describe_agent_secrets
from .engine.options import (
    EngineOptions,
    RunObserver,
    RunPlan,
    case_executor,
    case_id_list,
    judge_concurrency_setting,
    positive_int,
    positive_seconds,
    uuid_session_id,
)
from .engine.run import EngineOutput, plan_runs, run_evaluation, selected_indices
from .errors import ConfigError
from .evalrun import EvalRun
from .evaluators.base import EvaluationContext
from .evaluators.registry import Registry
from .io import CaseSource, Source, as_source, load_metrics_config
from .judge.adaptive import Adaptive
from .judge.batch import BatchConfig
from .judge.budget import check_budget_setup, checked_cap, dollars
from .judge.panel import JudgePanel, OpenPanel, open_panel
from .judge.usage import checked_prices
from .schema import EvalMetric, EvalSet
from .stores.base import ResultStore
from .stores.local import LocalResultStore
from .syncio import run_sync, sync_twin

EvalSetInput = Source | EvalSet
"""An eval set, or a path / JSON text / dict to load one from."""


def _sources(evalset: EvalSetInput | Sequence[EvalSetInput]) -> list[CaseSource]:
    """Each eval set as a case source: a Go-format file is streamed (split now, each case
    validated when evaluated); models, dicts and other formats are loaded whole."""
    if isinstance(evalset, (list, tuple)):
        return [as_source(e) for e in evalset]
    return [as_source(evalset)]  # type: ignore[arg-type]


async def evaluate_async(
    evalset: EvalSetInput | Sequence[EvalSetInput],
    metrics: Source | Sequence[EvalMetric],
    *,
    agent: Any = None,
    num_runs: int | None = None,
    expected_agent: Any = None,
    user_simulator: Any = None,
    tool_mock_agent: Any = None,
    agent_timeout: float | None = None,
    executor: str | CaseExecutor = "local",
    registry: Registry | None = None,
    judge: Any = None,
    cache: bool | str | os.PathLike[str] = True,
    callbacks: Callbacks | None = None,
    case_aggregator: CaseAggregator = default_case_aggregator,
    case_parallelism: int | None = None,
    runs_parallel: bool = False,
    case_ids: str | Sequence[str] | None = None,
    app_name: str | None = None,
    results_dir: str | os.PathLike[str] | None = None,
    result_store: Any = None,
    progress: bool | str = True,
    session_id_factory: Callable[[], str] | None = None,
    judge_num_samples: int | None = None,
    judge_concurrency: int | str | Adaptive = 32,
    judge_max_retries: int = 4,
    judge_timeout: float | None = 180.0,
    requests_per_minute: float | None = None,
    price_table: dict[str, tuple[float, float]] | None = None,
    budget_usd: float | None = None,
    batch: bool | BatchConfig = False,
    wait: bool = True,
    observer: RunObserver | None = None,
) -> EvalRun:
    """Evaluate ``evalset`` with ``metrics`` and return an :class:`EvalRun` (awaitable).

    ``evalset`` is an eval set (or a path, JSON text or dict), or a list of eval sets with the
    same ``evalSetId`` and case ids: the recorded runs 1..N of one evaluation (sets with
    different ids are an error: evaluate them one at a time). An ``evalId`` appearing twice in
    a set is an error. ``metrics`` is a metrics file, JSON text or a list of
    :class:`~agenteval_nb.schema.EvalMetric`. Nothing is written unless ``results_dir`` or
    ``result_store`` is given.

    Agents: ``agent`` runs default-mode cases (a function ``text -> str``, a turn function
    ``turn: ae.Turn -> str | Message | Invocation``, ``ae.agents.OpenAIAgent`` or any object
    with ``run_turn``; trace-mode cases replay their recorded turns); ``expected_agent`` runs
    the cases with ``expectedRunnerEnabled``; ``user_simulator`` plays the user of
    ``conversationScenario`` cases (``ae.agents.LLMUserSimulator`` or a function
    ``(scenario, conversation, last_reply) -> str | None``); ``tool_mock_agent`` answers
    ``toolMock`` rules with an ``llmGenerator``; ``agent_timeout`` bounds each turn (seconds).
    ``executor``: ``"local"`` (this process, the default) or ``ae.RayExecutor(...)`` to run the
    cases — inference and evaluation of each — on a Ray cluster.

    Runs and cases: ``num_runs`` (an int ≥ 1; default: the ``num_runs`` of a ``{"metrics":
    [...], "num_runs": N}`` metrics file, else 1) repeats one eval set, in parallel with
    ``runs_parallel``; ``case_ids`` keeps only these cases (one id as a str, or a list; unknown
    ids are ignored with a warning); ``case_parallelism`` cases are evaluated at once (turns and
    metrics of a case in order; default: twice ``judge_concurrency`` when a judge runs and no
    agent does, so that the judge's per-endpoint limit bounds judge calls, else 8); ``app_name``
    defaults to the first case's ``sessionInput.appName``; ``session_id_factory`` makes session
    ids (uuid4).

    Scoring: ``registry`` holds the evaluators and compare/tokenizer hooks (default: a fresh
    ``Registry.default()``); ``callbacks`` at the eight points of SPEC §8.5;
    ``case_aggregator`` turns metric results into the case score and status (default: all
    metrics must pass).

    Judges: metrics with ``criterion.llmJudge`` call their ``judgeModel`` endpoint through one
    :class:`~agenteval_nb.judge.JudgeClient` per evaluation, or ``judge`` — a callable
    ``judge(messages, structured_output=None)`` returning a chat completion, or a ready
    ``JudgeClient`` — which then stands in for every ``judgeModel`` (``judge_num_samples``
    samples per turn, default 1); or ``judge=ae.JudgePanel({...}, vote=...)``: several judges
    score every LLM metric and vote (:mod:`agenteval_nb.judge.panel`; local executor only, no
    ``budget_usd`` yet). ``cache``: True (user cache dir or
    ``$AGENTEVAL_NB_CACHE_DIR``), a path, or False; ``judge_concurrency`` requests per endpoint
    at once, or ``"adaptive"`` / ``ae.Adaptive(min, start, max, ...)`` to find each endpoint's
    rate limit from its 429s; ``requests_per_minute``; ``judge_max_retries`` (HTTP
    408/409/429/5xx, honouring Retry-After); ``judge_timeout`` seconds per attempt;
    ``price_table`` ``{model: (input $/1M, output $/1M)}``; ``budget_usd`` a hard cap on judge
    spending: each call reserves its worst case first, and the judgements that cannot start are
    ``not_evaluated`` with reason ``budget exhausted ($5.00)`` (every judge model must be
    priced: checked before anything runs).

    Output: ``results_dir`` / ``result_store`` save the result; ``progress`` shows tqdm bars
    (a str: bars labelled with it, as ``ae.experiment`` labels each variant's); ``observer``
    watches the run as it goes (:class:`~agenteval_nb.engine.options.RunObserver`: ``ae.start``
    passes one that journals each finished case-run and stops starting new ones on cancel).

    Batch judging: ``batch=True`` (or an ``ae.BatchConfig``) sends the judge requests the cache
    cannot answer through the provider's batch API at half price (the job is kept in
    ``results_dir``, which is required; :mod:`agenteval_nb.batching.job`); the results equal a
    synchronous run's. ``wait=False`` returns the :class:`BatchJob` once its batches are sent
    (``job.wait()``, ``job.result()``; ``ae.BatchJob.load(results_dir)`` in a new process).
    Not with ``budget_usd`` (a batch is priced when it ends, not call by call) nor through
    ``ae.start``.
    """
    # the keywords, checked (nothing is opened yet)
    sets = _sources(evalset)
    metric_list, file_runs = load_metrics_config(metrics)  # type: ignore[arg-type]
    num_runs = positive_int("num_runs", num_runs if num_runs is not None else file_runs or 1)
    if batch is not False and batch is not None:
        if budget_usd is not None or observer is not None:
            raise ConfigError(
                "batch judging takes no budget_usd and does not run through ae.start: a batch "
                "is priced and scored when the provider ends it"
            )
        job = await BatchJob.start(
            evalset,
            metric_list,
            config=batch_config(batch),
            results_dir=results_dir,
            keywords={
                "agent": agent,
                "expected_agent": expected_agent,
                "user_simulator": user_simulator,
                "tool_mock_agent": tool_mock_agent,
                "agent_timeout": agent_timeout,
                "session_id_factory": session_id_factory,
                "executor": executor,
                "registry": registry,
                "judge": judge,
                "cache": cache,
                "callbacks": callbacks,
                "case_aggregator": case_aggregator,
                "case_parallelism": case_parallelism,
                "runs_parallel": runs_parallel,
                "case_ids": case_ids,
                "app_name": app_name,
                "result_store": result_store,
                "progress": progress,
                "judge_num_samples": judge_num_samples,
                "judge_concurrency": judge_concurrency,
                "judge_max_retries": judge_max_retries,
                "judge_timeout": judge_timeout,
                "requests_per_minute": requests_per_minute,
                "price_table": price_table,
                "num_runs": num_runs,
            },
        )
        return await job.result_async() if wait else job  # type: ignore[return-value]
    registry = registry or Registry.default()
    parallelism = (
        None if case_parallelism is None else positive_int("case_parallelism", case_parallelism)
    )
    ids = case_id_list(case_ids)
    total = _case_count(plan_runs(sets, num_runs), ids)
    agents = _agents(agent, expected_agent, user_simulator, tool_mock_agent, agent_timeout)
    where = case_executor(executor)
    check_panel_executor(judge, where)
    extras = _judge_extras(judge, judge_num_samples)
    settings = judge_settings(
        judge=judge,
        cache=cache,
        judge_concurrency=judge_concurrency,
        judge_max_retries=judge_max_retries,
        judge_timeout=judge_timeout,
        requests_per_minute=requests_per_minute,
        price_table=price_table,
        budget_usd=budget_usd,
    )
    check_budget(settings, metric_list, where)
    # what the evaluation uses, opened; its options, built once
    client, owns_client = open_judge(settings, metric_list)
    panel = open_judge_panel(settings, client)
    context = EvaluationContext(hooks=registry.hooks(), judge=client, extras=extras, panel=panel)
    label = progress if isinstance(progress, str) else ""
    bars = Progress.open(total, agents.runs_agents, label) if progress else Progress()
    builder = RecordBuilder(metric_list)
    if observer is not None:
        plan = RunPlan(
            sets[0].header.eval_set_id,
            num_runs,
            None if ids is None else tuple(ids),
            tuple(m.metric_name for m in metric_list),
            total,
            lambda: {
                "judge": client.usage.as_dict() if client is not None else {},
                "agent": dict(agents.usage),
            },
        )
        observer.begin(plan)
    watched = builder if observer is None else observer.sink(builder)
    sink = CaptureCollector(watched) if agents.agent is not None else watched
    options = EngineOptions(
        registry=registry,
        context=context,
        num_runs=num_runs,
        app_name=app_name,
        callbacks=callbacks,
        case_aggregator=case_aggregator,
        case_parallelism=parallelism,
        runs_parallel=runs_parallel,
        case_ids=None if ids is None else tuple(ids),
        session_id_factory=session_id_factory or uuid_session_id,
        on_case_done=bars.case_done,
        on_case_inferred=bars.case_inferred,
        agents=agents,
        executor=where,
        sink=sink,
        admit=None if observer is None else observer.admit,
    )
    # the run, then the EvalRun
    try:
        out = await run_evaluation(sets, metric_list, options)
    finally:
        bars.close()
        await close_agents(agents)
        await close_judge(client, owns_client)
    for message in out.warnings:
        warnings.warn(message, stacklevel=2)
    capture = sink.rows() if isinstance(sink, CaptureCollector) else []
    return evaluation_run(out, builder, context, agents, results_dir, result_store, capture)


class BatchJob(batching.BatchJob):
    """A batch-judged evaluation (``ae.BatchJob``; :mod:`agenteval_nb.batching.job`): its
    passes run :func:`evaluate_async`. ``BatchJob.load(results_dir)`` resumes one."""

    evaluate_fn = staticmethod(evaluate_async)

    def wait(self) -> BatchJob:
        """Block until every batch ended (:meth:`wait_async`)."""
        run_sync(self.wait_async)
        return self

    def result(self) -> EvalRun:
        """The scored run (:meth:`result_async`), waiting first if needed."""
        return run_sync(self.result_async)

    def cancel(self) -> None:
        """Cancel the provider batches still running (:meth:`cancel_async`)."""
        run_sync(self.cancel_async)


@sync_twin(evaluate_async)
def evaluate() -> EvalRun:  # type: ignore[empty-body]
    """Evaluate ``evalset`` with ``metrics`` and return an :class:`EvalRun`.

    Works in a plain script and inside a running event loop (Jupyter): there the engine runs on
    a private loop in a worker thread.
    """


def evaluation_run(
    out: EngineOutput,
    builder: RecordBuilder,
    context: EvaluationContext,
    agents: AgentSetup,
    results_dir: str | os.PathLike[str] | None,
    result_store: Any,
    capture: list[dict[str, Any]] | None = None,
) -> EvalRun:
    """The :class:`EvalRun` of a finished evaluation, saved to ``result_store`` (or a local
    store in ``results_dir``) when one is given; ``capture``: the capture report's rows."""
    parts = out.summary_parts
    record = builder.record(
        out.result,
        sources=out.sources,
        case_summaries=parts.case_summaries if parts is not None else None,
        case_summary_wires=parts.case_summary_wires if parts is not None else None,
        metrics=out.metrics,
        warnings=out.warnings,
        app_name=out.app_name,
        elapsed_s=out.elapsed_s,
    )
    run = EvalRun(record=record)
    if context.judge is not None:
        run.info["judge_usage"] = context.judge.usage.as_dict()
        budget = getattr(context.judge, "budget", None)
        if budget is not None:
            run.info["judge_budget"] = budget.as_dict()
            if budget.refused:
                warnings.warn(
                    f"judge budget of {dollars(budget.cap_usd)} exhausted: {budget.refused} "
                    "judge calls were not started (their metrics are not_evaluated)",
                    stacklevel=3,
                )
        history = getattr(context.judge, "concurrency_history", None)
        if history is not None and context.judge.adaptive is not None:
            run.info["judge_concurrency"] = history()
    if agents.agent is not None:
        run.info["agent"] = agent_name(agents.agent)
    if agents.expected_agent is not None:
        run.info["expected_agent"] = agent_name(agents.expected_agent)
    if agents.usage:
        run.info["agent_usage"] = dict(agents.usage)
    if capture:
        run.info["capture"] = capture
    saved_id = save_run(record, results_dir, result_store, out.app_name)
    if saved_id is not None:
        run.info["saved_result_id"] = saved_id
    return run


def save_run(
    record: RunRecord,
    results_dir: str | os.PathLike[str] | None,
    result_store: Any,
    app_name: str,
) -> str | None:
    """Save ``record`` to ``result_store`` (or a local store in ``results_dir``); its id, or
    None when neither is given. Marks set on the run later are kept beside it."""
    if results_dir is not None and result_store is None:
        result_store = LocalResultStore(Path(results_dir))
    if result_store is None:
        return None
    saved_id: str = record.save_to(result_store, app_name)
    if isinstance(result_store, ResultStore):
        keep_marks_in_store(record, result_store, app_name, saved_id)
    return saved_id


def _case_count(run_sets: Sequence[CaseSource], case_ids: Sequence[str] | None) -> int:
    """Cases the engine will evaluate over all runs (the progress bars' total)."""
    return sum(len(selected_indices(source, case_ids)) for source in run_sets)


def _agents(
    agent: Any, expected_agent: Any, user_simulator: Any, tool_mock_agent: Any, timeout: Any
) -> AgentSetup:
    """The evaluation's agents, their turn timeout and the secrets they hold (redacted from
    every failure message)."""
    roles: dict[str, Any] = {
        "agent": None if agent is None else as_agent(agent),
        "expected_agent": None if expected_agent is None else as_agent(expected_agent),
        "tool_mock_agent": None if tool_mock_agent is None else as_agent(tool_mock_agent),
        "user_simulator": None if user_simulator is None else as_user_simulator(user_simulator),
    }
    return AgentSetup(
        **roles,
        timeout_s=positive_seconds("agent_timeout", timeout),
        secrets=describe_agent_secrets(*roles.values()),
    )


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """The judge keywords of :func:`evaluate_async` (``judge``: an injected judge or None)."""

    judge: Any
    cache: bool | str | os.PathLike[str]
    concurrency: int | Adaptive
    max_retries: int
    timeout: float | None
    requests_per_minute: float | None
    price_table: dict[str, tuple[float, float]] | None
    budget_usd: float | None = None

    def __post_init__(self) -> None:
        checked_prices(self.price_table)  # refused here, before any case runs
        if self.budget_usd is not None:
            checked_cap(self.budget_usd)


def judge_settings(
    *,
    judge: Any,
    cache: bool | str | os.PathLike[str],
    judge_concurrency: int | str | Adaptive,
    judge_max_retries: int,
    judge_timeout: float | None,
    requests_per_minute: float | None,
    price_table: dict[str, tuple[float, float]] | None,
    budget_usd: float | None = None,
) -> JudgeSettings:
    """The :class:`JudgeSettings` of the judge keywords of the front doors (``ae.evaluate``,
    ``ae.experiment``: the same names) — their one builder, where a keyword meets its
    setting; the concurrency is checked here (an int ≥ 1, ``"adaptive"`` or an
    ``Adaptive``), the budget in :class:`JudgeSettings`."""
    return JudgeSettings(
        judge=judge,
        cache=cache,
        concurrency=judge_concurrency_setting(judge_concurrency),
        max_retries=judge_max_retries,
        timeout=judge_timeout,
        requests_per_minute=requests_per_minute,
        price_table=price_table,
        budget_usd=budget_usd,
    )


def check_budget(
    settings: JudgeSettings, metrics: Sequence[EvalMetric], executor: CaseExecutor | None
) -> None:
    """With ``budget_usd``: a ``ConfigError`` before any call (agents included) unless every
    judge call can be priced and bounded (:func:`~agenteval_nb.judge.budget.check_budget_setup`),
    the client is the one this evaluation opens, and the cases run in this process (the
    ledger lives in one process)."""
    if settings.budget_usd is None:
        return
    from .judge import JudgeClient

    if isinstance(settings.judge, JudgeClient):
        raise ConfigError(
            "budget_usd applies to the judge client ae.evaluate opens; a given JudgeClient "
            "takes its own: JudgeClient(budget_usd=...)"
        )
    if executor is not None:
        raise ConfigError("budget_usd needs the local executor: the ledger lives in one process")
    if isinstance(settings.judge, JudgePanel | OpenPanel):
        raise ConfigError(
            "budget_usd with a JudgePanel is not supported yet: each member's calls would need "
            "one shared ledger; cap the members' JudgeClients instead (JudgeClient(budget_usd=...))"
        )
    check_budget_setup(
        [
            (m.metric_name, m.criterion.llm_judge.judge_model)
            for m in metrics
            if m.criterion is not None and m.criterion.llm_judge is not None
        ],
        checked_prices(settings.price_table),
        injected=settings.judge is not None,
    )


def _uses_judge(metric: EvalMetric) -> bool:
    return metric.criterion is not None and metric.criterion.llm_judge is not None


def _judge_extras(judge: Any, judge_num_samples: int | None) -> dict[str, Any]:
    """The context extras for an injected judge's sample count (SPEC §4.1)."""
    if judge_num_samples is None:
        return {}
    if judge is None:
        raise ValueError("judge_num_samples needs an injected judge")
    return {"judge_num_samples": positive_int("judge_num_samples", judge_num_samples)}


def open_judge(settings: JudgeSettings, metrics: Sequence[EvalMetric]) -> tuple[Any, bool]:
    """The evaluation's judge service and whether the evaluation owns it: a given
    ``JudgeClient`` as is; else, when a judge is injected or a metric has ``llmJudge``, a new
    client (the injected judge is never cached; a panel's judge models call through this
    client, cached); else None."""
    if settings.judge is None and not any(_uses_judge(m) for m in metrics):
        return None, False
    from .judge import JudgeClient

    if isinstance(settings.judge, JudgeClient):
        return settings.judge, False
    injected = None if isinstance(settings.judge, JudgePanel | OpenPanel) else settings.judge
    return _client(settings, injected), True


def _client(settings: JudgeSettings, injected: Any) -> Any:
    """A new judge client with the evaluation's settings (``injected``: a callable judge)."""
    from .judge import JudgeClient

    return JudgeClient(
        judge=injected,
        cache=None if injected is not None else settings.cache,
        max_retries=settings.max_retries,
        timeout=settings.timeout,
        requests_per_minute=settings.requests_per_minute,
        price_table=settings.price_table,
        **judge_concurrency_kwargs(settings.concurrency),
        budget_usd=settings.budget_usd,
    )


def check_panel_executor(judge: Any, executor: CaseExecutor | None) -> None:
    """A panel runs on the local executor only (checked before anything is opened)."""
    if isinstance(judge, JudgePanel | OpenPanel) and executor is not None:
        raise ValueError("a JudgePanel runs with the local executor only (executor='local')")


def open_judge_panel(settings: JudgeSettings, client: Any) -> OpenPanel | None:
    """The evaluation's panel when ``judge`` is a :class:`JudgePanel`: its judge models call
    through ``client``; each callable judge gets a client of its own that adds to
    ``client``'s usage totals. An :class:`OpenPanel` (opened once by ``ae.experiment`` for
    all its variants) is used as it is."""
    if not isinstance(settings.judge, JudgePanel | OpenPanel):
        return None
    if isinstance(settings.judge, OpenPanel):
        return settings.judge

    def member_client(judge: Any) -> Any:
        member = _client(settings, judge)
        member.usage = client.usage
        return member

    return open_panel(settings.judge, client, member_client)


def judge_concurrency_kwargs(concurrency: int | Adaptive) -> dict[str, Any]:
    """The :class:`~agenteval_nb.judge.JudgeClient` keywords of a concurrency setting."""
    if isinstance(concurrency, Adaptive):
        return {"max_concurrency": concurrency.max, "concurrency": concurrency}
    return {"max_concurrency": concurrency}


async def close_judge(client: Any, owned: bool) -> None:
    """Close an owned client; a given one only lets go of this loop's HTTP clients."""
    if owned:
        await client.aclose()
    elif client is not None:
        await client.close_loop_clients()


@dataclass(frozen=True, slots=True)
class Progress:
    """The tqdm bars of an evaluation: cases done, and cases inferred when agents run."""

    cases: Any = None
    inference: Any = None

    @classmethod
    def open(cls, total: int, runs_agents: bool, label: str = "") -> Progress:
        """The bars, their descriptions prefixed with ``label: `` when one is given."""
        prefix = f"{label}: " if label else ""
        return cls(
            _bar(total, f"{prefix}cases"),
            _bar(total, f"{prefix}inference") if runs_agents else None,
        )

    @property
    def case_done(self) -> Callable[[], Any] | None:
        return None if self.cases is None else self.cases.update

    @property
    def case_inferred(self) -> Callable[[], Any] | None:
        return None if self.inference is None else self.inference.update

    def close(self) -> None:
        for bar in (self.inference, self.cases):
            if bar is not None:
                bar.close()


def _bar(total: int, desc: str) -> Any:
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    return tqdm(total=total, desc=desc, unit="case")
