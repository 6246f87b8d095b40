"""Error bars, paired tests and judge-reliability helpers against hand-computed values."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.analysis.stats import (
    Interval,
    binary_se,
    bootstrap_ci,
    cluster_bootstrap_ci,
    clustered_se,
    cohen_kappa,
    flip_rate,
    mcnemar,
    mean_se,
    normal_ci,
    paired_bootstrap_ci,
    paired_difference,
    summarize_scores,
    wilson_interval,
    z_value,
)

Z95 = 1.959963984540054

# -- standard errors ------------------------------------------------------------------------------


def test_mean_se_hand_value() -> None:
    # mean 2.5, Σ(s − s̄)² = 5, n(n−1) = 12
    assert mean_se([1, 2, 3, 4]) == pytest.approx(math.sqrt(5 / 12))


def test_mean_se_drops_nan() -> None:
    assert mean_se([1.0, math.nan, 3.0]) == pytest.approx(mean_se([1.0, 3.0]))


def test_binary_se_hand_value() -> None:
    assert binary_se([1, 0, 1, 1]) == pytest.approx(math.sqrt(0.75 * 0.25 / 4))


@pytest.mark.parametrize("data", [[], [0.7]])
def test_small_samples_give_nan(data: list[float]) -> None:
    assert math.isnan(mean_se(data))
    assert math.isnan(binary_se(data))
    assert all(math.isnan(x) for x in bootstrap_ci(data))
    assert all(math.isnan(x) for x in paired_bootstrap_ci(data, data))
    diff = paired_difference(data, data)
    assert math.isnan(diff["se"]) and math.isnan(diff["ci_low"]) and math.isnan(diff["ci_high"])


def test_empty_inputs_give_nan_not_errors() -> None:
    assert math.isnan(clustered_se([], []))
    assert all(math.isnan(x) for x in cluster_bootstrap_ci([], []))
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    assert math.isnan(paired_difference([], [])["mean_diff"])
    summary = summarize_scores([], passed=[])
    assert summary["n"] == 0
    assert math.isnan(summary["mean"]) and math.isnan(summary["se"])
    assert math.isnan(summary["pass_rate"]) and math.isnan(summary["pass_rate_ci_low"])
    assert math.isnan(cohen_kappa([], []))
    assert math.isnan(flip_rate([]))


def test_clustered_se_hand_value() -> None:
    # s̄ = 0.5; cluster residual sums a: 0, b: +1, c: −1 → Σ S_c² = 2; C = 3, n = 6
    scores = [1, 0, 1, 1, 0, 0]
    clusters = ["a", "a", "b", "b", "c", "c"]
    assert clustered_se(scores, clusters) == pytest.approx(math.sqrt(3 / 2 * 2) / 6)


def test_clustered_se_single_cluster_is_zero() -> None:
    assert clustered_se([0.1, 0.9, 0.4], ["x", "x", "x"]) == 0.0


def test_clustered_se_rejects_misaligned_clusters() -> None:
    with pytest.raises(ValueError):
        clustered_se([1, 2, 3], ["a", "b"])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 12),
    st.integers(1, 6),
    st.randoms(use_true_random=False),
)
def test_clustered_se_equals_reduced_by_case_se_for_balanced_epochs(
    n_cases: int, epochs: int, rnd: object
) -> None:
    rng = np.random.default_rng(rnd.randrange(2**32))  # type: ignore[attr-defined]
    scores = rng.random((n_cases, epochs))
    case_ids = np.repeat(np.arange(n_cases), epochs)
    clustered = clustered_se(scores.reshape(-1), case_ids)
    reduced = mean_se(scores.mean(axis=1))
    assert clustered == pytest.approx(reduced, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=40))
def test_singleton_clusters_equal_iid_se(scores: list[float]) -> None:
    assert clustered_se(scores, list(range(len(scores)))) == pytest.approx(
        mean_se(scores), rel=1e-9, abs=1e-15
    )


# -- intervals ------------------------------------------------------------------------------------


def test_z_value_and_normal_ci() -> None:
    assert z_value(0.95) == pytest.approx(Z95)
    low, high = normal_ci(0.5, 0.1)
    assert (low, high) == pytest.approx((0.5 - Z95 * 0.1, 0.5 + Z95 * 0.1))
    assert all(math.isnan(x) for x in normal_ci(0.5, math.nan))
    with pytest.raises(ValueError):
        z_value(1.0)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_known_values(successes: int, n: int, low: float, high: float) -> None:
    interval = wilson_interval(successes, n)
    assert isinstance(interval, Interval)
    assert interval.low == pytest.approx(low, abs=1e-4)
    assert interval.high == pytest.approx(high, abs=1e-4)


def test_wilson_bounds_are_exact_at_the_edges() -> None:
    assert wilson_interval(0, 7).low == 0.0
    assert wilson_interval(7, 7).high == 1.0


def test_wilson_validates_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(-1, 2)


# -- bootstrap ------------------------------------------------------------------------------------


def test_bootstrap_is_reproducible_with_seed() -> None:
    data = np.linspace(0, 1, 25) ** 2
    first = bootstrap_ci(data, seed=7)
    assert bootstrap_ci(data, seed=7) == first
    assert bootstrap_ci(data, seed=8) != first
    assert first.low < float(np.mean(data)) < first.high


def test_bootstrap_of_constant_data_is_a_point() -> None:
    assert bootstrap_ci([0.3, 0.3, 0.3]) == pytest.approx((0.3, 0.3))


def test_bootstrap_width_close_to_normal_ci() -> None:
    data = np.random.default_rng(1).random(200)
    boot = bootstrap_ci(data, n_resamples=4000)
    normal = normal_ci(float(data.mean()), mean_se(data))
    assert boot.low == pytest.approx(normal.low, abs=0.01)
    assert boot.high == pytest.approx(normal.high, abs=0.01)


def test_bootstrap_custom_stat() -> None:
    data = [0.0, 0.0, 1.0, 5.0, 9.0]
    low, high = bootstrap_ci(data, stat=np.median, seed=3)
    assert 0.0 <= low <= high <= 9.0


def test_cluster_bootstrap_with_singletons_matches_plain_bootstrap() -> None:
    data = np.random.default_rng(2).random(30)
    plain = bootstrap_ci(data, seed=5)
    clustered = cluster_bootstrap_ci(data, list(range(30)), seed=5)
    assert clustered == pytest.approx(plain)


def test_cluster_bootstrap_needs_two_clusters_and_is_reproducible() -> None:
    assert all(math.isnan(x) for x in cluster_bootstrap_ci([1, 2, 3], ["a", "a", "a"]))
    scores = [0, 1, 1, 1, 0, 0, 1, 0]
    clusters = ["a", "a", "b", "b", "c", "c", "d", "d"]
    first = cluster_bootstrap_ci(scores, clusters, seed=11)
    assert cluster_bootstrap_ci(scores, clusters, seed=11) == first
    assert 0.0 <= first.low <= first.high <= 1.0


def test_paired_bootstrap() -> None:
    a = np.random.default_rng(3).random(40)
    assert paired_bootstrap_ci(a, a) == pytest.approx((0.0, 0.0))
    assert paired_bootstrap_ci(a + 1.0, a) == pytest.approx((1.0, 1.0))
    b = a - 0.2 + np.random.default_rng(4).normal(0, 0.05, 40)
    first = paired_bootstrap_ci(a, b, seed=9)
    assert first == paired_bootstrap_ci(a, b, seed=9)
    assert first.low < 0.2 < first.high


def test_bootstrap_validates_arguments() -> None:
    with pytest.raises(ValueError):
        bootstrap_ci([1, 2], n_resamples=0)
    with pytest.raises(ValueError):
        bootstrap_ci([1, 2], level=1.5)


# -- paired comparison ----------------------------------------------------------------------------


def test_paired_difference_hand_value() -> None:
    result = paired_difference([1, 2, 3, 4], [0, 2, 2, 2])
    # d = [1, 0, 1, 2]: mean 1, sd = sqrt(2/3), se = sd/2
    se = math.sqrt(2 / 3) / 2
    assert result["n"] == 4
    assert result["mean_diff"] == pytest.approx(1.0)
    assert result["se"] == pytest.approx(se)
    assert result["ci_low"] == pytest.approx(1 - Z95 * se)
    assert result["ci_high"] == pytest.approx(1 + Z95 * se)


def test_paired_difference_drops_incomplete_pairs() -> None:
    result = paired_difference([1, math.nan, 3, 4, 5], [0, 2, math.nan, 2, 2])
    assert result["n"] == 3
    assert result["mean_diff"] == pytest.approx(np.mean([1, 2, 3]))


def test_paired_difference_rejects_unequal_lengths() -> None:
    with pytest.raises(ValueError):
        paired_difference([1, 2], [1])


def _chi2_1_sf(x: float) -> float:
    """Independent path: P(χ²₁ > x) = 2·(1 − Φ(√x))."""
    return 2.0 * (1.0 - NormalDist().cdf(math.sqrt(x)))


def test_mcnemar_known_values() -> None:
    # 10 cases A pass/B fail, 2 cases A fail/B pass, 5 concordant passes, 3 concordant fails
    a = [True] * 10 + [False] * 2 + [True] * 5 + [False] * 3
    b = [False] * 10 + [True] * 2 + [True] * 5 + [False] * 3
    result = mcnemar(a, b)
    assert (result["n"], result["b"], result["c"]) == (20, 10, 2)
    assert result["statistic"] == pytest.approx(49 / 12)
    assert result["p_value"] == pytest.approx(_chi2_1_sf(49 / 12), rel=1e-9)
    assert result["p_value"] == pytest.approx(0.04331, abs=1e-5)
    # two-sided exact: 2·(C(12,0)+C(12,1)+C(12,2))/2^12 = 158/4096
    assert result["exact_p"] == pytest.approx(158 / 4096)


def test_mcnemar_one_sided_discordance() -> None:
    result = mcnemar([0] * 5, [1] * 5)
    assert (result["b"], result["c"]) == (0, 5)
    assert result["statistic"] == pytest.approx(16 / 5)
    assert result["exact_p"] == pytest.approx(2 / 32)


def test_mcnemar_balanced_and_empty() -> None:
    balanced = mcnemar([1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1])
    assert balanced["statistic"] == 0.0
    assert balanced["p_value"] == 1.0
    assert balanced["exact_p"] == 1.0
    none = mcnemar([1, 0], [1, 0])
    assert (none["b"], none["c"]) == (0, 0)
    assert math.isnan(none["statistic"]) and math.isnan(none["exact_p"])


def test_mcnemar_rejects_non_boolean() -> None:
    with pytest.raises(ValueError):
        mcnemar([0.5, 1.0], [1, 0])


# -- summary --------------------------------------------------------------------------------------


def test_summarize_scores_iid() -> None:
    summary = summarize_scores([1, 2, 3, 4], passed=[True, False, True, True])
    assert summary["n"] == 4
    assert summary["mean"] == pytest.approx(2.5)
    assert summary["se"] == pytest.approx(math.sqrt(5 / 12))
    assert summary["se_kind"] == "iid"
    assert summary["n_clusters"] is None
    assert summary["ci_low"] == pytest.approx(2.5 - Z95 * math.sqrt(5 / 12))
    assert summary["pass_rate"] == pytest.approx(0.75)
    assert summary["n_passed"] == 3
    wilson = wilson_interval(3, 4)
    assert (summary["pass_rate_ci_low"], summary["pass_rate_ci_high"]) == pytest.approx(wilson)


def test_summarize_scores_clustered() -> None:
    scores = [1, 0, 1, 1, 0, 0]
    clusters = ["a", "a", "b", "b", "c", "c"]
    summary = summarize_scores(scores, clusters=clusters)
    assert summary["se_kind"] == "clustered"
    assert summary["n_clusters"] == 3
    assert summary["se"] == pytest.approx(clustered_se(scores, clusters))
    assert math.isnan(summary["pass_rate"]) and summary["n_passed"] is None


def test_summarize_scores_drops_nan_scores_with_their_clusters() -> None:
    summary = summarize_scores([1.0, math.nan, 0.0, 1.0], clusters=["a", "b", "c", "c"])
    assert summary["n"] == 3
    assert summary["n_clusters"] == 2


# -- judge reliability ----------------------------------------------------------------------------


def test_cohen_kappa_textbook_example() -> None:
    # agreement table [[20, 5], [10, 15]]: p_o = 0.7, p_e = 0.5 → κ = 0.4
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edges() -> None:
    assert cohen_kappa(["p", "f", "p"], ["p", "f", "p"]) == pytest.approx(1.0)
    assert math.isnan(cohen_kappa(["p", "p"], ["p", "p"]))
    with pytest.raises(ValueError):
        cohen_kappa(["p"], ["p", "f"])


def test_flip_rate() -> None:
    groups = [
        ["passed", "passed"],
        ["passed", "failed"],
        ["failed"],  # a single sample cannot flip: ignored
        ["failed", "failed", "passed"],
    ]
    assert flip_rate(groups) == pytest.approx(2 / 3)
    assert math.isnan(flip_rate([["passed"]]))
