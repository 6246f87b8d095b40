"""Planning a paired comparison (analysis/power.py): the normal-approximation formulas against
10k-replicate simulations of three designs, and the variance components read from runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import agenteval_nb as ae
from agenteval_nb.analysis.power import (
    cases_for,
    detectable_at,
    minimum_detectable_effect,
    paired_power,
    variance_of,
)
from agenteval_nb.analysis.record import record_of

REPLICATES = 10_000
METRIC = "final_response_avg_score"


def simulated_power(diffs: np.ndarray, alpha: float = 0.05) -> float:
    """Share of replicates (rows) whose paired z-test (estimated SD) rejects no difference."""
    n = diffs.shape[1]
    z = diffs.mean(axis=1) / (diffs.std(axis=1, ddof=1) / math.sqrt(n))
    return float(np.mean(np.abs(z) > 1.959963984540054))


def continuous_diffs(rng, n, runs, delta, between_sd, within_sd, correlation) -> np.ndarray:
    """Per-case differences of run means: case effects correlated across the two variants,
    normal run noise."""
    cov = between_sd**2 * np.array([[1, correlation], [correlation, 1]])
    effects = rng.multivariate_normal([0, 0], cov, size=(REPLICATES, n))
    noise = rng.normal(0, within_sd, size=(REPLICATES, n, 2, runs)).mean(axis=3)
    return delta + (effects[..., 0] - effects[..., 1]) + (noise[..., 0] - noise[..., 1])


def test_design_1_mean_score_with_correlated_case_effects():
    rng = np.random.default_rng(11)
    n, runs, delta, sb, sw, r = 400, 3, 0.025, 0.2, 0.15, 0.5
    var_diff = 2 * sb**2 * (1 - r) + 2 * sw**2 / runs
    expected = paired_power(delta, var_diff, n)
    assert 0.3 < expected < 0.9  # where power is most sensitive to a wrong variance
    got = simulated_power(continuous_diffs(rng, n, runs, delta, sb, sw, r))
    assert got == pytest.approx(expected, abs=0.01)


def test_design_2_pass_rate_of_binary_runs():
    """Per case a pass probability p (0.05 + 0.8·Beta(2, 2)); the other variant passes with
    p + δ. Var(d_i) = (E[p(1-p)] + E[(p+δ)(1-p-δ)]) / K, both 0.2155 here, no case term."""
    rng = np.random.default_rng(12)
    n, runs, delta = 400, 5, 0.04
    p = 0.05 + 0.8 * rng.beta(2, 2, size=(REPLICATES, n))
    a = rng.binomial(runs, p) / runs
    b = rng.binomial(runs, p + delta) / runs
    expected = paired_power(delta, 2 * 0.2155 / runs, n)
    assert 0.3 < expected < 0.9
    assert simulated_power(b - a) == pytest.approx(expected, abs=0.01)


def test_design_3_cases_needed_reach_the_power_asked_for():
    rng = np.random.default_rng(13)
    runs, delta, sb, sw, r = 2, 0.03, 0.25, 0.2, 0.8
    var_diff = 2 * sb**2 * (1 - r) + 2 * sw**2 / runs
    n = cases_for(delta, var_diff, power=0.8)
    assert paired_power(delta, var_diff, n) >= 0.8 > paired_power(delta, var_diff, n - 1)
    got = simulated_power(continuous_diffs(rng, n, runs, delta, sb, sw, r))
    assert got == pytest.approx(paired_power(delta, var_diff, n), abs=0.01)


def test_the_mde_is_the_difference_detected_at_that_power():
    var_diff, n = 0.05, 120
    mde = minimum_detectable_effect(var_diff, n, power=0.8)
    assert paired_power(mde, var_diff, n) == pytest.approx(0.8, abs=1e-4)
    assert detectable_at(math.sqrt(var_diff / n)) == pytest.approx(mde)
    assert cases_for(mde, var_diff) in (n, n + 1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cases_for(0.0, 0.1), "delta must be a finite non-zero"),
        (lambda: cases_for(0.1, 0.1, power=1.0), "power must be in"),
        (lambda: paired_power(0.1, 0.1, 10, alpha=0.0), "alpha must be in"),
        (lambda: cases_for(0.1, math.nan), "not known"),
    ],
)
def test_bad_plans_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- variances read from runs -----------------------------------------------------------------


def write_run(path: Path, scores: np.ndarray, metric: str = METRIC) -> Path:
    """A result file of ``scores[case, run]`` for one metric (threshold 0.5)."""
    cases = []
    for i, row in enumerate(scores):
        for k, score in enumerate(row):
            status = "passed" if score >= 0.5 else "failed"
            cases.append(
                {
                    "evalSetId": "set",
                    "evalId": f"c{i}",
                    "runId": k + 1,
                    "finalEvalStatus": status,
                    "overallEvalMetricResults": [
                        {
                            "metricName": metric,
                            "score": float(score),
                            "evalStatus": status,
                            "threshold": 0.5,
                        }
                    ],
                    "evalMetricResultPerInvocation": [],
                    "sessionId": f"s{i}-{k}",
                    "userId": "u",
                }
            )
    body = {"evalSetResultId": path.stem, "evalSetId": "set", "evalCaseResults": cases}
    path.write_text(json.dumps(body))
    return path


def test_components_of_one_run_follow_the_stated_estimators(tmp_path):
    scores = np.array([[0.9, 0.7], [0.2, 0.4], [0.6, 0.6], [1.0, 0.5]])
    record = record_of(ae.load_run(write_run(tmp_path / "a.json", scores)))
    within = scores.var(axis=1, ddof=1).mean()
    between = scores.mean(axis=1).var(ddof=1) - within / 2
    got = variance_of(record, METRIC, correlation=0.25)
    assert (got.between, got.within) == pytest.approx((2 * between * 0.75, 2 * within))
    assert got.icc == pytest.approx(between / (between + within))
    assert (got.n_cases, got.num_runs) == (4, 2)
    passes = (scores >= 0.5).astype(float)
    rate = variance_of(record, METRIC, "pass_rate")
    assert rate.within == pytest.approx(2 * passes.var(axis=1, ddof=1).mean())


def test_components_are_recovered_from_a_large_pilot_and_from_observed_pairs(tmp_path):
    rng = np.random.default_rng(5)
    n, runs, sb, sw, r = 3000, 4, 0.2, 0.1, 0.6
    cov = sb**2 * np.array([[1, r], [r, 1]])
    effects = rng.multivariate_normal([0.5, 0.5], cov, size=n)
    a = effects[:, [0]] + rng.normal(0, sw, size=(n, runs))
    b = effects[:, [1]] + rng.normal(0, sw, size=(n, runs))
    run_a = ae.load_run(write_run(tmp_path / "a.json", a))
    run_b = ae.load_run(write_run(tmp_path / "b.json", b))
    one = variance_of(record_of(run_a), METRIC, correlation=r)
    assert one.within == pytest.approx(2 * sw**2, rel=0.05)
    assert one.between == pytest.approx(2 * sb**2 * (1 - r), rel=0.1)
    pair = variance_of(record_of(run_a), METRIC, other=record_of(run_b))
    assert pair.between == pytest.approx(2 * sb**2 * (1 - r), rel=0.1)
    assert pair.source == "two runs, observed pairs"
    frame = ae.stats.power(run_a, METRIC, 0.02, other=run_b, backend="polars")
    row = frame.row(0, named=True)
    assert row["power"] == pytest.approx(paired_power(0.02, pair.of(runs), n))
    assert (row["n_cases"], row["num_runs"]) == (n, runs)


def test_cases_needed_per_runs_option_and_the_single_run_caveat(tmp_path):
    rng = np.random.default_rng(7)
    many = rng.normal(0.5, 0.2, size=(50, 1)) + rng.normal(0, 0.15, size=(50, 3))
    run = ae.load_run(write_run(tmp_path / "a.json", many))
    plan = ae.stats.cases_needed(run, 0.05, num_runs=[1, 3, 9], backend="polars")
    needed = plan["n_cases"].to_list()
    assert needed[0] > needed[1] > needed[2]
    assert all(p >= 0.8 for p in plan["power"].to_list())
    single = ae.load_run(write_run(tmp_path / "b.json", many[:, :1]))
    flat = ae.stats.cases_needed(single, 0.05, num_runs=[1, 5], backend="polars")
    assert flat["n_cases"].n_unique() == 1  # no run noise seen: more runs cannot help
    assert "one run per case" in flat["source"][0]


def test_pairwise_rows_carry_the_mde_of_their_standard_error(tmp_path):
    rng = np.random.default_rng(9)
    base = rng.normal(0.5, 0.2, size=(40, 2))
    exp = ae.Experiment(
        {
            "a": ae.load_run(write_run(tmp_path / "a.json", base)),
            "b": ae.load_run(write_run(tmp_path / "b.json", base + rng.normal(0, 0.1, (40, 2)))),
        }
    )
    row = exp.pairwise_df(METRIC, backend="polars").row(0, named=True)
    assert row["mde"] == pytest.approx((1.959963984540054 + 0.8416212335729143) * row["se"])


def test_the_power_curve_draws_one_line_per_runs_option(tmp_path):
    rng = np.random.default_rng(3)
    run = ae.load_run(write_run(tmp_path / "a.json", rng.normal(0.5, 0.2, size=(30, 3))))
    fig = ae.plots.power_curve(run, METRIC, 0.1, num_runs=(1, 2, 4))
    (ax,) = fig.axes
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:3] == ["1 run(s) per case", "2 run(s) per case", "4 run(s) per case"]
    powers = ax.get_lines()[2].get_ydata()
    assert np.all(np.diff(powers) >= -1e-12) and powers[-1] > 0.8
