"""Agreement statistics against reference implementations (≤ 1e-9; dev-only packages) and
``ae.stats.agreement(run, among="judges")`` on a panel run (JUDGES.md §2)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from _builders import evalset, trace_case

import agenteval_nb as ae
from agenteval_nb.analysis.agreement import (
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_counts,
    krippendorff_alpha,
)

krippendorff = pytest.importorskip("krippendorff", reason="dev extra: reference for alpha")
inter_rater = pytest.importorskip(
    "statsmodels.stats.inter_rater", reason="dev extra: reference for Fleiss' kappa"
)
sk_metrics = pytest.importorskip("sklearn.metrics", reason="dev extra: reference for Cohen's kappa")

TOL = 1e-9


def test_the_worked_vectors():
    assert krippendorff_alpha([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 1]]) == pytest.approx(
        1 - 132 / 420, abs=1e-12
    )
    assert krippendorff_alpha([[1, 2], [3, 4], [1, 1]], "interval") == pytest.approx(19 / 24)
    assert krippendorff_alpha([[1, 1], [3, 4], [5, 5]], "ordinal") == pytest.approx(94 / 99)
    assert krippendorff_alpha([[1, 1], [1, 1, 1]]) == 1.0  # one value only: D_e = 0
    assert math.isnan(krippendorff_alpha([[1], [0]]))  # nothing pairable
    with pytest.raises(ValueError, match="level must be one of"):
        krippendorff_alpha([[1, 1]], "ratio")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_equals_the_krippendorff_package(level):
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(150):
        raters, units = int(rng.integers(2, 7)), int(rng.integers(3, 60))
        data = rng.integers(0, int(rng.integers(2, 6)), size=(raters, units)).astype(float)
        data[rng.random((raters, units)) < rng.uniform(0.0, 0.5)] = np.nan
        if len(np.unique(data[~np.isnan(data)])) < 2:
            continue
        # the package wants every unit column; ours takes each unit's ratings
        reference = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        ours = krippendorff_alpha(
            [[v for v in data[:, u] if not np.isnan(v)] for u in range(units)], level
        )
        if math.isnan(reference):
            assert math.isnan(ours)
            continue
        assert ours == pytest.approx(reference, abs=TOL)
        checked += 1
    assert checked > 100


def test_alpha_of_scores_on_the_interval_scale_equals_the_package():
    rng = np.random.default_rng(3)
    data = rng.uniform(0, 1, size=(3, 40)).round(2)
    data[rng.random((3, 40)) < 0.2] = np.nan
    reference = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    ours = krippendorff_alpha(
        [[v for v in data[:, u] if not np.isnan(v)] for u in range(40)], "interval"
    )
    assert ours == pytest.approx(reference, abs=TOL)


def test_fleiss_kappa_equals_statsmodels():
    rng = np.random.default_rng(11)
    for _ in range(100):
        items, raters = int(rng.integers(2, 80)), int(rng.integers(2, 7))
        categories = int(rng.integers(2, 5))
        ratings = rng.integers(0, categories, size=(items, raters))
        table, _ = inter_rater.aggregate_raters(ratings, n_cat=categories)
        reference = inter_rater.fleiss_kappa(table, method="fleiss")
        ours = fleiss_kappa([list(row) for row in ratings])
        from_counts = fleiss_kappa_counts(table.astype(float))
        if math.isnan(reference):
            assert math.isnan(ours)
            continue
        assert ours == pytest.approx(reference, abs=TOL)
        assert from_counts == pytest.approx(reference, abs=TOL)


def test_cohen_kappa_equals_scikit_learn():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 100))
        labels = ["pass", "fail", "unsure"][: int(rng.integers(2, 4))]
        a = list(rng.choice(labels, n))
        b = list(rng.choice(labels, n))
        if len(set(a) | set(b)) < 2:
            continue
        reference = sk_metrics.cohen_kappa_score(a, b)
        ours = cohen_kappa(a, b)
        if math.isnan(reference):
            assert math.isnan(ours)
            continue
        assert ours == pytest.approx(reference, abs=TOL)


# among the judges of a panel run ----------------------------------------------------------


def _answers(verdicts: str):
    """A judge answering ``v`` (valid) / ``i`` (invalid) / ``x`` (error) per call, in order."""
    state = {"i": 0}

    def judge(messages):
        kind = verdicts[state["i"]]
        state["i"] += 1
        if kind == "x":
            raise RuntimeError("down")
        verdict = "valid" if kind == "v" else "invalid"
        return f"reasoning: r\nis_the_agent_response_valid: {verdict}"

    return judge


METRICS = [
    {
        "metricName": "fr",
        "evaluatorName": "llm_final_response",
        "threshold": 1.0,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}}},
    }
]


def test_among_judges_equals_the_reference_packages_on_a_panel_run():
    # 12 cases × 2 turns, evaluated in order (case_parallelism=1): each judge's n-th answer
    # rates the n-th turn; "x" is an abstention (a missing rating)
    a = "vvivvivvvvivvviivvvviviv"
    b = "vvivvvvvvvivivivvvvviiiv"
    c = "vxivvivvivivvvvivxvvivvv"
    es = evalset(*[trace_case(f"c{k:02d}", ["p", "q"], ["p", "q"]) for k in range(12)])
    panel = ae.JudgePanel({"a": _answers(a), "b": _answers(b), "c": _answers(c)})
    run = ae.evaluate(es, METRICS, judge=panel, progress=False, case_parallelism=1)
    result = ae.stats.agreement(run, among="judges", n_resamples=200, seed=1)
    table = result.table

    def value(statistic, rater_a="*", rater_b="*"):
        row = table.filter(
            (pl.col("statistic") == statistic)
            & (pl.col("rater_a") == rater_a)
            & (pl.col("rater_b") == rater_b)
        )
        assert row.height == 1
        return row.row(0, named=True)

    code = {"v": 1.0, "i": 0.0, "x": np.nan}
    data = np.array([[code[ch] for ch in s] for s in (a, b, c)])
    alpha = value("krippendorff_alpha")
    assert alpha["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=TOL
    )
    assert alpha["n_units"] == 24 and alpha["n_raters"] == 3
    assert alpha["ci_low"] <= alpha["value"] <= alpha["ci_high"]
    interval = value("krippendorff_alpha_interval")
    assert interval["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="interval"), abs=TOL
    )
    complete = ~np.isnan(data).any(axis=0)
    table_counts, _ = inter_rater.aggregate_raters(data[:, complete].T.astype(int), n_cat=2)
    fleiss = value("fleiss_kappa")
    assert fleiss["value"] == pytest.approx(inter_rater.fleiss_kappa(table_counts), abs=TOL)
    assert fleiss["n_units"] == int(complete.sum()) == 22
    # resampled among the complete units only: the interval holds the value, inside [-1, 1]
    assert -1 <= fleiss["ci_low"] <= fleiss["value"] <= fleiss["ci_high"] <= 1
    for x, y, i, j in (("a", "b", 0, 1), ("a", "c", 0, 2), ("b", "c", 1, 2)):
        both = ~np.isnan(data[i]) & ~np.isnan(data[j])
        reference = sk_metrics.cohen_kappa_score(data[i][both], data[j][both])
        assert value("cohen_kappa", x, y)["value"] == pytest.approx(reference, abs=TOL)
    ab = value("cohen_kappa", "a", "b")
    assert ab["prevalence"] == pytest.approx((a.count("v") + b.count("v")) / 48)
    # seeded: the same CIs again; another seed moves them
    again = ae.stats.agreement(run, among="judges", n_resamples=200, seed=1).table
    assert again.equals(table)
    other = ae.stats.agreement(run, among="judges", n_resamples=200, seed=2).table
    assert not other["ci_low"].equals(table["ci_low"])
    matrix = result.kappa_matrix("fr")
    assert matrix["judge"].to_list() == ["a", "b", "c"]
    assert matrix["a"].to_list()[0] == 1.0 and matrix["b"].to_list()[0] == ab["value"]


def test_among_needs_judges():
    run = ae.evaluate(
        evalset(trace_case("c", ["p"], ["p"])),
        METRICS,
        judge=_answers("v"),
        progress=False,
    )
    table = ae.stats.agreement(run, among="judges", n_resamples=10).table
    assert table["value"].is_nan().all()  # one judge: nothing to agree with
    with pytest.raises(ValueError, match='among must be "judges"'):
        ae.stats.agreement(run, among="samples")
