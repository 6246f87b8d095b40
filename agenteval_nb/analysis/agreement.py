"""Judge reliability: agreement of a metric's verdicts with human marks, another run or another
metric, calibration of its scores, and agreement among its own judge samples (STATS.md).

Formulas (each function's docstring states its own):

* Cohen's κ = (p_o − p_e)/(1 − p_e); its CI is the percentile bootstrap over items.
* Fleiss' κ over items with r ratings each: P̄ = mean_i (Σ_k n_ik² − r)/(r(r − 1)),
  P̄_e = Σ_k p_k², κ = (P̄ − P̄_e)/(1 − P̄_e).
* Brier score = mean (q_i − y_i)²; ECE = Σ_b (n_b/n)·|mean(y)_b − mean(q)_b| over B equal-width
  bins of q (the last bin closed).

A verdict is ``pass`` or ``fail``: a metric result's status ``passed`` / ``failed`` (not
evaluated rows are left out) or a human mark (``unsure`` is left out). A human mark on a whole
case result (no metric) stands for every metric of it; a mark on one metric overrides it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from .frames import to_backend
from .record import HoldsRecord, RunRecord, record_of
from .reviews import Mark, marks_of

__all__ = [
    "STATUS_VERDICT",
    "Agreement",
    "HumanVerdicts",
    "agreement",
    "brier_score",
    "calibration_bins",
    "cohen_kappa",
    "cohen_kappa_ci",
    "expected_calibration_error",
    "fleiss_kappa",
    "flip_rate",
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
    n = len(a_list)
    if n == 0:
        return math.nan
    observed = sum(x == y for x, y in zip(a_list, b_list, strict=True)) / n
    a_counts: dict[Hashable, int] = {}
    b_counts: dict[Hashable, int] = {}
    for x in a_list:
        a_counts[x] = a_counts.get(x, 0) + 1
    for y in b_list:
        b_counts[y] = b_counts.get(y, 0) + 1
    expected = sum(count * b_counts.get(label, 0) for label, count in a_counts.items()) / (n * n)
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
    p_bar = float(np.mean((np.sum(counts**2, axis=1) - r) / (r * (r - 1))))
    shares = counts.sum(axis=0) / counts.sum()
    p_e = float(np.sum(shares**2))
    if p_e >= 1.0:
        return math.nan
    return (p_bar - p_e) / (1.0 - p_e)


def krippendorff_alpha(units: Iterable[Sequence[Hashable]]) -> float:
    """Krippendorff's α for nominal values (``units``: the ratings of one item; ``None`` is a
    missing rating). Units with fewer than 2 ratings are left out. With ``m_u`` ratings in unit
    u, ``m_uc`` of them c, and ``n_c`` / ``n`` the totals over kept units:
    ``D_o = Σ_u (m_u² − Σ_c m_uc²)/(m_u − 1) / n``, ``D_e = (n² − Σ_c n_c²)/(n(n − 1))``,
    ``α = 1 − D_o/D_e`` (the coincidence-matrix form, JUDGES.md §2); 1 when every rating is
    the same value, NaN without units."""
    kept = [[r for r in unit if r is not None] for unit in units]
    kept = [unit for unit in kept if len(unit) >= 2]
    if not kept:
        return math.nan
    totals: dict[Hashable, int] = {}
    observed = 0.0
    for unit in kept:
        counts: dict[Hashable, int] = {}
        for rating in unit:
            counts[rating] = counts.get(rating, 0) + 1
            totals[rating] = totals.get(rating, 0) + 1
        m = len(unit)
        observed += (m * m - sum(c * c for c in counts.values())) / (m - 1)
    n = sum(totals.values())
    expected = (n * n - sum(c * c for c in totals.values())) / (n * (n - 1))
    if expected == 0:
        return 1.0
    return 1.0 - (observed / n) / expected


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


def agreement(
    run: RunRecord | HoldsRecord,
    against: Any = "human",
    *,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    bins: int = 10,
    metrics: Sequence[str] | None = None,
) -> Agreement:
    """Per metric, agreement of its verdicts with ``against``: ``"human"`` (the run's marks),
    another run (same run id and eval id), or another metric's name (same case result).

    Pairs with a missing side are left out; ``n`` counts the rest. Brier score and ECE (bins of
    width 1/``bins``) compare a score in [0, 1] — the verifier's expected score — with the
    human pass (1) / fail (0); they are NaN unless ``against="human"``. Fleiss' κ and the flip
    rate read the run's judge samples, whatever ``against`` is. ``metrics`` keeps only these
    metrics' rows and pairs (default: every metric).
    """
    record = record_of(run)
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
