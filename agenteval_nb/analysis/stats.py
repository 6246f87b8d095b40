"""Error bars, paired comparisons and judge-reliability statistics (numpy only).

Formulas follow Miller (2024), "Adding Error Bars to Evals" (arXiv:2411.00640); see STATS.md.

Conventions shared by every function here:

* scores are 1-D array-likes of floats; NaN scores (e.g. not evaluated) are dropped, and paired
  functions drop a pair when either side is NaN;
* where a quantity is undefined (no data, a single observation for a spread) the result is NaN,
  never an exception;
* resampling uses ``numpy.random.default_rng(seed)``, so equal inputs and seed give equal output;
* ``level`` is the two-sided confidence level, ``z = Φ⁻¹(0.5 + level/2)`` (1.959964 at 0.95);
* an interval shown for a mean score (or a difference of means) is :func:`bounded_ci`: the normal
  interval clipped to the range the mean can take (:func:`score_range`), so that it never runs
  past the score's scale (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from .agreement import (
    Agreement,
    agreement,
    brier_score,
    calibration_bins,
    cohen_kappa,
    cohen_kappa_ci,
    expected_calibration_error,
    fleiss_kappa,
    flip_rate,
)
from .frames import across_runs_frame
from .power import cases_needed, detectable_at, minimum_detectable_effect, paired_power, power
from .record import RunRecord

__all__ = [
    "Agreement",
    "Interval",
    "agreement",
    "binary_se",
    "bootstrap_ci",
    "bounded_ci",
    "brier_score",
    "calibration_bins",
    "cases_needed",
    "cluster_bootstrap_ci",
    "clustered_se",
    "cohen_kappa",
    "cohen_kappa_ci",
    "detectable_at",
    "expected_calibration_error",
    "fleiss_kappa",
    "flip_rate",
    "mcnemar",
    "mean_se",
    "minimum_detectable_effect",
    "normal_ci",
    "paired_bootstrap_ci",
    "paired_difference",
    "paired_power",
    "power",
    "score_range",
    "summarize_scores",
    "wilson_interval",
    "z_value",
]

Stat = Callable[[npt.NDArray[np.float64]], Any]
_NAN_INTERVAL: tuple[float, float] = (math.nan, math.nan)


class Interval(NamedTuple):
    """A confidence interval ``(low, high)``; NaN bounds when undefined."""

    low: float
    high: float


# -- helpers --------------------------------------------------------------------------------------


def z_value(level: float = 0.95) -> float:
    """Two-sided normal quantile ``Φ⁻¹(0.5 + level/2)``; ``level`` must lie in (0, 1)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _scores(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    arr = np.asarray(scores, dtype=float).reshape(-1)
    return arr[~np.isnan(arr)]


def _paired(
    a: npt.ArrayLike, b: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    a_arr = np.asarray(a, dtype=float).reshape(-1)
    b_arr = np.asarray(b, dtype=float).reshape(-1)
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"paired inputs differ in length: {a_arr.size} != {b_arr.size}")
    keep = ~(np.isnan(a_arr) | np.isnan(b_arr))
    return a_arr[keep], b_arr[keep]


def _scores_with_clusters(
    scores: npt.ArrayLike, clusters: Sequence[Hashable] | npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Drop NaN scores and encode cluster labels as integer codes 0..C−1."""
    arr = np.asarray(scores, dtype=float).reshape(-1)
    labels: list[Any] = list(clusters)  # type: ignore[arg-type]
    if len(labels) != arr.size:
        raise ValueError(f"scores and clusters differ in length: {arr.size} != {len(labels)}")
    keep = ~np.isnan(arr)
    codes: dict[Hashable, int] = {}
    encoded = [
        codes.setdefault(label, len(codes)) for label, k in zip(labels, keep, strict=True) if k
    ]
    return arr[keep], np.asarray(encoded, dtype=np.int64)


def _bool_array(values: npt.ArrayLike, name: str) -> npt.NDArray[np.bool_]:
    arr = np.asarray(values).reshape(-1)
    if arr.dtype != np.bool_:
        if arr.size and not np.all(np.isin(arr, (0, 1))):
            raise ValueError(f"{name} must hold booleans (or 0/1)")
        arr = arr.astype(bool)
    return arr


def _percentile_interval(stats: npt.NDArray[np.float64], level: float) -> Interval:
    alpha = 1.0 - level
    low, high = np.quantile(stats, [alpha / 2.0, 1.0 - alpha / 2.0])
    return Interval(float(low), float(high))


def _check_resampling(n_resamples: int, level: float) -> None:
    z_value(level)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")


# -- standard errors and intervals ----------------------------------------------------------------


def mean_se(scores: npt.ArrayLike) -> float:
    """CLT standard error of the mean: ``sqrt(Σ(s_i − s̄)² / (n(n−1)))``; NaN when n < 2."""
    arr = _scores(scores)
    n = arr.size
    if n < 2:
        return math.nan
    return float(math.sqrt(float(np.sum((arr - arr.mean()) ** 2)) / (n * (n - 1))))


def binary_se(scores: npt.ArrayLike) -> float:
    """Standard error of a pass rate from 0/1 scores: ``sqrt(p̂(1 − p̂)/n)``; NaN when n < 2."""
    arr = _scores(scores)
    n = arr.size
    if n < 2:
        return math.nan
    p = float(arr.mean())
    return math.sqrt(p * (1.0 - p) / n)


def clustered_se(scores: npt.ArrayLike, clusters: Sequence[Hashable] | npt.ArrayLike) -> float:
    """Cluster-robust SE of the mean: ``sqrt(C/(C−1) · Σ_c S_c²) / n``.

    ``S_c = Σ_{i∈c} (s_i − s̄)`` over the observations of cluster ``c``; ``C`` clusters, ``n``
    observations. 0 when C < 2 (inspect_ai's convention); NaN when n == 0. With one observation
    per cluster it equals :func:`mean_se`; with every case's epochs as a cluster it equals the
    SE of the per-case means when epochs are balanced.
    """
    arr, codes = _scores_with_clusters(scores, clusters)
    n = arr.size
    if n == 0:
        return math.nan
    n_clusters = int(codes.max()) + 1
    if n_clusters < 2:
        return 0.0
    sums = np.bincount(codes, weights=arr - arr.mean(), minlength=n_clusters)
    return float(math.sqrt(n_clusters / (n_clusters - 1) * float(np.sum(sums**2))) / n)


def normal_ci(mean: float, se: float, level: float = 0.95) -> Interval:
    """Normal-approximation interval ``mean ± z·se``; NaN bounds when mean or se is NaN."""
    z = z_value(level)
    if math.isnan(mean) or math.isnan(se):
        return Interval(*_NAN_INTERVAL)
    return Interval(mean - z * se, mean + z * se)


SCORE_SCALE = Interval(0.0, 1.0)
"""The scale of metric scores (the reference's scores lie in [0, 1])."""


def score_range(*samples: npt.ArrayLike) -> Interval:
    """The range a mean of these scores can take: :data:`SCORE_SCALE`, widened to every finite
    observed value (a custom evaluator may score outside [0, 1])."""
    values = [np.asarray(s, dtype=float).reshape(-1) for s in samples]
    joined = np.concatenate(values) if values else np.empty(0)
    finite = joined[np.isfinite(joined)]
    if finite.size == 0:
        return SCORE_SCALE
    return Interval(
        min(SCORE_SCALE.low, float(finite.min())), max(SCORE_SCALE.high, float(finite.max()))
    )


def bounded_ci(mean: float, se: float, bounds: Interval, level: float = 0.95) -> Interval:
    """The interval of every mean score shown (summaries, leaderboard, comparisons): the
    normal interval ``mean ± z·se`` clipped to ``bounds``, the range the mean can take. The
    mean lies in ``bounds``, so clipping drops only impossible values: the coverage is the
    normal interval's. NaN bounds when mean or se is NaN."""
    low, high = normal_ci(mean, se, level)
    if math.isnan(low):
        return Interval(low, high)
    return Interval(max(bounds.low, low), min(bounds.high, high))


def wilson_interval(successes: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval for a proportion ``p̂ = successes/n``.

    Centre ``(p̂ + z²/2n) / (1 + z²/n)``, half-width ``z·sqrt(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)``.
    NaN bounds when n == 0.
    """
    z = z_value(level)
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return Interval(*_NAN_INTERVAL)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    # the bounds touch 0 (resp. 1) exactly when p̂ is 0 (resp. 1); avoid rounding residue
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


# -- bootstrap ------------------------------------------------------------------------------------


def bootstrap_ci(
    scores: npt.ArrayLike,
    *,
    stat: Stat = np.mean,
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int | None = 0,
) -> Interval:
    """Percentile bootstrap interval of ``stat`` over cases.

    Draw ``n_resamples`` samples of size n with replacement, compute ``stat`` on each, take the
    ``(1−level)/2`` and ``(1+level)/2`` quantiles. NaN bounds when n < 2.
    """
    _check_resampling(n_resamples, level)
    arr = _scores(scores)
    n = arr.size
    if n < 2:
        return Interval(*_NAN_INTERVAL)
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples, dtype=float)
    for r in range(n_resamples):
        stats[r] = float(stat(arr[rng.integers(0, n, size=n)]))
    return _percentile_interval(stats, level)


def cluster_bootstrap_ci(
    scores: npt.ArrayLike,
    clusters: Sequence[Hashable] | npt.ArrayLike,
    *,
    stat: Stat = np.mean,
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int | None = 0,
) -> Interval:
    """Percentile bootstrap that resamples whole clusters.

    Each resample draws C clusters with replacement and pools their observations before
    computing ``stat``. NaN bounds when there are fewer than 2 clusters.
    """
    _check_resampling(n_resamples, level)
    arr, codes = _scores_with_clusters(scores, clusters)
    if arr.size == 0 or int(codes.max()) + 1 < 2:
        return Interval(*_NAN_INTERVAL)
    n_clusters = int(codes.max()) + 1
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_clusters + 1))
    members = [arr[order[bounds[g] : bounds[g + 1]]] for g in range(n_clusters)]
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples, dtype=float)
    for r in range(n_resamples):
        picked = rng.integers(0, n_clusters, size=n_clusters)
        stats[r] = float(stat(np.concatenate([members[g] for g in picked])))
    return _percentile_interval(stats, level)


def paired_bootstrap_ci(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    stat: Stat = np.mean,
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int | None = 0,
) -> Interval:
    """Percentile bootstrap interval of ``stat(a) − stat(b)`` resampling case indices.

    The same resampled indices are used for both runs, keeping the pairing. NaN bounds when
    fewer than 2 complete pairs remain.
    """
    _check_resampling(n_resamples, level)
    a_arr, b_arr = _paired(a, b)
    n = a_arr.size
    if n < 2:
        return Interval(*_NAN_INTERVAL)
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples, dtype=float)
    for r in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        stats[r] = float(stat(a_arr[idx])) - float(stat(b_arr[idx]))
    return _percentile_interval(stats, level)


# -- paired comparison ----------------------------------------------------------------------------


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, level: float = 0.95) -> dict[str, Any]:
    """Mean paired difference ``d_i = a_i − b_i`` with ``SE = sd(d)/√n`` and its interval,
    :func:`bounded_ci` within the differences two scores of :func:`score_range` can have.

    Returns ``{n, mean_diff, se, ci_low, ci_high}``; ``se`` and the CI are NaN when n < 2,
    ``mean_diff`` is NaN when n == 0.
    """
    a_arr, b_arr = _paired(a, b)
    d = a_arr - b_arr
    n = int(d.size)
    mean_diff = float(d.mean()) if n else math.nan
    se = mean_se(d)
    scale = score_range(a_arr, b_arr)
    width = scale.high - scale.low
    low, high = bounded_ci(mean_diff, se, Interval(-width, width), level)
    return {"n": n, "mean_diff": mean_diff, "se": se, "ci_low": low, "ci_high": high}


def _binomial_two_sided_half(successes: int, trials: int) -> float:
    """Exact two-sided binomial p-value for p = 1/2: ``min(1, 2·P(X ≤ min(x, m−x)))``."""
    if trials == 0:
        return math.nan
    tail = sum(math.comb(trials, i) for i in range(min(successes, trials - successes) + 1))
    return min(1.0, 2 * tail / 2**trials)


def mcnemar(a_pass: npt.ArrayLike, b_pass: npt.ArrayLike) -> dict[str, Any]:
    """McNemar's test for paired pass/fail outcomes of two runs on the same cases.

    ``b`` = A passed & B failed, ``c`` = A failed & B passed (discordant pairs).
    ``statistic = max(0, |b − c| − 1)² / (b + c)`` (continuity corrected; 0 when b == c),
    ``p_value = P(χ²₁ > statistic) = erfc(sqrt(statistic/2))``, ``exact_p`` = two-sided exact
    binomial test of ``b`` successes in ``b + c`` trials at p = 1/2. Statistic and both p-values
    are NaN when there are no discordant pairs. Returns ``{n, b, c, statistic, p_value,
    exact_p}``.
    """
    a_arr = _bool_array(a_pass, "a_pass")
    b_arr = _bool_array(b_pass, "b_pass")
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"paired inputs differ in length: {a_arr.size} != {b_arr.size}")
    b = int(np.sum(a_arr & ~b_arr))
    c = int(np.sum(~a_arr & b_arr))
    m = b + c
    if m == 0:
        statistic = p_value = math.nan
    else:
        statistic = max(0, abs(b - c) - 1) ** 2 / m
        p_value = math.erfc(math.sqrt(statistic / 2.0))
    return {
        "n": int(a_arr.size),
        "b": b,
        "c": c,
        "statistic": statistic,
        "p_value": p_value,
        "exact_p": _binomial_two_sided_half(b, m),
    }


# -- summary --------------------------------------------------------------------------------------


def summarize_scores(
    scores: npt.ArrayLike,
    passed: npt.ArrayLike | None = None,
    clusters: Sequence[Hashable] | npt.ArrayLike | None = None,
    level: float = 0.95,
) -> dict[str, Any]:
    """Mean, standard error and intervals of a score column, plus the pass rate.

    Keys: ``n`` (non-NaN scores), ``mean``, ``se`` (:func:`clustered_se` when ``clusters`` is
    given, else :func:`mean_se`), ``se_kind`` (``"clustered"`` / ``"iid"``), ``n_clusters``
    (None without clusters), ``ci_low``/``ci_high`` (:func:`bounded_ci` in the
    :func:`score_range` of the scores), ``n_passed``,
    ``pass_rate`` (share of true ``passed`` flags, over all given flags), and
    ``pass_rate_ci_low``/``pass_rate_ci_high`` (Wilson). Pass keys are NaN / None when
    ``passed`` is None.
    """
    if clusters is not None:
        arr, codes = _scores_with_clusters(scores, clusters)
        se = clustered_se(arr, codes)
        n_clusters: int | None = int(codes.max()) + 1 if codes.size else 0
        se_kind = "clustered"
    else:
        arr = _scores(scores)
        se = mean_se(arr)
        n_clusters = None
        se_kind = "iid"
    n = int(arr.size)
    mean = float(arr.mean()) if n else math.nan
    low, high = bounded_ci(mean, se, score_range(arr), level)
    out: dict[str, Any] = {
        "n": n,
        "mean": mean,
        "se": se,
        "se_kind": se_kind,
        "n_clusters": n_clusters,
        "ci_low": low,
        "ci_high": high,
        "n_passed": None,
        "pass_rate": math.nan,
        "pass_rate_ci_low": math.nan,
        "pass_rate_ci_high": math.nan,
    }
    if passed is not None:
        flags = _bool_array(passed, "passed")
        successes, total = int(flags.sum()), int(flags.size)
        p_low, p_high = wilson_interval(successes, total, level)
        out.update(
            n_passed=successes,
            pass_rate=successes / total if total else math.nan,
            pass_rate_ci_low=p_low,
            pass_rate_ci_high=p_high,
        )
    return out


_SUMMARY_SCHEMA: dict[str, Any] = {
    "metric_name": pl.String,
    "n": pl.Int64,
    "n_runs": pl.Int64,
    "mean": pl.Float64,
    "se": pl.Float64,
    "se_iid": pl.Float64,
    "se_kind": pl.String,
    "n_clusters": pl.Int64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n_passed": pl.Int64,
    "n_cases": pl.Int64,
    "pass_rate": pl.Float64,
    "pass_rate_ci_low": pl.Float64,
    "pass_rate_ci_high": pl.Float64,
    "threshold": pl.Float64,
}


def summary_frame(
    record: RunRecord,
    level: float = 0.95,
    cluster: str | Mapping[str, Any] | None = None,
    metric_names: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Per metric: mean score with SE and interval, and pass rate with a Wilson CI — the case
    verdicts every pass rate per metric shows (run report, CLI, repr, leaderboard).

    The unit is the case: each case's evaluated runs (status passed/failed) are averaged
    first (STATS.md, repeated runs), and whether the case passed is the ``passed`` column of
    :func:`~.frames.across_runs_frame` (SPEC §8.7; a NaN mean fails). A case with no
    evaluated run of the metric counts as not passed when a run of it has an error (SPEC §8.6:
    not_evaluated + error ⇒ failed; nothing passes by vanishing), and is left out otherwise.
    ``cluster`` names a column of :meth:`cases_df` or maps eval_id → cluster; the SE is then
    clustered (``se_kind="clustered"``) and ``se_iid`` keeps the unclustered value. Columns:
    ``metric_name, n, n_runs, mean, se, se_iid, se_kind, n_clusters, ci_low, ci_high,
    n_passed, n_cases, pass_rate, pass_rate_ci_low, pass_rate_ci_high, threshold``: ``n`` counts
    the cases with a finite mean (the mean's sample; ``ci_*`` is :func:`bounded_ci`),
    ``n_cases`` the pass rate's denominator (``pass_rate = n_passed / n_cases``). Rows: the
    metrics with a case in their denominator, by name; or one per ``metric_names``, in order.
    """
    per_case = across_runs_frame(record, "case").filter(pl.col("n_runs") > 0)
    clusters_of = _clusters(record, cluster) if cluster is not None else None
    errored = _errored_cases(record)
    groups = {
        str(name): group
        for (name,), group in per_case.group_by(["metric_name"], maintain_order=True)
    }
    if metric_names is None:
        held = record.table("metrics")["metric_name"].drop_nulls().unique().to_list()
        declared = [m.metric_name for m in record.metrics if m.metric_name]
        names = sorted(set(groups) | ({*held, *declared} if errored else set()))
    else:
        names = list(metric_names)
    schema = _SUMMARY_SCHEMA
    rows: dict[str, list[Any]] = {name: [] for name in schema}
    for name in names:
        group = groups.get(name, per_case.clear())
        evaluated = group["eval_id"].to_list()
        seen = set(evaluated)
        ids = evaluated + [i for i in errored if i not in seen]
        if metric_names is None and not ids:
            continue
        failed = len(ids) - len(evaluated)
        scores = np.concatenate([group["score"].to_numpy(), np.full(failed, np.nan)])
        passed = np.concatenate([group["passed"].to_numpy(), np.zeros(failed, dtype=bool)])
        clusters = None
        if clusters_of is not None:
            missing = [i for i in ids if i not in clusters_of]
            if missing:
                raise ValueError(f"no cluster for eval ids {missing[:5]}")
            clusters = [clusters_of[i] for i in ids]
        stats = summarize_scores(scores, passed.astype(bool), clusters, level)
        stats.update(
            metric_name=name,
            n_runs=int(group["n_runs"].sum()),
            n_cases=len(ids),
            se_iid=mean_se(scores),
            threshold=group["threshold"][0] if group.height else None,
        )
        for key, values in rows.items():
            values.append(stats[key])
    return pl.DataFrame(rows, schema=schema)


def _errored_cases(record: RunRecord) -> list[str]:
    """The eval ids with a run that failed with an error message, in first-seen order."""
    cases = record.table("cases")
    error = pl.col("error")
    found = cases.filter(error.is_not_null() & (error != ""))["eval_id"].fill_null("")
    return found.unique(maintain_order=True).to_list()


def _clusters(record: RunRecord, cluster: str | Mapping[str, Any]) -> dict[str, Any]:
    """eval_id → cluster, from a column of :meth:`cases_df` (first row per case) or a map."""
    if not isinstance(cluster, str):
        return dict(cluster)
    cases = record.table("cases")
    if cluster not in cases.columns:
        raise ValueError(f"cluster column {cluster!r} is not a column of cases_df")
    out: dict[str, Any] = {}
    for eval_id, value in zip(cases["eval_id"], cases[cluster], strict=True):
        out.setdefault(eval_id, value)
    return out
