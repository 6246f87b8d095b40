"""ipywidgets inspectors: ``inspect(run)`` or ``inspect(ae.compare(a, b))``.

The inspector is an ``ipywidgets.VBox`` (:class:`~.master.MasterDetail`): display it, or put it
in your own layout; its methods (``select``, ``filters``, ``next_page`` …) drive it. ipywidgets
is imported only when a widget is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..analysis.compare import Comparison, compare
from ..analysis.load import as_run
from .entries import PAGE_SIZE

if TYPE_CHECKING:
    from .master import MasterDetail


def inspect(
    run_or_comparison: Any,
    *,
    page_size: int = PAGE_SIZE,
    run_a: Any = None,
    run_b: Any = None,
    case: Any = None,
) -> MasterDetail:
    """A master–detail inspector widget: filters, a paginated list (failures or flips first)
    and the selected case's detail (the same HTML as the report).

    Takes a run — anything :func:`~agenteval_nb.load_run` accepts: an ``EvalRun``, a result
    model, dict, JSON text or file, a folder with one result — or a comparison from
    ``ae.compare(a, b)`` (flipped cases first, both runs' details side by side; the runs come
    from the comparison or from ``run_a``/``run_b``), or a pair ``(run_a, run_b)``, compared
    first. Anything else is a ``TypeError``. Returns an ``ipywidgets.VBox``.

    ``case`` opens a case right away: an eval id, an ``(eval_id, run_id)`` pair, or a row of a
    frame (a pandas row from ``run.cases_df().iloc[i]`` or ``df.loc[i]``, a dict from a polars
    ``iter_rows(named=True)``) with ``eval_id`` and, when present, ``run_id``. An unknown case
    is a ``KeyError``.
    """
    if isinstance(run_or_comparison, tuple) and len(run_or_comparison) == 2:
        run_or_comparison = compare(*run_or_comparison)
    # the widget modules import ipywidgets: loaded here, when a widget is built
    widget = _build(run_or_comparison, page_size=page_size, run_a=run_a, run_b=run_b)
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


def _build(run_or_comparison: Any, *, page_size: int, run_a: Any, run_b: Any) -> MasterDetail:
    if isinstance(run_or_comparison, Comparison):
        from .comparison import inspect_comparison

        return inspect_comparison(
            run_or_comparison,
            None if run_a is None else as_run(run_a, "inspect(run_a=…)"),
            None if run_b is None else as_run(run_b, "inspect(run_b=…)"),
            page_size=page_size,
        )
    run = as_run(run_or_comparison, "ae.inspect")
    from .inspector import inspect_run

    return inspect_run(run, page_size=page_size)


def __getattr__(name: str) -> Any:
    if name == "MasterDetail":
        return importlib.import_module(".master", __name__).MasterDetail
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PAGE_SIZE", "MasterDetail", "case_key", "inspect"]
