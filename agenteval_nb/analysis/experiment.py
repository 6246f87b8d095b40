"""Many variants on one eval set: the leaderboard, the adjusted pairwise table, the case ×
variant matrix and the stacked frames — functions of named run records (STATS.md, many
variants).

Counting rules shared by every function here:

* the unit of a pass rate is the **case**, each case's runs combined first (SPEC §8.7), read
  from the functions the run report reads (:func:`~.stats.summary_frame` per metric,
  :func:`~.headline.case_pass_rate` overall), so that a variant's leaderboard row and its run
  report show one number; a case that errored counts as not passed (nothing passes by
  vanishing);
* a **case-run** is one row of a record's cases table (one case in one run): the unit of the
  explicitly named ``*_case_runs`` columns, of pass@k and of the matrix; a case-run passed
  when its metric row says ``passed`` (a case-run without a row for the metric did not pass);
  ``"overall"`` reads the case status;
* a score is read only from evaluated rows (status passed/failed, score not NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import polars as pl

from ..judge.usage import cost_of
from .case_runs import OVERALL, case_runs
from .columns import SCHEMAS
from .frames import frame
from .headline import case_pass_rate
from .paired import STATS_SCHEMA, compare_records
from .passk import num_runs, pass_at_k_cases, pass_hat_k_cases
from .power import detectable_at
from .record import HoldsRecord, RunRecord, record_of
from .stats import summarize_scores, summary_frame, wilson_interval

LEADERBOARD_SCHEMA: dict[str, pl.DataType] = {
    "variant": pl.String(),
    "metric_name": pl.String(),
    "cases": pl.Int64(),
    "runs": pl.Int64(),
    "n_passed": pl.Int64(),
    "pass_rate": pl.Float64(),
    "pass_rate_low": pl.Float64(),
    "pass_rate_high": pl.Float64(),
    "case_runs": pl.Int64(),
    "pass_rate_case_runs": pl.Float64(),
    "n_scored": pl.Int64(),
    "mean_score": pl.Float64(),
    "mean_score_se": pl.Float64(),
    "mean_score_low": pl.Float64(),
    "mean_score_high": pl.Float64(),
    "k": pl.Int64(),
    "pass_at_1": pl.Float64(),
    "pass_hat_1": pl.Float64(),
    "pass_at_k": pl.Float64(),
    "pass_hat_k": pl.Float64(),
    "agent_tokens": pl.Int64(),
    "judge_tokens": pl.Int64(),
    "cost": pl.Float64(),
    "latency_p50_s": pl.Float64(),
    "latency_p95_s": pl.Float64(),
    "elapsed_s": pl.Float64(),
    "errors": pl.Int64(),
}
"""One row per (variant, metric) plus an ``"overall"`` row per variant, in cases
(:data:`~.headline.PASS_RATE_UNIT`, the run report's numbers):

``cases`` / ``n_passed`` the pass rate's denominator and numerator — for a metric the cases it
evaluated or that errored, overall every case — ``pass_rate`` with its Wilson interval over
cases; ``runs`` the record's run count; ``case_runs`` and ``pass_rate_case_runs`` the same
pass rate counted in case-runs (kept to show flakiness: each case-run on its own);
``n_scored`` cases with a finite mean score, ``mean_score`` the mean of the per-case means,
its SE over cases (``mean_score_se``) and interval (``mean_score_low`` / ``mean_score_high``,
the normal interval clipped to the score's range, :func:`~.stats.bounded_ci`); ``pass_at_1`` /
``pass_at_k`` (Chen et al., per case, mean over cases) and ``pass_hat_1`` / ``pass_hat_k``
(unbiased ``C(c,k)/C(n,k)``) at ``k`` (the experiment's runs; NaN when a case has fewer runs);
the variant's ``agent_tokens``, ``judge_tokens``, ``cost`` (agent and judge, from the price
table; NaN when a model that used tokens has no price or there is no price table), inference
latency per case (``latency_p50_s`` / ``latency_p95_s``, NaN when the record does not hold it),
the run's wall-clock ``elapsed_s`` and ``errors`` (case-runs with an error message). The
variant columns repeat on each of its rows."""

PAIRWISE_SCHEMA: dict[str, pl.DataType] = {
    "metric_name": pl.String(),
    "variant_a": pl.String(),
    "variant_b": pl.String(),
    **{name: dtype for name, dtype in STATS_SCHEMA.items() if name != "metric_name"},
    "mde": pl.Float64(),
    "p_holm": pl.Float64(),
    "significant": pl.Boolean(),
}
"""The statistics of ``compare_records(a, b)`` (:data:`~.paired.STATS_SCHEMA`) per metric and
pair, with ``p_holm`` (Holm over the pairs of the metric, exact McNemar p; NaN counts as 1) and
``significant`` (``p_holm < alpha``), and ``mde``: the smallest difference this comparison could
have detected at 80 % power and level ``alpha`` (:func:`~.power.detectable_at` of ``se``)."""


@runtime_checkable
class HoldsRecords(Protocol):
    """An experiment as the views read it: named records, k of pass@k, the price table."""

    @property
    def records(self) -> dict[str, RunRecord]: ...

    num_runs: int | None
    price_table: dict[str, tuple[float, float]] | None


def records_of(experiment: HoldsRecords | Mapping[str, RunRecord | HoldsRecord]) -> dict:
    """Variant name → record of an experiment, or of a mapping of runs / records."""
    if isinstance(experiment, HoldsRecords):
        return dict(experiment.records)
    return {name: record_of(run) for name, run in experiment.items()}


def leaderboard_of(
    experiment: HoldsRecords | Mapping[str, RunRecord | HoldsRecord], level: float = 0.95
) -> pl.DataFrame:
    """:func:`leaderboard_frame` of an experiment with its k and price table (of a mapping of
    runs: the largest run count, no prices)."""
    if isinstance(experiment, HoldsRecords):
        return leaderboard_frame(
            experiment.records,
            k=experiment.num_runs,
            price_table=experiment.price_table,
            level=level,
        )
    return leaderboard_frame(records_of(experiment), level=level)


# -- the family-wise correction ---------------------------------------------------------------


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in input order: sort ascending (ties keep their
    order), ``p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j))``. A NaN p-value (no discordant
    pair) counts as 1."""
    values = [1.0 if p is None or math.isnan(p) else float(p) for p in p_values]
    m = len(values)
    order = sorted(range(m), key=lambda i: values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return adjusted


def pareto_front(scores: Sequence[float], costs: Sequence[float]) -> list[bool]:
    """Which points are on the front of (score ↑, cost ↓): no other point has a score ≥ and
    a cost ≤ with one of them strict. A point with a NaN is never on the front."""
    points = list(zip(scores, costs, strict=True))

    def dominated(i: int) -> bool:
        s, c = points[i]
        return any(
            s2 >= s and c2 <= c and (s2 > s or c2 < c)
            for j, (s2, c2) in enumerate(points)
            if j != i and not (math.isnan(s2) or math.isnan(c2))
        )

    return [
        not (math.isnan(s) or math.isnan(c)) and not dominated(i) for i, (s, c) in enumerate(points)
    ]


# -- one variant's case-runs ---------------------------------------------------------------------


def metric_names(records: Mapping[str, RunRecord]) -> list[str]:
    """The metric names of the experiment: the first record's metrics in their order (or the
    order of its metrics table), then names only other records hold."""
    names: list[str] = []
    for record in records.values():
        declared = [m.metric_name for m in record.metrics]
        seen = record.table("metrics")["metric_name"].unique(maintain_order=True).to_list()
        for name in [*declared, *seen]:
            if name is not None and name not in names:
                names.append(name)
    return names


def _pass_k(rows: pl.DataFrame, k: int) -> tuple[float, float]:
    """Mean over cases of per-case pass@k and unbiased pass^k (NaN when no case has k runs)."""
    per_case = rows.group_by("eval_id", maintain_order=True).agg(
        pl.len().alias("n"), pl.col("passed").sum().alias("c")
    )
    n = per_case["n"].to_numpy().astype(np.int64)
    c = per_case["c"].to_numpy().astype(np.int64)

    def mean(values: np.ndarray) -> float:
        finite = values[~np.isnan(values)]
        return float(finite.mean()) if finite.size else math.nan

    return mean(pass_at_k_cases(n, c, k)), mean(pass_hat_k_cases(n, c, k))


def _case_runs_outcome(rows: pl.DataFrame, k: int) -> dict[str, Any]:
    """The columns of one (variant, metric) counted in case-runs: their count, their pass rate
    and pass@k."""
    total = rows.height
    at_1, hat_1 = _pass_k(rows, 1)
    at_k, hat_k = _pass_k(rows, k)
    return {
        "case_runs": total,
        "pass_rate_case_runs": int(rows["passed"].sum()) / total if total else math.nan,
        "k": k,
        "pass_at_1": at_1,
        "pass_hat_1": hat_1,
        "pass_at_k": at_k,
        "pass_hat_k": hat_k,
    }


def _metric_outcome(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The case columns of a metric: its row of :func:`~.stats.summary_frame`."""
    n_cases = summary["n_cases"]
    return {
        "cases": n_cases,
        "n_passed": summary["n_passed"],
        "pass_rate": summary["pass_rate"] if n_cases else math.nan,
        "pass_rate_low": summary["pass_rate_ci_low"],
        "pass_rate_high": summary["pass_rate_ci_high"],
        "n_scored": summary["n"],
        "mean_score": summary["mean"],
        "mean_score_se": summary["se"],
        "mean_score_low": summary["ci_low"],
        "mean_score_high": summary["ci_high"],
    }


def _overall_outcome(record: RunRecord, level: float) -> dict[str, Any]:
    """The case columns of ``"overall"``: the case verdicts of :func:`~.headline.case_pass_rate`
    and the mean of each case's mean case score."""
    passed, total = case_pass_rate(record)
    low, high = wilson_interval(passed, total, level)
    per_case = (
        case_runs(record, OVERALL)
        .group_by("eval_id", maintain_order=True)
        .agg(pl.col("score").mean())["score"]
        .fill_null(math.nan)
        .to_numpy()
    )
    stats = summarize_scores(per_case, level=level)
    return {
        "cases": total,
        "n_passed": passed,
        "pass_rate": passed / total if total else math.nan,
        "pass_rate_low": low,
        "pass_rate_high": high,
        "n_scored": stats["n"],
        "mean_score": stats["mean"],
        "mean_score_se": stats["se"],
        "mean_score_low": stats["ci_low"],
        "mean_score_high": stats["ci_high"],
    }


# -- one variant's usage -------------------------------------------------------------------------


def _tokens(usage: Mapping[str, Any] | None) -> tuple[int, int]:
    usage = usage or {}
    return int(usage.get("prompt_tokens", 0) or 0), int(usage.get("completion_tokens", 0) or 0)


def judge_token_use(record: RunRecord) -> dict[str | None, tuple[int, int]]:
    """Judge model → (prompt, completion) tokens, summed over the invocations table."""
    table = record.table("invocations")
    per_model = table.group_by("judge_model", maintain_order=True).agg(
        pl.col("prompt_tokens").fill_null(0).sum(), pl.col("completion_tokens").fill_null(0).sum()
    )
    return {model: (int(p), int(c)) for model, p, c in per_model.iter_rows()}


def variant_cost(record: RunRecord, price_table: Mapping[str, tuple[float, float]] | None) -> float:
    """Agent and judge cost from ``price_table``; NaN without a price table or when a model
    that used tokens (the agent's is ``info["agent_model"]``) has no price."""
    if not price_table:
        return math.nan
    uses = dict(judge_token_use(record))
    agent = _tokens(record.info.get("agent_usage"))
    if sum(agent):
        uses[record.info.get("agent_model")] = agent
    total = 0.0
    for model, (prompt, completion) in uses.items():
        if prompt + completion == 0:
            continue
        cost = cost_of(model, prompt, completion, dict(price_table))
        if cost is None:
            return math.nan
        total += cost
    return total


def _latency(record: RunRecord) -> tuple[float, float]:
    """p50 / p95 of the per-case inference latency (``info["case_latency_s"]``, when held)."""
    values = np.asarray(record.info.get("case_latency_s") or [], dtype=float)
    if values.size == 0:
        return math.nan, math.nan
    p50, p95 = np.quantile(values, [0.5, 0.95])
    return float(p50), float(p95)


def _usage(record: RunRecord, price_table: Mapping[str, tuple[float, float]] | None) -> dict:
    cases = record.table("cases")
    p50, p95 = _latency(record)
    return {
        "runs": num_runs(record),
        "agent_tokens": sum(_tokens(record.info.get("agent_usage"))),
        "judge_tokens": sum(p + c for p, c in judge_token_use(record).values()),
        "cost": variant_cost(record, price_table),
        "latency_p50_s": p50,
        "latency_p95_s": p95,
        "elapsed_s": math.nan if record.elapsed_s is None else float(record.elapsed_s),
        "errors": int(cases["error"].is_not_null().sum()),
    }


# -- the frames ---------------------------------------------------------------------------------


def leaderboard_frame(
    records: Mapping[str, RunRecord],
    *,
    k: int | None = None,
    price_table: Mapping[str, tuple[float, float]] | None = None,
    level: float = 0.95,
) -> pl.DataFrame:
    """The leaderboard (:data:`LEADERBOARD_SCHEMA`): per variant its metrics in order, then
    ``"overall"``; variants sorted by the first metric's pass rate, best first (ties keep the
    given order; NaN last). ``k`` defaults to the largest run count of the records."""
    names = metric_names(records)
    k = k or max((num_runs(r) for r in records.values()), default=1)
    rows: list[dict[str, Any]] = []
    for variant, record in records.items():
        usage = _usage(record, price_table)
        summaries = summary_frame(record, level, metric_names=names).iter_rows(named=True)
        cases = [_metric_outcome(row) for row in summaries] + [_overall_outcome(record, level)]
        for metric, outcome in zip([*names, OVERALL], cases, strict=True):
            rows.append(
                {"variant": variant, "metric_name": metric}
                | outcome
                | _case_runs_outcome(case_runs(record, metric), k)
                | usage
            )
    table = pl.DataFrame(
        [[row[c] for c in LEADERBOARD_SCHEMA] for row in rows],
        schema=LEADERBOARD_SCHEMA,
        orient="row",
    )
    first = names[0] if names else OVERALL
    rank = {
        variant: position
        for position, variant in enumerate(
            table.filter(pl.col("metric_name") == first)
            .with_columns(pl.col("pass_rate").fill_nan(None))
            .sort("pass_rate", descending=True, nulls_last=True, maintain_order=True)["variant"]
        )
    }
    return (
        table.with_columns(
            pl.col("variant").replace_strict(rank, return_dtype=pl.Int64).alias("_r")
        )
        .sort("_r", maintain_order=True)
        .drop("_r")
    )


def pairwise_frame(
    records: Mapping[str, RunRecord],
    metric: str | None = None,
    *,
    alpha: float = 0.05,
    **compare_options: Any,
) -> pl.DataFrame:
    """Per metric (or only ``metric``) and each pair a before b in variant order, the row of
    ``compare_records(a, b).stats`` for the metric, with ``p_holm`` and ``significant``
    (:data:`PAIRWISE_SCHEMA`). ``compare_options`` go to :func:`~.paired.compare_records`."""
    names = metric_names(records) if metric is None else [metric]
    variants = list(records)
    stats = {
        (a, b): compare_records(
            records[a], records[b], labels=(a, b), backend="polars", **compare_options
        ).stats
        for i, a in enumerate(variants)
        for b in variants[i + 1 :]
    }
    rows: list[dict[str, Any]] = []
    for name in names:
        family = []
        for (a, b), table in stats.items():
            found = table.filter(pl.col("metric_name") == name)
            values = (
                found.row(0, named=True)
                if found.height
                else {c: None for c in STATS_SCHEMA} | {"n": 0, "n_flipped": 0}
            )
            family.append({**values, "metric_name": name, "variant_a": a, "variant_b": b})
        for row, p in zip(family, holm([_p(r["mcnemar_exact_p"]) for r in family]), strict=True):
            mde = detectable_at(_p(row["se"]), alpha)
            rows.append({**row, "mde": mde, "p_holm": p, "significant": p < alpha})
    return pl.DataFrame(
        [[row.get(c) for c in PAIRWISE_SCHEMA] for row in rows],
        schema=PAIRWISE_SCHEMA,
        orient="row",
    )


def _p(value: Any) -> float:
    return math.nan if value is None else float(value)


def matrix_frame(records: Mapping[str, RunRecord], metric: str | None = None) -> pl.DataFrame:
    """Rows: ``eval_id`` (first appearance over the variants); one column per variant: the
    case's pass rate over its runs (of the case status, or of ``metric``); null where the
    variant has no run of the case."""
    parts = []
    for variant, record in records.items():
        rows = case_runs(record, metric or OVERALL)
        parts.append(
            rows.group_by("eval_id", maintain_order=True).agg(
                pl.col("passed").cast(pl.Float64).mean().alias(variant)
            )
        )
    if not parts:
        return pl.DataFrame(schema={"eval_id": pl.String})
    ids = pl.concat([p.select("eval_id") for p in parts]).unique(maintain_order=True)
    for part in parts:
        ids = ids.join(part, on="eval_id", how="left", maintain_order="left")
    return ids


def stacked_frame(records: Mapping[str, RunRecord], kind: str) -> pl.DataFrame:
    """Frame ``kind`` of every variant, stacked, with a leading ``variant`` column."""
    if kind not in SCHEMAS:
        raise ValueError(f"unknown frame kind {kind!r}; expected one of {sorted(SCHEMAS)}")
    parts = [
        frame(record, kind, "polars").select(pl.lit(name, pl.String).alias("variant"), pl.all())
        for name, record in records.items()
    ]
    if not parts:
        return pl.DataFrame(schema={"variant": pl.String, **SCHEMAS[kind]})
    return pl.concat(parts, how="vertical")


# -- one evaluation -----------------------------------------------------------------------------


def evaluation_of(record: RunRecord) -> tuple[list[str], list[str], list[str]]:
    """What ``record`` was scored on: its eval set ids (sorted), case ids (first appearance)
    and metric names (:func:`metric_names`)."""
    cases = record.table("cases")
    set_ids = sorted({i for i in cases["eval_set_id"].to_list() if i})
    eval_ids = cases["eval_id"].unique(maintain_order=True).to_list()
    return set_ids, eval_ids, metric_names({"": record})


def evaluation_difference(
    record: RunRecord, eval_set_ids: Sequence[str], eval_ids: Sequence[str], metrics: Sequence[str]
) -> str | None:
    """How ``record`` differs from the experiment's evaluation (eval set ids, case ids,
    metric names), or None when it does not."""
    ids, cases, held = evaluation_of(record)
    if ids and ids != sorted(set(eval_set_ids)):
        return f"eval set {', '.join(ids)} (the experiment's: {', '.join(sorted(eval_set_ids))})"
    missing = [i for i in eval_ids if i not in cases]
    extra = [i for i in cases if i not in eval_ids]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks cases {', '.join(map(str, missing[:5]))}")
        if extra:
            parts.append(f"has cases not in the eval set: {', '.join(map(str, extra[:5]))}")
        return "; ".join(parts)
    if any(m not in metrics for m in held) or (held and sorted(held) != sorted(metrics)):
        return f"metrics {', '.join(held) or '(none)'} (the experiment's: {', '.join(metrics)})"
    return None
