"""The experiment's numbers (leaderboard, pairwise with Holm, matrix, stacked frames) against
hand computations on small hand-made runs."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest
from _analysis_builders import case_result, metric_result, result_of

from agenteval_nb.analysis.experiment import (
    LEADERBOARD_SCHEMA,
    PAIRWISE_SCHEMA,
    evaluation_difference,
    holm,
    leaderboard_frame,
    matrix_frame,
    pairwise_frame,
    pareto_front,
    stacked_frame,
)
from agenteval_nb.analysis.headline import case_pass_rate, metric_pass_rates
from agenteval_nb.analysis.paired import compare_records
from agenteval_nb.analysis.stats import summary_frame
from agenteval_nb.evalrun import EvalRun

Z = 1.959963984540054


def scored(scores: dict[str, list[float]], metric: str = "m1") -> EvalRun:
    """One metric (threshold 0.5); the case score is the metric score."""
    cases = [
        case_result(eid, r + 1, [], [metric_result(metric, s)], score=s)
        for eid, per_run in scores.items()
        for r, s in enumerate(per_run)
    ]
    return EvalRun(result=result_of(cases, max(len(v) for v in scores.values())))


def errored(ids: list[str], runs: int) -> EvalRun:
    """Every case-run failed with an error and no metric result."""
    cases = [
        case_result(eid, r + 1, [], [], final_status="failed", error="agent: boom")
        for eid in ids
        for r in range(runs)
    ]
    return EvalRun(result=result_of(cases, runs))


A = {"c1": [1.0, 1.0], "c2": [1.0, 0.0], "c3": [0.0, 0.0], "c4": [0.8, 0.6]}
IDS = list(A)


def wilson(x: int, n: int) -> tuple[float, float]:
    p = x / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# -- Holm and Pareto --------------------------------------------------------------------------


def test_holm_steps_down_with_ties_and_keeps_input_order():
    # sorted: .01 (×4 = .04), .03 (×3 = .09), .04 (×2 = .08 → .09), .04 (×1 → .09)
    assert holm([0.01, 0.04, 0.04, 0.03]) == pytest.approx([0.04, 0.09, 0.09, 0.09])


def test_holm_counts_a_pair_without_discordant_cases_as_p_one():
    assert holm([math.nan, 0.01]) == pytest.approx([1.0, 0.02])
    assert holm([]) == []


def test_pareto_front_keeps_points_nobody_dominates():
    # (score, cost): b dominates d (same score, cheaper); c costs more but scores more
    scores = [0.5, 0.7, 0.9, 0.7, math.nan]
    costs = [1.0, 2.0, 5.0, 3.0, 0.1]
    assert pareto_front(scores, costs) == [True, True, True, False, False]


# -- the leaderboard ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board() -> pl.DataFrame:
    a = scored(A)
    a.info.update(agent_model="mini", agent_usage={"prompt_tokens": 1000, "completion_tokens": 500})
    b = errored(IDS, 2)
    b.info.update(agent_model="unpriced", agent_usage={"prompt_tokens": 10})
    c = scored({eid: [1.0, 1.0] for eid in IDS})
    records = {"A": a.record, "B": b.record, "C": c.record}
    return leaderboard_frame(records, price_table={"mini": (1.0, 2.0)})


def row(board: pl.DataFrame, variant: str, metric: str) -> dict:
    found = board.filter((pl.col("variant") == variant) & (pl.col("metric_name") == metric))
    assert found.height == 1
    return found.row(0, named=True)


def test_leaderboard_columns_rows_and_order(board):
    assert board.columns == list(LEADERBOARD_SCHEMA)
    # sorted by the first metric's pass rate: C (1.0), A (5/8), B (0); metrics then overall
    assert list(zip(board["variant"], board["metric_name"], strict=True)) == [
        ("C", "m1"),
        ("C", "overall"),
        ("A", "m1"),
        ("A", "overall"),
        ("B", "m1"),
        ("B", "overall"),
    ]


@pytest.mark.parametrize("metric", ["m1", "overall"])
def test_leaderboard_numbers_of_a_scored_variant(board, metric):
    r = row(board, "A", metric)
    # per case, runs averaged (threshold .5): 1 | .5 | 0 | .7 — c1, c2, c4 pass
    assert (r["cases"], r["runs"], r["n_passed"]) == (4, 2, 3)
    assert r["pass_rate"] == pytest.approx(3 / 4)
    assert (r["pass_rate_low"], r["pass_rate_high"]) == pytest.approx(wilson(3, 4))
    # counted in case-runs, explicitly named: 5 of 8 case-runs passed
    assert (r["case_runs"], r["pass_rate_case_runs"]) == (8, pytest.approx(5 / 8))
    # the case means 1, .5, 0, .7: mean .55, SE over the cases
    means = [1.0, 0.5, 0.0, 0.7]
    se = math.sqrt(sum((m - 0.55) ** 2 for m in means) / (4 * 3))
    assert r["n_scored"] == 4
    assert r["mean_score"] == pytest.approx(0.55)
    assert r["mean_score_se"] == pytest.approx(se)
    assert (r["mean_score_low"], r["mean_score_high"]) == pytest.approx(
        (0.55 - Z * se, min(1.0, 0.55 + Z * se))
    )
    # per case (n, c) = (2,2), (2,1), (2,0), (2,2)
    assert r["k"] == 2
    assert r["pass_at_1"] == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert r["pass_hat_1"] == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert r["pass_at_k"] == pytest.approx((1 + 1 + 0 + 1) / 4)  # 1 − C(1,2)/C(2,2) = 1
    assert r["pass_hat_k"] == pytest.approx((1 + 0 + 0 + 1) / 4)  # C(c,2)/C(2,2)
    assert r["agent_tokens"] == 1500
    assert r["judge_tokens"] == 0
    assert r["cost"] == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)
    assert r["errors"] == 0


@pytest.mark.parametrize("metric", ["m1", "overall"])
def test_a_variant_whose_every_case_errors_passes_nothing(board, metric):
    r = row(board, "B", metric)
    assert (r["cases"], r["case_runs"], r["n_passed"], r["errors"]) == (4, 8, 0, 8)
    assert r["pass_rate"] == 0.0 and r["pass_rate_case_runs"] == 0.0
    assert r["pass_rate_low"] == 0.0
    assert r["pass_rate_high"] == pytest.approx(wilson(0, 4)[1])  # over 4 cases, not 8 runs
    if metric == "overall":  # a failed case without a score reads as 0 (cases_df)
        assert (r["n_scored"], r["mean_score"], r["mean_score_se"]) == (4, 0.0, 0.0)
    else:  # no metric result: nothing scored
        assert r["n_scored"] == 0
        assert math.isnan(r["mean_score"]) and math.isnan(r["mean_score_low"])
    assert (r["pass_at_1"], r["pass_at_k"], r["pass_hat_k"]) == (0.0, 0.0, 0.0)
    assert math.isnan(r["cost"])  # its agent model has no price


@pytest.mark.parametrize("variant", ["A", "B", "C"])
def test_the_leaderboard_shows_the_run_reports_numbers(board, variant):
    """One unit: a variant's row holds what its own run report, CLI and repr show."""
    run = {"A": scored(A), "B": errored(IDS, 2), "C": scored({eid: [1.0, 1.0] for eid in IDS})}
    record = run[variant].record
    overall = row(board, variant, "overall")
    assert (overall["n_passed"], overall["cases"]) == case_pass_rate(record)
    for name, (passed, total) in metric_pass_rates(record).items():
        r = row(board, variant, name)
        assert (r["n_passed"], r["cases"]) == (passed, total)
    summary = {r["metric_name"]: r for r in summary_frame(record).iter_rows(named=True)}
    for name, s in summary.items():
        r = row(board, variant, name)
        assert (r["mean_score"], r["mean_score_low"], r["mean_score_high"]) == pytest.approx(
            (s["mean"], s["ci_low"], s["ci_high"])
        )


def test_a_mean_score_interval_never_leaves_the_score_range():
    # mostly perfect scores: the normal interval's upper end is past 1
    variant = scored({f"c{i}": [1.0, 1.0 if i else 0.4] for i in range(6)})
    board = leaderboard_frame({"v": variant.record})
    assert board["mean_score"].max() > 0.9
    assert ((board["mean_score_low"] >= 0.0) & (board["mean_score_high"] <= 1.0)).all()


def test_a_variant_without_tokens_costs_nothing_and_without_a_table_nan(board):
    assert row(board, "C", "m1")["cost"] == 0.0
    unpriced = leaderboard_frame({"C": scored(A).record})
    assert unpriced["cost"].is_nan().all()
    assert unpriced["latency_p50_s"].is_nan().all()


# -- pairwise -----------------------------------------------------------------------------------

ONE_RUN = [f"c{i}" for i in range(1, 11)]


@pytest.fixture(scope="module")
def pairs() -> tuple[dict, pl.DataFrame]:
    p = scored({eid: [1.0] for eid in ONE_RUN})
    q = scored({eid: [1.0 if eid in ("c1", "c2") else 0.0] for eid in ONE_RUN})
    r = scored({eid: [1.0] for eid in ONE_RUN})
    e = errored(ONE_RUN, 1)
    records = {"P": p.record, "Q": q.record, "R": r.record, "E": e.record}
    return records, pairwise_frame(records)


def test_pairwise_rows_are_the_pairs_in_variant_order(pairs):
    _, table = pairs
    assert table.columns == list(PAIRWISE_SCHEMA)
    assert list(zip(table["variant_a"], table["variant_b"], strict=True)) == [
        ("P", "Q"),
        ("P", "R"),
        ("P", "E"),
        ("Q", "R"),
        ("Q", "E"),
        ("R", "E"),
    ]
    assert set(table["metric_name"]) == {"m1"}


def test_pairwise_statistics_are_those_of_compare(pairs):
    records, table = pairs
    for r in table.iter_rows(named=True):
        stats = compare_records(
            records[r["variant_a"]], records[r["variant_b"]], backend="polars"
        ).stats
        expected = stats.filter(pl.col("metric_name") == "m1").row(0, named=True)
        for name, value in expected.items():
            got = r[name]
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(got), name
            else:
                assert got == value, name


def test_holm_over_the_pairs_of_a_metric(pairs):
    _, table = pairs
    # P–Q and Q–R: 8 discordant pairs all one way, exact p = 2/2^8; the other four pairs have
    # no discordant case (against E nothing is paired): p = 1. Six p-values, two tied smallest:
    # 6·p and 5·p → 6·p for both; the rest 1.
    p = 2 / 2**8
    expected = {("P", "Q"): 6 * p, ("Q", "R"): 6 * p}
    for r in table.iter_rows(named=True):
        key = (r["variant_a"], r["variant_b"])
        assert r["p_holm"] == pytest.approx(expected.get(key, 1.0)), key
        assert r["significant"] is (key in expected), key
    assert table.filter(pl.col("variant_a") == "P", pl.col("variant_b") == "Q")["mcnemar_exact_p"][
        0
    ] == pytest.approx(p)


def test_pairwise_of_one_metric_and_of_an_unknown_one(pairs):
    records, _ = pairs
    assert pairwise_frame(records, "m1").height == 6
    nothing = pairwise_frame(records, "nope")
    assert nothing["n"].to_list() == [0] * 6
    assert nothing["p_holm"].to_list() == [1.0] * 6


# -- matrix and stacked frames ------------------------------------------------------------------


def test_matrix_holds_each_case_pass_rate_per_variant():
    records = {"A": scored(A).record, "B": errored(IDS, 2).record}
    matrix = matrix_frame(records)
    assert matrix.columns == ["eval_id", "A", "B"]
    assert matrix.rows() == [
        ("c1", 1.0, 0.0),
        ("c2", 0.5, 0.0),
        ("c3", 0.0, 0.0),
        ("c4", 1.0, 0.0),
    ]
    assert matrix_frame(records, "m1").rows() == matrix.rows()


def test_stacked_frames_lead_with_the_variant():
    records = {"A": scored(A).record, "B": errored(IDS, 2).record}
    cases = stacked_frame(records, "cases")
    assert cases.columns[0] == "variant"
    assert cases.group_by("variant", maintain_order=True).len().rows() == [("A", 8), ("B", 8)]
    with pytest.raises(ValueError, match="unknown frame kind"):
        stacked_frame(records, "nope")


def test_evaluation_difference_names_what_differs():
    record = scored(A).record
    assert evaluation_difference(record, ["set"], IDS, ["m1"]) is None
    assert "eval set set" in evaluation_difference(record, ["other"], IDS, ["m1"])
    assert "lacks cases c5" in evaluation_difference(record, ["set"], [*IDS, "c5"], ["m1"])
    assert "metrics m1" in evaluation_difference(record, ["set"], IDS, ["m2"])


def test_latency_quantiles_of_the_recorded_inference_times():
    run = scored(A)
    run.info["case_latency_s"] = [4.0, 1.0, 3.0, 2.0]
    r = leaderboard_frame({"A": run.record}).row(0, named=True)
    # linear interpolation: p50 between 2 and 3, p95 at 0.95·3 = 2.85 → 3 + .85·(4 − 3)
    assert (r["latency_p50_s"], r["latency_p95_s"]) == pytest.approx((2.5, 3.85))


def test_every_leaderboard_column_is_documented():
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "experiments.md").read_text(encoding="utf-8")
    table = page.split("## `leaderboard_df` columns")[1].split("\n\n")[1]
    documented = {cell for cell in re.findall(r"`([a-z_0-9]+)`", table)}
    assert set(LEADERBOARD_SCHEMA) <= documented
