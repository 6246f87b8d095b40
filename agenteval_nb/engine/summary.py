"""The result summary: per run, per case and per metric status counts (SPEC §8.6)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import attrgetter
from typing import Any, NamedTuple, Protocol

from ..schema import (
    CaseRunMetricResult,
    CaseRunSummary,
    CaseSummary,
    EvalCaseResult,
    EvalSetResult,
    EvalSetResultSummary,
    EvalStatus,
    MetricSummary,
    RunSummary,
    StatusCounts,
    summarize_statuses,
)
from ..schema.base import WireModel, wire_fields
from ..schema.status import by_metric, case_status, combine_runs


class SummaryError(ValueError):
    """The case results cannot be summarised (missing eval id or run id), or a written summary
    disagrees with them. ``json_path`` points at the offending field when known."""

    def __init__(self, message: str, json_path: str = "$") -> None:
        super().__init__(message)
        self.json_path = json_path


def run_bound(summary: EvalSetResultSummary | None, n_case_results: int) -> int:
    """The most runs a result can describe: one per run summary or per case result (≥ 1).

    ``numRuns`` and ``runId`` are header fields anyone can write; work that loops over runs is
    bounded by this count of records actually present, never by those fields alone.
    """
    written = len(summary.run_summaries or ()) if summary is not None else 0
    return max(written, n_case_results, 1)


def check_run_ids(result: EvalSetResult) -> None:
    """Reject run numbers the file cannot back: ``summary.numRuns`` or a case result's
    ``runId`` above :func:`run_bound`, or a ``runId`` above a written ``numRuns``
    (:class:`SummaryError`). A million claimed runs over four case results is an error here,
    not a million-step loop later."""
    cases = result.eval_case_results or ()
    check_run_numbers(result.summary, [c.run_id if c is not None else None for c in cases])


def check_run_numbers(summary: EvalSetResultSummary | None, run_ids: Sequence[int | None]) -> None:
    """:func:`check_run_ids` of a summary and the ``runId`` of each case result."""
    bound = run_bound(summary, len(run_ids))
    num_runs = summary.num_runs if summary is not None else None
    if num_runs is not None and num_runs > bound:
        raise SummaryError(
            f"numRuns {num_runs} is more than the file holds "
            f"({len(summary.run_summaries or ())} run summaries, "  # type: ignore[union-attr]
            f"{len(run_ids)} case results)",
            "$.summary.numRuns",
        )
    limit = min(bound, num_runs) if num_runs else bound
    for i, run_id in enumerate(run_ids):
        if (run_id or 0) > limit:
            what = f"numRuns {num_runs}" if num_runs else f"the {bound} case result(s)"
            raise SummaryError(f"runId {run_id} exceeds {what}", f"$.evalCaseResults[{i}].runId")


class Make(Protocol):
    """How a summary part is built: as its model (:func:`_model`) or as the plain dict the
    model writes to a file (:func:`wire_dict`). One builder, two forms."""

    def __call__(self, cls: type[WireModel], **values: Any) -> Any: ...


def _model(cls: type[WireModel], **values: Any) -> Any:
    return cls(**values)


def wire_dict(cls: type[WireModel], **values: Any) -> dict[str, Any]:
    """The dict a ``cls`` model of these field values writes to a file (wire keys in field
    order, ``None`` left out, :func:`~agenteval_nb.schema.base.wire_fields`' exceptions),
    built without the model. Values must already be of the field's type (floats as float)."""
    items = {alias: values[name] for name, alias in _aliases(cls) if values.get(name) is not None}
    return wire_fields(_prototype(cls), items)


@cache
def _aliases(cls: type[WireModel]) -> tuple[tuple[str, str], ...]:
    return tuple((name, field.alias or name) for name, field in cls.model_fields.items())


@cache
def _prototype(cls: type[WireModel]) -> WireModel:
    """An empty ``cls`` model: what :func:`wire_fields` reads its class rules from."""
    return cls.model_construct()


def _counts(statuses: Sequence[str], make: Make = _model) -> Any:
    passed = sum(1 for s in statuses if s == EvalStatus.PASSED)
    failed = sum(1 for s in statuses if s == EvalStatus.FAILED)
    not_evaluated = sum(1 for s in statuses if s == EvalStatus.NOT_EVALUATED)
    if passed == failed == not_evaluated == 0:
        return None
    return _shared_counts(passed, failed, not_evaluated, make)  # type: ignore[arg-type]  # functions hash


@lru_cache(maxsize=4096)
def _shared_counts(passed: int, failed: int, not_evaluated: int, make: Make) -> Any:
    """One instance per distinct triple: a 100k-case summary holds ~400k counts, mostly alike.
    Treat summary counts as read-only."""
    return make(
        StatusCounts,
        passed=passed or None,
        failed=failed or None,
        not_evaluated=not_evaluated or None,
    )


class MetricOutcome(NamedTuple):
    """An overall metric result as the summary reads it."""

    name: str | None
    score: float | None
    status: str | None
    threshold: float | None


class CaseOutcome(NamedTuple):
    """What the summary needs of one case result (metrics sorted by name). A streamed run keeps
    these plain tuples — a few hundred bytes a case — instead of the case results."""

    eval_id: str
    run_id: int | None
    status: str | None
    error: str | None
    metrics: tuple[MetricOutcome, ...]


def case_outcome(result: EvalCaseResult) -> CaseOutcome:
    """The :class:`CaseOutcome` of one case result."""
    metrics = sorted(result.overall_eval_metric_results or (), key=lambda m: m.metric_name or "")
    return CaseOutcome(
        result.eval_id or "",
        result.run_id,
        result.final_eval_status,
        result.error_message,
        tuple(MetricOutcome(m.metric_name, m.score, m.eval_status, m.threshold) for m in metrics),
    )


class _MetricStat(NamedTuple):
    name: str
    average: float
    status: EvalStatus
    threshold: float
    statuses: list[str]


def _metric_stats(results: Iterable[MetricOutcome]) -> list[_MetricStat]:
    """Per metric name (sorted): :func:`~agenteval_nb.schema.status.combine_runs` with the
    first-seen threshold; a metric no run evaluated is kept as not_evaluated, average 0."""
    out = []
    for name, group in by_metric(results, attrgetter("name")):
        combined = combine_runs(
            ((r.score, r.status, r.threshold) for r in group), first_seen_threshold=True
        )
        out.append(
            _MetricStat(
                name,
                0.0 if combined.score is None else combined.score,
                combined.status,
                combined.threshold or 0.0,
                [r.status or "" for r in group],
            )
        )
    return out


def _metric_summaries(results: Iterable[MetricOutcome], make: Make = _model) -> Any:
    """:func:`_metric_stats` as metric summaries (with status counts), or ``None``."""
    out = [
        make(
            MetricSummary,
            metric_name=stat.name,
            average_score=_float(stat.average),
            eval_status=stat.status.value,
            threshold=_float(stat.threshold),
            status_counts=_counts(stat.statuses, make),
        )
        for stat in _metric_stats(results)
    ]
    return out or None


def _float(value: float | None) -> float | None:
    """A float field's value as the model holds it (an int score reads as a float)."""
    return None if value is None else float(value)


def _case_status(runs: Sequence[CaseOutcome], num_runs: int) -> EvalStatus:
    """:func:`~agenteval_nb.schema.status.case_status`; a single run when the summary covers
    one run (``num_runs``, the reference's choice here; the case aggregation counts the case's
    own results)."""
    single_run = num_runs <= 1
    metrics = [] if single_run else _metric_stats(m for r in runs for m in r.metrics)
    return case_status(
        (r.status for r in runs),
        (s.status for s in metrics),
        any(r.error for r in runs),
        single_run=single_run,
    )


def _case_summary(eval_id: str, runs: Sequence[CaseOutcome], num_runs: int, make: Make) -> Any:
    """The case summary of one case's outcomes (one per run), as ``make`` builds it."""
    return make(
        CaseSummary,
        eval_id=eval_id,
        overall_status=_case_status(runs, num_runs).value,
        run_status_counts=_counts([r.status or "" for r in runs], make),
        metric_summaries=_metric_summaries((m for r in runs for m in r.metrics), make),
        run_summaries=[
            make(
                CaseRunSummary,
                run_id=r.run_id,
                final_eval_status=r.status,
                error_message=r.error,
                metric_results=[
                    make(
                        CaseRunMetricResult,
                        metric_name=m.name,
                        score=_float(m.score),
                        eval_status=m.status,
                        threshold=_float(m.threshold),
                    )
                    for m in r.metrics
                ]
                or None,
            )
            for r in runs
        ],
    )


def _case_summary_wire(eval_id: str, runs: Sequence[CaseOutcome], num_runs: int) -> Any:
    """``_case_summary(..., wire_dict)``. All that follows ``evalId`` depends only on the runs'
    outcomes, which a deterministic run repeats over its cases: it is built once per distinct
    outcomes and shared (plain dicts that are only encoded or validated). Never for a
    ``-0.0``, which compares equal to ``0.0``."""
    if any(_negative_zero(m) for r in runs for m in r.metrics):
        return _case_summary(eval_id, runs, num_runs, wire_dict)
    return {"evalId": eval_id, **_shared_rest(tuple(r[1:] for r in runs), num_runs)}


@lru_cache(maxsize=4096)
def _shared_rest(runs: tuple[tuple[Any, ...], ...], num_runs: int) -> dict[str, Any]:
    wire: dict[str, Any] = _case_summary(
        "-", [CaseOutcome("-", *r) for r in runs], num_runs, wire_dict
    )
    del wire["evalId"]
    return wire


def _negative_zero(m: MetricOutcome) -> bool:
    return any(
        v == 0 and math.copysign(1.0, v) < 0 for v in (m.score, m.threshold) if v is not None
    )


@dataclass(frozen=True)
class SummaryParts:
    """A summary in two parts: ``head`` (everything but ``evalCaseSummaries``) and the case
    summaries, built on request from the case outcomes (a 100k-case summary is ~600k models;
    a streamed run holds the outcomes instead and builds them when saved or materialised)."""

    head: EvalSetResultSummary
    num_runs: int
    groups: list[tuple[str, list[CaseOutcome]]]

    def case_summaries(self) -> Iterator[CaseSummary]:
        """Every case summary, by eval id, one built at a time: validated from its file form
        (:meth:`case_summary_wires`, whose parts cases of equal outcomes share), a model of
        its own equal to the one its constructors build (a zero ``averageScore``, left out of
        the file, is the field's default)."""
        for wire in self.case_summary_wires():
            yield CaseSummary.model_validate(wire)

    def case_summary_wires(self) -> Iterator[dict[str, Any]]:
        """:meth:`case_summaries` as the plain dicts their models write to a file (no model
        built): what a saved file needs, encoded a batch at a time by the Go-format writer."""
        for eval_id, runs in self.groups:
            yield _case_summary_wire(eval_id, runs, self.num_runs)

    def whole(self) -> EvalSetResultSummary:
        """The summary with its case summaries."""
        return self.head.model_copy(update={"eval_case_summaries": list(self.case_summaries())})


def summarize(
    results: Sequence[EvalCaseResult | None], num_runs: int | None
) -> EvalSetResultSummary:
    """Summary of case results over runs ``1..num_runs``: :func:`summarize_outcomes` of their
    :func:`case_outcome`s."""
    return summarize_outcomes([case_outcome(r) for r in results if r is not None], num_runs)


def summarize_outcomes(
    outcomes: Sequence[CaseOutcome], num_runs: int | None
) -> EvalSetResultSummary:
    """The whole summary of :func:`summary_parts`."""
    return summary_parts(outcomes, num_runs).whole()


def summary_parts(outcomes: Sequence[CaseOutcome], num_runs: int | None) -> SummaryParts:
    """Summary of case outcomes over runs ``1..num_runs`` (empty runs are not_evaluated).

    ``num_runs`` defaults to the largest run id (or 1); a result read from outside is checked
    with :func:`check_run_ids` first, so that a forged ``runId`` cannot set the work. Case
    statuses: :func:`_case_status`; the eval set's status summarises them.
    """
    for i, outcome in enumerate(outcomes):
        if not outcome.eval_id:
            raise SummaryError(f"eval id at index {i} is empty")
        if not outcome.run_id or outcome.run_id < 1:
            raise SummaryError(f"run id at index {i} is not set")
    if not num_runs:
        num_runs = max((o.run_id or 1 for o in outcomes), default=1)
    for i, outcome in enumerate(outcomes):
        if (outcome.run_id or 0) > num_runs:
            raise SummaryError(f"run id at index {i} exceeds num runs {num_runs}")

    by_run: dict[int, list[CaseOutcome]] = defaultdict(list)
    by_case: dict[str, list[CaseOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_run[outcome.run_id or 1].append(outcome)
        by_case[outcome.eval_id].append(outcome)

    run_summaries = []
    for run_id in range(1, num_runs + 1):
        run_cases = by_run.get(run_id, [])
        statuses = [r.status or "" for r in run_cases]
        run_summaries.append(
            RunSummary(
                run_id=run_id,
                overall_status=summarize_statuses(statuses).value,
                case_status_counts=_counts(statuses),
                metric_summaries=_metric_summaries(m for r in run_cases for m in r.metrics),
            )
        )
    groups = [
        (eval_id, sorted(by_case[eval_id], key=lambda r: r.run_id or 0))
        for eval_id in sorted(by_case)
    ]
    case_statuses = [_case_status(runs, num_runs) for _, runs in groups]
    head = EvalSetResultSummary(
        overall_status=summarize_statuses(case_statuses).value,
        num_runs=num_runs,
        run_status_counts=_counts([r.overall_status or "" for r in run_summaries]),
        run_summaries=run_summaries,
    )
    return SummaryParts(head, num_runs, groups)
