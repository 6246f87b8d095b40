"""``run.cost_df()``: what the judge calls of a run cost, per judge model (JUDGES.md §7).

Rules, over the run's judge calls (the ``samples`` table: scored samples and extra calls):

* ``calls`` every call; ``cache_hits`` the calls answered from the judge cache; ``requests``
  the others, sent to the endpoint;
* ``prompt_tokens`` / ``completion_tokens`` / ``cost_usd``: sums over the requests only — a
  cache hit costs nothing this time;
* ``saved_usd``: what the cache hits would have cost (their recorded tokens at the same
  prices) plus the batch discount of batched requests;
* ``batch_calls``: requests sent through a provider batch (0 until batch scoring records its
  calls);
* prices: each call's recorded ``cost_usd`` (the price table of the run), or, with
  ``prices={model: (input $/1M, output $/1M)}``, the tokens priced again; a model without a
  price has null dollar columns, never 0.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..judge.usage import PriceTable, checked_prices, cost_of
from .frames import to_backend
from .record import HoldsRecord, RunRecord, record_of

__all__ = ["COST_SCHEMA", "cost_frame"]

COST_SCHEMA = {
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
    rows = samples.select("judge_model", "prompt_tokens", "completion_tokens").rows()
    cost = [cost_of(m, p or 0, c or 0, table) for m, p, c in rows]
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
    table = (
        samples.group_by("judge_model")
        .agg(
            pl.len().cast(pl.Int64).alias("calls"),
            live.sum().cast(pl.Int64).alias("requests"),
            hit.sum().cast(pl.Int64).alias("cache_hits"),
            pl.lit(0, pl.Int64).alias("batch_calls"),
            pl.col("prompt_tokens").filter(live).sum().cast(pl.Int64),
            pl.col("completion_tokens").filter(live).sum().cast(pl.Int64),
            _sum_or_null(pl.col("cost_usd").filter(live)).cast(pl.Float64).alias("cost_usd"),
            _sum_or_null(pl.col("cost_usd").filter(hit)).cast(pl.Float64).alias("saved_usd"),
        )
        .sort("judge_model", nulls_last=True)
        .select(list(COST_SCHEMA))
    )
    return to_backend(table, backend)
