"""``RayExecutor``: run the cases of an evaluation on a Ray cluster (optional extra ``ray``).

How a run is laid out:

* ``open``: connects to Ray (``ray.init(address)``; a local instance when ``address`` is
  ``None`` and Ray is not running yet), checks that everything a worker needs pickles (the
  agents, the judge, custom evaluators, hooks and the case aggregator — a clear ``TypeError``
  names the object otherwise), puts the run's :class:`~agenteval_nb.engine.executor.CaseJob` in
  the object store once and starts ``workers`` async actors (default: the cluster's CPUs).
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
from dataclasses import dataclass
from typing import Any

from ..engine.executor import CaseJob, describe, run_case
from ..engine.inference import AgentSetup, InferenceResult
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
    """What every worker of a run gets once: the job, the hooks and the judge's settings."""

    job: CaseJob
    hooks: Any
    extras: dict[str, Any]
    judge_settings: dict[str, Any] | None


@ray.remote
class _CaseWorker:
    """An async actor running cases of one run; it keeps one judge client and event loop."""

    def __init__(self, setup: _WorkerSetup) -> None:
        self.job = setup.job
        self.context = EvaluationContext(hooks=setup.hooks, extras=dict(setup.extras))
        if setup.judge_settings is not None:
            self.context.judge = JudgeClient(**setup.judge_settings)

    async def run(self, case: EvalCase, session_id: str) -> tuple[InferenceResult, EvalCaseResult]:
        return await run_case(self.job, self.context, case, session_id)

    async def totals(self) -> dict[str, Any]:
        """Judge and agent usage of this worker so far; closes its HTTP clients."""
        judge = self.context.judge
        out = {"judge": judge.usage.as_dict() if judge is not None else None}
        out["agent"] = dict(self.job.agents.usage)
        if judge is not None:
            await judge.aclose()
        return out


class RayExecutor:
    """Run cases as Ray actor tasks (rules in the module doc).

    ``RayExecutor(address=None, num_cpus=None, workers=None, max_in_flight=None,
    max_retries=1, runtime_env=None)``; pass it as ``ae.evaluate(..., executor=...)``.
    ``address``: ``None`` (a local instance unless Ray already runs in this process), ``"auto"``
    or ``"ray://host:10001"``; ``num_cpus`` only for a local instance; ``workers``: actors per
    run (default: the cluster's CPUs), each reserving ``actor_options`` (default one CPU; e.g.
    ``{"num_gpus": 1}`` for an agent that needs a GPU).
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
        for name, value in (
            ("num_cpus", num_cpus),
            ("workers", workers),
            ("max_in_flight", max_in_flight),
        ):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
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
        self._context: EvaluationContext | None = None
        self._agents: AgentSetup | None = None
        self._run_id = 0
        self._set_id = ""

    def __repr__(self) -> str:
        return (
            f"RayExecutor(address={self.address!r}, workers={self.workers}, "
            f"max_in_flight={self.max_in_flight}, max_retries={self.max_retries})"
        )

    def in_flight(self, default: int) -> int:
        return self.max_in_flight or default

    def _connect(self) -> None:
        if ray.is_initialized():
            return
        ray.init(
            address=self.address,
            num_cpus=self.num_cpus if self.address is None else None,
            runtime_env=self.runtime_env,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )

    def _worker_count(self) -> int:
        if self.workers is not None:
            return self.workers
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    async def open(self, job: CaseJob, context: EvaluationContext) -> None:
        self._connect()
        count = self._worker_count()
        judge = context.judge
        settings = judge.worker_settings(count) if isinstance(judge, JudgeClient) else None
        if judge is not None and settings is None:
            raise TypeError(
                f"the judge {describe(judge)} cannot be sent to Ray workers: pass judge= a "
                "callable or let ae.evaluate build the judge client"
            )
        setup = _WorkerSetup(job, context.hooks, dict(context.extras), settings)
        _check_picklable(setup)
        options: dict[str, Any] = {
            "max_restarts": -1,  # a dead worker is always replaced; cases retry in ``run``
            "max_task_retries": 0,
            "num_cpus": 1,
            **self.actor_options,
        }
        # the setup travels with each actor's creation (not by object-store reference), so a
        # restarted actor can always be built again
        self._actors = [_CaseWorker.options(**options).remote(setup) for _ in range(count)]
        self._load = [0] * count
        self._context = context
        self._agents = job.agents
        self._run_id = job.run_id
        self._set_id = job.eval_set_id

    async def run(self, case: EvalCase, session_id: str) -> tuple[InferenceResult, EvalCaseResult]:
        """Run the case on the least busy worker; when the worker dies (Ray restarts it), try
        again up to ``max_retries`` times; other Ray errors and exhausted retries fail it."""
        for attempt in range(self.max_retries + 1):
            index = min(range(len(self._actors)), key=self._load.__getitem__)
            self._load[index] += 1
            try:
                return await self._actors[index].run.remote(case, session_id)
            except RayActorError as exc:
                if attempt == self.max_retries:
                    return self._lost(case, session_id, exc)
            except RayError as exc:
                return self._lost(case, session_id, exc)
            finally:
                self._load[index] -= 1
        raise AssertionError("unreachable")  # the last attempt returns

    def _lost(
        self, case: EvalCase, session_id: str, exc: BaseException
    ) -> tuple[InferenceResult, EvalCaseResult]:
        secrets = self._agents.secrets if self._agents is not None else ()
        first_line = next(iter(str(exc).strip().splitlines()), type(exc).__name__)
        reason = redact(f"ray: {type(exc).__name__}: {first_line}", *secrets)
        user_id = case.session_input.user_id if case.session_input else None
        inference = InferenceResult(
            eval_case_id=case.eval_id,
            session_id=session_id,
            user_id=user_id,
            status=EvalStatus.FAILED,
            error_message=reason,
        )
        result = EvalCaseResult(
            eval_set_id=self._set_id,
            eval_id=case.eval_id,
            run_id=self._run_id,
            final_eval_status=EvalStatus.FAILED.value,
            error_message=reason,
            session_id=session_id,
            user_id=user_id,
        )
        return inference, result

    async def close(self) -> None:
        actors, self._actors = self._actors, []
        context, agents = self._context, self._agents
        for actor in actors:
            with contextlib.suppress(RayError):
                totals = await actor.totals.remote()
                if context is not None and context.judge is not None and totals["judge"]:
                    context.judge.usage.merge(totals["judge"])
                if agents is not None:
                    agents.add_usage(totals["agent"])
            ray.kill(actor)


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
