"""The run record: tables built once from the result and shared by every reader."""

from __future__ import annotations

import polars as pl
import pytest
from _analysis_builders import rich_run
from _builders import evalset, trace_case

import agenteval_nb as ae
from agenteval_nb.analysis import frames
from agenteval_nb.analysis.record import RunRecord
from agenteval_nb.analysis.stats import summary_frame


@pytest.fixture
def run():
    return rich_run()


def test_a_table_is_built_once_and_shared(run, monkeypatch):
    calls: list[str] = []
    builder = frames.BUILDERS["metrics"]
    monkeypatch.setitem(
        frames.BUILDERS, "metrics", lambda rec: calls.append("metrics") or builder(rec)
    )
    first = run.metrics_df(backend="polars")
    summary_frame(run.record)  # reads the same table through across_runs_frame
    run.compare(run)
    assert run.metrics_df(backend="polars") is first
    assert calls == ["metrics"]


def test_the_tables_equal_a_fresh_walk_of_the_result(run):
    for kind, builder in frames.BUILDERS.items():
        assert run.table(kind).equals(builder(run), null_equal=True), kind


def test_replacing_a_case_result_rebuilds_the_tables(run):
    before = run.cases_df(backend="polars")
    cases = run.result.eval_case_results
    cases[0] = cases[0].model_copy(update={"final_eval_status": "not_evaluated"})
    after = run.cases_df(backend="polars")
    assert after is not before
    assert after["status"][0] == "not_evaluated"


def test_an_in_place_edit_needs_clear_tables(run):
    before = run.cases_df(backend="polars")
    run.result.eval_case_results[0].error_message = "edited"
    assert run.cases_df(backend="polars") is before  # documented: same case objects
    run.clear_tables()
    assert run.cases_df(backend="polars")["error"][0] == "edited"


def test_a_plain_record_serves_frames_and_statistics(run):
    record = RunRecord(result=run.result, metrics=run.metrics, evalsets=run.evalsets)
    assert frames.frame(record, "invocations", "polars").equals(
        run.invocations_df(backend="polars"), null_equal=True
    )
    assert isinstance(summary_frame(record), pl.DataFrame)


def test_eval_case_follows_the_eval_sets(run):
    from_file = ae.load_evalset(evalset(trace_case("c1", ["a"], ["a"]), set_id="s"))
    run.evalsets = [from_file]
    first = from_file.eval_cases[0]
    assert run.eval_case("c1") is first
    assert run.eval_case("no such case") is None
    run.evalsets = []
    assert run.eval_case("c1") is None  # the index is rebuilt, not kept stale


def test_the_result_of_a_streamed_run_shares_no_part_between_case_results():
    """Equal parts (every case's criterion) are decoded apart: models are mutable, so an edit
    in place changes one case result only (a quarter of ``run.result``'s memory at 100k cases
    is these repeated criteria; sharing them would change what such an edit does)."""
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
    cases = [trace_case(f"c{i}", ["a", "b"], ["a", "x"]) for i in range(3)]
    run = ae.evaluate(evalset(*cases), [metric], progress=False)
    assert run.streaming
    criteria = []
    for result in run.result.eval_case_results or []:
        criteria += [m.criterion for m in result.overall_eval_metric_results or []]
        for turn in result.eval_metric_result_per_invocation or []:
            criteria += [m.criterion for m in turn.eval_metric_results or []]
    assert len(criteria) == 3 * 3 and all(c == criteria[0] for c in criteria)
    criteria[0].final_response.text.match_strategy = "contains"
    assert [c == criteria[0] for c in criteria] == [True] + [False] * 8
