"""load_run (files, legacy string form, dicts, models, directories) and parse_pass_nc (SPEC §7)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest
from _analysis_builders import rich_result, rich_run, status_run

from agenteval_nb.analysis.frames import BUILDERS
from agenteval_nb.analysis.passk import parse_pass_nc
from agenteval_nb.errors import FormatError
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.io import open_result, save_result
from agenteval_nb.runs import RunCollection, load_run
from agenteval_nb.schema import EvalSetResult, EvalSetResultSummary

SPEC_EXAMPLES = Path(__file__).parents[2] / "data" / "seeds" / "spec_examples"
GO_RESULT = (
    SPEC_EXAMPLES
    / "spec_examples_calc_trace_8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e.evalset_result.json"
)


def _result_dict(run: EvalRun, *, summary: bool = True) -> dict:
    data = run.result.to_wire()
    if not summary:
        data.pop("summary")
    return data


def test_dict_model_and_text_give_the_same_run():
    source = rich_run()
    data = _result_dict(source)
    from_dict = load_run(data)
    from_model = load_run(source.result)
    from_text = load_run(json.dumps(data))
    for run in (from_dict, from_model, from_text):
        assert isinstance(run, EvalRun)
        assert run.info["summary_computed"] is False
        assert run.cases_df(backend="polars").equals(source.cases_df(backend="polars"))


def test_missing_summary_is_computed_without_touching_the_input():
    source = rich_run()
    result = EvalSetResult.model_validate(_result_dict(source, summary=False))
    run = load_run(result)
    assert result.summary is None
    assert run.info["summary_computed"] is True
    assert run.result.summary == source.result.summary
    assert parse_pass_nc(run) == parse_pass_nc(source)


def test_legacy_json_string_file(tmp_path):
    source = rich_run()
    path = tmp_path / "legacy.evalset_result.json"
    path.write_text(json.dumps(json.dumps(_result_dict(source, summary=False))), encoding="utf-8")
    run = load_run(path)
    assert run.info["summary_computed"] is True
    assert run.invocations_df(backend="polars").height == 30


def test_results_without_run_ids_are_read_as_run_one():
    data = {
        "evalSetId": "s",
        "evalCaseResults": [
            {"evalId": "a", "finalEvalStatus": "passed"},
            {"evalId": "b", "finalEvalStatus": "failed"},
        ],
    }
    run = load_run(data)
    assert run.result.summary.num_runs == 1
    assert run.cases_df(backend="polars")["run_id"].to_list() == [1, 1]
    assert any("runId" in w for w in run.warnings)


@pytest.mark.parametrize(
    "name",
    [
        "calc_trace_older_format.evalset_result.json",
        "calc_trace_legacy_string.evalset_result.json",
        "spec_examples_calc_trace_8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e.evalset_result.json",
    ],
)
def test_shipped_go_files_load(name):
    run = load_run(
        SPEC_EXAMPLES / name,
        evalset=SPEC_EXAMPLES / "calc_trace.evalset.json",
        metrics=SPEC_EXAMPLES / "calc_trace.metrics.json",
    )
    assert run.result.summary is not None
    assert run.evalset is not None and run.metrics
    assert run.cases_df(backend="polars").height >= 1
    assert run.invocations_df(backend="polars")["evaluator"].null_count() == 0
    n, c = parse_pass_nc(run)
    assert n >= 1 and 0 <= c <= n


def test_directory_gives_a_collection(tmp_path):
    a = status_run({"x": ["passed"], "y": ["failed"]})
    b = status_run({"x": ["passed"], "y": ["passed"]})
    save_result(a.result, tmp_path / "app" / "run_a.evalset_result.json")
    save_result(b.result, tmp_path / "app" / "run_b.evalset_result.json")
    (tmp_path / "app" / "notes.json").write_text("{}", encoding="utf-8")
    (tmp_path / "app" / "set.evalset.json").write_text("{}", encoding="utf-8")

    runs = load_run(tmp_path)
    assert isinstance(runs, RunCollection)
    assert len(runs) == 2 and runs.keys() == ["run_a", "run_b"]
    assert runs["run_b"] is runs[1] and runs[0] in runs
    assert [run.app_name for run in runs] == ["app", "app"]

    cases = runs.concat_df("cases", backend="polars")
    assert cases.columns[0] == "result_id"
    assert cases.select("result_id", "eval_id", "status").rows() == [
        ("run_a", "x", "passed"),
        ("run_a", "y", "failed"),
        ("run_b", "x", "passed"),
        ("run_b", "y", "passed"),
    ]
    assert len(runs.concat_df("metrics", backend="pandas")) == 0
    with pytest.raises(ValueError, match="unknown frame kind"):
        runs.concat_df("nope")


def test_directory_keys_stay_unique_across_apps(tmp_path):
    run = status_run({"x": ["passed"]})
    save_result(run.result, tmp_path / "app1" / "same.evalset_result.json")
    save_result(run.result, tmp_path / "app2" / "same.evalset_result.json")
    assert load_run(tmp_path).keys() == ["app1/same", "app2/same"]


def test_empty_directory_concat_has_the_schema(tmp_path):
    runs = load_run(tmp_path)
    assert isinstance(runs, RunCollection) and len(runs) == 0
    out = runs.concat_df("invocations", backend="polars")
    assert out.height == 0 and out.columns[:3] == ["result_id", "run_id", "eval_id"]
    assert out.schema["actual_tools"] == pl.List(pl.String)


# -- parse_pass_nc --------------------------------------------------------------------------------


def test_parse_pass_nc_counts_passed_eval_set_runs():
    # run 1: all cases pass; runs 2 and 3: one case fails ⇒ n = 3, c = 1
    run = status_run(
        {
            "a": ["passed"] * 3,
            "b": ["passed", "passed", "failed"],
            "c": ["passed", "failed", "passed"],
        }
    )
    assert parse_pass_nc(run) == (3, 1)
    assert parse_pass_nc(run.result) == (3, 1)
    assert parse_pass_nc({"evalSetResult": run.result.to_wire()}) == (3, 1)
    assert parse_pass_nc(SimpleNamespace(eval_set_result=run.result)) == (3, 1)


def test_parse_pass_nc_absent_passed_count_is_zero():
    run = status_run({"a": ["failed", "failed"]})
    assert run.result.summary.run_status_counts.passed is None
    assert parse_pass_nc(run) == (2, 0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "evaluation result is nil"),
        (SimpleNamespace(eval_set_result=None), "eval set result is nil"),
        ({"evalSetResult": None}, "eval set result is nil"),
        (EvalSetResult(eval_set_id="s"), "eval set result summary is nil"),
        (EvalRun(result=EvalSetResult(eval_set_id="s")), "eval set result summary is nil"),
        (
            EvalSetResult(eval_set_id="s", summary=EvalSetResultSummary(num_runs=2)),
            "run status counts is nil",
        ),
    ],
)
def test_parse_pass_nc_errors(value, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        parse_pass_nc(value)


def _without_judge_metrics(case: dict[str, Any]) -> dict[str, Any]:
    """A Go case result with its LLM-judge metric results left out (a judge's model options
    keep a case result off the view path)."""
    keep = lambda results: [r for r in results if "llmJudge" not in r.get("criterion", {})]  # noqa: E731
    case["overallEvalMetricResults"] = keep(case["overallEvalMetricResults"])
    for turn in case["evalMetricResultPerInvocation"]:
        turn["evalMetricResults"] = keep(turn["evalMetricResults"])
    return case


def _reason_given_empty(node: Any) -> int:
    """Every metric result's ``details.reason`` of ``node`` set to ``""`` (Go's zero value, which
    the model reads as no reason); how many."""
    count = 0
    if isinstance(node, dict):
        details = node.get("details")
        if isinstance(details, dict) and "metricName" in node:
            details["reason"] = ""
            count += 1
        return count + sum(_reason_given_empty(v) for v in node.values())
    if isinstance(node, list):
        return sum(_reason_given_empty(v) for v in node)
    return 0


@pytest.mark.parametrize("summary", [True, False])
@pytest.mark.parametrize("empty_reasons", [False, True])
def test_a_streamed_run_reads_plain_case_results_as_views_into_the_same_tables(
    summary, empty_reasons, tmp_path
):
    """``load_run`` reads a plain case result as its view (no model) and any other through the
    model; every table equals the one built from the whole result model. An empty reason (read
    by the model as none) keeps a case result off the view path."""
    doc = rich_result().to_wire()
    go_case = json.loads(GO_RESULT.read_text())["evalCaseResults"][0]
    doc["evalCaseResults"].append(_without_judge_metrics(go_case))
    if not summary:
        del doc["summary"]
    if empty_reasons:
        assert _reason_given_empty(doc["evalCaseResults"][-1]) > 0
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(doc, indent=2))
    streamed = open_result(path)
    assert streamed is not None
    views = [streamed.case_view(i) for i in range(len(streamed.texts))]
    assert views[-1] is None if empty_reasons else views[-1] is not None
    assert all(v is None for v in views[:-1])  # (judge records under extra keys: models)
    run, whole = load_run(path), load_run(json.loads(path.read_text()))
    assert run.record.streaming and not whole.record.streaming
    for kind in BUILDERS:
        assert run.record.table(kind).equals(whole.record.table(kind)), kind
    assert run.result.summary == whole.result.summary


@pytest.mark.parametrize("summary", [True, False])
def test_a_number_beyond_float64_in_a_plain_case_result_is_still_named(summary, tmp_path):
    """The view path scans no number range (msgspec refuses such a number itself): the case
    result falls back to the checked reader, whose error names file and JSON path; a session
    id that merely looks like an exponent (``4e123``) stays on the view path."""
    doc = json.loads(GO_RESULT.read_text())
    if not summary:
        del doc["summary"]
    case = _without_judge_metrics(doc["evalCaseResults"][0])
    case["sessionId"] = "0b5f9a62-3c1e-4d7a-9f0e-2a4e123b8d1e"
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(doc, indent=2))
    streamed = open_result(path)
    assert streamed is not None and streamed.case_view(0) is not None
    path.write_text(json.dumps(doc, indent=2).replace('"score": 1,', '"score": 1e999,', 1))
    streamed = open_result(path)
    assert streamed is not None and streamed.case_view(0) is None
    with pytest.raises(FormatError) as info:
        load_run(path)
    assert info.value.source == str(path)
    assert info.value.json_path.startswith("$.evalCaseResults[0].")
