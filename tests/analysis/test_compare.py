"""ae.compare: alignment, flips, paired statistics (McNemar, normal and bootstrap CIs)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pandas as pd
import polars as pl
import pytest
from _analysis_builders import rich_run, scored_run

from agenteval_nb.analysis.paired import STATS_SCHEMA, Comparison
from agenteval_nb.views import compare

Z = NormalDist().inv_cdf(0.975)

# 8 cases; A passes c1..c6, B fails c1..c5 and passes c6; c7, c8 fail in both
A = {f"c{i}": [1.0 if i <= 6 else 0.0] for i in range(1, 9)}
B = {f"c{i}": [1.0 if i == 6 else 0.0] for i in range(1, 9)}


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return compare(scored_run(A), scored_run(B), backend="polars")


def test_frame_columns_and_flipped_rows_first(comparison):
    frame = comparison.frame
    assert frame.columns == [
        "eval_id",
        "metric_name",
        "score_a",
        "score_b",
        "diff",
        "status_a",
        "status_b",
        "flipped",
        "n_runs_a",
        "n_runs_b",
    ]
    assert frame.height == 8
    assert frame["flipped"].to_list() == [True] * 5 + [False] * 3
    assert frame["eval_id"].to_list()[:5] == ["c1", "c2", "c3", "c4", "c5"]
    first = frame.row(0, named=True)
    assert (first["score_a"], first["score_b"], first["diff"]) == (1.0, 0.0, 1.0)
    assert (first["status_a"], first["status_b"]) == ("passed", "failed")


def test_stats_against_hand_computation(comparison):
    stats = comparison.stats
    assert stats.columns == list(STATS_SCHEMA)
    row = stats.row(0, named=True)
    d = [1.0] * 5 + [0.0] * 3
    mean = 5 / 8
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 7)
    assert (row["metric_name"], row["n"]) == ("m", 8)
    assert row["mean_diff"] == pytest.approx(mean)
    assert row["se"] == pytest.approx(sd / math.sqrt(8))
    assert row["ci_low"] == pytest.approx(mean - Z * sd / math.sqrt(8))
    assert row["ci_high"] == pytest.approx(mean + Z * sd / math.sqrt(8))
    assert (row["n_flipped"], row["n_pass_to_fail"], row["n_fail_to_pass"]) == (5, 5, 0)
    # χ² = (|5 − 0| − 1)² / 5 = 3.2; p = P(χ²₁ > 3.2); exact = 2 · 0.5^5
    assert row["mcnemar_p"] == pytest.approx(math.erfc(math.sqrt(3.2 / 2)))
    assert row["mcnemar_p"] == pytest.approx(0.07364, abs=1e-4)
    assert row["mcnemar_exact_p"] == pytest.approx(2 / 32)
    assert row["boot_ci_low"] <= mean <= row["boot_ci_high"]
    assert row["boot_ci_low"] >= 0.0 and row["boot_ci_high"] <= 1.0
    assert row["n_unpaired"] == 0


def test_bootstrap_is_seeded(comparison):
    again = compare(scored_run(A), scored_run(B), backend="polars").stats
    assert again.equals(comparison.stats)
    other = compare(scored_run(A), scored_run(B), seed=7, backend="polars").stats
    assert other["mean_diff"].to_list() == comparison.stats["mean_diff"].to_list()


def test_unpaired_and_unevaluated_rows():
    a = scored_run({"x": [1.0], "y": [None], "only_a": [1.0]})
    b = scored_run({"x": [0.0], "y": [1.0], "only_b": [0.0]})
    cmp = compare(a, b, backend="polars")
    frame = cmp.frame
    assert frame.height == 4
    by_id = {r["eval_id"]: r for r in frame.iter_rows(named=True)}
    assert by_id["x"]["flipped"] is True
    assert by_id["y"]["status_a"] == "not_evaluated" and by_id["y"]["flipped"] is False
    assert by_id["only_a"]["score_b"] is None and by_id["only_a"]["flipped"] is False
    assert by_id["only_b"]["status_a"] is None
    row = cmp.stats.row(0, named=True)
    assert row["n"] == 1 and row["n_unpaired"] == 2 and row["n_flipped"] == 1
    assert math.isnan(row["se"])  # one complete pair: no spread


def test_multi_run_sides_are_reduced_per_case():
    a = scored_run({"x": [1.0, 0.0], "y": [1.0, 1.0]})
    b = scored_run({"x": [0.0, 0.0], "y": [1.0, 0.0]})
    frame = compare(a, b, backend="polars").frame
    x = frame.filter(pl.col("eval_id") == "x").row(0, named=True)
    # A: mean 0.5 ≥ 0.5 passes; B: mean 0 fails
    assert (x["score_a"], x["status_a"], x["n_runs_a"]) == (0.5, "passed", 2)
    assert (x["score_b"], x["status_b"], x["flipped"]) == (0.0, "failed", True)


def test_by_invocation_aligns_turns():
    run_a, run_b = rich_run(), rich_run()
    cmp = compare(run_a, run_b, by="invocation", backend="polars")
    assert cmp.frame.columns[:3] == ["eval_id", "invocation_index", "metric_name"]
    assert cmp.frame.height == 5 * 3  # 5 turns (2 runs averaged) × 3 metrics
    assert cmp.frame["flipped"].sum() == 0
    assert set(cmp.stats["mean_diff"].to_list()) == {0.0}
    with pytest.raises(ValueError, match="by must be"):
        compare(run_a, run_b, by="turn")  # type: ignore[arg-type]


def test_pandas_backend_repr_and_html(comparison):
    cmp = scored_run(A).compare(scored_run(B), labels=("base", "new<b>"))
    assert isinstance(cmp.frame, pd.DataFrame) and isinstance(cmp.stats, pd.DataFrame)
    assert "5 flipped" in repr(cmp)
    page = cmp._repr_html_()
    assert "new&lt;b&gt;" in page and "<b>" in page
    assert "0.625" in page
