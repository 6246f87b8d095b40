"""The options of one evaluation: one frozen record, built once from checked values.

The front door (:func:`agenteval_nb.evaluate_async`) turns its keywords into values with the
helpers here — :func:`positive_int`, :func:`case_id_list`, :func:`positive_seconds`,
:func:`case_executor` — and then builds :class:`EngineOptions` in one construction, hooks, sink,
executor and agents included. The engine only reads it; nothing changes it afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError
from ..evaluators.base import EvaluationContext
from ..evaluators.registry import Registry
from ..judge.adaptive import Adaptive, adaptive_setting
from ..schema import EvalCase, EvalCaseResult
from .aggregate import CaseAggregator, default_case_aggregator
from .callbacks import Callbacks
from .executor import CaseExecutor
from .inference import AgentSetup

DEFAULT_CASE_PARALLELISM = 8
"""Cases evaluated at once when no judge is involved and none was asked for."""

CASES_PER_JUDGE_SLOT = 2
"""With a judge, cases in flight per request slot of its endpoint limiter (see
:func:`case_pool_size`)."""


class ResultSink(Protocol):
    """Where finished case results go, one at a time, while the run goes on.

    ``position`` orders the case results of the whole evaluation (run by run, cases in eval-set
    order); results arrive in completion order. ``case`` is the eval case (None when it could
    not be loaded). The sink owns the result from then on: the engine keeps only its
    :data:`~.summary.CaseOutcome`.
    """

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None: ...


@runtime_checkable
class TextSink(ResultSink, Protocol):
    """A sink that also takes a case result with its result-file text (``encoded``: written by
    :func:`~agenteval_nb.io.case_result_texts`); such a ``result`` may be a read-only view
    with the model's attributes (the bulk path, :mod:`.bulk`)."""

    def add_text(
        self, position: int, case: Any, result: Any, text: bytes | None, encoded: bool = False
    ) -> None: ...


@dataclass(frozen=True)
class RunPlan:
    """What an evaluation is about to run: told to its observer before any case starts."""

    eval_set_id: str
    num_runs: int
    case_ids: tuple[str, ...] | None
    metrics: tuple[str, ...]
    total: int
    """Case-runs over all runs."""
    usage: Callable[[], dict[str, Any]] | None = None
    """The tokens (and cost) spent so far: ``{"judge": {...}, "agent": {...}}``."""


class RunObserver(Protocol):
    """Watches an evaluation as it goes (``ae.start``): told its plan first (it may refuse it
    by raising), it wraps the result sink and decides which case-runs start."""

    def begin(self, plan: RunPlan) -> None: ...

    def sink(self, inner: ResultSink) -> ResultSink: ...

    def admit(self, run_id: int, eval_id: str) -> bool: ...


def uuid_session_id() -> str:
    """The default session id of a case in a run: a fresh uuid4 (SPEC §8.3)."""
    return str(uuid.uuid4())


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """Everything one evaluation is run with (see :func:`agenteval_nb.evaluate`).

    Values are taken as given: check them with the helpers of this module first.
    ``on_case_inferred`` / ``on_case_done`` are progress hooks called once per case after its
    inference / its evaluation; ``sink`` receives the case results (None: the engine collects
    them into the returned result); ``executor`` None runs the cases in this process;
    ``admit(run_id, eval_id)`` is asked before a case-run starts — False leaves it out of the
    run (``ae.start``: cancelled, or finished before a resume).
    """

    registry: Registry
    context: EvaluationContext
    num_runs: int = 1
    app_name: str | None = None
    callbacks: Callbacks | None = None
    case_aggregator: CaseAggregator = default_case_aggregator
    case_parallelism: int | None = None
    runs_parallel: bool = False
    case_ids: tuple[str, ...] | None = None
    session_id_factory: Callable[[], str] = uuid_session_id
    on_case_done: Callable[[], None] | None = None
    on_case_inferred: Callable[[], None] | None = None
    agents: AgentSetup = field(default_factory=AgentSetup)
    executor: CaseExecutor | None = None
    sink: ResultSink | None = None
    admit: Callable[[int, str], bool] | None = None


def positive_int(name: str, value: Any) -> int:
    """``value`` as an ``int`` when it is an integer ≥ 1 (numpy integers included); bools,
    floats and strings are a ``TypeError``, ``0`` and negatives a
    :class:`~agenteval_nb.errors.ConfigError` (SPEC §8.1: greater than 0)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a positive int, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ConfigError(f"{name} must be greater than 0, got {value}")
    return int(value)


def judge_concurrency_setting(value: Any) -> int | Adaptive:
    """``judge_concurrency`` checked: an int ≥ 1 (fixed, :func:`positive_int`), or
    ``"adaptive"`` / an :class:`~agenteval_nb.judge.adaptive.Adaptive` (limits found from
    each endpoint's 429s)."""
    adaptive = adaptive_setting(value)
    if adaptive is not None:
        return adaptive
    if isinstance(value, str):
        raise ConfigError(
            f"judge_concurrency must be an int >= 1, 'adaptive' or ae.Adaptive(...), got {value!r}"
        )
    return positive_int("judge_concurrency", value)


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


def positive_seconds(name: str, value: float | None) -> float | None:
    """``value`` as a float number of seconds > 0, or None (no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds or None, got {value!r}")
    return float(value)


def case_executor(executor: str | CaseExecutor) -> CaseExecutor | None:
    """``None`` for the local executor (``"local"``), else the given :class:`CaseExecutor`."""
    if executor == "local":
        return None
    if isinstance(executor, CaseExecutor):
        return executor
    raise TypeError(
        f"executor must be 'local' or an executor such as ae.RayExecutor(...), got {executor!r}"
    )


def case_pool_size(options: EngineOptions) -> int:
    """How many cases are in flight at once (inference and evaluation).

    ``case_parallelism`` when given. Otherwise :data:`DEFAULT_CASE_PARALLELISM`, except for
    judge-bound work — a judge (``context.judge``) and no agent to run — where it is the
    judge's per-endpoint concurrency times :data:`CASES_PER_JUDGE_SLOT` (at least the default):
    the judge's endpoint limiter, not the case pool, then bounds the judge requests, while the
    extra cases do their own CPU work between calls; in-flight cases stay bounded. Agents have
    no such limiter, so with an agent the default keeps bounding its endpoint. An executor may
    change the number (:meth:`CaseExecutor.in_flight`).
    """
    if options.case_parallelism is not None:
        size = options.case_parallelism
    elif options.agents.runs_agents:
        size = DEFAULT_CASE_PARALLELISM
    else:
        judge_slots = getattr(options.context.judge, "max_concurrency", None)
        size = DEFAULT_CASE_PARALLELISM
        if isinstance(judge_slots, int) and judge_slots > 0:
            size = max(DEFAULT_CASE_PARALLELISM, CASES_PER_JUDGE_SLOT * judge_slots)
    return size if options.executor is None else options.executor.in_flight(size)
