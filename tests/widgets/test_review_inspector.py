"""The run inspector as a review tool: marks from code and buttons, the filtered rows as a
frame, an empty list that says so."""

from __future__ import annotations

import polars as pl
from report_builders import build_run

import agenteval_nb as ae
from agenteval_nb.views import inspect


def test_an_empty_list_says_no_case_matches():
    w = inspect(build_run())
    w.filters.status.value = "not_evaluated"
    assert w.table.rows == [] and w.table.empty == "no case matches"
    assert w.selected is None


def test_filtered_df_is_the_listed_rows_with_metric_scores():
    run = build_run()
    w = inspect(run)
    w.filters.status.value = "failed"
    out = w.filtered_df("polars")
    assert out.columns[: len(run.cases_df().columns)] == list(run.cases_df().columns)
    assert out.select("eval_id", "run_id").rows() == [("weather_bad", 1)]
    assert out["score:tool_trajectory_avg_score"].dtype == pl.Float64
    assert out["human_mark"].to_list() == [None]


def test_marks_from_code_and_buttons_show_in_the_list_and_come_back(tmp_path):
    path = build_run().save(tmp_path / "w.evalset_result.json")
    w = ae.inspect(path)
    w.mark("weather_bad", 1, "fail", note="wrong city")
    keys = [c["key"] for c in w.table.columns]
    assert "human" in keys
    assert w.table.rows[0][keys.index("human")][0] == "fail"
    w.select("weather_ok", 2)
    w.note.value = "fine"
    w.mark_buttons["pass"].click()
    marks = ae.load_run(path).reviews_df("polars").sort("eval_id")
    assert marks.select("eval_id", "run_id", "mark", "note").rows() == [
        ("weather_bad", 1, "fail", "wrong city"),
        ("weather_ok", 2, "pass", "fine"),
    ]
    again = ae.inspect(path)
    again.filters.status.value = "failed"
    assert again.filtered_df("polars")["human_mark"].to_list() == ["fail"]
