"""One row per case-run of a record: did it pass, and its score — the unit every experiment
statistic and every plan starts from."""

from __future__ import annotations

import polars as pl

from .record import RunRecord

OVERALL = "overall"
"""The ``metric_name`` of a variant's row read from the case status."""

_EVALUATED = ("passed", "failed")


def case_runs(record: RunRecord, metric: str) -> pl.DataFrame:
    """One row per case-run: ``eval_id``, ``run_id``, ``passed`` and ``score`` (null unless
    evaluated) — of the case status for :data:`OVERALL`, else of ``metric``."""
    cases = record.table("cases").select(
        pl.col("eval_id").fill_null(""), pl.col("run_id").fill_null(1), "status", "score"
    )
    if metric != OVERALL:
        rows = (
            record.table("metrics")
            .filter(pl.col("metric_name") == metric)
            .select(
                pl.col("eval_id").fill_null(""), pl.col("run_id").fill_null(1), "status", "score"
            )
            .unique(["eval_id", "run_id"], keep="first", maintain_order=True)
        )
        cases = cases.select("eval_id", "run_id").join(
            rows, on=["eval_id", "run_id"], how="left", maintain_order="left"
        )
    evaluated = pl.col("status").is_in(_EVALUATED) & pl.col("score").is_not_nan()
    return cases.select(
        "eval_id",
        "run_id",
        (pl.col("status") == "passed").fill_null(False).alias("passed"),
        pl.when(evaluated).then(pl.col("score")).otherwise(None).alias("score"),
    )
