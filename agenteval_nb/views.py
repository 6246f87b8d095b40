"""The doors of the views: ``ae.compare``, ``ae.export_html`` and ``ae.inspect``.

Each takes anything :func:`~agenteval_nb.runs.load_run` accepts, turns it into a run once
(:func:`~agenteval_nb.runs.as_run`, a ``TypeError`` naming the door otherwise) and hands the
run's record to the room that does the work — :func:`~agenteval_nb.analysis.paired.compare_records`,
:mod:`agenteval_nb.report`, :mod:`agenteval_nb.widgets` — which never coerce their input.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import report, widgets
from .analysis.experiment import HoldsRecords
from .analysis.paired import Comparison, compare_records
from .report.experiment import export_experiment_html
from .runs import RunLike, as_run
from .widgets.entries import PAGE_SIZE

if TYPE_CHECKING:
    from .widgets.master import MasterDetail

__all__ = ["Comparison", "compare", "export_html", "inspect", "report_html"]


def compare(run_a: RunLike, run_b: RunLike, **options: Any) -> Comparison:
    """Align two runs and compare them per metric (:func:`~.analysis.paired.compare_records`,
    same options: ``by``, ``level``, ``n_resamples``, ``seed``, ``labels``, ``backend``)."""
    by = options.get("by", "case")
    if by not in ("case", "invocation"):
        raise ValueError(f'by must be "case" or "invocation", got {by!r}')
    a, b = as_run(run_a, "ae.compare"), as_run(run_b, "ae.compare")
    return compare_records(a.record, b.record, **options)


def report_html(run: RunLike, *, title: str | None = None, max_cases: int | None = None) -> str:
    """The report of ``run`` as HTML text (:func:`agenteval_nb.report.report_html`)."""
    record = as_run(run, "export_html").record
    return report.report_html(record, title=title, max_cases=max_cases)


def export_html(
    run: RunLike,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    max_cases: int | None = None,
) -> Path:
    """Write the single-file report of ``run`` to ``path`` atomically and return the path
    (:func:`agenteval_nb.report.export_html`: ``max_cases`` caps the detailed case results).
    An experiment (``ae.experiment``) gets its own report
    (:func:`agenteval_nb.report.experiment.export_experiment_html`)."""
    if isinstance(run, HoldsRecords):
        return export_experiment_html(run, path, title=title, max_cases=max_cases)
    record = as_run(run, "export_html").record
    return report.export_html(record, path, title=title, max_cases=max_cases)


@runtime_checkable
class Growing(Protocol):
    """A run still going on (``ae.start``, ``ae.watch``): its snapshot grows; one started here
    can also be cancelled (``cancel``)."""

    def snapshot(self) -> Any: ...
    def version(self) -> int: ...
    def progress_text(self) -> str: ...
    def done(self) -> bool: ...


def inspect(
    run_or_comparison: Any,
    *,
    page_size: int = PAGE_SIZE,
    run_a: Any = None,
    run_b: Any = None,
    case: Any = None,
) -> MasterDetail:
    """A master–detail inspector widget (:func:`agenteval_nb.widgets.inspect`).

    Takes a run — anything :func:`~agenteval_nb.runs.load_run` accepts — or a comparison from
    ``ae.compare(a, b)`` (the runs come from the comparison or from ``run_a``/``run_b``), or a
    pair ``(run_a, run_b)``, compared first, or an experiment (``ae.experiment``): its
    leaderboard over the comparison inspector of two chosen variants, or a live run
    (``ae.start``): its table grows as case-runs land, with a stop button. Anything else is a
    ``TypeError``.
    """
    if isinstance(run_or_comparison, HoldsRecords):
        return widgets.inspect_experiment(run_or_comparison, page_size=page_size)
    if isinstance(run_or_comparison, Growing):
        live = run_or_comparison
        view = widgets.inspect_live(
            lambda: as_run(live, "ae.inspect").record,
            live.version,
            live.progress_text,
            live.done,
            getattr(live, "cancel", None),
            page_size=page_size,
        )
        if case is not None:
            view.select(*widgets.case_key(case))
        return view
    if isinstance(run_or_comparison, tuple) and len(run_or_comparison) == 2:
        run_or_comparison = compare(*run_or_comparison)
    if isinstance(run_or_comparison, Comparison):
        return widgets.inspect(
            run_or_comparison,
            page_size=page_size,
            run_a=None if run_a is None else as_run(run_a, "inspect(run_a=…)").record,
            run_b=None if run_b is None else as_run(run_b, "inspect(run_b=…)").record,
            case=case,
        )
    record = as_run(run_or_comparison, "ae.inspect").record
    return widgets.inspect(record, page_size=page_size, case=case)
