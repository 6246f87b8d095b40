"""Planning a paired comparison: its power, the smallest difference it can detect (MDE) and the
cases it needs (STATS.md, planning; Miller 2024, "Adding Error Bars to Evals", §power).

The model, per metric: variant ``v`` scores case ``i`` on run ``k`` as
``s = μ_v + u_vi + e_vik`` — a case effect ``u`` (between-case variance ``σ_b²``) and run noise
``e`` (within-case variance ``σ_w²``). The two variants are compared on the same cases by the
difference of their per-case means over ``K`` runs, ``d_i``, whose variance is

    Var(d_i) = B + W / K

``B`` the between-case variance of the difference and ``W`` the sum of the two variants'
within-case variances. The test is two-sided at level ``α`` with the normal approximation,
``SE = √(Var(d_i) / n)`` over ``n`` cases and ``z = Φ⁻¹(1 − α/2)``:

* power of a true difference ``δ``: ``Φ(|δ|/SE − z) + Φ(−|δ|/SE − z)``;
* MDE at power ``1 − β``: ``(z + Φ⁻¹(1 − β)) · SE`` (the far tail ignored: slightly large);
* cases needed: ``⌈(z + Φ⁻¹(1 − β))² · Var(d_i) / δ²⌉`` (at least 2).

``B`` and ``W`` come from the data (the observed per-case variance and the within-case
correlation of runs — the clustered view of the case-runs):

* **one run** (``other=None``), the plan for comparing it with a variant like it:
  ``σ_w²`` = mean over cases with ≥ 2 runs of their runs' variance (ddof 1), ``σ_b²`` =
  ``max(0, Var(case means) − σ_w²/K̃)`` with ``K̃`` the harmonic mean of runs per case;
  ``W = 2σ_w²`` and ``B = 2σ_b²(1 − ρ)``, ``ρ`` the assumed correlation of the two variants'
  case effects (``correlation``, default 0: no credit for pairing, the conservative plan);
* **two runs** (``other=``), the observed pairs: ``W = σ_wA² + σ_wB²``, ``B =
  max(0, Var(d_i) − σ_wA²/K̃_A − σ_wB²/K̃_B)`` over the cases both hold.

With one run per case ``σ_w²`` cannot be told apart from ``σ_b²``: it is taken as 0 (all the
variance between cases, so more runs do not help — again the conservative plan); the
``source`` column says so. ``icc = σ_b² / (σ_b² + σ_w²)``, the within-case correlation of runs.

``measure="score"`` plans for the mean score (evaluated runs); ``measure="pass_rate"`` for the
pass rate, a run counting 1 when it passed and 0 otherwise (errors included, as pass rates count).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import polars as pl

from .case_runs import case_runs
from .frames import to_backend
from .record import HoldsRecord, RunRecord, record_of

Measure = Literal["score", "pass_rate"]

PLAN_SCHEMA: dict[str, pl.DataType] = {
    "metric_name": pl.String(),
    "measure": pl.String(),
    "n_cases": pl.Int64(),
    "num_runs": pl.Int64(),
    "delta": pl.Float64(),
    "alpha": pl.Float64(),
    "power": pl.Float64(),
    "mde": pl.Float64(),
    "sd_diff": pl.Float64(),
    "between_var": pl.Float64(),
    "within_var": pl.Float64(),
    "icc": pl.Float64(),
    "source": pl.String(),
}
"""One row per metric (and per runs option of :func:`cases_needed`): ``n_cases`` and
``num_runs`` of the planned comparison, the difference ``delta`` and level ``alpha`` it is
planned for, its ``power``, its ``mde`` at the target power (0.8 for :func:`power`),
``sd_diff`` = √Var(d_i) at ``num_runs``, the components ``between_var`` (B) and ``within_var``
(W), ``icc`` of one variant's runs, and ``source``: what the variances were read from."""


@dataclass(frozen=True)
class Variance:
    """``Var(d_i) = between + within / K`` of a paired difference; ``icc`` of the runs."""

    between: float
    within: float
    icc: float
    n_cases: int
    num_runs: int
    source: str

    def of(self, num_runs: int) -> float:
        return self.between + self.within / num_runs


# -- formulas ---------------------------------------------------------------------------------


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


def _check(alpha: float, power: float | None = None) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if power is not None and not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")


def paired_power(delta: float, var_diff: float, n_cases: int, alpha: float = 0.05) -> float:
    """Power of the two-sided paired z-test to detect ``delta`` with ``n_cases`` cases."""
    _check(alpha)
    if n_cases < 1 or not math.isfinite(var_diff):
        return math.nan
    z = _z(1 - alpha / 2)
    if var_diff <= 0:
        return 1.0 if delta != 0 else alpha
    shift = abs(delta) / math.sqrt(var_diff / n_cases)
    phi = NormalDist().cdf
    return phi(shift - z) + phi(-shift - z)


def detectable_at(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The MDE of a comparison whose difference has standard error ``se``:
    ``(z + Φ⁻¹(power)) · se``."""
    _check(alpha, power)
    return (_z(1 - alpha / 2) + _z(power)) * se if math.isfinite(se) else math.nan


def minimum_detectable_effect(
    var_diff: float, n_cases: int, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The smallest difference detected with ``power`` over ``n_cases`` cases
    (:func:`detectable_at` of ``√(var_diff / n)``)."""
    if n_cases < 1 or not math.isfinite(var_diff):
        return math.nan
    return detectable_at(math.sqrt(max(var_diff, 0.0) / n_cases), alpha, power)


def cases_for(delta: float, var_diff: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Cases to detect ``delta`` with ``power``: ``⌈(z + z_β)² · var_diff / δ²⌉``, at least 2."""
    _check(alpha, power)
    if delta == 0 or not math.isfinite(delta):
        raise ValueError(f"delta must be a finite non-zero difference, got {delta}")
    if not math.isfinite(var_diff):
        raise ValueError("the variance of the difference is not known (no evaluated runs)")
    need = (_z(1 - alpha / 2) + _z(power)) ** 2 * max(var_diff, 0.0) / delta**2
    return max(2, math.ceil(need - 1e-9))


# -- variances from runs ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Runs:
    """Per case (aligned by ``eval_id``): runs, mean and within-case variance of one run."""

    eval_ids: list[str]
    counts: np.ndarray
    means: np.ndarray
    within: float
    harmonic_runs: float


def _runs_of(record: RunRecord, metric: str, measure: Measure) -> _Runs:
    rows = case_runs(record, metric)
    value = (pl.col("score") if measure == "score" else pl.col("passed").cast(pl.Float64)).alias(
        "v"
    )
    per_case = (
        rows.select("eval_id", value)
        .drop_nulls("v")
        .group_by("eval_id", maintain_order=True)
        .agg(
            pl.len().alias("k"),
            pl.col("v").mean().alias("mean"),
            pl.col("v").var(ddof=1).alias("var"),
        )
    )
    counts = per_case["k"].to_numpy().astype(float)
    variances = per_case["var"].drop_nulls().to_numpy()
    within = float(variances.mean()) if variances.size else 0.0
    harmonic = float(len(counts) / np.sum(1.0 / counts)) if len(counts) else math.nan
    return _Runs(
        per_case["eval_id"].to_list(), counts, per_case["mean"].to_numpy(), within, harmonic
    )


def _icc(between: float, within: float) -> float:
    total = between + within
    return between / total if total > 0 else math.nan


def _single_runs_note(*runs: _Runs) -> str:
    if all(r.counts.size and r.counts.max() < 2 for r in runs):
        return "; one run per case: run noise not separable, taken as between-case"
    return ""


def variance_of(
    record: RunRecord,
    metric: str,
    measure: Measure = "score",
    *,
    other: RunRecord | None = None,
    correlation: float = 0.0,
) -> Variance:
    """``B`` and ``W`` of a paired difference on ``metric`` (module docstring)."""
    if not -1 <= correlation <= 1:
        raise ValueError(f"correlation must be in [-1, 1], got {correlation}")
    a = _runs_of(record, metric, measure)
    if len(a.means) < 2:
        return Variance(math.nan, math.nan, math.nan, len(a.means), 1, "fewer than 2 cases")
    runs = max(1, round(a.harmonic_runs))
    if other is None:
        case_var = float(np.var(a.means, ddof=1))
        between_one = max(0.0, case_var - a.within / a.harmonic_runs)
        source = f"one run; variants' case correlation assumed {correlation:.2f}"
        return Variance(
            2 * between_one * (1 - correlation),
            2 * a.within,
            _icc(between_one, a.within),
            len(a.means),
            runs,
            source + _single_runs_note(a),
        )
    b = _runs_of(other, metric, measure)
    index_b = {eval_id: i for i, eval_id in enumerate(b.eval_ids)}
    pairs = [(i, index_b[e]) for i, e in enumerate(a.eval_ids) if e in index_b]
    if len(pairs) < 2:
        return Variance(math.nan, math.nan, math.nan, len(pairs), runs, "fewer than 2 pairs")
    ia, ib = (np.array(side) for side in zip(*pairs, strict=True))
    diff_var = float(np.var(a.means[ia] - b.means[ib], ddof=1))
    between = max(0.0, diff_var - a.within / a.harmonic_runs - b.within / b.harmonic_runs)
    case_var = float(np.var(a.means, ddof=1))
    return Variance(
        between,
        a.within + b.within,
        _icc(max(0.0, case_var - a.within / a.harmonic_runs), a.within),
        len(pairs),
        runs,
        "two runs, observed pairs" + _single_runs_note(a, b),
    )


# -- the public plans -------------------------------------------------------------------------


def _metrics(record: RunRecord, metric: str | None) -> list[str]:
    if metric is not None:
        return [metric]
    names = record.table("metrics")["metric_name"].unique(maintain_order=True).to_list()
    return [n for n in names if n is not None]


def _row(
    metric: str,
    measure: Measure,
    variance: Variance,
    *,
    n_cases: int,
    num_runs: int,
    delta: float,
    alpha: float,
    target: float,
) -> list[Any]:
    var_diff = variance.of(num_runs)
    return [
        metric,
        measure,
        n_cases,
        num_runs,
        delta,
        alpha,
        paired_power(delta, var_diff, n_cases, alpha),
        minimum_detectable_effect(var_diff, n_cases, alpha, target),
        math.sqrt(var_diff) if math.isfinite(var_diff) else math.nan,
        variance.between,
        variance.within,
        variance.icc,
        variance.source,
    ]


def _frame(rows: list[list[Any]], backend: str | None) -> Any:
    return to_backend(pl.DataFrame(rows, schema=PLAN_SCHEMA, orient="row"), backend)


def power(
    run: RunRecord | HoldsRecord,
    metric: str | None = None,
    delta: float = 0.05,
    *,
    n_cases: int | None = None,
    num_runs: int | None = None,
    alpha: float = 0.05,
    measure: Measure = "score",
    other: RunRecord | HoldsRecord | None = None,
    correlation: float = 0.0,
    backend: str | None = None,
) -> Any:
    """Power of a paired comparison to detect ``delta`` on ``metric`` (every metric when
    ``None``), with the run's cases and runs unless ``n_cases`` / ``num_runs`` are given
    (:data:`PLAN_SCHEMA`; ``mde`` at 80 % power)."""
    _check(alpha)
    record = record_of(run)
    second = record_of(other) if other is not None else None
    rows = []
    for name in _metrics(record, metric):
        variance = variance_of(record, name, measure, other=second, correlation=correlation)
        rows.append(
            _row(
                name,
                measure,
                variance,
                n_cases=n_cases or variance.n_cases,
                num_runs=num_runs or variance.num_runs,
                delta=delta,
                alpha=alpha,
                target=0.8,
            )
        )
    return _frame(rows, backend)


def cases_needed(
    run: RunRecord | HoldsRecord,
    delta: float = 0.05,
    *,
    metric: str | None = None,
    power: float = 0.8,
    num_runs: int | Sequence[int] | None = None,
    alpha: float = 0.05,
    measure: Measure = "score",
    other: RunRecord | HoldsRecord | None = None,
    correlation: float = 0.0,
    backend: str | None = None,
) -> Any:
    """Cases needed to detect ``delta`` with ``power``, per metric and per runs option
    (``num_runs`` an int or several; the run's own when ``None``) — :data:`PLAN_SCHEMA`, the
    ``power`` column the achieved power at that many cases."""
    _check(alpha, power)
    record = record_of(run)
    second = record_of(other) if other is not None else None
    options = [num_runs] if isinstance(num_runs, int) else list(num_runs or [])
    if any(k < 1 for k in options):
        raise ValueError(f"num_runs must be at least 1, got {num_runs}")
    rows = []
    for name in _metrics(record, metric):
        variance = variance_of(record, name, measure, other=second, correlation=correlation)
        for k in options or [variance.num_runs]:
            var_diff = variance.of(k)
            n = cases_for(delta, var_diff, alpha, power) if math.isfinite(var_diff) else 0
            rows.append(
                _row(
                    name,
                    measure,
                    variance,
                    n_cases=n,
                    num_runs=k,
                    delta=delta,
                    alpha=alpha,
                    target=power,
                )
            )
    return _frame(rows, backend)
