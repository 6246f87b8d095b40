"""A frame as an HTML table (the experiment's leaderboard and pairwise table in the report and
the inspector): every cell escaped, NaN and null shown as ``–``, floats to 4 significant
digits. The leaderboard is drawn here, once, for the report, the inspector and the
experiment's notebook view."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup

from ..analysis.headline import PASS_RATE_UNIT
from .text import html, join, number

LEADERBOARD_COLUMNS = [
    "variant",
    "metric_name",
    "n_passed",
    "cases",
    "pass_rate",
    "pass_rate_low",
    "pass_rate_high",
    "pass_rate_case_runs",
    "mean_score",
    "mean_score_low",
    "mean_score_high",
    "pass_at_1",
    "pass_at_k",
    "pass_hat_k",
    "agent_tokens",
    "judge_tokens",
    "cost",
    "errors",
]
"""The leaderboard columns the report and the inspector show (``leaderboard_df`` has them all)."""

OVERVIEW_COLUMNS = ["variant", "n_passed", "cases", "pass_rate", "errors"]
"""The columns of the experiment's notebook view (its ``"overall"`` rows)."""

LEADERBOARD_NOTE = (
    f"pass rate: {PASS_RATE_UNIT} (n_passed of cases), Wilson interval; pass_rate_case_runs "
    "counts each case-run on its own; mean score: the mean over cases, its normal interval "
    "clipped to the score's range; errors: case-runs with an error"
)
"""The line under the leaderboard's title: the unit of each number."""


def cell(value: Any) -> str:
    """The text of one cell."""
    if isinstance(value, float):
        return "–" if math.isnan(value) else number(value)
    return "–" if value is None else str(value)


def frame_table(
    frame: pl.DataFrame,
    columns: Sequence[str],
    row_class: Callable[[dict[str, Any]], str] = lambda row: "",
) -> Markup:
    """``columns`` of ``frame`` as a ``<table class="ae-board">``; ``row_class`` names each
    row's CSS class."""
    head = join(html("<th>{}</th>", c) for c in columns)
    rows = join(
        html(
            '<tr class="{}">{}</tr>',
            row_class(row),
            join(html("<td>{}</td>", cell(row[c])) for c in columns),
        )
        for row in frame.iter_rows(named=True)
    )
    return html('<table class="ae-board"><tr>{}</tr>{}</table>', head, rows)


def leaderboard_table(
    board: pl.DataFrame, columns: Sequence[str] = tuple(LEADERBOARD_COLUMNS)
) -> Markup:
    """The experiment's leaderboard (``columns`` of ``leaderboard_df``) under the line naming
    its units — the one drawing of it (each page gives its own heading)."""
    return html(
        '<div class="ae-leaderboard"><div class="ae-note">{}</div>'
        '<div class="ae-scroll">{}</div></div>',
        LEADERBOARD_NOTE,
        frame_table(board, columns),
    )
