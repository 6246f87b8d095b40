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
) -> MasterDetail:
    """A master–detail inspector widget: filters, a paginated list (failures or flips first)
    and the selected case's detail (the same HTML as the report).

    Takes a run — anything :func:`~agenteval_nb.load_run` accepts: an ``EvalRun``, a result
    model, dict, JSON text or file, a folder with one result — or a comparison from
    ``ae.compare(a, b)`` (flipped cases first, both runs' details side by side; the runs come
    from the comparison or from ``run_a``/``run_b``), or a pair ``(run_a, run_b)``, compared
    first. Anything else is a ``TypeError``. Returns an ``ipywidgets.VBox``.
    """
    if isinstance(run_or_comparison, tuple) and len(run_or_comparison) == 2:
        run_or_comparison = compare(*run_or_comparison)
    # the widget modules import ipywidgets: loaded here, when a widget is built
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


__all__ = ["PAGE_SIZE", "MasterDetail", "inspect"]
