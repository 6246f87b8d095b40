"""A frame as an HTML table (the experiment's leaderboard and pairwise table in the report and
the inspector): every cell escaped, NaN and null shown as ``–``, floats to 4 significant
digits."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup

from .text import html, join, number


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
