"""The inspector's table: sort keys, header sorts, the disagreement columns, review keys."""

from __future__ import annotations

import math

import polars as pl
import pytest
from report_builders import build_run

import agenteval_nb as ae
from agenteval_nb.analysis.agreement import HumanVerdicts, mixed_sample_cases
from agenteval_nb.analysis.reviews import Mark
from agenteval_nb.schema.extras import judge_record
from agenteval_nb.views import inspect
from agenteval_nb.widgets.entries import sort_by_column, sort_descending, toggled_sort

RUBRIC = "llm_rubric_response"
VERIFIER = "llm_verifier_pairwise"


def column(w, key: str) -> list[str]:
    """The shown texts of column ``key`` on the current page."""
    keys = [c["key"] for c in w.table.columns]
    return [row[keys.index(key)][0] for row in w.table.rows]


def shown(w) -> list[tuple[str, int]]:
    return [(item.eval_id, item.run_id) for item in w.items]


def test_sort_by_column_puts_missing_values_last_both_ways_and_keeps_ties():
    items = [("a", 2.0), ("b", None), ("c", 1.0), ("d", math.nan), ("e", 2.0)]
    value = dict(items).get
    assert sort_by_column([k for k, _ in items], value, False) == ["c", "a", "e", "b", "d"]
    assert sort_by_column([k for k, _ in items], value, True) == ["a", "e", "c", "b", "d"]


def test_a_header_click_sorts_ascending_then_descending():
    assert toggled_sort("status", "metric:x") == "metric:x"
    assert toggled_sort("metric:x", "metric:x") == "-metric:x"
    assert toggled_sort("-metric:x", "metric:x") == "metric:x"
    assert sort_descending("-metric:x") == ("metric:x", True)
    assert sort_descending("run") == ("run", False)


def test_one_row_per_case_result_with_a_column_per_metric():
    w = inspect(build_run())
    keys = [c["key"] for c in w.table.columns]
    assert keys[:4] == ["status", "run", "id", "score"]
    assert {f"metric:{m}" for m in ("tool_trajectory_avg_score", RUBRIC, VERIFIER)} <= set(keys)
    assert "human" not in keys  # no marks yet
    assert len(w.table.rows) == 4
    cells = dict(zip(keys, w.table.rows[0], strict=True))
    assert cells["id"][0] == "weather_bad" and cells[f"metric:{VERIFIER}"] == ["0.2", "ae-fail"]


def test_sorting_by_a_metric_column_from_its_header():
    run = build_run()
    run.result.eval_case_results[2].overall_eval_metric_results[2].score = 0.3  # ok, run 2
    w = inspect(run)
    w.table.send_event("sort", f"metric:{VERIFIER}")
    assert w.filters.sort.value == f"metric:{VERIFIER}" and w.table.sort == w.filters.sort.value
    assert column(w, f"metric:{VERIFIER}") == ["0.2", "0.3", "0.8", "0.8"]
    w.table.send_event("sort", f"metric:{VERIFIER}")
    assert column(w, f"metric:{VERIFIER}") == ["0.8", "0.8", "0.3", "0.2"]
    assert w.selected is w.items[0]  # a new order opens its first row


def test_filtered_df_is_the_shown_rows_in_the_shown_order():
    w = inspect(build_run())
    w.table.send_event("sort", "id")
    w.table.send_event("sort", "id")  # descending
    out = w.filtered_df("polars")
    assert out.select("eval_id", "run_id").rows() == shown(w)
    assert shown(w)[0][0] == "weather_ok"
    assert out["samples_disagree"].dtype == pl.Boolean
    assert out["judge_vs_human"].to_list() == [None] * 4


def test_judge_disagrees_with_human_column_and_sort(tmp_path):
    path = build_run().save(tmp_path / "w.evalset_result.json")
    w = ae.inspect(path)
    w.mark("weather_ok", 2, "pass")  # agrees with every metric
    w.mark("weather_ok", 1, "fail")  # every metric passed: the judge disagrees
    w.mark("weather_bad", 1, "fail")
    w.mark("weather_bad", 1, "pass", metric=VERIFIER)  # the verifier failed it: disagrees
    assert "judge_vs_human" in [c["key"] for c in w.table.columns]
    w.table.send_event("sort", "judge_vs_human")
    assert shown(w) == [
        ("weather_bad", 1),
        ("weather_ok", 1),
        ("weather_ok", 2),
        ("weather_bad", 2),
    ]
    assert column(w, "judge_vs_human") == ["⚑", "⚑", "", ""]
    assert w.filtered_df("polars")["judge_vs_human"].to_list() == [True, True, False, None]


def test_human_verdicts_metric_mark_overrides_the_case_mark():
    def mark(value: str, metric: str | None = None) -> Mark:
        return Mark("s", "c", 1, metric, value, None, "me", "2026-01-01T00:00:00.000Z")

    human = HumanVerdicts([mark("fail"), mark("pass", "m1")])
    assert human.disagrees(1, "c", {"m1": "passed", "m2": "failed"}) is False
    assert human.disagrees(1, "c", {"m1": "failed"}) is True
    assert human.disagrees(1, "c", {"m2": "passed"}) is True
    assert human.disagrees(1, "c", {"m1": "not_evaluated"}) is None
    assert human.disagrees(2, "c", {"m1": "passed"}) is None
    human.add(mark("unsure"))  # an unsure mark is no verdict
    assert human.disagrees(1, "c", {"m2": "passed"}) is None


def test_samples_disagree_column():
    run = build_run()
    case = run.result.eval_case_results[0]  # weather_ok, run 1: three passing samples
    rubric = case.eval_metric_result_per_invocation[0].eval_metric_results[1]
    judge = judge_record(rubric.details)
    assert judge is not None
    judge.samples[2].status = "failed"
    assert mixed_sample_cases(run.record) == {(1, "weather_ok")}
    w = inspect(run)
    w.table.send_event("sort", "samples")
    assert shown(w)[0] == ("weather_ok", 1)
    assert column(w, "samples") == ["⚑", "", "", ""]


def test_keys_mark_the_selected_row_and_persist(tmp_path):
    path = build_run().save(tmp_path / "w.evalset_result.json")
    w = ae.inspect(path)
    assert (w.selected.eval_id, w.selected.run_id) == ("weather_bad", 1)
    w.table.send_event("key", "f")
    w.table.send_event("key", "j")
    w.table.send_event("key", "p")
    w.table.send_event("note", "looks right")  # n, typing, Enter: the note joins the mark
    w.table.send_event("key", "j")
    w.table.send_event("key", "u")
    assert column(w, "human")[:3] == ["fail", "pass", "unsure"]
    marks = ae.load_run(path).reviews_df("polars").sort("eval_id", "run_id")
    assert marks.select("eval_id", "run_id", "mark", "note").rows() == [
        ("weather_bad", 1, "fail", None),
        ("weather_bad", 2, "pass", "looks right"),
        ("weather_ok", 1, "unsure", None),
    ]
    again = ae.inspect(ae.load_run(path))
    assert column(again, "human")[:3] == ["fail", "pass", "unsure"]


def test_comparison_rows_are_cases_with_a_difference_per_metric():
    a, b = build_run(), build_run()
    w = inspect((a, b))
    keys = [c["key"] for c in w.table.columns]
    assert keys[:3] == ["status", "id", "score"] and f"metric:{VERIFIER}" in keys
    assert len(w.table.rows) == 2  # one row per case
    with pytest.raises(TypeError, match="run's inspector"):
        w.filtered_df()


def test_choosing_a_metric_scrolls_the_detail_to_it():
    w = inspect(build_run())
    w.filters.metric.value = VERIFIER
    assert w.table.focus_metric == VERIFIER
    w.filters.metric.value = ""
    assert w.table.focus_metric == ""
