"""ipywidgets inspectors of a run record or of a comparison: :func:`inspect` (``ae.inspect``,
:func:`agenteval_nb.views.inspect`, turns whatever it is given into these first).

The inspector is an ``ipywidgets.VBox`` (:class:`~.master.MasterDetail`): display it, or put it
in your own layout; its methods (``select``, ``filters``, ``next_page`` …) drive it. ipywidgets
is imported only when a widget is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..analysis.paired import Comparison
from ..analysis.record import RunRecord
from .entries import PAGE_SIZE

if TYPE_CHECKING:
    from .master import MasterDetail


def inspect(
    record_or_comparison: RunRecord | Comparison,
    *,
    page_size: int = PAGE_SIZE,
    run_a: RunRecord | None = None,
    run_b: RunRecord | None = None,
    case: Any = None,
) -> MasterDetail:
    """A master–detail inspector widget: filters, a paginated list (failures or flips first)
    and the selected case's detail (the same HTML as the report).

    Takes a run record, or a comparison (flipped cases first, both runs' details side by side;
    the records come from the comparison or from ``run_a``/``run_b``); anything else is a
    ``TypeError``. Returns an ``ipywidgets.VBox``.

    ``case`` opens a case right away: an eval id, an ``(eval_id, run_id)`` pair, or a row of a
    frame (a pandas row from ``run.cases_df().iloc[i]`` or ``df.loc[i]``, a dict from a polars
    ``iter_rows(named=True)``) with ``eval_id`` and, when present, ``run_id``. An unknown case
    is a ``KeyError``.
    """
    # the widget modules import ipywidgets: loaded here, when a widget is built
    widget = _build(record_or_comparison, page_size=page_size, run_a=run_a, run_b=run_b)
    if case is not None:
        widget.select(*case_key(case))
    return widget


def case_key(case: Any) -> tuple[str, int | None]:
    """(eval_id, run_id) of an eval id, a pair, or a frame row (mapping or pandas Series)."""
    if isinstance(case, str):
        return case, None
    if isinstance(case, tuple) and len(case) == 2:
        return str(case[0]), None if case[1] is None else int(case[1])
    getter = getattr(case, "get", None)
    if getter is None or getter("eval_id") is None:
        raise TypeError(
            "inspect(case=…) takes an eval id, an (eval_id, run_id) pair or a frame row with "
            f"an eval_id, got {type(case).__name__}"
        )
    run_id = getter("run_id")
    missing = run_id is None or (isinstance(run_id, float) and run_id != run_id)
    return str(getter("eval_id")), None if missing else int(run_id)


def _build(
    record_or_comparison: Any,
    *,
    page_size: int,
    run_a: RunRecord | None,
    run_b: RunRecord | None,
) -> MasterDetail:
    if isinstance(record_or_comparison, Comparison):
        from .comparison import inspect_comparison

        return inspect_comparison(record_or_comparison, run_a, run_b, page_size=page_size)
    if isinstance(record_or_comparison, RunRecord):
        from .inspector import inspect_run

        return inspect_run(record_or_comparison, page_size=page_size)
    raise TypeError(
        "widgets.inspect takes a run record or a comparison, got "
        f"{type(record_or_comparison).__name__}; ae.inspect also takes runs, results and paths"
    )


def inspect_experiment(experiment: Any, *, page_size: int = PAGE_SIZE) -> Any:
    """The experiment inspector (:func:`.experiment.inspect_experiment`): the leaderboard,
    two variant pickers and the comparison inspector of the chosen pair."""
    from .experiment import inspect_experiment as build

    return build(experiment, page_size=page_size)


def inspect_live(*callables: Any, page_size: int = PAGE_SIZE) -> Any:
    """The inspector of a run still going on (:func:`.live.inspect_live`): ``snapshot,
    version, progress, done, cancel`` callables; the table grows as case-runs land."""
    from .live import inspect_live as build

    return build(*callables, page_size=page_size)


def __getattr__(name: str) -> Any:
    if name == "MasterDetail":
        return importlib.import_module(".master", __name__).MasterDetail
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PAGE_SIZE", "MasterDetail", "case_key", "inspect", "inspect_experiment", "inspect_live"]
