"""ipywidgets inspectors: ``inspect(run)`` or ``inspect(ae.compare(a, b))``.

ipywidgets is imported only when a widget is built.
"""

from __future__ import annotations

from typing import Any

from .master import PAGE_SIZE, MasterDetail


def inspect(
    run_or_comparison: Any,
    *,
    page_size: int = PAGE_SIZE,
    run_a: Any = None,
    run_b: Any = None,
) -> MasterDetail:
    """A master–detail inspector: filters, a paginated list (failures or flips first) and the
    selected case's detail (the same HTML as the report).

    Accepts an :class:`~agenteval_nb.analysis.run.EvalRun` (or a bare result), or a comparison
    from ``ae.compare(a, b)`` (flipped cases first, both runs' details side by side; the runs come
    from the comparison's ``run_a``/``run_b`` or from the ``run_a``/``run_b`` arguments). A pair
    ``(run_a, run_b)`` is compared first.
    """
    if isinstance(run_or_comparison, tuple) and len(run_or_comparison) == 2:
        from ..analysis.compare import compare

        run_a, run_b = run_or_comparison
        run_or_comparison = compare(run_a, run_b)
    if hasattr(run_or_comparison, "frame") and hasattr(run_or_comparison, "stats"):
        from .comparison import inspect_comparison

        return inspect_comparison(run_or_comparison, run_a, run_b, page_size=page_size)
    from ..schema import EvalSetResult

    if isinstance(run_or_comparison, EvalSetResult):
        from ..analysis.run import EvalRun

        run_or_comparison = EvalRun(result=run_or_comparison)
    if isinstance(getattr(run_or_comparison, "result", None), EvalSetResult):
        from .inspector import inspect_run

        return inspect_run(run_or_comparison, page_size=page_size)
    raise TypeError(
        f"inspect() takes an EvalRun or a comparison, got {type(run_or_comparison).__name__}"
    )


__all__ = ["MasterDetail", "inspect"]
