"""run.pass_at_k_df and run.summary_df against hand computation."""

from __future__ import annotations

import math
from statistics import NormalDist

import pandas as pd
import polars as pl
import pytest
from _analysis_builders import scored_run, status_run

Z = NormalDist().inv_cdf(0.975)


def _sd(values):
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def _wilson(s, n, z=Z):
    p = s / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# -- pass@k ---------------------------------------------------------------------------------------

# a: 3/3 runs passed, b: 2/3, c: 2/3, d: only in run 1 (passed)
# eval-set runs: run 1 all passed; run 2 (c failed) and run 3 (b failed) failed ⇒ n = 3, c = 1
STATUSES = {
    "a": ["passed", "passed", "passed"],
    "b": ["passed", "passed", "failed"],
    "c": ["passed", "failed", "passed"],
    "d": ["passed"],
}


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return status_run(STATUSES, num_runs=3).pass_at_k_df(backend="polars")


def _value(table, level, k, column, eval_id=None):
    rows = table.filter(
        (pl.col("level") == level) & (pl.col("k") == k) & pl.col("eval_id").eq_missing(eval_id)
    )
    assert rows.height == 1
    return rows[column][0]


def test_default_ks_and_row_layout(table):
    assert table["k"].unique().sort().to_list() == [1, 2, 3]
    assert table.filter(pl.col("k") == 1)["level"].to_list() == ["case"] * 4 + [
        "overall",
        "eval_set",
    ]


def test_per_case_counts_and_estimates(table):
    assert _value(table, "case", 1, "n", "b") == 3 and _value(table, "case", 1, "c", "b") == 2
    assert _value(table, "case", 1, "pass_at_k", "b") == pytest.approx(2 / 3)
    # 1 − C(1,2)/C(3,2): n − c < k ⇒ 1
    assert _value(table, "case", 2, "pass_at_k", "b") == 1.0
    # unbiased pass^2 = C(2,2)/C(3,2) = 1/3; plug-in (2/3)^2
    assert _value(table, "case", 2, "pass_hat_k_unbiased", "b") == pytest.approx(1 / 3)
    assert _value(table, "case", 2, "pass_hat_k_plugin", "b") == pytest.approx(4 / 9)


def test_fewer_runs_than_k_is_nan(table):
    assert _value(table, "case", 1, "pass_at_k", "d") == 1.0
    for k in (2, 3):
        assert math.isnan(_value(table, "case", k, "pass_at_k", "d"))
        assert math.isnan(_value(table, "case", k, "pass_hat_k_unbiased", "d"))


def test_overall_is_the_mean_over_cases_with_se(table):
    k1 = [1.0, 2 / 3, 2 / 3, 1.0]
    assert _value(table, "overall", 1, "pass_at_k") == pytest.approx(sum(k1) / 4)
    assert _value(table, "overall", 1, "pass_at_k_se") == pytest.approx(_sd(k1) / 2)
    assert _value(table, "overall", 1, "n_cases") == 4
    # k = 2: d has too few runs and is left out
    hat2 = [1.0, 1 / 3, 1 / 3]
    assert _value(table, "overall", 2, "n_cases") == 3
    assert _value(table, "overall", 2, "pass_hat_k_unbiased") == pytest.approx(5 / 9)
    assert _value(table, "overall", 2, "pass_hat_k_unbiased_se") == pytest.approx(
        _sd(hat2) / math.sqrt(3)
    )


def test_eval_set_reference_row(table):
    assert _value(table, "eval_set", 1, "n") == 3 and _value(table, "eval_set", 1, "c") == 1
    assert _value(table, "eval_set", 1, "pass_at_k") == pytest.approx(1 / 3)
    assert _value(table, "eval_set", 2, "pass_at_k") == pytest.approx(2 / 3)
    assert _value(table, "eval_set", 3, "pass_at_k") == 1.0
    assert _value(table, "eval_set", 2, "pass_hat_k_plugin") == pytest.approx(1 / 9)


def test_k_beyond_the_runs():
    out = status_run(STATUSES, num_runs=3).pass_at_k_df(ks=[4], backend="polars")
    assert out.filter(pl.col("level") == "case")["pass_at_k"].is_nan().all()
    reference = out.filter(pl.col("level") == "eval_set")
    assert math.isnan(reference["pass_at_k"][0])  # reference raises "k cannot exceed n"
    assert reference["pass_hat_k_plugin"][0] == pytest.approx((1 / 3) ** 4)  # allowed there


def test_pass_at_k_df_pandas_backend():
    out = status_run(STATUSES, num_runs=3).pass_at_k_df(ks=(1,), backend="pandas")
    assert isinstance(out, pd.DataFrame)
    assert list(out["level"]) == ["case"] * 4 + ["overall", "eval_set"]


# -- summary_df -----------------------------------------------------------------------------------


def test_single_run_summary_matches_hand_computation():
    run = scored_run({"c1": [1.0], "c2": [0.5], "c3": [0.0], "c4": [1.0]}, threshold=0.5)
    row = run.summary_df(backend="polars").row(0, named=True)
    scores = [1.0, 0.5, 0.0, 1.0]
    mean = sum(scores) / 4
    se = math.sqrt(sum((s - mean) ** 2 for s in scores) / (4 * 3))
    assert (row["metric_name"], row["n"], row["n_runs"]) == ("m", 4, 4)
    assert row["mean"] == pytest.approx(0.625)
    assert row["se"] == pytest.approx(se) and row["se_iid"] == pytest.approx(se)
    assert row["se_kind"] == "iid"
    assert row["ci_low"] == pytest.approx(mean - Z * se)
    assert mean + Z * se > 1.0 and row["ci_high"] == 1.0  # clipped to the score's scale
    assert (row["n_passed"], row["pass_rate"]) == (3, 0.75)
    low, high = _wilson(3, 4)
    assert row["pass_rate_ci_low"] == pytest.approx(low)
    assert row["pass_rate_ci_high"] == pytest.approx(high)
    assert row["threshold"] == 0.5


def test_multi_run_averages_each_case_first():
    # c1: runs 1.0, 0.0 → 0.5 (passes: mean ≥ 0.5); c2: 0, 0 → fails; c3: run 2 not evaluated
    run = scored_run({"c1": [1.0, 0.0], "c2": [0.0, 0.0], "c3": [1.0, None]}, threshold=0.5)
    row = run.summary_df(backend="polars").row(0, named=True)
    assert (row["n"], row["n_runs"]) == (3, 5)
    assert row["mean"] == pytest.approx(0.5)
    assert row["se"] == pytest.approx(_sd([0.5, 0.0, 1.0]) / math.sqrt(3))
    assert (row["n_passed"], row["pass_rate"]) == (2, pytest.approx(2 / 3))


def test_clustered_se_from_a_mapping_and_from_a_column():
    run = scored_run({"c1": [1.0, 0.0], "c2": [0.0, 0.0], "c3": [1.0, None]}, threshold=0.5)
    # case means [0.5, 0, 1], mean 0.5; cluster sums x: 0 + (−0.5), y: 0.5
    # SE = sqrt(C/(C−1) · Σ S_c²) / n = sqrt(2 · 0.5) / 3
    row = run.summary_df(cluster={"c1": "x", "c2": "x", "c3": "y"}, backend="polars").row(
        0, named=True
    )
    assert row["se_kind"] == "clustered" and row["n_clusters"] == 2
    assert row["se"] == pytest.approx(1 / 3)
    assert row["se_iid"] == pytest.approx(_sd([0.5, 0.0, 1.0]) / math.sqrt(3))
    # 0.5 ± z/3 runs past both ends of [0, 1]: clipped
    assert (row["ci_low"], row["ci_high"]) == (0.0, 1.0)
    # the builders give c3 user "user-2", the others "user-1": the same clusters
    by_column = run.summary_df(cluster="user_id", backend="polars").row(0, named=True)
    assert by_column["se"] == pytest.approx(1 / 3)


def test_cluster_errors():
    run = scored_run({"c1": [1.0], "c2": [0.0]})
    with pytest.raises(ValueError, match="not a column"):
        run.summary_df(cluster="topic")
    with pytest.raises(ValueError, match="no cluster"):
        run.summary_df(cluster={"c1": "x"})


def test_summary_df_per_metric_and_empty():
    from _analysis_builders import rich_run

    from agenteval_nb.evalrun import EvalRun
    from agenteval_nb.schema import EvalSetResult

    summary = rich_run().summary_df(backend="polars")
    assert summary["metric_name"].to_list() == ["exact", "judge", "verifier"]
    assert summary["n"].to_list() == [3, 3, 3] and summary["n_runs"].to_list() == [6, 6, 6]
    empty = EvalRun(result=EvalSetResult()).summary_df(backend="pandas")
    assert len(empty) == 0 and "pass_rate_ci_low" in empty.columns


# -- intervals stay in the score's range (docs/statistics.md) ---------------------------------


@pytest.mark.parametrize(
    "scores",
    [[1.0, 1.0, 1.0, 0.9], [0.0, 0.0, 0.05], [1.0, 0.0], [1.0, 1.0, 0.0, 1.0, 1.0]],
)
def test_summary_interval_of_a_mean_score_never_leaves_zero_one(scores):
    run = scored_run({f"c{i}": [s] for i, s in enumerate(scores)}, threshold=0.5)
    row = run.summary_df(backend="polars").row(0, named=True)
    assert 0.0 <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= 1.0


def test_bounded_ci_clips_the_normal_interval_and_keeps_it_inside():
    from agenteval_nb.analysis.stats import Interval, bounded_ci, normal_ci, score_range

    assert bounded_ci(0.95, 0.1, Interval(0.0, 1.0)) == (pytest.approx(0.95 - Z * 0.1), 1.0)
    assert bounded_ci(0.5, 0.1, Interval(0.0, 1.0)) == normal_ci(0.5, 0.1)  # nothing to clip
    assert all(math.isnan(v) for v in bounded_ci(math.nan, 0.1, Interval(0.0, 1.0)))
    # the scale [0, 1] widened to a custom evaluator's scores, never narrowed to the observed
    assert score_range([0.2, 0.4]) == (0.0, 1.0)
    assert score_range([2.0, 4.5], [-1.0, math.nan]) == (-1.0, 4.5)


def test_paired_difference_interval_stays_within_the_possible_differences():
    from agenteval_nb.analysis.stats import paired_difference

    out = paired_difference([1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0])
    assert out["mean_diff"] == pytest.approx(0.8)
    assert out["mean_diff"] + Z * out["se"] > 1.0 and out["ci_high"] == 1.0
    assert out["ci_low"] == pytest.approx(0.8 - Z * out["se"])


# -- the case verdict of a metric: errors do not vanish (SPEC §8.6) ---------------------------


def test_a_case_that_errored_counts_as_not_passed_for_the_metric():
    from _analysis_builders import case_result, metric_result, result_of

    from agenteval_nb.evalrun import EvalRun

    cases = [
        case_result("c1", 1, [], [metric_result("m", 1.0)]),
        case_result("c2", 1, [], [metric_result("m", 0.0)]),
        case_result("c3", 1, [], [], final_status="failed", error="agent: boom"),
        case_result("c4", 1, [], [metric_result("m", None, eval_status="not_evaluated")]),
    ]
    run = EvalRun(result=result_of(cases))
    row = run.summary_df(backend="polars").row(0, named=True)
    # c3 errored: in the denominator, not passed, no score; c4 not evaluated: left out
    assert (row["n_passed"], row["n_cases"], row["n"]) == (1, 3, 2)
    assert row["pass_rate"] == pytest.approx(1 / 3)
    assert run.metric_pass_rates() == {"m": (1, 3)}


def test_a_run_whose_every_case_errored_shows_its_metrics_at_zero():
    from _analysis_builders import case_result, result_of

    from agenteval_nb.analysis.stats import summary_frame
    from agenteval_nb.evalrun import EvalRun

    cases = [case_result(f"c{i}", 1, [], [], final_status="failed", error="x") for i in (1, 2)]
    run = EvalRun(result=result_of(cases))
    named = summary_frame(run.record, metric_names=["m"]).row(0, named=True)
    assert (named["metric_name"], named["n_passed"], named["n_cases"]) == ("m", 0, 2)
    assert named["pass_rate"] == 0.0 and math.isnan(named["mean"])
