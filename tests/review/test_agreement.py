"""Judge agreement: each statistic against a hand computation."""

from __future__ import annotations

import math

import pytest
from _review_builders import result

import agenteval_nb as ae
from agenteval_nb.analysis.agreement import (
    brier_score,
    calibration_bins,
    expected_calibration_error,
    fleiss_kappa,
)

M1 = {"a": 0.9, "b": 0.8, "c": 0.2, "d": 0.6, "e": 0.1}
M2 = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0, "e": 0.0}


@pytest.fixture
def run(tmp_path):
    rows = [(case, 1, {"m1": M1[case], "m2": M2[case]}) for case in M1]
    path = tmp_path / "r.evalset_result.json"
    ae.EvalRun(result=result(rows)).save(path)
    loaded = ae.load_run(path)
    loaded.mark("a", 1, "pass")
    loaded.mark("b", 1, "fail")
    loaded.mark("c", 1, "fail")
    loaded.mark("d", 1, "fail")  # the case is wrong overall …
    loaded.mark("d", 1, "pass", metric="m1")  # … but m1 judged it right
    loaded.mark("e", 1, "fail")
    return loaded


def test_agreement_with_human_marks_by_hand(run):
    row = ae.stats.agreement(run, n_resamples=200).table.row(0, named=True)
    # m1 verdicts p p f p f; human p f f p f
    assert row["metric_name"] == "m1" and row["n"] == 5
    assert row["agreement"] == pytest.approx(0.8)
    # p_e = 0.6·0.4 + 0.4·0.6 = 0.48; κ = (0.8 − 0.48)/0.52
    assert row["kappa"] == pytest.approx(0.32 / 0.52)
    assert row["kappa_ci_low"] <= row["kappa"] <= row["kappa_ci_high"]
    assert (row["pass_pass"], row["pass_fail"], row["fail_pass"], row["fail_fail"]) == (2, 1, 0, 2)
    # Brier: (0.01 + 0.64 + 0.04 + 0.16 + 0.01)/5
    assert row["brier"] == pytest.approx(0.172)
    assert math.isnan(row["fleiss_kappa"]) and math.isnan(row["flip_rate"])


def test_confusion_and_calibration_tables(run):
    result_ = ae.stats.agreement(run, n_resamples=50, bins=2)
    confusion = result_.confusion("m1")
    assert confusion.rows() == [("pass", 2, 1), ("fail", 0, 2)]
    # bins [0, .5): q .2 .1, y 0 0; [.5, 1]: q .9 .8 .6, y 1 0 1 → ECE (2·.15 + 3·.1)/5
    assert result_.table.row(0, named=True)["ece"] == pytest.approx(0.12)
    assert result_.calibration("m1", bins=2)["n"].to_list() == [2, 3]


def test_unsure_marks_and_unmarked_cases_are_left_out(run):
    run.mark("a", 1, "unsure")
    assert ae.stats.agreement(run, n_resamples=10).table.row(0, named=True)["n"] == 4


def test_agreement_against_another_metric_and_another_run(run):
    by_metric = ae.stats.agreement(run, against="m2", n_resamples=10).table
    # m1 p p f p f vs m2 p p p f f: agree on a, b, e
    assert by_metric["metric_name"].to_list() == ["m1"]
    assert by_metric["agreement"][0] == pytest.approx(0.6)
    assert math.isnan(by_metric["brier"][0])
    same = ae.stats.agreement(run, against=run, n_resamples=10).table
    assert same["agreement"].to_list() == [1.0, 1.0]
    with pytest.raises(KeyError, match="no metric 'zz'"):
        ae.stats.agreement(run, against="zz")


def test_fleiss_kappa_by_hand():
    # P_i = 1, 1/3, 1, 1/3 → P̄ = 2/3; shares p = f = 1/2 → P̄_e = 1/2; κ = (2/3 − 1/2)/(1/2)
    items = [["p", "p", "p"], ["p", "p", "f"], ["f", "f", "f"], ["p", "f", "f"]]
    assert fleiss_kappa(items) == pytest.approx(1 / 3)
    assert math.isnan(fleiss_kappa([["p", "p"], ["p", "p"]]))
    assert math.isnan(fleiss_kappa([["p"]]))


def test_brier_and_ece_by_hand():
    assert brier_score([1.0, 0.0], [1, 1]) == pytest.approx(0.5)
    assert math.isnan(brier_score([], []))
    # one bin: mean q 0.5, mean y 1 → 0.5
    assert expected_calibration_error([0.4, 0.6], [1, 1], bins=1) == pytest.approx(0.5)
    assert calibration_bins([1.0], [1], bins=4)["low"].to_list() == [0.75]


def test_calibration_plot_draws_the_reliability_curve(run):
    fig = ae.plots.calibration(run, "m1", bins=2)
    ax = fig.axes[0]
    assert "m1" in ax.get_title()
    xs = sorted(tuple(line.get_xdata()) for line in ax.get_lines())
    assert (0.0, 1.0) in xs


def test_agreement_keeps_only_the_metrics_asked_for(run):
    only = ae.stats.agreement(run, n_resamples=10, metrics=["m2"])
    assert only.table["metric_name"].to_list() == ["m2"]
    assert only.pairs["metric_name"].unique().to_list() == ["m2"]
    whole = ae.stats.agreement(run, n_resamples=10).table
    assert only.table.equals(whole.filter(whole["metric_name"] == "m2"))
