"""RunCollection (runs.py): frames of several runs stacked under their keys."""

from __future__ import annotations

import polars as pl

import agenteval_nb as ae
from agenteval_nb.analysis.columns import SCHEMAS
from agenteval_nb.analysis.record import with_summary
from agenteval_nb.runs import RunCollection
from agenteval_nb.schema import EvalCaseResult, EvalSetResult


def two_cases() -> EvalSetResult:
    cases = [
        EvalCaseResult(
            eval_set_id="set",
            eval_id=eval_id,
            run_id=1,
            final_eval_status="passed",
            overall_eval_metric_results=[],
            eval_metric_result_per_invocation=[],
        )
        for eval_id in ("a", "b")
    ]
    return with_summary(
        EvalSetResult(eval_set_result_id="r", eval_set_id="set", eval_case_results=cases)
    )[0]


def test_concat_df_stacks_the_marks_of_every_run(tmp_path):
    for name, mark in (("run_a", "pass"), ("run_b", "fail")):
        path = tmp_path / f"{name}.evalset_result.json"
        ae.EvalRun(result=two_cases()).save(path)
        ae.load_run(path).mark("a", 1, mark, note=f"by {name}")
    runs = ae.load_run(tmp_path)
    assert isinstance(runs, RunCollection)

    reviews = runs.concat_df("reviews", backend="polars")

    assert reviews.columns == ["result_id", *SCHEMAS["reviews"]]
    assert reviews.select("result_id", "eval_id", "mark", "note").rows() == [
        ("run_a", "a", "pass", "by run_a"),
        ("run_b", "a", "fail", "by run_b"),
    ]


def test_concat_df_of_no_runs_has_the_reviews_schema():
    empty = RunCollection({}).concat_df("reviews", backend="polars")
    assert empty.schema == pl.Schema({"result_id": pl.String, **SCHEMAS["reviews"]})
