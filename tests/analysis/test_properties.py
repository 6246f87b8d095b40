"""Properties of frames, pass@k tables and comparisons over random result shapes."""

from __future__ import annotations

import math

import polars as pl
from _analysis_builders import case_result, invocation, metric_result, result_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenteval_nb.evalrun import EvalRun
from agenteval_nb.views import compare

scores = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0]))


@st.composite
def runs(draw: st.DrawFn) -> EvalRun:
    num_runs = draw(st.integers(1, 3))
    n_cases = draw(st.integers(0, 4))
    metrics = ["m1", "m2"][: draw(st.integers(1, 2))]
    cases = []
    for run_id in range(1, num_runs + 1):
        for c in range(n_cases):
            if run_id > 1 and draw(st.booleans()) and draw(st.booleans()):
                continue  # a case missing from a later run
            turns = []
            for t in range(draw(st.integers(0, 3))):
                results = [metric_result(m, draw(scores)) for m in metrics]
                turns.append((invocation(f"{c}-{t}", "q", "a"), None, results))
            overall = [metric_result(m, draw(scores)) for m in metrics]
            cases.append(case_result(f"case{c}", run_id, turns, overall))
    return EvalRun(result=result_of(cases, num_runs))


settings_ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_
@given(runs())
def test_frames_have_one_row_per_model_object(run):
    results = run.result.eval_case_results or []
    cases = run.cases_df(backend="polars")
    assert cases.height == len(results)
    turn_results = sum(
        len(per.eval_metric_results or [])
        for case in results
        for per in case.eval_metric_result_per_invocation or []
    )
    inv = run.invocations_df(backend="polars")
    assert inv.height == turn_results
    keys = set(cases.select("run_id", "eval_id").iter_rows())
    assert set(inv.select("run_id", "eval_id").iter_rows()) <= keys
    metrics = run.metrics_df(backend="polars")
    assert metrics.height == sum(len(c.overall_eval_metric_results or []) for c in results)
    # not evaluated ⇔ no score
    assert (metrics["status"] == "not_evaluated").to_list() == metrics["score"].is_null().to_list()
    pandas_inv = run.invocations_df(backend="pandas")
    assert list(pandas_inv["metric_name"]) == inv["metric_name"].to_list()


@settings_
@given(runs())
def test_pass_at_k_table_is_consistent(run):
    table = run.pass_at_k_df(backend="polars")
    cases = table.filter(pl.col("level") == "case")
    for row in cases.iter_rows(named=True):
        at, hat = row["pass_at_k"], row["pass_hat_k_unbiased"]
        if row["n"] < row["k"]:
            assert math.isnan(at) and math.isnan(hat)
        else:
            assert 0.0 <= hat <= at + 1e-12 and at <= 1.0
    for row in table.filter(pl.col("level") == "overall").iter_rows(named=True):
        assert math.isnan(row["pass_at_k"]) or 0.0 <= row["pass_at_k"] <= 1.0


@settings_
@given(runs())
def test_a_run_compared_with_itself_has_no_difference(run):
    cmp = compare(run, run, n_resamples=50, backend="polars")
    assert cmp.frame["flipped"].sum() == 0
    assert all(d == 0.0 for d in cmp.frame["diff"].drop_nulls())
    for row in cmp.stats.iter_rows(named=True):
        assert row["n_flipped"] == 0 and math.isnan(row["mcnemar_p"])
        assert math.isnan(row["mean_diff"]) or row["mean_diff"] == 0.0
