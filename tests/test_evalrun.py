"""``EvalRun`` holds a run record and the views take the record: ``ae.*`` and the run's own
methods are the doors that turn a run (or a path, a result) into the record."""

from __future__ import annotations

from pathlib import Path

import pytest
from _builders import evalset, trace_case

import agenteval_nb as ae
from agenteval_nb import plots, report, views, widgets
from agenteval_nb.analysis.passk import num_runs
from agenteval_nb.analysis.record import RunRecord
from agenteval_nb.report.junit import junit_xml

SEED = next(
    (Path(__file__).parents[1] / "data" / "seeds" / "spec_examples").glob("spec_examples_*.json")
)
METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def test_evaluate_and_load_run_give_an_eval_run_holding_a_record():
    cases = [trace_case("c1", ["hello"], ["hello"]), trace_case("c2", ["a"], ["b"])]
    evaluated = ae.evaluate(evalset(*cases), METRICS, progress=False)
    loaded = ae.load_run(SEED)
    for run in (evaluated, loaded, ae.EvalRun(result=loaded.result)):
        assert isinstance(run, ae.EvalRun) and not isinstance(run, RunRecord)
        assert isinstance(run.record, RunRecord)
        assert run.cases_df(backend="polars").equals(run.record.table("cases"))
    assert ae.load_run(loaded).record is not loaded.record  # a checked copy
    assert ae.EvalRun(record=loaded.record).record is loaded.record


def test_the_views_take_the_record(tmp_path):
    run = ae.load_run(SEED)
    assert report.report_html(run.record) == views.report_html(run)
    assert junit_xml(run.record).startswith("<?xml")
    assert widgets.inspect(run.record).children
    with pytest.raises(TypeError, match=r"widgets\.inspect takes a run record"):
        widgets.inspect(run)  # the widget room does not coerce: ae.inspect does
    assert ae.inspect(run).children  # the door does
    assert ae.export_html(SEED, tmp_path / "r.html").read_text("utf-8").startswith("<!DOCTYPE")


def test_plots_take_a_record_or_what_holds_one():
    run = ae.load_run(SEED)
    from_run = plots.figure_to_svg(plots.pass_rates(run))
    assert from_run == plots.figure_to_svg(plots.pass_rates(run.record))


def test_the_run_delegates_to_its_record():
    run = ae.load_run(SEED)
    run.app_name = "shop"
    run.info["note"] = "x"
    assert run.record.app_name == "shop" and run.record.info["note"] == "x"
    assert run.num_runs == num_runs(run.record)
    assert run.compare(run).frame.equals(ae.compare(run, run).frame)
    assert ae.parse_pass_nc(run) == ae.parse_pass_nc(run.record)
