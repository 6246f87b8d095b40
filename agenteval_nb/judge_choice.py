"""``ae.compare_judges``: candidate judges scored on a recorded run and set against a
reference — human marks, another candidate, or the run's own judge (JUDGES.md §4).

Each candidate rejudges the run (:func:`agenteval_nb.rejudge`: from the recorded turns, the
agent never called; over HTTP the judge cache makes a repeat free), one after the other; the
table, the disagreements and the choice are :mod:`agenteval_nb.analysis.judge_comparison`.
A candidate is anything ``ae.rejudge(judge=...)`` takes: a ``judgeModel`` spec (a dict such as
``{"modelName": "gpt-4o-mini"}``), a callable judge, a ``JudgeClient`` — whatever
``ae.evaluate(judge=...)`` accepts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .analysis.judge_comparison import JudgeComparison, compare_records
from .analysis.record import HoldsRecord, RunRecord, record_of
from .analysis.reviews import marks_of
from .engine.aggregate import CaseAggregator, default_case_aggregator
from .errors import ConfigError
from .evaluators.registry import Registry
from .rejudging import chosen_metrics, rejudge_async
from .runs import as_run
from .syncio import sync_twin

__all__ = ["compare_judges", "compare_judges_async"]


def _reference(against: Any, source: RunRecord, names: Sequence[str]) -> str | RunRecord:
    """``against`` as :func:`~.analysis.judge_comparison.compare_records` takes it: "human",
    a candidate's name, or a run record ("run" is the run itself: its own judge)."""
    if isinstance(against, str):
        if against == "run":
            return source
        if against == "human" and not marks_of(source):
            raise ConfigError(
                "against='human': the run has no human marks; mark case results first "
                "(run.mark(...), ae.inspect(run)) or compare against='run' (its own judge)"
            )
        if against != "human" and against not in names:
            raise ConfigError(
                f"against={against!r}: use 'human' (the run's marks), 'run' (the run's own "
                f"judge) or a candidate's name ({', '.join(map(repr, names))})"
            )
        return against
    if isinstance(against, (RunRecord, HoldsRecord)):
        return record_of(against)
    raise TypeError(f"against must be a str or a run, got {type(against).__name__}")


async def compare_judges_async(
    run: Any,
    candidates: Mapping[str, Any],
    against: Any = "human",
    *,
    metrics: str | Sequence[str] | None = None,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    registry: Registry | None = None,
    case_aggregator: CaseAggregator = default_case_aggregator,
    cache: bool | str | os.PathLike[str] = True,
    judge_num_samples: int | None = None,
    judge_concurrency: int = 32,
    judge_max_retries: int = 4,
    judge_timeout: float | None = 180.0,
    requests_per_minute: float | None = None,
    price_table: dict[str, tuple[float, float]] | None = None,
    progress: bool = True,
) -> JudgeComparison:
    """Each candidate (``{name: judge}``) rejudges ``run``; the comparison against ``against``
    (awaitable; rules in :mod:`agenteval_nb.judge_choice` and
    :mod:`agenteval_nb.analysis.judge_comparison`).

    ``against``: ``"human"`` (the run's marks), ``"run"`` (the run's own judge), a candidate's
    name, or another run (its verdicts). ``metrics``: the judge metrics compared (default all).
    ``level`` / ``n_resamples`` / ``seed``: the bootstrap CI of κ; ``progress``: a bar per
    candidate, labelled with its name. The judge keywords are
    those of :func:`agenteval_nb.evaluate` and go to every rejudge.
    """
    if not isinstance(candidates, Mapping) or not candidates:
        raise TypeError("candidates must be a non-empty dict {name: judge}")
    source = run if isinstance(run, RunRecord) else as_run(run, "ae.compare_judges").record
    reference = _reference(against, source, list(candidates))
    names = chosen_metrics(source.metrics, metrics)
    runs: dict[str, RunRecord] = {}
    for name, judge in candidates.items():
        rejudged = await rejudge_async(
            source,
            judge,
            metrics=names,
            registry=registry,
            case_aggregator=case_aggregator,
            cache=cache,
            judge_num_samples=judge_num_samples,
            judge_concurrency=judge_concurrency,
            judge_max_retries=judge_max_retries,
            judge_timeout=judge_timeout,
            requests_per_minute=requests_per_minute,
            price_table=price_table,
            progress=str(name) if progress else False,
        )
        runs[str(name)] = rejudged.record
    return compare_records(
        runs, source, names, reference, level=level, n_resamples=n_resamples, seed=seed
    )


@sync_twin(compare_judges_async)
def compare_judges() -> JudgeComparison:  # type: ignore[empty-body]
    """Each candidate judge (``{name: judge}``) rejudges ``run`` from its recorded turns; κ with
    its CI, base rate, fail recall/precision, α, cost, latency and errors against ``against``.

    Works in a plain script and inside a running event loop (Jupyter).
    """
