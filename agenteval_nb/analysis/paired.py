"""Paired comparison of two run records on the same cases (STATS.md: paired difference,
McNemar). ``ae.compare`` (:mod:`.compare`) takes anything ``load_run`` accepts and calls
:func:`compare_records`.

Rows are aligned by ``(eval_id, metric_name)`` (``by="case"``: the case's overall metric
result) or by ``(eval_id, invocation_index, metric_name)`` (``by="invocation"``). When a run has
several runs per case, each side is first reduced per key by
:func:`~agenteval_nb.analysis.frames.across_runs_frame` (SPEC §8.7: mean over evaluated runs,
status by the pass rule; a NaN mean fails, no evaluated run is not_evaluated).

``diff = score_a − score_b`` (as ``d_i = s_A,i − s_B,i`` in STATS.md), and ``flipped`` is True
when both sides were evaluated and their statuses differ. Keys present in one run only are kept
with nulls on the other side and ``flipped`` False.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from .frames import across_runs_frame, to_backend
from .record import RunRecord
from .stats import mcnemar, paired_bootstrap_ci, paired_difference

_EVALUATED = ("passed", "failed")

STATS_SCHEMA: dict[str, pl.DataType] = {
    "metric_name": pl.String(),
    "n": pl.Int64(),
    "mean_diff": pl.Float64(),
    "se": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "boot_ci_low": pl.Float64(),
    "boot_ci_high": pl.Float64(),
    "n_flipped": pl.Int64(),
    "n_pass_to_fail": pl.Int64(),
    "n_fail_to_pass": pl.Int64(),
    "mcnemar_p": pl.Float64(),
    "mcnemar_exact_p": pl.Float64(),
    "n_unpaired": pl.Int64(),
}
"""Per-metric statistics: ``n`` complete pairs; ``mean_diff``, ``se`` (``sd(d)/√n``) and the
normal CI; the seeded paired-bootstrap percentile CI; ``n_flipped`` with its two directions
(A passed → B failed, A failed → B passed); McNemar's continuity-corrected χ² p-value and the
exact binomial p-value (NaN without discordant pairs); ``n_unpaired`` keys found in one run only.
"""


@dataclass
class Comparison:
    """Result of :func:`compare_records`: ``frame`` (aligned rows, flipped first) and ``stats``."""

    frame: Any
    stats: Any
    by: str
    label_a: str = "A"
    label_b: str = "B"
    level: float = 0.95
    run_a: RunRecord | None = field(default=None, repr=False)
    run_b: RunRecord | None = field(default=None, repr=False)
    """The compared runs, so that ``ae.inspect(comparison)`` can show both sides."""

    def __repr__(self) -> str:
        stats = _as_polars(self.stats)
        return (
            f"Comparison({self.label_a} vs {self.label_b}, by {self.by}: "
            f"{len(self.frame)} aligned rows, {stats['n_flipped'].sum()} flipped, "
            f"{stats.height} metrics)"
        )

    def _repr_html_(self) -> str:
        stats = _as_polars(self.stats)
        pct = f"{self.level:.0%}"
        head = (
            "<tr><th>metric</th><th>n</th><th>mean diff (A−B)</th><th>SE</th>"
            f"<th>{pct} CI</th><th>bootstrap CI</th><th>flipped</th><th>McNemar p</th></tr>"
        )
        body = "".join(
            "<tr>"
            f"<td>{html.escape(str(r['metric_name']))}</td><td>{r['n']}</td>"
            f"<td>{_fmt(r['mean_diff'])}</td><td>{_fmt(r['se'])}</td>"
            f"<td>[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]</td>"
            f"<td>[{_fmt(r['boot_ci_low'])}, {_fmt(r['boot_ci_high'])}]</td>"
            f"<td>{r['n_flipped']} ({r['n_pass_to_fail']} ↓, {r['n_fail_to_pass']} ↑)</td>"
            f"<td>{_fmt(r['mcnemar_p'])}</td>"
            "</tr>"
            for r in stats.iter_rows(named=True)
        )
        title = html.escape(f"{self.label_a} vs {self.label_b}, aligned by {self.by}")
        return f"<div><b>Comparison</b> {title}<table>{head}{body}</table></div>"


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _as_polars(df: Any) -> pl.DataFrame:
    return df if isinstance(df, pl.DataFrame) else pl.from_pandas(df)


def _reduced(run: RunRecord, keys: list[str], by: str) -> pl.DataFrame:
    """One row per key across runs (:func:`~.frames.across_runs_frame`)."""
    return across_runs_frame(run, by).select([*keys, "score", "status", "n_runs"])


def compare_records(
    run_a: RunRecord,
    run_b: RunRecord,
    *,
    by: Literal["case", "invocation"] = "case",
    level: float = 0.95,
    n_resamples: int = 2000,
    seed: int | None = 0,
    labels: tuple[str, str] = ("A", "B"),
    backend: str | None = None,
) -> Comparison:
    """Align two runs and compare them per metric (see the module docstring for the rules).

    ``frame`` columns: the keys, ``score_a``, ``score_b``, ``diff``, ``status_a``, ``status_b``,
    ``flipped``, ``n_runs_a``, ``n_runs_b``; flipped rows first, then by metric and key.
    ``stats``: one row per metric, columns in :data:`STATS_SCHEMA`. The bootstrap uses
    ``seed`` so equal inputs give equal intervals. ``run_a`` / ``run_b``: run records (a
    ``TypeError`` otherwise; ``ae.compare`` also takes results, paths and JSON).
    """
    if by not in ("case", "invocation"):
        raise ValueError(f'by must be "case" or "invocation", got {by!r}')
    for side in (run_a, run_b):
        if not isinstance(side, RunRecord):
            raise TypeError(
                f"compare_records takes two runs, got {type(side).__name__}; "
                "ae.compare also accepts results, paths and JSON"
            )
    keys = (
        ["eval_id", "metric_name"]
        if by == "case"
        else [
            "eval_id",
            "invocation_index",
            "metric_name",
        ]
    )
    a = _reduced(run_a, keys, by)
    b = _reduced(run_b, keys, by)
    joined = (
        a.join(b, on=keys, how="full", coalesce=True, suffix="_b", nulls_equal=True)
        .rename({"score": "score_a", "status": "status_a", "n_runs": "n_runs_a"})
        .with_columns(
            (pl.col("score_a") - pl.col("score_b")).alias("diff"),
            (
                pl.col("status_a").is_in(_EVALUATED)
                & pl.col("status_b").is_in(_EVALUATED)
                & (pl.col("status_a") != pl.col("status_b"))
            )
            .fill_null(False)
            .alias("flipped"),
        )
    )
    order = ["metric_name", "eval_id", *(["invocation_index"] if by == "invocation" else [])]
    frame = joined.sort(["flipped", *order], descending=[True] + [False] * len(order)).select(
        [
            *keys,
            "score_a",
            "score_b",
            "diff",
            "status_a",
            "status_b",
            "flipped",
            "n_runs_a",
            "n_runs_b",
        ]
    )
    stats = _stats(frame, level=level, n_resamples=n_resamples, seed=seed)
    return Comparison(
        frame=to_backend(frame, backend),
        stats=to_backend(stats, backend),
        by=by,
        label_a=labels[0],
        label_b=labels[1],
        level=level,
        run_a=run_a,
        run_b=run_b,
    )


def _stats(
    frame: pl.DataFrame, *, level: float, n_resamples: int, seed: int | None
) -> pl.DataFrame:
    cols: dict[str, list[Any]] = {name: [] for name in STATS_SCHEMA}
    for name in sorted(frame["metric_name"].unique(maintain_order=True).to_list(), key=str):
        rows = frame.filter(pl.col("metric_name").eq_missing(name))
        a = rows["score_a"].to_numpy()
        b = rows["score_b"].to_numpy()
        diff = paired_difference(a, b, level)
        boot = paired_bootstrap_ci(a, b, n_resamples=n_resamples, level=level, seed=seed)
        both = rows.filter(
            pl.col("status_a").is_in(_EVALUATED) & pl.col("status_b").is_in(_EVALUATED)
        )
        test = mcnemar(
            (both["status_a"] == "passed").to_numpy(), (both["status_b"] == "passed").to_numpy()
        )
        unpaired = rows.filter(pl.col("n_runs_a").is_null() | pl.col("n_runs_b").is_null())
        values = {
            "metric_name": name,
            **diff,
            "boot_ci_low": boot.low,
            "boot_ci_high": boot.high,
            "n_flipped": int(rows["flipped"].sum()),
            "n_pass_to_fail": test["b"],
            "n_fail_to_pass": test["c"],
            "mcnemar_p": test["p_value"],
            "mcnemar_exact_p": test["exact_p"],
            "n_unpaired": unpaired.height,
        }
        for key, column in cols.items():
            column.append(values[key])
    return pl.DataFrame(cols, schema=STATS_SCHEMA)
