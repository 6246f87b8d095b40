"""ipywidgets inspectors: ``inspect(run)`` or ``inspect(ae.compare(a, b))``.

ipywidgets is imported only when a widget is built.
"""

from __future__ import annotations

from typing import Any

from .master import PAGE_SIZE, MasterDetail


def inspect(run_or_comparison: Any, *, page_size: int = PAGE_SIZE) -> MasterDetail:
    """A master–detail inspector: filters, a paginated list (failures or flips first) and the
    selected case's detail (the same HTML as the report).

    Accepts an :class:`~agenteval_nb.analysis.run.EvalRun` (or a bare result) or a comparison from
    ``ae.compare(a, b)`` (both runs' details side by side, flipped cases first).
    """
    if hasattr(run_or_comparison, "frame") and hasattr(run_or_comparison, "stats"):
        from .comparison import inspect_comparison

        return inspect_comparison(run_or_comparison, page_size=page_size)
    if hasattr(run_or_comparison, "result") and hasattr(
        run_or_comparison.result, "eval_case_results"
    ):
        from .inspector import inspect_run

        return inspect_run(run_or_comparison, page_size=page_size)
    raise TypeError(
        f"inspect() takes an EvalRun or a comparison, got {type(run_or_comparison).__name__}"
    )


__all__ = ["MasterDetail", "inspect"]
