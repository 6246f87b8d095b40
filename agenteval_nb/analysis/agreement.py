"""Judge reliability: agreement of a metric's verdicts with human marks, another run or another
metric, calibration of its scores, and agreement among its own judge samples (STATS.md).

Formulas (each function's docstring states its own):

* Cohen's κ = (p_o − p_e)/(1 − p_e); its CI is the percentile bootstrap over items.
* Fleiss' κ over items with r ratings each: P̄ = mean_i (Σ_k n_ik² − r)/(r(r − 1)),
  P̄_e = Σ_k p_k², κ = (P̄ − P̄_e)/(1 − P̄_e).
* Brier score = mean (q_i − y_i)²; ECE = Σ_b (n_b/n)·|mean(y)_b − mean(q)_b| over B equal-width
  bins of q (the last bin closed).
* Krippendorff's α = 1 − D_o/D_e from the coincidence matrix (JUDGES.md §2), nominal, ordinal or
  interval; units with fewer than 2 ratings are left out.

Agreement among the judges of a panel (``agreement(run, among="judges")``): a unit is a turn's
metric result, a rater a judge, its rating the judge's reduced verdict (its chosen sample's
status; an abstention is a missing rating) or, for α on the interval scale, its score. Every
statistic comes with a percentile bootstrap CI that resamples whole case results (a case's
turns are correlated), seeded.

A verdict is ``pass`` or ``fail``: a metric result's status ``passed`` / ``failed`` (not
evaluated rows are left out) or a human mark (``unsure`` is left out). A human mark on a whole
case result (no metric) stands for every metric of it; a mark on one metric overrides it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import polars as pl

from .frames import to_backend
from .record import HoldsRecord, RunRecord, record_of
from .reviews import Mark, marks_of

__all__ = [
    "LEVELS",
    "STATUS_VERDICT",
    "Agreement",
    "HumanVerdicts",
    "JudgeAgreement",
    "agreement",
    "alpha_from_counts",
    "among_judges",
    "brier_score",
    "calibration_bins",
    "cohen_kappa",
    "cohen_kappa_ci",
    "expected_calibration_error",
    "fleiss_kappa",
    "fleiss_kappa_counts",
    "flip_rate",
    "judge_ratings",
    "kappa_from_codes",
    "krippendorff_alpha",
    "mixed_sample_cases",
]

VERDICTS = ("pass", "fail")

STATUS_VERDICT = {"passed": "pass", "failed": "fail"}
"""The verdict of a metric result's status (not evaluated results have none)."""


def cohen_kappa(a_labels: Sequence[Hashable], b_labels: Sequence[Hashable]) -> float:
    """Cohen's κ between two raters: ``(p_o − p_e) / (1 − p_e)``.

    ``p_o`` = share of items with equal labels, ``p_e = Σ_l p_A(l)·p_B(l)`` from each rater's
    label shares. NaN when there are no items or ``p_e == 1`` (both raters use one label).
    """
    a_list, b_list = list(a_labels), list(b_labels)
    if len(a_list) != len(b_list):
        raise ValueError(f"label lists differ in length: {len(a_list)} != {len(b_list)}")
    codes: dict[Hashable, int] = {}
    a_codes = np.array([codes.setdefault(x, len(codes)) for x in a_list], dtype=np.int64)
    b_codes = np.array([codes.setdefault(y, len(codes)) for y in b_list], dtype=np.int64)
    return kappa_from_codes(a_codes, b_codes, len(codes))


def kappa_from_codes(
    a_codes: npt.NDArray[np.int64], b_codes: npt.NDArray[np.int64], n_labels: int
) -> float:
    """:func:`cohen_kappa` of two raters' labels coded ``0 .. n_labels − 1`` (numpy, for
    resampling): ``p_o`` the confusion table's trace share, ``p_e`` the product of its
    margins."""
    n = a_codes.size
    if n == 0:
        return math.nan
    table = np.bincount(a_codes * n_labels + b_codes, minlength=n_labels * n_labels)
    table = table.reshape(n_labels, n_labels)
    observed = float(np.trace(table)) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    if expected >= 1.0:
        return math.nan
    return (observed - expected) / (1.0 - expected)


def cohen_kappa_ci(
    a_labels: Sequence[Hashable],
    b_labels: Sequence[Hashable],
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of Cohen's κ: resample item indices with replacement
    (``numpy.random.default_rng(seed)``), recompute κ, take the ``(1 ± level)/2`` quantiles of
    the defined values. ``(nan, nan)`` with fewer than 2 items or no defined resample."""
    a_list, b_list = list(a_labels), list(b_labels)
    n = len(a_list)
    if n < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, n)
        value = cohen_kappa([a_list[i] for i in idx], [b_list[i] for i in idx])
        if not math.isnan(value):
            values.append(value)
    return _percentiles(values, level)


def _percentiles(values: Sequence[float], level: float) -> tuple[float, float]:
    """The ``(1 ± level)/2`` quantiles of the defined resampled values (NaN without any)."""
    if not values:
        return (math.nan, math.nan)
    alpha = (1.0 - level) / 2.0
    return (float(np.quantile(values, alpha)), float(np.quantile(values, 1.0 - alpha)))


def flip_rate(groups_of_sample_statuses: Iterable[Sequence[Hashable]]) -> float:
    """Share of groups (judge samples of one invocation) whose samples do not all agree.

    Groups with fewer than 2 samples carry no information and are skipped; NaN when no group
    has 2 or more samples.
    """
    counted = flipped = 0
    for group in groups_of_sample_statuses:
        items = list(group)
        if len(items) < 2:
            continue
        counted += 1
        flipped += any(item != items[0] for item in items[1:])
    return flipped / counted if counted else math.nan


def fleiss_kappa(groups: Iterable[Sequence[Hashable]]) -> float:
    """Fleiss' κ of items rated ``r`` times each (``groups``: the ratings of one item).

    ``n_ik`` = ratings of item i in category k, ``p_k`` = share of all ratings in k;
    ``P̄ = mean_i (Σ_k n_ik² − r)/(r(r − 1))``, ``P̄_e = Σ_k p_k²``,
    ``κ = (P̄ − P̄_e)/(1 − P̄_e)``. Only items with the most common ``r ≥ 2`` count; NaN without
    such items or when ``P̄_e == 1``."""
    items = [list(g) for g in groups if len(g) >= 2]
    if not items:
        return math.nan
    sizes: dict[int, int] = {}
    for item in items:
        sizes[len(item)] = sizes.get(len(item), 0) + 1
    r = max(sizes, key=lambda size: (sizes[size], size))
    items = [item for item in items if len(item) == r]
    categories = sorted({label for item in items for label in item}, key=repr)
    counts = np.array([[item.count(c) for c in categories] for item in items], dtype=float)
    return fleiss_kappa_counts(counts)


def fleiss_kappa_counts(counts: npt.NDArray[np.float64]) -> float:
    """Fleiss' κ of an items × categories count table whose rows all sum to the same r ≥ 2
    (formula in :func:`fleiss_kappa`); NaN without rows or when ``P̄_e == 1``."""
    if counts.shape[0] == 0:
        return math.nan
    r = float(counts[0].sum())
    p_bar = float(np.mean((np.sum(counts**2, axis=1) - r) / (r * (r - 1))))
    shares = counts.sum(axis=0) / counts.sum()
    p_e = float(np.sum(shares**2))
    if p_e >= 1.0:
        return math.nan
    return (p_bar - p_e) / (1.0 - p_e)


LEVELS = ("nominal", "ordinal", "interval")
"""Krippendorff's levels of measurement."""


def krippendorff_alpha(units: Iterable[Sequence[Any]], level: str = "nominal") -> float:
    """Krippendorff's α of ``units`` (each the ratings one unit got; a missing rating left out
    or ``None``).

    Units with fewer than 2 ratings are dropped. Coincidences ``o_ck = Σ_u (ordered pairs
    (c, k) of distinct ratings in u)/(m_u − 1)``, ``n_c = Σ_k o_ck``, ``n = Σ_c n_c``;
    ``D_o = Σ o_ck·δ²(c,k)/n``, ``D_e = Σ n_c·n_k·δ²(c,k)/(n(n − 1))``, ``α = 1 − D_o/D_e``;
    δ² nominal ``[c ≠ k]``, interval ``(c − k)²``, ordinal ``(Σ_{g=c..k} n_g − (n_c + n_k)/2)²``
    (values in sorted order). α = 1 when ``D_e = 0`` (one value only); NaN without a pairable
    unit. Ordinal and interval ratings must be numbers."""
    pairable = [[v for v in u if v is not None] for u in units]
    pairable = [u for u in pairable if len(u) >= 2]
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    if not pairable:
        return math.nan
    values = sorted({v for u in pairable for v in u}, key=repr if level == "nominal" else None)
    index = {v: k for k, v in enumerate(values)}
    counts = np.zeros((len(pairable), len(values)))
    for row, unit in enumerate(pairable):
        for v in unit:
            counts[row, index[v]] += 1
    return alpha_from_counts(counts, values, level)


def alpha_from_counts(
    counts: npt.NDArray[np.float64], values: Sequence[Any], level: str = "nominal"
) -> float:
    """Krippendorff's α of a units × values count table (:func:`krippendorff_alpha`; units
    with fewer than 2 ratings are dropped here too)."""
    m = counts.sum(axis=1)
    counts = counts[m >= 2]
    m = m[m >= 2]
    if counts.shape[0] == 0:
        return math.nan
    weighted = counts / (m - 1)[:, None]
    coincidence = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = float(n_c.sum())
    delta = _distances(values, n_c, level)
    d_o = float((coincidence * delta).sum()) / n
    d_e = float((np.outer(n_c, n_c) * delta).sum()) / (n * (n - 1.0))
    if d_e == 0.0:
        return 1.0
    return 1.0 - d_o / d_e


def _distances(
    values: Sequence[Any], n_c: npt.NDArray[np.float64], level: str
) -> npt.NDArray[np.float64]:
    """δ²(c, k) of every pair of values (:func:`krippendorff_alpha`)."""
    size = len(values)
    if level == "nominal":
        return 1.0 - np.eye(size)
    if level == "interval":
        x = np.asarray(values, dtype=float)
        return (x[:, None] - x[None, :]) ** 2
    cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
    c, k = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    low, high = np.minimum(c, k), np.maximum(c, k)
    between = cumulative[high + 1] - cumulative[low]
    return (between - (n_c[c] + n_c[k]) / 2.0) ** 2


def brier_score(q: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Brier score ``mean (q_i − y_i)²`` of probabilities ``q`` against 0/1 outcomes ``y``;
    NaN without items."""
    q_arr, y_arr = np.asarray(q, dtype=float), np.asarray(y, dtype=float)
    return float(np.mean((q_arr - y_arr) ** 2)) if q_arr.size else math.nan


def calibration_bins(q: npt.ArrayLike, y: npt.ArrayLike, bins: int = 10) -> pl.DataFrame:
    """The reliability table: ``bins`` equal-width bins of q on [0, 1] (the last closed), per
    non-empty bin its ``low``/``high`` edges, ``n``, ``mean_q`` and ``mean_y``."""
    q_arr, y_arr = np.asarray(q, dtype=float), np.asarray(y, dtype=float)
    index = np.minimum((q_arr * bins).astype(int), bins - 1) if q_arr.size else q_arr
    rows = [
        (
            b / bins,
            (b + 1) / bins,
            int(np.sum(hit)),
            float(q_arr[hit].mean()),
            float(y_arr[hit].mean()),
        )
        for b in range(bins)
        if np.any(hit := index == b)
    ]
    schema = {
        "low": pl.Float64,
        "high": pl.Float64,
        "n": pl.Int64,
        "mean_q": pl.Float64,
        "mean_y": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def expected_calibration_error(q: npt.ArrayLike, y: npt.ArrayLike, bins: int = 10) -> float:
    """ECE ``Σ_b (n_b/n)·|mean(y)_b − mean(q)_b|`` over :func:`calibration_bins`; NaN without
    items."""
    table = calibration_bins(q, y, bins)
    n = int(table["n"].sum())
    if not n:
        return math.nan
    gaps = (table["mean_y"] - table["mean_q"]).abs() * table["n"]
    return float(gaps.sum()) / n


# -- a run's verdicts --------------------------------------------------------------------------

_PAIRS_SCHEMA = {
    "metric_name": pl.String,
    "run_id": pl.Int64,
    "eval_id": pl.String,
    "verdict": pl.String,
    "other": pl.String,
    "score": pl.Float64,
}


def _verdicts(record: RunRecord) -> pl.DataFrame:
    """(metric_name, run_id, eval_id, verdict, score) of every evaluated metric result."""
    return (
        record.table("metrics")
        .filter(pl.col("status").is_in(["passed", "failed"]))
        .select(
            "metric_name",
            "run_id",
            "eval_id",
            pl.when(pl.col("status") == "passed")
            .then(pl.lit("pass"))
            .otherwise(pl.lit("fail"))
            .alias("verdict"),
            "score",
        )
    )


class HumanVerdicts:
    """The human verdict of a metric result: the mark on that metric, else the mark on its
    whole case result; ``unsure`` marks are no verdict. Later marks replace earlier ones."""

    def __init__(self, marks: Iterable[Mark] = ()) -> None:
        self.own: dict[tuple[str, int | None, str], str] = {}
        self.whole: dict[tuple[int | None, str], str] = {}
        for mark in marks:
            self.add(mark)

    def add(self, mark: Mark) -> None:
        if mark.metric:
            self.own.pop((mark.metric, mark.run_id, mark.eval_id), None)
            if mark.mark in VERDICTS:
                self.own[(mark.metric, mark.run_id, mark.eval_id)] = mark.mark
        else:
            self.whole.pop((mark.run_id, mark.eval_id), None)
            if mark.mark in VERDICTS:
                self.whole[(mark.run_id, mark.eval_id)] = mark.mark

    def of(self, metric: str, run_id: int | None, eval_id: str) -> str | None:
        """``pass``, ``fail`` or ``None`` (no verdict) for that metric result."""
        return self.own.get((metric, run_id, eval_id), self.whole.get((run_id, eval_id)))

    def disagrees(
        self, run_id: int | None, eval_id: str, statuses: Mapping[str, str]
    ) -> bool | None:
        """Whether some evaluated metric (``statuses``: metric name → status) of the case result
        has a verdict other than the human's; ``None`` when no metric has a human verdict."""
        found: bool | None = None
        for metric, status in statuses.items():
            if status not in STATUS_VERDICT:
                continue
            human = self.of(metric, run_id, eval_id)
            if human is None:
                continue
            if STATUS_VERDICT[status] != human:
                return True
            found = False
        return found


def _human(record: RunRecord, verdicts: pl.DataFrame) -> pl.DataFrame:
    """The human verdict of each metric result (:class:`HumanVerdicts`)."""
    human = HumanVerdicts(marks_of(record))
    keys = verdicts.select("metric_name", "run_id", "eval_id").rows()
    other = [human.of(name, run, case) for name, run, case in keys]
    return verdicts.with_columns(pl.Series("other", other, dtype=pl.String))


def _against_run(record: RunRecord, other: RunRecord, verdicts: pl.DataFrame) -> pl.DataFrame:
    theirs = _verdicts(other).select("metric_name", "run_id", "eval_id", other="verdict")
    return verdicts.join(theirs, on=["metric_name", "run_id", "eval_id"], how="left")


def _against_metric(metric: str, verdicts: pl.DataFrame) -> pl.DataFrame:
    if metric not in verdicts["metric_name"].to_list():
        raise KeyError(f"no metric {metric!r} in the run (against=)")
    theirs = verdicts.filter(pl.col("metric_name") == metric).select(
        "run_id", "eval_id", other="verdict"
    )
    mine = verdicts.filter(pl.col("metric_name") != metric)
    return mine.join(theirs, on=["run_id", "eval_id"], how="left")


_TABLE_SCHEMA = {
    "metric_name": pl.String,
    "n": pl.Int64,
    "agreement": pl.Float64,
    "kappa": pl.Float64,
    "kappa_ci_low": pl.Float64,
    "kappa_ci_high": pl.Float64,
    "pass_pass": pl.Int64,
    "pass_fail": pl.Int64,
    "fail_pass": pl.Int64,
    "fail_fail": pl.Int64,
    "brier": pl.Float64,
    "ece": pl.Float64,
    "fleiss_kappa": pl.Float64,
    "flip_rate": pl.Float64,
}


@dataclass(frozen=True)
class Agreement:
    """``ae.stats.agreement``: ``table`` per metric (n paired verdicts, raw agreement, Cohen's
    κ and its CI, the confusion cells ``<metric>_<other>``, Brier score and ECE of the score
    against human marks, Fleiss' κ and flip rate of the judge samples); ``pairs`` the paired
    verdicts (``verdict`` the metric's, ``other`` the human's / other run's / other metric's)."""

    against: str
    table: pl.DataFrame
    pairs: pl.DataFrame

    def df(self, backend: str | None = None) -> Any:
        return to_backend(self.table, backend)

    def confusion(self, metric: str) -> pl.DataFrame:
        """2×2 counts: rows the metric's verdict, columns the other side's."""
        row = self.table.filter(pl.col("metric_name") == metric).row(0, named=True)
        return pl.DataFrame(
            {
                "verdict": ["pass", "fail"],
                f"{self.against}_pass": [row["pass_pass"], row["fail_pass"]],
                f"{self.against}_fail": [row["pass_fail"], row["fail_fail"]],
            }
        )

    def calibration(self, metric: str, bins: int = 10) -> pl.DataFrame:
        """The reliability table of ``metric``'s score against the other side's pass (1)."""
        q, y = _calibration_data(self.pairs.filter(pl.col("metric_name") == metric))
        return calibration_bins(q, y, bins)

    def _repr_html_(self) -> str:
        return f"<p>agreement against {self.against}</p>" + self.table._repr_html_()

    def __repr__(self) -> str:
        return f"Agreement(against={self.against})\n{self.table}"


def _calibration_data(pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    usable = pairs.filter(pl.col("score").is_between(0.0, 1.0))
    return usable["score"].to_numpy(), (usable["other"] == "pass").to_numpy().astype(float)


def _sample_groups(record: RunRecord) -> dict[str, list[list[str]]]:
    """Per metric, the statuses of the judge samples of each turn result."""
    samples = record.table("samples").filter(
        (pl.col("call") == "sample") & pl.col("status").is_in(["passed", "failed"])
    )
    grouped = samples.group_by(
        ["metric_name", "run_id", "eval_id", "invocation_index"], maintain_order=True
    ).agg(pl.col("status"))
    out: dict[str, list[list[str]]] = {}
    for name, statuses in grouped.select("metric_name", "status").rows():
        out.setdefault(name, []).append(list(statuses))
    return out


def mixed_sample_cases(record: RunRecord) -> set[tuple[int | None, str]]:
    """(run_id, eval_id) of the case results where the judge samples of some metric on some
    turn disagree: both ``passed`` and ``failed`` among them."""
    samples = record.table("samples").filter(
        (pl.col("call") == "sample") & pl.col("status").is_in(["passed", "failed"])
    )
    mixed = (
        samples.group_by(["run_id", "eval_id", "metric_name", "invocation_index"])
        .agg(pl.col("status").n_unique().alias("kinds"))
        .filter(pl.col("kinds") > 1)
    )
    return set(mixed.select("run_id", "eval_id").iter_rows())


@overload
def agreement(
    run: RunRecord | HoldsRecord,
    against: Any = "human",
    *,
    among: None = None,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    bins: int = 10,
    metrics: Sequence[str] | None = None,
) -> Agreement: ...


@overload
def agreement(
    run: RunRecord | HoldsRecord,
    against: Any = "human",
    *,
    among: str,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    bins: int = 10,
    metrics: Sequence[str] | None = None,
) -> JudgeAgreement: ...


def agreement(
    run: RunRecord | HoldsRecord,
    against: Any = "human",
    *,
    among: str | None = None,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    bins: int = 10,
    metrics: Sequence[str] | None = None,
) -> Agreement | JudgeAgreement:
    """Per metric, agreement of its verdicts with ``against``: ``"human"`` (the run's marks),
    another run (same run id and eval id), or another metric's name (same case result).

    ``among="judges"``: agreement among the judges of a panel instead (``against`` is not
    read), a :class:`JudgeAgreement` (:func:`among_judges`).

    Pairs with a missing side are left out; ``n`` counts the rest. Brier score and ECE (bins of
    width 1/``bins``) compare a score in [0, 1] — the verifier's expected score — with the
    human pass (1) / fail (0); they are NaN unless ``against="human"``. Fleiss' κ and the flip
    rate read the run's judge samples, whatever ``against`` is. ``metrics`` keeps only these
    metrics' rows and pairs (default: every metric).
    """
    record = record_of(run)
    if among is not None:
        if among != "judges":
            raise ValueError(f'among must be "judges", got {among!r}')
        return among_judges(record, level=level, n_resamples=n_resamples, seed=seed)
    verdicts = _verdicts(record)
    if isinstance(against, str) and against == "human":
        pairs, name = _human(record, verdicts), "human"
    elif isinstance(against, str):
        pairs, name = _against_metric(against, verdicts), against
    else:
        pairs, name = _against_run(record, record_of(against), verdicts), "other"
    pairs = pairs.filter(pl.col("other").is_not_null()).select(list(_PAIRS_SCHEMA))
    names = verdicts["metric_name"].unique(maintain_order=True).to_list()
    if metrics is not None:
        names = [name_ for name_ in names if name_ in set(metrics)]
        pairs = pairs.filter(pl.col("metric_name").is_in(names))
    groups = _sample_groups(record)
    rows = []
    for metric in names:
        mine = pairs.filter(pl.col("metric_name") == metric)
        if mine.height == 0 and metric not in groups:
            continue
        a, b = mine["verdict"].to_list(), mine["other"].to_list()
        low, high = cohen_kappa_ci(a, b, level, n_resamples, seed)
        cells = {
            f"{x}_{y}": sum(p == x and o == y for p, o in zip(a, b, strict=True))
            for x in VERDICTS
            for y in VERDICTS
        }
        q, y = _calibration_data(mine) if name == "human" else (np.array([]), np.array([]))
        rows.append(
            {
                "metric_name": metric,
                "n": len(a),
                "agreement": sum(x == y_ for x, y_ in zip(a, b, strict=True)) / len(a)
                if a
                else math.nan,
                "kappa": cohen_kappa(a, b),
                "kappa_ci_low": low,
                "kappa_ci_high": high,
                **cells,
                "brier": brier_score(q, y),
                "ece": expected_calibration_error(q, y, bins) if q.size else math.nan,
                "fleiss_kappa": fleiss_kappa(groups.get(metric, [])),
                "flip_rate": flip_rate(groups.get(metric, [])),
            }
        )
    table = pl.DataFrame(rows, schema=_TABLE_SCHEMA) if rows else pl.DataFrame(schema=_TABLE_SCHEMA)
    return Agreement(name, table, pairs)


# -- agreement among the judges of a panel -------------------------------------------------------

_UNIT = ("metric_name", "run_id", "eval_id", "invocation_index")

_RATINGS_SCHEMA = {
    "metric_name": pl.String,
    "run_id": pl.Int64,
    "eval_id": pl.String,
    "invocation_index": pl.Int64,
    "judge": pl.String,
    "verdict": pl.String,
    "score": pl.Float64,
}

_AMONG_SCHEMA = {
    "metric_name": pl.String,
    "rater_a": pl.String,
    "rater_b": pl.String,
    "n_units": pl.Int64,
    "n_raters": pl.Int64,
    "statistic": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "prevalence": pl.Float64,
}


def judge_ratings(record: RunRecord) -> pl.DataFrame:
    """(metric_name, run_id, eval_id, invocation_index, judge, verdict, score): each judge's
    reduced verdict on each turn metric result — its chosen sample, when that is ``passed`` or
    ``failed`` (an abstaining judge has no row)."""
    samples = record.table("samples").filter(
        (pl.col("call") == "sample")
        & pl.col("chosen")
        & pl.col("status").is_in(["passed", "failed"])
    )
    return samples.select(
        *_UNIT,
        "judge",
        pl.when(pl.col("status") == "passed")
        .then(pl.lit("pass"))
        .otherwise(pl.lit("fail"))
        .alias("verdict"),
        "score",
    ).cast(_RATINGS_SCHEMA)  # type: ignore[arg-type]


@dataclass(frozen=True)
class JudgeAgreement:
    """``ae.stats.agreement(run, among="judges")``: ``table`` has one row per metric and
    statistic — ``krippendorff_alpha`` (verdicts, nominal), ``krippendorff_alpha_interval``
    (scores), ``fleiss_kappa`` (units every judge rated) with ``rater_a = rater_b = "*"``, and
    ``cohen_kappa`` per pair of judges — with ``n_units``, ``n_raters``, the bootstrap CI over
    case results and ``prevalence`` (the share of ``pass`` ratings counted); ``ratings`` holds
    every judge's verdict (:func:`judge_ratings`)."""

    table: pl.DataFrame
    ratings: pl.DataFrame

    def df(self, backend: str | None = None) -> Any:
        return to_backend(self.table, backend)

    def kappa_matrix(self, metric: str) -> pl.DataFrame:
        """Pairwise Cohen's κ of ``metric`` as a judges × judges table (1 on the diagonal)."""
        rows = self.table.filter(
            (pl.col("metric_name") == metric) & (pl.col("statistic") == "cohen_kappa")
        )
        judges = sorted(set(rows["rater_a"].to_list()) | set(rows["rater_b"].to_list()))
        value = {(a, b): v for a, b, v in rows.select("rater_a", "rater_b", "value").rows()}
        matrix = {
            b: [1.0 if a == b else value.get((a, b), value.get((b, a), math.nan)) for a in judges]
            for b in judges
        }
        return pl.DataFrame({"judge": judges, **matrix})

    def _repr_html_(self) -> str:
        return "<p>agreement among judges</p>" + self.table._repr_html_()

    def __repr__(self) -> str:
        return f"JudgeAgreement\n{self.table}"


def _case_bootstrap(
    stat: Callable[[npt.NDArray[np.int64]], float],
    unit_cases: npt.NDArray[np.int64],
    level: float,
    n_resamples: int,
    seed: int,
) -> tuple[float, float]:
    """Percentile CI of ``stat(unit indices)``, resampling whole case results (codes
    ``unit_cases``) with replacement; NaN with fewer than 2 cases or no defined draw."""
    cases = np.unique(unit_cases)
    if cases.size < 2 or n_resamples <= 0:
        return (math.nan, math.nan)
    order = np.argsort(unit_cases, kind="stable")
    starts = np.searchsorted(unit_cases[order], cases)
    sizes = np.diff(np.append(starts, unit_cases.size))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_resamples):
        picked = rng.integers(0, cases.size, cases.size)
        lengths = sizes[picked]
        # the units of every picked case, case after case: start + 0 .. size - 1
        shift = np.repeat(starts[picked] - (np.cumsum(lengths) - lengths), lengths)
        value = stat(order[shift + np.arange(int(lengths.sum()))])
        if not math.isnan(value):
            values.append(value)
    return _percentiles(values, level)


def _counts(
    units: Sequence[Mapping[str, Any]], judges: Sequence[str], values: Sequence[Any]
) -> npt.NDArray[np.float64]:
    """units × values count table of the ratings ``judges`` gave."""
    index = {v: k for k, v in enumerate(values)}
    counts = np.zeros((len(units), len(values)))
    for row, unit in enumerate(units):
        for judge in judges:
            if judge in unit:
                counts[row, index[unit[judge]]] += 1
    return counts


def _among_metric(
    metric: str, ratings: pl.DataFrame, level: float, n_resamples: int, seed: int
) -> list[dict[str, Any]]:
    """The rows of :class:`JudgeAgreement` for one metric's ratings."""
    judges = sorted(set(ratings["judge"].to_list()))
    verdicts: dict[tuple[Any, ...], dict[str, str]] = {}
    scores: dict[tuple[Any, ...], dict[str, float]] = {}
    for run_id, eval_id, index, judge, verdict, score in ratings.select(
        "run_id", "eval_id", "invocation_index", "judge", "verdict", "score"
    ).rows():
        verdicts.setdefault((run_id, eval_id, index), {})[judge] = verdict
        if score is not None and math.isfinite(score):
            scores.setdefault((run_id, eval_id, index), {})[judge] = score
    keys = list(verdicts)
    case_of = {case: k for k, case in enumerate(dict.fromkeys(key[:2] for key in keys))}
    unit_cases = np.array([case_of[key[:2]] for key in keys], dtype=np.int64)
    units = [verdicts[key] for key in keys]
    rows = []

    def row(
        a: str,
        b: str,
        statistic: str,
        used: npt.NDArray[np.float64],
        value: float,
        ci: tuple[float, float],
        raters: int,
    ) -> None:
        rated = used.sum(axis=1)
        total = float(used.sum())
        rows.append(
            {
                "metric_name": metric,
                "rater_a": a,
                "rater_b": b,
                "n_units": int(np.sum(rated >= 2)),
                "n_raters": raters,
                "statistic": statistic,
                "value": value,
                "ci_low": ci[0],
                "ci_high": ci[1],
                "prevalence": float(used[:, 1].sum()) / total if total else math.nan,
            }
        )

    labels = ("fail", "pass")
    counts = _counts(units, judges, labels)
    pairable = counts[counts.sum(axis=1) >= 2]

    def alpha_nominal(idx: npt.NDArray[np.int64]) -> float:
        return alpha_from_counts(counts[idx], labels, "nominal")

    value = alpha_from_counts(counts, labels, "nominal")
    ci = _case_bootstrap(alpha_nominal, unit_cases, level, n_resamples, seed)
    row("*", "*", "krippendorff_alpha", pairable, value, ci, len(judges))

    points = sorted({v for unit in scores.values() for v in unit.values()})
    score_units = [scores.get(key, {}) for key in keys]
    score_counts = _counts(score_units, judges, points)

    def alpha_interval(idx: npt.NDArray[np.int64]) -> float:
        return alpha_from_counts(score_counts[idx], points, "interval")

    value = alpha_from_counts(score_counts, points, "interval") if points else math.nan
    ci = (
        _case_bootstrap(alpha_interval, unit_cases, level, n_resamples, seed)
        if points
        else (math.nan, math.nan)
    )
    scored = counts[score_counts.sum(axis=1) >= 2]
    row("*", "*", "krippendorff_alpha_interval", scored, value, ci, len(judges))

    full = counts.sum(axis=1) == len(judges)
    complete_idx = np.flatnonzero(full if len(judges) >= 2 else np.zeros_like(full))

    complete = counts[complete_idx]

    def fleiss(idx: npt.NDArray[np.int64]) -> float:  # idx: positions among the complete units
        return fleiss_kappa_counts(complete[idx])

    value = fleiss(np.arange(complete_idx.size))
    ci = _case_bootstrap(fleiss, unit_cases[complete_idx], level, n_resamples, seed)
    row("*", "*", "fleiss_kappa", counts[complete_idx], value, ci, len(judges))

    for i, a in enumerate(judges):
        for b in judges[i + 1 :]:
            both = np.array([k for k, u in enumerate(units) if a in u and b in u], dtype=np.int64)
            first = np.array([labels.index(units[k][a]) for k in both], dtype=np.int64)
            second = np.array([labels.index(units[k][b]) for k in both], dtype=np.int64)

            def kappa(
                idx: npt.NDArray[np.int64],
                x: npt.NDArray[np.int64] = first,
                y: npt.NDArray[np.int64] = second,
            ) -> float:
                return kappa_from_codes(x[idx], y[idx], len(labels))

            value = kappa(np.arange(both.size))
            ci = _case_bootstrap(kappa, unit_cases[both], level, n_resamples, seed)
            pair_counts = _counts([units[k] for k in both], (a, b), labels)
            row(a, b, "cohen_kappa", pair_counts, value, ci, 2)
    return rows


def among_judges(
    run: RunRecord | HoldsRecord,
    *,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> JudgeAgreement:
    """Agreement among the judges of a panel, per metric (module doc, :class:`JudgeAgreement`).
    A metric with fewer than two judges gives NaN values."""
    record = record_of(run)
    ratings = judge_ratings(record)
    rows: list[dict[str, Any]] = []
    for metric in ratings["metric_name"].unique(maintain_order=True).to_list():
        mine = ratings.filter(pl.col("metric_name") == metric)
        rows.extend(_among_metric(metric, mine, level, n_resamples, seed))
    table = pl.DataFrame(rows, schema=_AMONG_SCHEMA) if rows else pl.DataFrame(schema=_AMONG_SCHEMA)
    return JudgeAgreement(table, ratings)
