"""The report's charts: figures from :mod:`agenteval_nb.plots` as inline SVG.

A chart that cannot be drawn (no data of that kind, or a plotting error) becomes a note in its
place; the report itself is still written.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from .. import plots
from ..analysis.passk import num_runs
from ..analysis.record import RunRecord
from .svg import inline_svg


@dataclass
class Plot:
    """One chart: inline SVG markup, or a note saying why there is none."""

    caption: str
    svg: Markup | None = None
    note: str = ""


def draw(index: int, caption: str, make: Callable[[], Any]) -> Plot:
    """The chart ``make()`` draws as inline SVG (ids prefixed ``fig<index>``), or a note."""
    try:
        figure = make()
        if figure is None:
            return Plot(caption, note="no data")
        return Plot(caption, svg=inline_svg(plots.figure_to_svg(figure), f"fig{index}"))
    except Exception as exc:  # a chart must never stop the report
        warnings.warn(f"report chart {caption!r} not drawn: {exc}", stacklevel=3)
        return Plot(caption, note=f"chart not drawn: {type(exc).__name__}: {exc}")


MAX_HEATMAP_CASES = 60
"""Above this many cases with rubric scores the rubric heatmap (one row per case) is left out."""


def _rubric_cases(run: RunRecord) -> int:
    """Number of distinct cases with rubric scores (eval ids of the rubrics table)."""
    return run.table("rubrics")["eval_id"].n_unique()


def report_plots(run: RunRecord) -> list[Plot]:
    """Pass rates, score distributions per metric, the pass@k curve (several runs) and the
    rubric heatmap (when at most :data:`MAX_HEATMAP_CASES` cases have rubric scores). Verifier
    label distributions are drawn per judgement in the case details."""
    planned: list[tuple[str, Callable[[], Any]]] = [
        ("pass rate per metric (95% CI)", lambda: plots.pass_rates(run)),
        ("score distribution per metric", lambda: plots.score_distribution(run)),
    ]
    if num_runs(run) > 1:
        planned.append(("pass@k and pass^k by k", lambda: plots.pass_at_k_curve(run)))
    drawn = [draw(i, caption, make) for i, (caption, make) in enumerate(planned, 1)]
    n_rubric_cases = _rubric_cases(run)
    if 0 < n_rubric_cases <= MAX_HEATMAP_CASES:
        drawn.append(draw(len(drawn) + 1, "rubric scores", lambda: plots.rubric_heatmap(run)))
    elif n_rubric_cases:
        note = (
            f"rubric heatmap left out: {n_rubric_cases} cases have rubric scores "
            f"(more than {MAX_HEATMAP_CASES}); see run.rubrics_df()"
        )
        drawn.append(Plot("rubric scores", note=note))
    return drawn
