"""``RayExecutor``: run the cases of an evaluation on a Ray cluster (optional extra ``ray``).

How a run is laid out:

* ``open``: connects to Ray (``ray.init(address)``; a local instance when ``address`` is
  ``None`` and Ray is not running yet), starts ``workers`` async actors on first use (default:
  the cluster's CPUs; reused by later runs and evaluations), checks that everything a worker
  needs pickles (the agents, the judge, custom evaluators, hooks and the case aggregator — a
  clear ``TypeError`` names the object otherwise) and puts the run's
  :class:`~agenteval_nb.engine.executor.CaseJob` in the object store once; each worker fetches
  it on its first case of the run.
* ``run``: one case, inference and evaluation, on the least busy worker; up to
  ``max_in_flight`` cases are in flight (default: the engine's case pool). Results come back in
  case order into the same run record; progress and callbacks stay in the driver.
* Faults: a worker process that dies is restarted by Ray, and every case that was in flight on
  it is tried again on a worker (``max_retries`` times); a case still lost after that — e.g. one
  that kills every worker it runs on — or any other Ray error fails **only that case**, with
  ``ray: <error>`` as its reason. The run always completes.
* Judge limits across workers: each worker builds its own judge client with **a share** of the
  limits — ``ceil(judge_concurrency / workers)`` requests at once and
  ``requests_per_minute / workers`` — so the cluster as a whole stays within the limits given
  to ``ae.evaluate``; the cache is the same SQLite file (WAL) on one machine, a per-node file on
  a cluster unless the path is on shared storage. Judge and agent usage totals are gathered from
  the workers when the run ends.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from typing import Any

from ..engine.executor import CaseJob, describe, run_case
from ..engine.inference import InferenceResult
from ..evaluators.base import EvaluationContext
from ..judge import JudgeClient
from ..schema import EvalCase, EvalCaseResult, EvalStatus
from ..secrets import redact

try:
    import ray
    from ray import cloudpickle
    from ray.exceptions import RayActorError, RayError
except ImportError as exc:  # the optional extra is missing
    raise ImportError("RayExecutor needs Ray: pip install 'agenteval_nb[ray]'") from exc


@dataclass(slots=True)
class _WorkerSetup:
    """What every worker needs for one run: the job, the hooks and the judge's settings."""

    job: CaseJob
    hooks: Any
    extras: dict[str, Any]
    judge_settings: dict[str, Any] | None


@ray.remote
class _CaseWorker:
    """An async actor running cases; it keeps one event loop and, per open run, the run's job
    and judge client. A restarted worker learns a run again from its setup reference."""

    def __init__(self) -> None:
        self.runs: dict[str, tuple[CaseJob, EvaluationContext]] = {}

    async def _run_state(self, key: str, setup_ref: list[Any]) -> tuple[CaseJob, EvaluationContext]:
        state = self.runs.get(key)
        if state is None:
            setup: _WorkerSetup = await setup_ref[0]
            context = EvaluationContext(hooks=setup.hooks, extras=dict(setup.extras))
            if setup.judge_settings is not None:
                context.judge = JudgeClient(**setup.judge_settings)
            state = self.runs.setdefault(key, (setup.job, context))
        return state

    async def run(
        self, key: str, setup_ref: list[Any], case: EvalCase, session_id: str
    ) -> tuple[InferenceResult, EvalCaseResult]:
        job, context = await self._run_state(key, setup_ref)
        return await run_case(job, context, case, session_id)

    async def finish(self, key: str) -> dict[str, Any] | None:
        """Forget a run: its judge and agent usage totals (``None`` if it never ran here)."""
        state = self.runs.pop(key, None)
        if state is None:
            return None
        job, context = state
        judge = context.judge
        out = {"judge": judge.usage.as_dict() if judge is not None else None}
        out["agent"] = dict(job.agents.usage)
        if judge is not None:
            await judge.aclose()
        return out


class RayExecutor:
    """Run cases as Ray actor tasks (rules in the module doc).

    ``RayExecutor(address=None, num_cpus=None, workers=None, max_in_flight=None,
    max_retries=1, runtime_env=None, actor_options=None)``; pass it as
    ``ae.evaluate(..., executor=...)``. ``address``: ``None`` (a local instance unless Ray
    already runs in this process), ``"auto"`` or ``"ray://host:10001"``; ``num_cpus`` only for a
    local instance; ``workers``: worker actors (default: the cluster's CPUs), each reserving
    ``actor_options`` (default one CPU; e.g. ``{"num_gpus": 1}`` for an agent that needs a GPU).
    The workers start with the first evaluation and are reused by later ones until
    :meth:`shutdown` (or the end of the Ray session).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        workers: int | None = None,
        max_in_flight: int | None = None,
        max_retries: int = 1,
        runtime_env: dict[str, Any] | None = None,
        actor_options: dict[str, Any] | None = None,
    ) -> None:
        counts = {"num_cpus": num_cpus, "workers": workers, "max_in_flight": max_in_flight}
        for name, value in counts.items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"{name} must be a positive int or None, got {value!r}")
            if value is not None and value < 1:
                raise ValueError(f"{name} must be a positive int or None, got {value!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self.address = address
        self.num_cpus = num_cpus
        self.workers = workers
        self.max_in_flight = max_in_flight
        self.max_retries = max_retries
        self.runtime_env = runtime_env
        self.actor_options = dict(actor_options or {})
        self._actors: list[Any] = []
        self._load: list[int] = []

    def __repr__(self) -> str:
        return (
            f"RayExecutor(address={self.address!r}, workers={self.workers}, "
            f"max_in_flight={self.max_in_flight}, max_retries={self.max_retries})"
        )

    def in_flight(self, default: int) -> int:
        return self.max_in_flight or default

    def _start_workers(self) -> None:
        if not ray.is_initialized():
            ray.init(
                address=self.address,
                num_cpus=self.num_cpus if self.address is None else None,
                runtime_env=self.runtime_env,
                include_dashboard=False,
                log_to_driver=False,
                ignore_reinit_error=True,
            )
        if self._actors:
            return
        count = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        options: dict[str, Any] = {
            "max_restarts": -1,  # a dead worker is always replaced; cases retry in ``run``
            "max_task_retries": 0,
            "num_cpus": 1,
            **self.actor_options,
        }
        self._actors = [_CaseWorker.options(**options).remote() for _ in range(count)]
        self._load = [0] * count

    async def open(self, job: CaseJob, context: EvaluationContext) -> _RayRun:
        self._start_workers()
        judge = context.judge
        share = len(self._actors)
        settings = judge.worker_settings(share) if isinstance(judge, JudgeClient) else None
        if judge is not None and settings is None:
            raise TypeError(
                f"the judge {describe(judge)} cannot be sent to Ray workers: pass judge= a "
                "callable or let ae.evaluate build the judge client"
            )
        setup = _WorkerSetup(job, context.hooks, dict(context.extras), settings)
        _check_picklable(setup)
        return _RayRun(self, job, context, ray.put(setup))

    def pick(self) -> int:
        """The least busy worker (counted in cases in flight from this driver)."""
        return min(range(len(self._actors)), key=self._load.__getitem__)

    def shutdown(self) -> None:
        """Stop the worker actors (the next evaluation starts new ones)."""
        actors, self._actors, self._load = self._actors, [], []
        for actor in actors:
            with contextlib.suppress(RayError):
                ray.kill(actor)


class _RayRun:
    """One run's cases on the executor's workers."""

    def __init__(
        self, executor: RayExecutor, job: CaseJob, context: EvaluationContext, setup: Any
    ) -> None:
        self.executor = executor
        self.job = job
        self.context = context
        self.setup = setup
        self.key = uuid.uuid4().hex

    async def run(self, case: EvalCase, session_id: str) -> tuple[InferenceResult, EvalCaseResult]:
        """Run the case on the least busy worker; when the worker dies (Ray restarts it), try
        again up to ``max_retries`` times; other Ray errors and exhausted retries fail it."""
        executor = self.executor
        for attempt in range(executor.max_retries + 1):
            index = executor.pick()
            executor._load[index] += 1
            try:
                actor = executor._actors[index]
                return await actor.run.remote(self.key, [self.setup], case, session_id)
            except RayActorError as exc:
                if attempt == executor.max_retries:
                    return self._lost(case, session_id, exc)
            except RayError as exc:
                return self._lost(case, session_id, exc)
            finally:
                executor._load[index] -= 1
        raise AssertionError("unreachable")  # the last attempt returns

    def _lost(
        self, case: EvalCase, session_id: str, exc: BaseException
    ) -> tuple[InferenceResult, EvalCaseResult]:
        first_line = next(iter(str(exc).strip().splitlines()), type(exc).__name__)
        reason = redact(f"ray: {type(exc).__name__}: {first_line}", *self.job.agents.secrets)
        user_id = case.session_input.user_id if case.session_input else None
        inference = InferenceResult(
            eval_case_id=case.eval_id,
            session_id=session_id,
            user_id=user_id,
            status=EvalStatus.FAILED,
            error_message=reason,
        )
        result = EvalCaseResult(
            eval_set_id=self.job.eval_set_id,
            eval_id=case.eval_id,
            run_id=self.job.run_id,
            final_eval_status=EvalStatus.FAILED.value,
            error_message=reason,
            session_id=session_id,
            user_id=user_id,
        )
        return inference, result

    async def close(self) -> None:
        """Collect the run's usage totals from every worker and let them forget the run."""
        for actor in list(self.executor._actors):
            try:
                totals = await actor.finish.remote(self.key)
            except RayError:
                continue
            if totals is None:
                continue
            if self.context.judge is not None and totals["judge"]:
                self.context.judge.usage.merge(totals["judge"])
            self.job.agents.add_usage(totals["agent"])


def _check_picklable(setup: _WorkerSetup) -> None:
    """``TypeError`` naming the first part of the run that cannot go to a worker."""
    job = setup.job
    parts: list[tuple[str, Any]] = [
        ("agent", job.agents.agent),
        ("expected_agent", job.agents.expected_agent),
        ("tool_mock_agent", job.agents.tool_mock_agent),
        ("user_simulator", job.agents.user_simulator),
        ("case_aggregator", job.aggregator),
        ("judge", (setup.judge_settings or {}).get("judge")),
        ("registry hooks", setup.hooks),
        *((f"evaluator of metric {p.metric.metric_name!r}", p.evaluator) for p in job.plan),
    ]
    for label, obj in parts:
        if obj is None:
            continue
        try:
            cloudpickle.dumps(obj)
        except Exception as exc:
            raise TypeError(
                f"the {label} ({describe(obj)}) cannot be sent to Ray workers: {exc}. "
                "Define it at module level in an importable module (or in the notebook), keep "
                "open connections, locks and clients out of its state (create them lazily), or "
                "use executor='local'"
            ) from exc
