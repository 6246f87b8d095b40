"""The inspector of an experiment (``ae.inspect(exp)``): the leaderboard on top, two variant
pickers, and below them the comparison inspector of the chosen pair — the cases whose outcome
differs first, both sides' details side by side, with the inspector's filters and search. One
variant (a grid built a variant at a time), or the same variant picked twice, shows that
variant's run inspector."""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import polars as pl

from ..analysis.experiment import HoldsRecords, leaderboard_of, records_of
from ..analysis.paired import compare_records
from ..render import STYLESHEET
from ..render.board import leaderboard_table
from ..render.text import html
from .comparison import inspect_comparison
from .entries import PAGE_SIZE
from .inspector import inspect_run
from .master import MasterDetail


class ExperimentInspector(w.VBox):
    """Leaderboard, variant pickers ``picker_a`` / ``picker_b`` and ``comparison`` (the
    :class:`~.master.MasterDetail` of the chosen pair, or of the one variant when both pickers
    name it); :meth:`choose` picks a pair. The pickers are hidden when there is one variant."""

    def __init__(self, experiment: HoldsRecords, *, page_size: int = PAGE_SIZE) -> None:
        self.records = records_of(experiment)
        names = list(self.records)
        if not names:
            raise ValueError("inspecting an experiment needs a variant")
        self.page_size = page_size
        board = leaderboard_of(experiment)
        self.board = w.HTML(
            html("<style>{}</style><b>Leaderboard</b>{}", STYLESHEET, leaderboard_table(board))
        )
        ranked = board.filter(pl.col("metric_name") == board["metric_name"][0])["variant"]
        self.picker_a = w.Dropdown(options=names, value=ranked[0], description="A")
        self.picker_b = w.Dropdown(
            options=names, value=ranked[min(1, len(names) - 1)], description="B"
        )
        self.comparison: MasterDetail = self._compared()
        self.pickers = w.HBox([self.picker_a, self.picker_b])
        if len(names) < 2:
            self.pickers.layout.display = "none"
        super().__init__([self.board, self.pickers, self.comparison])
        self.picker_a.observe(self._on_pick, names="value")
        self.picker_b.observe(self._on_pick, names="value")

    def choose(self, a: str, b: str) -> MasterDetail:
        """Compare variants ``a`` and ``b`` (names) and show that comparison."""
        for name in (a, b):
            if name not in self.records:
                raise KeyError(f"no variant {name!r}; variants: {', '.join(self.records)}")
        with self.hold_trait_notifications():
            self.picker_a.value, self.picker_b.value = a, b
        self._on_pick()
        return self.comparison

    def static_html(self, limit: int = 10) -> str:
        """What a static view (nbconvert, GitHub) shows: the board, then the comparison's
        first ``limit`` cases."""
        return self.board.value + self.comparison.static_html(limit)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.static_html()
            a, b = self.picker_a.value, self.picker_b.value
            shown = a if a == b else f"{a} vs {b}"
            bundle["text/plain"] = f"<experiment inspector: {shown}>"
        return bundle

    def _compared(self) -> MasterDetail:
        a, b = self.picker_a.value, self.picker_b.value
        if a == b:
            return inspect_run(self.records[a], page_size=self.page_size)
        comparison = compare_records(
            self.records[a], self.records[b], labels=(a, b), backend="polars"
        )
        return inspect_comparison(comparison, page_size=self.page_size)

    def _on_pick(self, _change: Any = None) -> None:
        self.comparison = self._compared()
        self.children = (self.board, self.pickers, self.comparison)


def inspect_experiment(
    experiment: HoldsRecords, *, page_size: int = PAGE_SIZE
) -> ExperimentInspector:
    """The experiment inspector (the leaderboard's two best variants compared first; one
    variant: its run inspector)."""
    return ExperimentInspector(experiment, page_size=page_size)
