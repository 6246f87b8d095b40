"""``RayExecutor``: run the cases of an evaluation on a Ray cluster (optional extra ``ray``).

How a run is laid out:

* ``open``: connects to Ray (``ray.init(address)``; a local instance when ``address`` is
  ``None`` and Ray is not running yet), starts ``workers`` async actors on first use (default:
  the cluster's CPUs; reused by later runs and evaluations) and waits until every worker
  answers — at most ``start_timeout`` seconds, then a ``TimeoutError`` says how many workers
  are pending, what each asks for, what the cluster has free and which executors of this
  process hold it. It checks that everything a worker needs pickles (the agents, the judge,
  custom evaluators, hooks and the case aggregator — a clear ``TypeError`` names the object
  otherwise) and puts the run's :class:`~agenteval_nb.engine.executor.CaseJob` in the object
  store once; each worker fetches it on its first case of the run.
* The cluster is shared: a worker reserves **no CPU** (``num_cpus=0``, spread over the nodes),
  so several executors live side by side in one process — a notebook with a small and a big
  executor, or a cell re-run while the old executor is still referenced, just works. The
  executor bounds the work itself: up to ``max_in_flight`` cases are in flight (default: the
  engine's case pool). A CPU- or GPU-bound agent reserves what it needs with
  ``actor_options`` (e.g. ``{"num_cpus": 1}``); the wait for those resources is bounded as
  above.
* ``run``: one case, inference and evaluation, on the least busy worker that is up. The cases
  given to one worker in the same turn of the driver's event loop travel in one actor call,
  and each case's outcome comes back as soon as it is done — those done by the time the
  driver asks travel together (one waiting ``collect`` call per worker and run) — so a slow
  case never holds back the cases sent with it, and a busy run pays one call for many cases.
  Results come back in case order into the same run record; progress and callbacks stay in
  the driver.
* Faults: a worker process that dies is restarted by Ray; no case is sent to it until it
  answers again (at most ``start_timeout`` seconds; a worker Ray will not restart, e.g. one
  killed by hand, takes no more cases; when no worker is left, the cases fail with the
  report above as their reason). A death is charged to a case only when that case was
  alone on the worker — then it is its own doing; a case charged more than ``max_retries``
  times fails. The cases that shared a death are tried again each **alone** on a worker (no
  other case joins it), so an innocent case is never lost to a neighbour that kills workers.
  Any other error of a call fails the cases the call was for (a run whose setup a worker
  cannot load fails its cases there); an outcome that cannot be pickled or loaded fails only
  its own case, as each outcome travels pickled on its own. A failed case has
  ``ray: <error>`` as its reason (for an error raised in the worker, the error Ray wraps).
  The run always completes.
* Judge limits across workers: each worker builds its own judge client with **a share** of the
  limits — ``judge_concurrency // workers`` requests at once (at least 1) and
  ``requests_per_minute / workers`` — so the cluster as a whole stays within the limits given
  to ``ae.evaluate`` (a concurrency below the worker count excepted); the cache is the same
  SQLite file (WAL) on one machine, a per-node file on a cluster unless the path is on shared
  storage. Judge and agent usage totals are gathered from
  the workers when the run ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import pickle
import time
import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..engine.executor import CaseJob, describe, run_case
from ..engine.inference import InferenceResult, failed_inference
from ..evaluators.base import EvaluationContext
from ..judge import JudgeClient
from ..schema import EvalCase, EvalCaseResult, EvalStatus
from ..secrets import redact

try:
    import ray
    from ray import cloudpickle
    from ray.exceptions import ActorDiedError, RayActorError, RayError, RayTaskError
except ImportError as exc:  # the optional extra is missing
    raise ImportError("RayExecutor needs Ray: pip install 'agenteval_nb[ray]'") from exc

RESTART_POLL_S = 0.2
"""Pause between two calls to a worker that is not answering yet (Ray refuses calls to a
restarting actor at once)."""

_RESOURCE_NAMES = {"num_cpus": "CPU", "num_gpus": "GPU", "memory": "memory"}

_LIVE: weakref.WeakSet[RayExecutor] = weakref.WeakSet()
"""The executors of this process that have workers (named when resources run short)."""


@dataclass(slots=True)
class _WorkerSetup:
    """What every worker needs for one run: the job, the hooks and the judge's settings."""

    job: CaseJob
    hooks: Any
    extras: dict[str, Any]
    judge_settings: dict[str, Any] | None


Outcome = tuple[InferenceResult, EvalCaseResult]
"""What a case brings back from a worker."""


class _WorkerFailure(Exception):
    """A case whose code raised on the worker (``run_case`` never should): the reason."""


@dataclass(slots=True, eq=False)
class _WorkerRun:
    """One run as a worker keeps it: the job and judge client, the cases running, and the
    finished ones not collected yet (a ticket with its pickled outcome, or why it has none)."""

    job: CaseJob
    context: EvaluationContext
    running: set[asyncio.Task[None]] = field(default_factory=set)
    finished: list[tuple[int, bytes | str]] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)


@ray.remote
class _CaseWorker:
    """An async actor running cases; it keeps one event loop and, per open run, the run's job,
    judge client and finished cases. A restarted worker learns a run again from its setup
    reference."""

    def __init__(self) -> None:
        self.runs: dict[str, _WorkerRun] = {}

    async def ready(self) -> int:
        """Answers once the worker is placed and started: its process id."""
        return os.getpid()

    async def _run_state(self, key: str, setup_ref: list[Any]) -> _WorkerRun:
        state = self.runs.get(key)
        if state is None:
            setup: _WorkerSetup = await setup_ref[0]
            context = EvaluationContext(hooks=setup.hooks, extras=dict(setup.extras))
            if setup.judge_settings is not None:
                context.judge = JudgeClient(**setup.judge_settings)
            state = self.runs.setdefault(key, _WorkerRun(setup.job, context))
        return state

    async def start(
        self, key: str, setup_ref: list[Any], cases: list[tuple[int, EvalCase, str]]
    ) -> None:
        """Start each ``(ticket, case, session id)``; :meth:`collect` hands back the outcomes."""
        state = await self._run_state(key, setup_ref)
        for ticket, case, session_id in cases:
            task = asyncio.create_task(self._run_one(state, ticket, case, session_id))
            state.running.add(task)
            task.add_done_callback(state.running.discard)

    async def _run_one(self, state: _WorkerRun, ticket: int, case: EvalCase, sid: str) -> None:
        outcome: bytes | str
        try:
            outcome = _pickled(await run_case(state.job, state.context, case, sid))
        except Exception as exc:
            outcome = _first_line(exc)
        state.finished.append((ticket, outcome))
        state.ready.set()

    async def collect(self, key: str, setup_ref: list[Any]) -> list[tuple[int, bytes | str]]:
        """The run's cases finished since the last call: waits for at least one (none once
        the run is finished)."""
        state = await self._run_state(key, setup_ref)
        await state.ready.wait()
        state.ready.clear()
        finished, state.finished = state.finished, []
        return finished

    async def finish(self, key: str) -> dict[str, Any] | None:
        """Forget a run: its judge and agent usage totals (``None`` if it never ran here)."""
        state = self.runs.pop(key, None)
        if state is None:
            return None
        state.ready.set()  # a collect still waiting returns empty-handed
        for task in state.running:
            task.cancel()
        judge = state.context.judge
        out = {"judge": judge.usage.as_dict() if judge is not None else None}
        out["agent"] = dict(state.job.agents.usage)
        if judge is not None:
            await judge.aclose()
        return out


class RayExecutor:
    """Run cases as Ray actor tasks (rules in the module doc).

    ``RayExecutor(address=None, num_cpus=None, workers=None, max_in_flight=None,
    max_retries=1, start_timeout=60, runtime_env=None, actor_options=None)``; pass it as
    ``ae.evaluate(..., executor=...)``. ``address``: ``None`` (a local instance unless Ray
    already runs in this process), ``"auto"`` or ``"ray://host:10001"``; ``num_cpus`` only for a
    local instance; ``workers``: worker actors (default: the cluster's CPUs), each reserving
    nothing unless ``actor_options`` says so (e.g. ``{"num_gpus": 1}`` for an agent that needs
    a GPU); ``start_timeout``: seconds to wait for workers to be placed, started or restarted.
    The workers start with the first evaluation and are reused by later ones until
    :meth:`shutdown` (or until the executor is garbage collected, or the Ray session ends).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        workers: int | None = None,
        max_in_flight: int | None = None,
        max_retries: int = 1,
        start_timeout: float = 60.0,
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
        if (
            isinstance(start_timeout, bool)
            or not isinstance(start_timeout, int | float)
            or not math.isfinite(start_timeout)
            or start_timeout <= 0
        ):
            raise ValueError(f"start_timeout must be a positive number, got {start_timeout!r}")
        self.address = address
        self.num_cpus = num_cpus
        self.workers = workers
        self.max_in_flight = max_in_flight
        self.max_retries = max_retries
        self.start_timeout = float(start_timeout)
        self.runtime_env = runtime_env
        self.actor_options: dict[str, Any] = {
            "max_restarts": -1,  # a dead worker is always replaced; cases retry in ``run``
            "max_task_retries": 0,
            "num_cpus": 0,
            "scheduling_strategy": "SPREAD",
            **(actor_options or {}),
        }
        self._actors: list[Any] = []
        self._pool: _Pool | None = None

    def __repr__(self) -> str:
        return (
            f"RayExecutor(address={self.address!r}, workers={self.workers}, "
            f"max_in_flight={self.max_in_flight}, max_retries={self.max_retries})"
        )

    def in_flight(self, default: int) -> int:
        return self.max_in_flight or default

    def asks(self) -> dict[str, float]:
        """The resources each worker reserves, in Ray's names (zero amounts left out)."""
        options = self.actor_options
        wanted = {ray_name: options.get(name) for name, ray_name in _RESOURCE_NAMES.items()}
        wanted.update(options.get("resources") or {})
        return {name: amount for name, amount in wanted.items() if amount}

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
        worker: Any = _CaseWorker  # a Ray actor class: .options() is added by @ray.remote
        self._actors = [worker.options(**self.actor_options).remote() for _ in range(count)]
        _LIVE.add(self)

    async def open(self, job: CaseJob, context: EvaluationContext) -> _RayRun:
        self._start_workers()
        pool = self._pool
        if pool is None or pool.loop is not asyncio.get_running_loop():
            pool = self._pool = _Pool(self)
        await pool.started
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
        pool.runs += 1
        return _RayRun(self, pool, job, context, ray.put(setup))

    def pending_report(self, pending: int, last_error: str | None) -> str:
        """Why ``pending`` workers are not up: not placed in time, or the last error; what they
        ask for, what the cluster has and which executors of this process hold it."""
        total, free = ray.cluster_resources(), ray.available_resources()
        asks = self.asks()
        names = sorted({"CPU", *asks})
        cluster = ", ".join(f"{total.get(n, 0):g} {n} ({free.get(n, 0):g} free)" for n in names)
        holders = [
            f"{other!r} ({len(other._actors)} workers, each {other.asks()})"
            for other in list(_LIVE)
            if other is not self and other._actors and other.asks()
        ]
        held = "; held in this process by " + ", ".join(holders) if holders else ""
        what = f"{pending} of {len(self._actors)} workers of {self!r}"
        if last_error is None:
            what += f" could not be placed within {self.start_timeout:g} s"
        else:
            what += f" could not be started ({last_error})"
        return (
            f"{what}: each asks for {asks or 'no resources'}; the cluster has {cluster}{held}. "
            "Free resources (other_executor.shutdown()), ask for fewer workers or resources "
            "(workers=, actor_options=) or wait longer (start_timeout=)"
        )

    def shutdown(self) -> None:
        """Stop the worker actors (the next evaluation starts new ones)."""
        actors, self._actors, self._pool = self._actors, [], None
        _LIVE.discard(self)
        for actor in actors:
            with contextlib.suppress(RayError):
                ray.kill(actor)


@dataclass(slots=True, eq=False)
class _Worker:
    """One worker actor as the driver sees it."""

    actor: Any
    up: bool = False  # answered since it was started or last died
    lost: str | None = None  # why it could not be restarted in time
    load: int = 0  # cases in flight on it
    reserved: bool = False  # held, or being emptied, for a case that must run alone
    tenants: set[object] = field(default_factory=set)  # cases in flight on its current life


class _Pool:
    """The executor's workers while runs are open on one event loop: which answer, how busy
    they are, which are held for a case that must run alone."""

    def __init__(self, executor: RayExecutor) -> None:
        self.executor = executor
        self.workers = [_Worker(actor) for actor in executor._actors]
        self.changed = asyncio.Condition()
        self.restarts: set[asyncio.Task[None]] = set()
        self.loop = asyncio.get_running_loop()
        self.runs = 0
        self.started = self.loop.create_task(self._start())

    async def _start(self) -> None:
        """Wait until every worker answers; ``TimeoutError`` with the pending resources (and
        the workers stopped) otherwise."""
        answers = await asyncio.gather(*(self._answer(w) for w in self.workers))
        pending = [error for error in answers if error is not None]
        if pending:
            last_error = next((e for e in pending if e != "pending"), None)
            message = self.executor.pending_report(len(pending), last_error)
            self.executor.shutdown()
            raise TimeoutError(message)

    async def _answer(self, worker: _Worker) -> str | None:
        """Call the worker until it answers (``None``, it is up), is gone for good (the error)
        or ``start_timeout`` passes (``"pending"``, or the last error while it restarted)."""
        deadline = time.monotonic() + self.executor.start_timeout
        last = "pending"
        while (left := deadline - time.monotonic()) > 0:
            try:
                await asyncio.wait_for(worker.actor.ready.remote(), left)
            except TimeoutError:
                break
            except ActorDiedError as exc:
                return _first_line(exc)  # gone for good: Ray does not restart it
            except RayError as exc:
                last = _first_line(exc)
                await asyncio.sleep(min(RESTART_POLL_S, left))
                continue
            worker.up = True
            return None
        return last

    def died(self, worker: _Worker, tenants: set[object]) -> None:
        """A call on ``worker`` failed because its process died: no case goes to it until it
        answers again (the first of its cases to notice starts the wait)."""
        if worker.tenants is not tenants:
            return  # another case noticed this death first
        worker.up = False
        worker.tenants = set()
        task = asyncio.get_running_loop().create_task(self._restart(worker))
        self.restarts.add(task)
        task.add_done_callback(self.restarts.discard)

    async def _restart(self, worker: _Worker) -> None:
        error = await self._answer(worker)
        if error is not None:
            worker.lost = self.executor.pending_report(1, None if error == "pending" else error)
        async with self.changed:
            self.changed.notify_all()

    async def acquire(self, alone: bool) -> _Worker:
        """A worker for one case: the least busy one that is up, or — ``alone`` — one with no
        other case in flight, held until :meth:`release`. ``LookupError`` when every worker
        is lost."""
        async with self.changed:
            held: _Worker | None = None
            try:
                while True:
                    if all(w.lost is not None for w in self.workers):
                        raise LookupError(self.workers[0].lost)
                    if alone:
                        held = self._hold(held)
                        if held is not None and held.up and held.load == 0:
                            held.load += 1
                            return held
                    else:
                        ready = [w for w in self.workers if w.up and not w.reserved]
                        if ready:
                            worker = min(ready, key=lambda w: w.load)
                            worker.load += 1
                            return worker
                    await self.changed.wait()
            except BaseException:
                if held is not None:
                    held.reserved = False
                raise

    def _hold(self, held: _Worker | None) -> _Worker | None:
        """The worker kept for a case that must run alone: ``held`` while it is not lost, else
        the least busy worker nobody holds (no new case goes to a held worker)."""
        if held is not None and held.lost is None:
            return held
        if held is not None:
            held.reserved = False
        free = [w for w in self.workers if w.lost is None and not w.reserved]
        if not free:
            return None
        chosen = min(free, key=lambda w: (not w.up, w.load))
        chosen.reserved = True
        return chosen

    async def release(self, worker: _Worker, alone: bool) -> None:
        async with self.changed:
            worker.load -= 1
            if alone:
                worker.reserved = False
            self.changed.notify_all()

    def close(self) -> None:
        """After the last open run: stop waiting for restarts (the next open asks again)."""
        for task in self.restarts:
            task.cancel()


@dataclass(slots=True, eq=False)
class _Channel:
    """One run's traffic with one life of a worker (``tenants`` is that life's set): the cases
    to send at the next turn of the event loop, and the sent ones waiting for their outcome."""

    tenants: set[object]
    outbox: list[tuple[int, EvalCase, str]] = field(default_factory=list)
    waiting: dict[int, asyncio.Future[Outcome]] = field(default_factory=dict)
    collector: asyncio.Task[None] | None = None


class _RayRun:
    """One run's cases on the executor's workers."""

    def __init__(
        self,
        executor: RayExecutor,
        pool: _Pool,
        job: CaseJob,
        context: EvaluationContext,
        setup: Any,
    ) -> None:
        self.executor = executor
        self.pool = pool
        self.job = job
        self.context = context
        self.setup = setup
        self.key = uuid.uuid4().hex
        self.channels: dict[_Worker, _Channel] = {}
        self.tickets = itertools.count()
        self.tasks: set[asyncio.Task[None]] = set()

    async def run(self, case: EvalCase, session_id: str) -> Outcome:
        """Run the case on a worker that is up; when the worker dies, try again alone on a
        worker — charged to the case only when it was alone on the dying one, lost once charged
        more than ``max_retries`` times; other Ray errors fail it at once."""
        token = object()
        charged, alone = 0, False
        while True:
            try:
                worker = await self.pool.acquire(alone)
            except LookupError as exc:
                return self._lost(case, session_id, str(exc))
            tenants, died = worker.tenants, False
            tenants.add(token)
            try:
                return await self._run_on(worker, case, session_id)
            except RayActorError as exc:
                died = True  # the case stays among the tenants its neighbours count
                self.pool.died(worker, tenants)
                charged += len(tenants) == 1  # nobody else was there: its own doing
                if charged > self.executor.max_retries:
                    return self._lost(case, session_id, _first_line(exc))
            except RayError as exc:
                return self._lost(case, session_id, _first_line(exc))
            except _WorkerFailure as exc:
                return self._lost(case, session_id, str(exc))
            finally:
                if not died:
                    tenants.discard(token)
                await self.pool.release(worker, alone)
            alone = True

    async def _run_on(self, worker: _Worker, case: EvalCase, session_id: str) -> Outcome:
        """The case's outcome from ``worker``: it travels with the cases sent to the worker in
        the same turn of the event loop, and comes back with those that finish with it."""
        channel = self.channels.get(worker)
        if channel is None or channel.tenants is not worker.tenants:
            channel = self.channels[worker] = _Channel(worker.tenants)
        ticket = next(self.tickets)
        outcome = channel.waiting[ticket] = asyncio.get_running_loop().create_future()
        channel.outbox.append((ticket, case, session_id))
        if len(channel.outbox) == 1:
            asyncio.get_running_loop().call_soon(self._send, worker, channel)
        try:
            return await outcome
        finally:
            channel.waiting.pop(ticket, None)

    def _send(self, worker: _Worker, channel: _Channel) -> None:
        """Send the channel's outbox in one call; collect outcomes while any are awaited."""
        cases, channel.outbox = channel.outbox, []
        tickets = [ticket for ticket, _, _ in cases]
        try:
            started = worker.actor.start.remote(self.key, [self.setup], cases)
        except Exception as exc:  # the call could not be made (e.g. a case does not pickle)
            _settle(channel, tickets, _as_case_error(exc))
            return
        self._spawn(_watch_start(started, channel, tickets))
        if channel.collector is None:
            channel.collector = self._spawn(self._collect(worker, channel))

    async def _collect(self, worker: _Worker, channel: _Channel) -> None:
        """Hand each finished case its outcome until none is awaited; a failed call fails
        every case still awaited on the channel (its worker's life is over when it died)."""
        try:
            while channel.waiting:
                finished = await worker.actor.collect.remote(self.key, [self.setup])
                for ticket, outcome in finished:
                    future = channel.waiting.pop(ticket, None)
                    if future is None or future.done():
                        continue
                    try:
                        future.set_result(_unpickled(outcome))
                    except _WorkerFailure as exc:
                        future.set_exception(exc)
        except Exception as exc:  # a Ray error as it is; anything else as the case's reason
            _settle(channel, list(channel.waiting), _as_case_error(exc))
        finally:
            channel.collector = None

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def _lost(
        self, case: EvalCase, session_id: str, why: str
    ) -> tuple[InferenceResult, EvalCaseResult]:
        reason = redact(f"ray: {why}", *self.job.agents.secrets)
        inference = failed_inference(case, session_id, reason)
        result = EvalCaseResult(
            eval_set_id=self.job.eval_set_id,
            eval_id=case.eval_id,
            run_id=self.job.run_id,
            final_eval_status=EvalStatus.FAILED.value,
            error_message=reason,
            session_id=session_id,
            user_id=inference.user_id,
        )
        return inference, result

    async def close(self) -> None:
        """Collect the run's usage totals from every worker that answers within
        ``start_timeout`` and let them forget the run."""
        for task in self.tasks:
            task.cancel()  # nothing is awaited any more: stop collecting
        timeout = self.executor.start_timeout
        calls = [
            asyncio.wait_for(w.actor.finish.remote(self.key), timeout) for w in self.pool.workers
        ]
        for totals in await asyncio.gather(*calls, return_exceptions=True):
            if not isinstance(totals, dict):
                continue  # never ran here, or the worker died or did not answer
            if self.context.judge is not None and totals["judge"]:
                self.context.judge.usage.merge(totals["judge"])
            self.job.agents.add_usage(totals["agent"])
        self.pool.runs -= 1
        if self.pool.runs == 0:
            self.pool.close()
            if self.executor._pool is self.pool:
                self.executor._pool = None


async def _watch_start(started: Any, channel: _Channel, tickets: list[int]) -> None:
    """A start call that failed fails its cases (the collect call reports any other news)."""
    try:
        await started
    except Exception as exc:
        _settle(channel, tickets, _as_case_error(exc))


def _as_case_error(exc: Exception) -> Exception:
    """What a case awaiting a failed call raises: a Ray error as it is (a dead worker is
    handled as such), anything else as a :class:`_WorkerFailure` naming it."""
    return exc if isinstance(exc, RayError) else _WorkerFailure(_first_line(exc))


def _settle(channel: _Channel, tickets: list[int], error: Exception) -> None:
    """Fail the cases of ``tickets`` still awaited on the channel with ``error``."""
    for ticket in tickets:
        future = channel.waiting.get(ticket)
        if future is not None and not future.done():
            future.set_exception(error)


def _pickled(outcome: Outcome) -> bytes:
    """An outcome as it travels: each on its own, so that one that cannot travel fails alone;
    by the standard pickler (a few times faster), by cloudpickle for what only it can pickle
    (e.g. a class defined in a notebook)."""
    try:
        return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return cloudpickle.dumps(outcome)


def _unpickled(outcome: bytes | str) -> Outcome:
    """The outcome a worker sent; :class:`_WorkerFailure` with the reason when there is
    none or it cannot be loaded here."""
    if isinstance(outcome, str):
        raise _WorkerFailure(outcome)
    try:
        loaded: Outcome = pickle.loads(outcome)
    except Exception as exc:
        raise _WorkerFailure(_first_line(exc)) from exc
    return loaded


def _first_line(exc: BaseException) -> str:
    """``Type: first line of its message`` (the type alone for an empty message); for an error
    raised in a worker's call, that of the error it wraps (Ray's own first line only names the
    call)."""
    if isinstance(exc, RayTaskError) and isinstance(exc.cause, BaseException):
        exc = exc.cause
    line = next(iter(str(exc).strip().splitlines()), "")
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


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
