"""What judge calls cost (JUDGES.md §7): ``run.cost_df()`` after a run, and the frame of
``ae.estimate_cost`` before one.

``run.cost_df()`` — per judge (a panel member's name, else the model) and judge model, over the
run's judge calls (the ``samples`` table: scored samples and extra calls):

* ``calls`` every call; ``cache_hits`` the calls answered from the judge cache; ``requests``
  the others, sent to the endpoint;
* ``prompt_tokens`` / ``completion_tokens`` / ``cost_usd``: sums over the requests only — a
  cache hit costs nothing this time;
* ``saved_usd``: what the cache hits would have cost (their recorded tokens at the same
  prices) plus the batch discount of batched requests (a batched request paid ``p`` would
  have cost ``p / BATCH_DISCOUNT`` sent one by one);
* ``batch_calls``: requests answered through a provider batch (``ae.evaluate(batch=True)``);
* prices: each call's recorded ``cost_usd`` (the price table of the run), or, with
  ``prices={model: (input $/1M, output $/1M)}``, the tokens priced again; a dollar sum over
  calls of a model without a price is null, never 0 (a sum over no calls is 0).

:func:`estimate_frame` — per candidate judge × judge model × metric, over the calls of a dry
run (a run whose judge sent nothing and put its estimates in each call's usage:
``prompt_tokens`` the estimated input, ``completion_tokens`` the output bound): ``calls``,
``cache_hits`` (free), then over the other calls ``input_tokens``, ``output_tokens_max``,
``usd_in`` (input only: the least they cost) and ``usd_max`` (with every output at its bound:
the most), ``from_expected`` (calls on turns whose agent answer was stood in for by the
expected one) and ``errors`` (case results of the dry run that failed: their later calls are
not counted).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..judge.usage import BATCH_DISCOUNT, PriceTable, checked_prices, cost_of
from .frames import to_backend
from .record import HoldsRecord, RunRecord, record_of

__all__ = ["COST_SCHEMA", "ESTIMATE_SCHEMA", "cost_frame", "estimate_frame"]

COST_SCHEMA = {
    "judge": pl.String,
    "judge_model": pl.String,
    "calls": pl.Int64,
    "requests": pl.Int64,
    "cache_hits": pl.Int64,
    "batch_calls": pl.Int64,
    "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64,
    "cost_usd": pl.Float64,
    "saved_usd": pl.Float64,
}


def _priced(samples: pl.DataFrame, prices: PriceTable | None) -> pl.DataFrame:
    """The calls with ``cost_usd`` as recorded, or priced again from their tokens."""
    if prices is None:
        return samples
    table = checked_prices(prices)
    rows = samples.select("judge_model", "prompt_tokens", "completion_tokens", "batch").rows()
    cost = [cost_of(m, p or 0, c or 0, table, batch=bool(b)) for m, p, c, b in rows]
    return samples.with_columns(pl.Series("cost_usd", cost, dtype=pl.Float64))


def _sum_or_null(column: pl.Expr) -> pl.Expr:
    """The sum of a dollar column; null when any value is (an unpriced model)."""
    return pl.when(column.is_null().any()).then(None).otherwise(column.sum())


def cost_frame(
    run: RunRecord | HoldsRecord, prices: PriceTable | None = None, backend: str | None = None
) -> Any:
    """One row per judge model (module rules), sorted by model name."""
    samples = _priced(record_of(run).table("samples"), prices)
    if samples.height == 0:
        return to_backend(pl.DataFrame(schema=COST_SCHEMA), backend)
    hit = pl.col("cache_hit").fill_null(False)
    live = ~hit
    batched = live & pl.col("batch").fill_null(False)
    discount_saved = pl.col("cost_usd").filter(batched) * (1 / BATCH_DISCOUNT - 1)
    table = (
        samples.group_by("judge", "judge_model")
        .agg(
            pl.len().cast(pl.Int64).alias("calls"),
            live.sum().cast(pl.Int64).alias("requests"),
            hit.sum().cast(pl.Int64).alias("cache_hits"),
            batched.sum().cast(pl.Int64).alias("batch_calls"),
            pl.col("prompt_tokens").filter(live).sum().cast(pl.Int64),
            pl.col("completion_tokens").filter(live).sum().cast(pl.Int64),
            _sum_or_null(pl.col("cost_usd").filter(live)).cast(pl.Float64).alias("cost_usd"),
            (
                _sum_or_null(pl.col("cost_usd").filter(hit)).fill_null(0.0)
                + _sum_or_null(discount_saved).fill_null(0.0)
            )
            .cast(pl.Float64)
            .alias("saved_usd"),
        )
        .sort("judge", "judge_model", nulls_last=True)
        .select(list(COST_SCHEMA))
    )
    return to_backend(table, backend)


ESTIMATE_SCHEMA = {
    "judge": pl.String,
    "judge_model": pl.String,
    "metric_name": pl.String,
    "calls": pl.Int64,
    "cache_hits": pl.Int64,
    "input_tokens": pl.Int64,
    "output_tokens_max": pl.Int64,
    "usd_in": pl.Float64,
    "usd_max": pl.Float64,
    "from_expected": pl.Int64,
    "errors": pl.Int64,
}


def estimate_frame(
    dry_runs: dict[str, RunRecord], prices: PriceTable | None, from_expected: set[str]
) -> pl.DataFrame:
    """The estimate (module rules) of each candidate's dry run; ``from_expected``: the eval
    ids whose turns stood in the expected answers for the agent's."""
    table = checked_prices(prices)
    frames = []
    for name, record in dry_runs.items():
        samples = record.table("samples")
        errors = record.table("cases").filter(pl.col("error").is_not_null()).height
        if samples.height == 0:
            continue
        rows = samples.select("judge_model", "prompt_tokens").rows()
        usd_in = [cost_of(model, tokens or 0, 0, table) for model, tokens in rows]
        hit = pl.col("cache_hit").fill_null(False)
        frames.append(
            samples.with_columns(pl.Series("usd_in", usd_in, dtype=pl.Float64))
            .group_by("judge_model", "metric_name", maintain_order=True)
            .agg(
                pl.len().cast(pl.Int64).alias("calls"),
                hit.sum().cast(pl.Int64).alias("cache_hits"),
                pl.col("prompt_tokens").filter(~hit).sum().cast(pl.Int64).alias("input_tokens"),
                pl.col("completion_tokens")
                .filter(~hit)
                .sum()
                .cast(pl.Int64)
                .alias("output_tokens_max"),
                _sum_or_null(pl.col("usd_in").filter(~hit)).cast(pl.Float64).alias("usd_in"),
                _sum_or_null(pl.col("cost_usd").filter(~hit)).cast(pl.Float64).alias("usd_max"),
                pl.col("eval_id")
                .is_in(list(from_expected))
                .sum()
                .cast(pl.Int64)
                .alias("from_expected"),
            )
            .with_columns(pl.lit(name).alias("judge"), pl.lit(errors, pl.Int64).alias("errors"))
            .select(list(ESTIMATE_SCHEMA))
        )
    return pl.concat(frames) if frames else pl.DataFrame(schema=ESTIMATE_SCHEMA)
