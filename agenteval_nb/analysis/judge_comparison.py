"""Candidate judges of one run side by side against a reference (JUDGES.md §2, §4).

The comparison is a record (:class:`JudgeComparison`) of the candidates' runs — the run's judge
metrics scored again by each (``ae.rejudge``) — and of the reference; these functions compute
from it. Units are the judge metrics' case results (run id × eval id × metric), the unit of a
human mark.

Per candidate × metric (:func:`comparison_table`), from :func:`~.agreement.agreement` of the
candidate's run with the reference (pairs with a missing side are left out):

* ``n`` paired items, ``accuracy`` (share equal — never read it alone), Cohen's ``kappa`` with
  its percentile-bootstrap CI (``level``, ``n_resamples``, ``seed``), ``krippendorff_alpha``
  (nominal, the two raters);
* ``prevalence``: the reference's pass rate (the base rate); ``judge_pass_rate``;
  ``fail_recall`` = judge-fail among the reference's fails (does the judge catch the failures);
  ``fail_precision`` = reference-fail among the judge's fails; the confusion cells
  ``<judge>_<reference>``;
* ``calls`` and ``cache_hits`` of the candidate's judge calls for the metric; ``cost_usd`` their
  price (cache hits at their price when made: the cost of this judge on this workload; null when
  unpriced) and ``cost_per_1k`` per thousand judged items; ``latency_p50_ms`` /
  ``latency_p95_ms`` over the calls sent to the endpoint (null when the cache answered all);
* ``errors``: items the run recorded for the metric that the candidate gave no verdict (a
  judge error, an unparsable answer, ``not_evaluated``).

The reference (``against``): ``"human"`` — the run's human marks (the candidates' runs carry
them), another candidate's name, or a run record — its verdicts (the run's own judge).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .agreement import Agreement, agreement, krippendorff_alpha
from .experiment import pareto_front
from .frames import to_backend
from .record import RunRecord

__all__ = [
    "COMPARISON_SCHEMA",
    "JudgeComparison",
    "best_candidate",
    "compare_records",
    "comparison_table",
    "disagreements",
    "on_pareto_front",
]

COMPARISON_SCHEMA = {
    "candidate": pl.String,
    "metric_name": pl.String,
    "n": pl.Int64,
    "accuracy": pl.Float64,
    "kappa": pl.Float64,
    "kappa_ci_low": pl.Float64,
    "kappa_ci_high": pl.Float64,
    "krippendorff_alpha": pl.Float64,
    "prevalence": pl.Float64,
    "judge_pass_rate": pl.Float64,
    "fail_recall": pl.Float64,
    "fail_precision": pl.Float64,
    "pass_pass": pl.Int64,
    "pass_fail": pl.Int64,
    "fail_pass": pl.Int64,
    "fail_fail": pl.Int64,
    "calls": pl.Int64,
    "cache_hits": pl.Int64,
    "cost_usd": pl.Float64,
    "cost_per_1k": pl.Float64,
    "latency_p50_ms": pl.Float64,
    "latency_p95_ms": pl.Float64,
    "errors": pl.Int64,
}

_PAIR_KEYS = ["metric_name", "run_id", "eval_id"]


@dataclass(frozen=True)
class JudgeComparison:
    """``ae.compare_judges``: ``table`` (candidate × metric, :data:`COMPARISON_SCHEMA`),
    ``pairs`` (candidate, metric, ids, ``verdict`` the candidate's, ``other`` the reference's,
    ``score``), ``runs`` each candidate's rejudged run, ``reference`` the reference run when
    the reference is a run. Methods delegate to this module's functions."""

    against: str
    table: pl.DataFrame
    pairs: pl.DataFrame
    runs: Mapping[str, RunRecord] = field(repr=False)
    reference: RunRecord | None = field(default=None, repr=False)

    def df(self, backend: str | None = None) -> Any:
        return to_backend(self.table, backend)

    def disagreements(
        self, candidate: str, metric: str | None = None, backend: str | None = None
    ) -> Any:
        """The items where ``candidate`` and the reference differ (:func:`disagreements`)."""
        return to_backend(disagreements(self, candidate, metric), backend)

    def best(self, min_kappa: float = 0.61, by: str = "cost_usd") -> str | None:
        """The cheapest acceptable candidate (:func:`best_candidate`)."""
        return best_candidate(self, min_kappa, by)

    def _repr_html_(self) -> str:
        return f"<p>judges against {self.against}</p>" + self.table._repr_html_()

    def __repr__(self) -> str:
        return f"JudgeComparison(against={self.against})\n{self.table}"


def _share(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(values, q)) if len(values) else math.nan


def _call_columns(record: RunRecord, metric: str, items: int) -> dict[str, Any]:
    """Calls, cache hits, cost and latency of the candidate's judge calls for ``metric``."""
    calls = record.table("samples").filter(pl.col("metric_name") == metric)
    hits = calls["cache_hit"].fill_null(False)
    costs = calls["cost_usd"]
    cost = None if calls.height == 0 or costs.null_count() else float(costs.sum())
    latency = calls.filter(~hits)["latency_ms"].drop_nulls().to_list()
    return {
        "calls": calls.height,
        "cache_hits": int(hits.sum()),
        "cost_usd": cost,
        "cost_per_1k": None if cost is None or not items else 1000.0 * cost / items,
        "latency_p50_ms": _quantile(latency, 0.5),
        "latency_p95_ms": _quantile(latency, 0.95),
    }


def _verdict_keys(record: RunRecord, metric: str, judged_only: bool) -> set[tuple[Any, ...]]:
    rows = record.table("metrics").filter(pl.col("metric_name") == metric)
    if judged_only:
        rows = rows.filter(pl.col("status").is_in(["passed", "failed"]))
    return set(rows.select("run_id", "eval_id").rows())


def _row(name: str, metric: str, found: dict[str, Any] | None) -> dict[str, Any]:
    """The agreement columns of one candidate × metric: those of
    :func:`~.agreement.agreement`'s table, and the base rate, fail recall / precision read
    from its confusion cells (NaN / 0 without pairs)."""
    if found is None:
        cells = dict.fromkeys(("pass_pass", "pass_fail", "fail_pass", "fail_fail"), 0)
        found = {"n": 0, "agreement": math.nan, "kappa": math.nan, **cells}
        found.update(kappa_ci_low=math.nan, kappa_ci_high=math.nan)
    n = found["n"]
    pp, pf, fp, ff = (found[k] for k in ("pass_pass", "pass_fail", "fail_pass", "fail_fail"))
    return {
        "candidate": name,
        "metric_name": metric,
        "n": n,
        "accuracy": found["agreement"],
        "kappa": found["kappa"],
        "kappa_ci_low": found["kappa_ci_low"],
        "kappa_ci_high": found["kappa_ci_high"],
        "prevalence": _share(pp + fp, n),
        "judge_pass_rate": _share(pp + pf, n),
        "fail_recall": _share(ff, pf + ff),
        "fail_precision": _share(ff, fp + ff),
        "pass_pass": pp,
        "pass_fail": pf,
        "fail_pass": fp,
        "fail_fail": ff,
    }


def comparison_table(
    runs: Mapping[str, RunRecord],
    agreements: Mapping[str, Agreement],
    metrics: Sequence[str],
    source: RunRecord,
) -> pl.DataFrame:
    """The candidate × metric table (module rules) from each candidate's
    :func:`~.agreement.agreement` with the reference."""
    rows = []
    for name, record in runs.items():
        found = {r["metric_name"]: r for r in agreements[name].table.iter_rows(named=True)}
        pairs = agreements[name].pairs
        for metric in metrics:
            mine = pairs.filter(pl.col("metric_name") == metric)
            units = zip(mine["verdict"].to_list(), mine["other"].to_list(), strict=True)
            items = len(_verdict_keys(record, metric, judged_only=True))
            lost = _verdict_keys(source, metric, False) - _verdict_keys(record, metric, True)
            rows.append(
                {
                    **_row(name, metric, found.get(metric)),
                    "krippendorff_alpha": krippendorff_alpha(units),
                    **_call_columns(record, metric, items),
                    "errors": len(lost),
                }
            )
    if not rows:
        return pl.DataFrame(schema=COMPARISON_SCHEMA)
    return pl.DataFrame(rows, schema=COMPARISON_SCHEMA, orient="row")


def compare_records(
    runs: Mapping[str, RunRecord],
    source: RunRecord,
    metrics: Sequence[str],
    against: str | RunRecord = "human",
    *,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> JudgeComparison:
    """The comparison of the candidates' runs ``runs`` (rejudged from ``source``) on
    ``metrics`` against ``against``: ``"human"``, a candidate's name, or a run record."""
    if isinstance(against, str) and against != "human" and against not in runs:
        raise KeyError(
            f"against={against!r}: not 'human' nor a candidate ({', '.join(map(repr, runs))})"
        )
    reference: RunRecord | None = None
    if isinstance(against, RunRecord):
        reference, label = against, "run"
    elif against == "human":
        label = "human"
    else:
        reference, label = runs[against], against
    agreements = {
        name: agreement(
            record,
            "human" if reference is None else reference,
            level=level,
            n_resamples=n_resamples,
            seed=seed,
            metrics=metrics,
        )
        for name, record in runs.items()
    }
    table = comparison_table(runs, agreements, metrics, source)
    stacked = [
        a.pairs.select(pl.lit(name).alias("candidate"), pl.all()) for name, a in agreements.items()
    ]
    return JudgeComparison(label, table, pl.concat(stacked), dict(runs), reference)


def disagreements(cmp: JudgeComparison, candidate: str, metric: str | None = None) -> pl.DataFrame:
    """The items where ``candidate``'s verdict differs from the reference's: ids, ``verdict``
    (the candidate's), ``reference`` (the reference's verdict), the candidate's ``score`` and
    ``reason``, and the reference judge's ``reference_reason`` (null for human marks)."""
    if candidate not in cmp.runs:
        raise KeyError(f"no candidate {candidate!r} (candidates: {', '.join(cmp.runs)})")
    differ = cmp.pairs.filter(
        (pl.col("candidate") == candidate) & (pl.col("verdict") != pl.col("other"))
    )
    if metric is not None:
        differ = differ.filter(pl.col("metric_name") == metric)
    reasons = cmp.runs[candidate].table("metrics").select(*_PAIR_KEYS, "reason")
    out = differ.join(reasons, on=_PAIR_KEYS, how="left", maintain_order="left")
    if cmp.reference is not None:
        theirs = cmp.reference.table("metrics").select(*_PAIR_KEYS, reference_reason="reason")
        out = out.join(theirs, on=_PAIR_KEYS, how="left", maintain_order="left")
    else:
        out = out.with_columns(pl.lit(None, pl.String).alias("reference_reason"))
    return out.select(
        *_PAIR_KEYS,
        "verdict",
        pl.col("other").alias("reference"),
        "score",
        "reason",
        "reference_reason",
    )


def on_pareto_front(table: pl.DataFrame) -> list[bool]:
    """Per row of a comparison table: on the front of (κ ↑, cost ↓) among the rows of its
    metric (:func:`~.experiment.pareto_front`; a row without κ or cost is never on it)."""
    front = [False] * table.height
    metric_of = table["metric_name"].to_list()
    kappa = table["kappa"].fill_null(math.nan).to_list()
    cost = table["cost_usd"].fill_null(math.nan).to_list()
    for metric in dict.fromkeys(metric_of):
        idx = [i for i, m in enumerate(metric_of) if m == metric]
        marks = pareto_front([kappa[i] for i in idx], [cost[i] for i in idx])
        for i, on in zip(idx, marks, strict=True):
            front[i] = on
    return front


def best_candidate(
    cmp: JudgeComparison, min_kappa: float = 0.61, by: str = "cost_usd"
) -> str | None:
    """The candidate whose κ is at least ``min_kappa`` on every metric compared (0.61:
    "substantial", Landis & Koch) with the lowest total ``by`` over the metrics (a candidate
    without that number ranks last); None when no candidate qualifies."""
    ranked: list[tuple[float, int, str]] = []
    for order, name in enumerate(cmp.runs):
        rows = cmp.table.filter(pl.col("candidate") == name)
        kappas = rows["kappa"].fill_null(math.nan).to_list()
        if not kappas or any(math.isnan(k) or k < min_kappa for k in kappas):
            continue
        values = rows[by].cast(pl.Float64).fill_null(math.nan).to_list()
        total = math.inf if any(math.isnan(v) for v in values) else sum(values)
        ranked.append((total, order, name))
    return min(ranked)[2] if ranked else None
