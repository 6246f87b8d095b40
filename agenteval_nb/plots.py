"""Matplotlib figures of run records and comparisons.

Every function builds a ``matplotlib.figure.Figure`` with the object-oriented API (no pyplot,
no global figure state) and returns it — a :class:`~agenteval_nb.plot_figure.PlotFigure`, which
Jupyter, voilà and saved notebooks display as an image — and :func:`figure_to_svg` turns it into
deterministic SVG text for reports and widgets. matplotlib is imported when a figure is built, so
importing the package stays light. A figure with nothing to show carries a "no data" note
instead of raising. A run is its record (``run.record``) or anything holding one (an
``EvalRun``: :func:`~agenteval_nb.analysis.record.record_of`).
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .analysis.agreement import Agreement, agreement
from .analysis.experiment import (
    OVERALL,
    HoldsRecords,
    leaderboard_of,
    matrix_frame,
    metric_names,
    pareto_front,
    records_of,
)
from .analysis.judge_comparison import JudgeComparison, on_pareto_front
from .analysis.paired import Comparison
from .analysis.passk import num_runs, pass_at_k_frame
from .analysis.power import Measure, cases_for, paired_power, variance_of
from .analysis.record import HoldsRecord, RunRecord, record_of
from .analysis.stats import summary_frame

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Run = RunRecord | HoldsRecord
"""A run record, or what holds one (``EvalRun``)."""

SVG_HASH_SALT = "agenteval_nb"
"""Fixed ``svg.hashsalt``: SVG element ids derive from content, not from a random salt."""

_PASS = "#3a7d44"
_FAIL = "#c0392b"
_A = "#1f77b4"
_B = "#ff7f0e"


def _figure(width: float = 6.4, height: float = 4.0) -> Figure:
    from .plot_figure import PlotFigure

    return PlotFigure(figsize=(width, height), layout="constrained")


def _no_data(fig: Figure, message: str = "no data") -> Figure:
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_axis_off()
    return fig


def _polars(df: Any) -> Any:
    return df if isinstance(df, pl.DataFrame) else pl.from_pandas(df)


def figure_to_svg(fig: Figure) -> str:
    """SVG text of ``fig``, byte-identical for identical figures and for repeated calls.

    Uses a fixed ``svg.hashsalt`` (so clip-path and glyph ids do not vary), text as paths, and
    no ``Date`` metadata. A layout engine (constrained layout) is run once and then fixed, as it
    would otherwise move the axes a little on every render.
    """
    import matplotlib
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def score_distribution(run: Run, metric: str | None = None, bins: int = 20) -> Figure:
    """Histogram of case-level metric scores (``metrics_df``), one panel per metric.

    Not-evaluated results are left out; the pass threshold is drawn as a dashed line.
    """

    df = record_of(run).table("metrics").filter(pl.col("score").is_not_null())
    if metric is not None:
        df = df.filter(pl.col("metric_name") == metric)
    names = sorted(df["metric_name"].unique().to_list(), key=str)
    if not names:
        return _no_data(_figure(), "no evaluated scores")
    ncols = min(3, len(names))
    nrows = math.ceil(len(names) / ncols)
    fig = _figure(3.2 * ncols, 2.6 * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        rows = df.filter(pl.col("metric_name") == name)
        scores = rows["score"].to_numpy()
        low = min(0.0, float(scores.min()))
        high = max(1.0, float(scores.max()))
        ax.hist(scores, bins=bins, range=(low, high), color=_A, edgecolor="white")
        threshold = rows["threshold"][0]
        if threshold is not None:
            ax.axvline(threshold, color="black", linestyle="--", linewidth=1)
        ax.set_title(f"{name} (n={rows.height})", fontsize=9)
        ax.set_xlabel("score")
        ax.set_ylabel("results")
    for ax in list(axes.flat)[len(names) :]:
        ax.set_axis_off()
    return fig


def pass_rates(run: Run, level: float = 0.95) -> Figure:
    """Pass rate per metric (cases; runs of a case averaged first) with Wilson intervals."""
    summary = summary_frame(record_of(run), level)
    if summary.height == 0:
        return _no_data(_figure(), "no evaluated metrics")
    fig = _figure(6.4, 0.5 * summary.height + 1.4)
    ax = fig.add_subplot()
    names = summary["metric_name"].to_list()
    rates = summary["pass_rate"].to_numpy()
    low = rates - summary["pass_rate_ci_low"].to_numpy()
    high = summary["pass_rate_ci_high"].to_numpy() - rates
    positions = list(range(len(names)))
    ax.barh(positions, rates, xerr=[low, high], color=_PASS, capsize=3, height=0.6)
    # each count sits right of its bar's upper whisker, so the two never cross
    ends = summary["pass_rate_ci_high"].fill_nan(None).fill_null(0.0).to_numpy()
    for y, end, rate, passed, n in zip(
        positions, ends, rates, summary["n_passed"], summary["n"], strict=True
    ):
        x = max(float(end), float(rate) if math.isfinite(rate) else 0.0)
        ax.text(min(x, 1.0) + 0.025, y, f"{passed}/{n}", va="center", fontsize=8)
    ax.set_yticks(positions, names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.2)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel(f"pass rate ({level:.0%} Wilson CI)")
    ax.set_title("pass rate per metric")
    return fig


def pass_at_k_curve(run: Run, ks: list[int] | None = None) -> Figure:
    """Mean per-case pass@k and unbiased pass^k over k (± SE), with the eval-set reference."""

    record = record_of(run)
    table = pass_at_k_frame(record, ks)
    overall = table.filter(pl.col("level") == "overall")
    reference = table.filter(pl.col("level") == "eval_set")
    if overall.height == 0 or overall["n_cases"].max() in (None, 0):
        return _no_data(_figure(), "no case has enough runs")
    fig = _figure()
    ax = fig.add_subplot()
    k = overall["k"].to_numpy()
    for column, label, colour in (
        ("pass_at_k", "pass@k (mean over cases)", _A),
        ("pass_hat_k_unbiased", "pass^k unbiased (mean over cases)", _B),
    ):
        se = overall[f"{column}_se"].fill_nan(0.0).to_numpy()
        ax.errorbar(
            k, overall[column].to_numpy(), yerr=se, marker="o", capsize=3, label=label, color=colour
        )
    ax.plot(
        reference["k"].to_numpy(),
        reference["pass_at_k"].to_numpy(),
        linestyle="--",
        marker="x",
        color="grey",
        label="pass@k of eval-set runs (reference)",
    )
    ax.set_xticks(k)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("k")
    ax.set_ylabel("probability")
    ax.set_title(f"pass@k over {num_runs(record)} run(s)")
    ax.legend(fontsize=8, loc="best")
    return fig


def rubric_heatmap(run: Run, metric: str | None = None) -> Figure:
    """Mean rubric score per case (rows) and rubric (columns), over runs and turns.

    With several metrics and no ``metric`` given, columns are labelled ``metric: rubric``.
    """

    df = record_of(run).table("rubrics")
    if metric is not None:
        df = df.filter(pl.col("metric_name") == metric)
    if df.height == 0:
        return _no_data(_figure(), "no rubric scores")
    several = df["metric_name"].n_unique() > 1
    label = (
        pl.concat_str([pl.col("metric_name"), pl.lit(": "), pl.col("rubric_id")], ignore_nulls=True)
        if several
        else pl.col("rubric_id").fill_null("")
    )
    cells = (
        df.with_columns(label.alias("_rubric"), pl.col("eval_id").fill_null(""))
        .group_by(["eval_id", "_rubric"])
        .agg(pl.col("score").mean())
    )
    cases = sorted(cells["eval_id"].unique().to_list())
    rubrics = sorted(cells["_rubric"].unique().to_list())
    grid = np.full((len(cases), len(rubrics)), np.nan)
    row_of = {c: i for i, c in enumerate(cases)}
    col_of = {r: j for j, r in enumerate(rubrics)}
    for eval_id, rubric, score in cells.iter_rows():
        grid[row_of[eval_id], col_of[rubric]] = score
    fig = _figure(1.2 + 0.6 * len(rubrics) + 1.5, 1.2 + 0.3 * len(cases))
    ax = fig.add_subplot()
    image = ax.imshow(grid, aspect="auto", cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(rubrics)), rubrics, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(cases)), cases, fontsize=8)
    ax.set_xlabel("rubric")
    ax.set_ylabel("case")
    ax.set_title(f"rubric scores{f' — {metric}' if metric else ''}")
    fig.colorbar(image, ax=ax, label="mean score")
    return fig


def label_distribution(
    run: Run,
    eval_id: str,
    metric: str,
    invocation_index: int = 0,
    sample_index: int = 0,
    run_id: int | None = None,
) -> Figure:
    """The verifier's label distribution (A best … T worst) for candidates A and B of one
    judgement, side by side; the title gives each expected score and valid-label mass.

    ``invocation_index`` is 0-based as in the frames; the title numbers turns from 1, as the
    inspector does. ``run_id`` picks the run (default: the first one with a distribution); the
    title names it.
    """

    df = (
        record_of(run)
        .table("logprobs")
        .filter(
            (pl.col("eval_id") == eval_id)
            & (pl.col("metric_name") == metric)
            & (pl.col("invocation_index") == invocation_index)
            & (pl.col("sample_index") == sample_index)
        )
    )
    if run_id is None and df.height:
        first = df["run_id"].min()
        run_id = None if first is None else int(first)  # type: ignore[arg-type]
    df = df.filter(pl.col("run_id").eq_missing(run_id))
    if df.height == 0:
        return _no_data(_figure(), "no label distribution for this judgement")
    labels = [chr(ord("A") + i) for i in range(20)]
    extra = sorted(set(df["label"].to_list()) - set(labels), key=str)
    labels += extra
    x = np.arange(len(labels))
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    titles = []
    names = {"A": "A = the agent's answer", "B": "B = the reference answer"}
    for offset, candidate, colour in ((-0.2, "A", _A), (0.2, "B", _B)):
        rows = df.filter(pl.col("candidate") == candidate)
        if rows.height == 0:
            continue
        probs = dict(zip(rows["label"].to_list(), rows["prob"].to_list(), strict=True))
        heights = [probs.get(label) or 0.0 for label in labels]
        bars = ax.bar(
            x + offset, heights, width=0.4, color=colour, label=f"candidate {names[candidate]}"
        )
        ax.bar_label(
            bars,
            labels=[f"{h:.2f}" if h >= 0.03 else "" for h in heights],
            fontsize=7,
            padding=2,
            rotation=90,
        )
        titles.append(
            f"{candidate}: E={_num(rows['expected_score'][0])}, "
            f"valid mass {_num(rows['valid_mass'][0])}"
        )
    ax.set_xticks(x, labels)
    ax.set_xlabel("label (A best … T worst)")
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1.15)
    ax.set_title(
        f"{eval_id} · run {run_id} · {metric} · turn {invocation_index + 1} · "
        f"sample {sample_index}\n" + " | ".join(titles),
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return fig


def _num(value: Any) -> str:
    return (
        "n/a"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (f"{value:.3f}")
    )


JITTER = 0.02
"""Half-width of the scatter's jitter, as a fraction of the score range."""


def comparison_scatter(comparison: Comparison, metric: str | None = None) -> Figure:
    """Score in A against score in B per aligned row, flipped rows highlighted.

    Scores pile up on a few values (0, 1, thresholds), so every point is jittered by a
    deterministic offset of at most :data:`JITTER` of the range (seeded, the same on every
    call), drawn half transparent; a spot shared by several rows is labelled ``×n``, and the
    corner box counts the rows per status change.
    """

    df = _polars(comparison.frame).filter(
        pl.col("score_a").is_not_null() & pl.col("score_b").is_not_null()
    )
    if metric is not None:
        df = df.filter(pl.col("metric_name") == metric)
    if df.height == 0:
        return _no_data(_figure(5, 5), "no paired scores")
    fig = _figure(5.4, 5.4)
    ax: Axes = fig.add_subplot()
    values = df["score_a"].to_list() + df["score_b"].to_list()
    low, high = min(0.0, min(values)), max(1.0, max(values))
    spread = JITTER * (high - low)
    rng = np.random.default_rng(0)
    ax.plot([low, high], [low, high], color="grey", linestyle="--", linewidth=1)
    for flipped, colour, label in ((False, _A, "same status"), (True, _FAIL, "flipped")):
        rows = df.filter(pl.col("flipped") == flipped)
        if rows.height:
            ax.scatter(
                rows["score_a"].to_numpy() + rng.uniform(-spread, spread, rows.height),
                rows["score_b"].to_numpy() + rng.uniform(-spread, spread, rows.height),
                s=14,
                alpha=0.45,
                linewidths=0,
                color=colour,
                label=f"{label} ({rows.height})",
            )
    a, b = comparison.label_a, comparison.label_b
    status = df.select("status_a", "status_b").to_dicts()
    down = sum(1 for r in status if r["status_a"] == "passed" and r["status_b"] == "failed")
    up = sum(1 for r in status if r["status_a"] == "failed" and r["status_b"] == "passed")
    stacked = df.group_by("score_a", "score_b").len().filter(pl.col("len") > 1)
    for score_a, score_b, count in stacked.iter_rows():
        ax.annotate(
            f"×{count}",
            (score_a, score_b),
            xytext=(6, -10),
            textcoords="offset points",
            fontsize=8,
            color="#1f2328",
        )
    pad = 0.02 + spread
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(f"score {a}")
    ax.set_ylabel(f"score {b}")
    ax.set_title(
        f"{a} vs {b}{f' — {metric}' if metric else ''}\n"
        f"passed → failed: {down} · failed → passed: {up} · {df.height} rows (jittered)",
        fontsize=9,
    )
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=2)
    return fig


__all__ = [
    "comparison_scatter",
    "figure_to_svg",
    "label_distribution",
    "pass_at_k_curve",
    "pass_rates",
    "rubric_heatmap",
    "score_distribution",
]


def calibration(run: Run | Agreement, metric: str | None = None, bins: int = 10) -> Figure:
    """Reliability plot of ``metric``'s score against human marks (pass = 1): per bin of the
    score, the share marked pass against the mean score, with the diagonal of perfect
    calibration and the bin sizes (:func:`~.analysis.agreement.calibration_bins`)."""
    result = run if isinstance(run, Agreement) else agreement(run, n_resamples=0)
    names = result.pairs["metric_name"].unique(maintain_order=True).to_list()
    fig = _figure()
    metric = metric or (names[0] if names else None)
    if metric is None or metric not in names:
        return _no_data(fig, "no human marks to calibrate against")
    table = result.calibration(metric, bins)
    ax = fig.add_subplot()
    ax.plot([0.0, 1.0], [0.0, 1.0], color="grey", linestyle="--", label="perfect calibration")
    ax.plot(
        table["mean_q"].to_list(),
        table["mean_y"].to_list(),
        marker="o",
        color=_A,
        label=f"{metric} ({result.against})",
    )
    for q, y, n in table.select("mean_q", "mean_y", "n").rows():
        ax.annotate(f"n={n}", (q, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean score in bin")
    ax.set_ylabel(f"share marked pass ({result.against})")
    ax.set_title(f"Calibration of {metric} against {result.against} marks")
    ax.legend(loc="upper left")
    return fig


# -- experiments (many variants: ae.experiment) ----------------------------------------------------

Experiment = HoldsRecords | Any
"""An experiment (``ae.experiment``) or a mapping variant name → run."""


def _board_rows(experiment: Experiment, metric: str | None, level: float = 0.95) -> pl.DataFrame:
    """The leaderboard rows of ``metric`` (default: the first metric, the board's order)."""
    board = leaderboard_of(experiment, level)
    names = metric_names(records_of(experiment))
    chosen = metric or (names[0] if names else OVERALL)
    return board.filter(pl.col("metric_name") == chosen)


def leaderboard(experiment: Experiment, metric: str | None = None, level: float = 0.95) -> Figure:
    """Pass rate per variant in cases with Wilson intervals (the leaderboard's order, best on
    top), and the mean score over cases with its interval (clipped to the score's range) as a
    second marker."""
    rows = _board_rows(experiment, metric, level)
    if rows.height == 0:
        return _no_data(_figure(), "no variants")
    fig = _figure(6.4, 0.5 * rows.height + 1.6)
    ax = fig.add_subplot()
    positions = np.arange(rows.height)
    rates = rows["pass_rate"].to_numpy()
    ax.errorbar(
        rates,
        positions,
        xerr=[rates - rows["pass_rate_low"].to_numpy(), rows["pass_rate_high"].to_numpy() - rates],
        fmt="o",
        color=_PASS,
        capsize=3,
        label=f"pass rate, cases ({level:.0%} Wilson)",
    )
    means = rows["mean_score"].to_numpy()
    ax.errorbar(
        means,
        positions + 0.2,
        xerr=[
            means - rows["mean_score_low"].to_numpy(),
            rows["mean_score_high"].to_numpy() - means,
        ],
        fmt="s",
        color=_A,
        capsize=3,
        label=f"mean score over cases ({level:.0%} CI)",
    )
    ax.set_yticks(positions, rows["variant"].to_list())
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(str(rows["metric_name"][0]))
    ax.set_title("leaderboard")
    ax.legend(fontsize=8, loc="best")
    return fig


def cost_vs_score(experiment: Experiment, metric: str | None = None) -> Figure:
    """Pass rate against cost per variant, the Pareto front (score ↑, cost ↓) joined and
    marked; when no variant is priced, against the p50 inference latency per case (else the
    run's wall-clock time)."""
    rows = _board_rows(experiment, metric)
    if rows.height == 0:
        return _no_data(_figure(), "no variants")
    axis, label = "cost", "cost"
    if rows["cost"].is_nan().all():
        latency = not rows["latency_p50_s"].is_nan().all()
        axis = "latency_p50_s" if latency else "elapsed_s"
        label = "inference latency p50 per case (s)" if latency else "wall-clock time (s)"
    xs = rows[axis].to_list()
    ys = rows["pass_rate"].to_list()
    if all(math.isnan(x) for x in xs):
        return _no_data(_figure(), "no cost, latency or time recorded")
    front = pareto_front(ys, xs)
    fig = _figure()
    ax = fig.add_subplot()
    for x, y, name, on in zip(xs, ys, rows["variant"], front, strict=True):
        if math.isnan(x) or math.isnan(y):
            continue
        ax.scatter([x], [y], color=_PASS if on else "grey", s=50 if on else 30, zorder=3)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    best = sorted((x, y) for x, y, on in zip(xs, ys, front, strict=True) if on)
    if best:
        ax.plot(*zip(*best, strict=True), color=_PASS, linestyle="--", label="Pareto front")
        ax.legend(fontsize=8, loc="best")
    ax.set_xlabel(label)
    ax.set_ylabel(f"pass rate ({rows['metric_name'][0]})")
    ax.set_title(f"pass rate vs {label}")
    return fig


def variant_heatmap(experiment: Experiment, metric: str | None = None) -> Figure:
    """Case × variant pass rates over runs (``matrix_df``), the cases that separate the
    variants most (largest spread across variants) on top."""
    matrix = matrix_frame(records_of(experiment), metric)
    variants = matrix.columns[1:]
    if matrix.height == 0 or not variants:
        return _no_data(_figure(), "no cases")
    grid = matrix.select(variants).to_numpy().astype(float)
    spread = np.nan_to_num(np.nanmax(grid, axis=1) - np.nanmin(grid, axis=1), nan=0.0)
    order = np.argsort(-spread, kind="stable")
    cases = [matrix["eval_id"][int(i)] for i in order]
    fig = _figure(1.5 + 0.8 * len(variants) + 1.5, 1.2 + 0.3 * len(cases))
    ax = fig.add_subplot()
    image = ax.imshow(grid[order], aspect="auto", cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(variants)), variants, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(cases)), cases, fontsize=8)
    ax.set_xlabel("variant")
    ax.set_ylabel("case")
    ax.set_title(f"pass rate per case{f' — {metric}' if metric else ''}")
    fig.colorbar(image, ax=ax, label="pass rate over runs")
    return fig


def power_curve(
    run: Run,
    metric: str | None = None,
    delta: float = 0.05,
    *,
    num_runs: tuple[int, ...] = (1, 3, 5),
    alpha: float = 0.05,
    measure: Measure = "score",
    other: Run | None = None,
    correlation: float = 0.0,
    max_cases: int | None = None,
) -> Figure:
    """Power to detect ``delta`` against the number of cases, one line per runs option, from
    the run's variances (:mod:`~agenteval_nb.analysis.power`); the dotted line is 80 %."""
    record = record_of(run)
    names = metric_names({"": record})
    chosen = metric or (names[0] if names else None)
    if chosen is None:
        return _no_data(_figure(), "no metric to plan for")
    second = record_of(other) if other is not None else None
    variance = variance_of(record, chosen, measure, other=second, correlation=correlation)
    if not math.isfinite(variance.between):
        return _no_data(_figure(), f"{chosen}: {variance.source}")
    top = max_cases or max(
        4 * variance.n_cases, *(cases_for(delta, variance.of(k), alpha) for k in num_runs)
    )
    cases = np.unique(np.linspace(2, top, 200).round().astype(int))
    fig = _figure()
    ax = fig.add_subplot()
    for k in num_runs:
        powers = [paired_power(delta, variance.of(k), int(n), alpha) for n in cases]
        ax.plot(cases, powers, label=f"{k} run(s) per case")
    ax.axhline(0.8, linestyle=":", color="grey")
    ax.axvline(variance.n_cases, linestyle="--", color="grey", label="cases in this run")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("cases")
    ax.set_ylabel(f"power (two-sided, α = {alpha:g})")
    ax.set_title(f"{chosen}: power to detect Δ = {delta:g} ({measure})")
    ax.legend(fontsize=8, loc="lower right")
    return fig


def judge_choice(comparison: JudgeComparison, metric: str | None = None) -> Figure:
    """Cohen's κ against cost (log x) per candidate judge (``ae.compare_judges``), the κ CI as
    error bars and the Pareto front (κ ↑, cost ↓) joined and marked; one panel per metric
    (``metric`` picks one). Candidates without a price or a κ are listed under the plot."""
    table = comparison.table
    if metric is not None:
        table = table.filter(pl.col("metric_name") == metric)
    if table.height == 0:
        return _no_data(_figure(), "no candidates")
    table = table.with_columns(pl.Series("front", on_pareto_front(table)))
    metrics = table["metric_name"].unique(maintain_order=True).to_list()
    fig = _figure(6.4, 3.6 * len(metrics))
    for index, name in enumerate(metrics, 1):
        ax = fig.add_subplot(len(metrics), 1, index)
        rows = table.filter(pl.col("metric_name") == name)
        _judge_panel(ax, rows, name, comparison.against)
    return fig


def _judge_panel(ax: Axes, rows: pl.DataFrame, metric: str, against: str) -> None:
    shown = rows.filter(
        pl.col("cost_usd").is_not_null() & (pl.col("cost_usd") > 0) & pl.col("kappa").is_not_nan()
    )
    left_out = sorted(set(rows["candidate"]) - set(shown["candidate"]))
    names_at: dict[tuple[float, float], list[str]] = {}  # candidates on one point: one label
    for row in shown.iter_rows(named=True):
        x, y = row["cost_usd"], row["kappa"]
        low, high = row["kappa_ci_low"], row["kappa_ci_high"]
        color = _PASS if row["front"] else "grey"
        if not (math.isnan(low) or math.isnan(high)):
            ax.errorbar([x], [y], yerr=[[y - low], [high - y]], color=color, capsize=3, zorder=2)
        ax.scatter([x], [y], color=color, s=50 if row["front"] else 30, zorder=3)
        names_at.setdefault((x, y), []).append(row["candidate"])
    for (x, y), names in names_at.items():
        ax.annotate(", ".join(names), (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    best = sorted(shown.filter(pl.col("front")).select("cost_usd", "kappa").rows())
    if best:
        ax.plot(*zip(*best, strict=True), color=_PASS, linestyle="--", label="Pareto front")
        ax.legend(fontsize=8, loc="best")
    if shown.height:
        ax.set_xscale("log")
    ax.axhline(0.61, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("judge cost on this run ($, log scale)")
    ax.set_ylabel(f"Cohen's κ vs {against}")
    ax.set_title(f"{metric}: agreement vs cost")
    if left_out:
        ax.text(
            0.0,
            -0.28,
            "no price or κ: " + ", ".join(left_out),
            transform=ax.transAxes,
            fontsize=8,
            color="grey",
        )
