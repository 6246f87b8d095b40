"""One door for functions that take a run (runs.py ``as_run``), and run numbers a
result file cannot back (``numRuns`` / ``runId`` far beyond its records)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from _analysis_builders import status_run

import agenteval_nb as ae
from agenteval_nb.analysis.record import RunRecord
from agenteval_nb.engine.summary import SummaryError, check_run_ids
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.io import load_result, save_result
from agenteval_nb.runs import RunCollection, as_run

DATA = Path(__file__).parent / "data"
ABSURD_NUM_RUNS = DATA / "absurd_num_runs.evalset_result.json"  # numRuns 1e6, 4 case results
ABSURD_RUN_ID = DATA / "absurd_run_id.evalset_result.json"  # no summary, one runId 1e6


@pytest.fixture
def saved(tmp_path) -> Path:
    run = status_run({"c1": ["passed", "failed"], "c2": ["passed", "passed"]})
    return save_result(run.result, tmp_path / "one" / "r1.evalset_result.json")


# -- what is accepted ----------------------------------------------------------------------------


def test_as_run_accepts_what_load_run_accepts(saved):
    run = ae.load_run(saved)
    result = load_result(saved)
    kinds = [
        run,
        result,
        saved,
        str(saved),
        saved.read_text("utf-8"),
        json.loads(saved.read_text("utf-8")),
        saved.parent,  # a folder with one result
        RunCollection({"only": run}),
    ]
    for value in kinds:
        got = as_run(value, "test")
        assert isinstance(got, EvalRun), type(value)
        assert [c.eval_id for c in got.result.eval_case_results] == ["c1", "c1", "c2", "c2"]
    assert as_run(run) is run  # a run with a summary is used as it is


def test_as_run_rejects_other_objects_with_a_type_error():
    with pytest.raises(TypeError, match=r"ae\.compare takes a run: an EvalRun.*got int"):
        as_run(42, "ae.compare")
    with pytest.raises(TypeError, match="got list"):
        as_run([1, 2], "ae.compare")


def test_a_folder_of_several_results_is_not_one_run(saved):
    shutil.copy(saved, saved.parent / "r2.evalset_result.json")
    with pytest.raises(TypeError, match=r"takes one run, got 2 results \('r1', 'r2'\)"):
        as_run(saved.parent, "ae.export_html")


def test_compare_export_and_inspect_take_paths_and_models(saved, tmp_path):
    result = load_result(saved)
    comparison = ae.compare(saved, result, backend="polars")
    assert isinstance(comparison.run_a, RunRecord) and isinstance(comparison.run_b, RunRecord)
    out = ae.export_html(str(saved), tmp_path / "report.html")
    assert "c1" in out.read_text("utf-8")
    with pytest.raises(TypeError, match="export_html takes a run"):
        ae.export_html(3.5, tmp_path / "x.html")
    with pytest.raises(TypeError, match=r"ae\.compare takes a run"):
        ae.compare(saved, object())
    assert not (tmp_path / "x.html").exists()


# -- run numbers bounded by the records ----------------------------------------------------------


def test_absurd_num_runs_is_a_format_error():
    with pytest.raises(ae.FormatError, match=r"\$\.summary\.numRuns: .*numRuns 1000000 is more"):
        ae.load_run(ABSURD_NUM_RUNS)


def test_absurd_run_id_without_summary_is_a_format_error():
    with pytest.raises(ae.FormatError, match=r"\$\.evalCaseResults\[3\]\.runId: .*1000000"):
        ae.load_run(ABSURD_RUN_ID)


def test_every_door_checks_the_run_numbers(saved, tmp_path):
    with pytest.raises(ae.FormatError, match="numRuns"):
        ae.compare(saved, ABSURD_NUM_RUNS)
    with pytest.raises(ae.FormatError, match="numRuns"):
        ae.inspect(ABSURD_NUM_RUNS)
    with pytest.raises(ae.FormatError, match="numRuns"):
        ae.export_html(ABSURD_NUM_RUNS, tmp_path / "r.html")


def test_a_hand_built_run_is_bounded_by_its_records():
    run = EvalRun(result=load_result(ABSURD_NUM_RUNS))
    with pytest.raises(SummaryError):
        check_run_ids(run.result)
    assert run.num_runs == 4  # 4 case results, not 1e6
    passk = run.pass_at_k_df(backend="polars")
    assert passk["k"].max() == 4
    with pytest.raises(ae.FormatError):
        as_run(run)


def test_a_summary_is_never_computed_over_an_absurd_run_id():
    run = EvalRun(result=load_result(ABSURD_RUN_ID))
    with pytest.raises(SummaryError, match="runId 1000000 exceeds the 4 case result"):
        run.pass_at_k_df()


def test_consistent_files_load(saved):
    run = ae.load_run(saved)
    assert run.num_runs == 2
    check_run_ids(run.result)


def test_duplicate_case_results_of_one_run_count_once_in_pass_at_k():
    run = status_run({"c1": ["passed", "failed"], "c2": ["passed", "passed"]})
    dup = run.result.eval_case_results[1].model_copy(update={"final_eval_status": "passed"})
    run.result.eval_case_results.append(dup)  # c1 run 2 twice: failed and passed
    cases = run.pass_at_k_df(ks=[1], backend="polars").filter(pl.col("level") == "case")
    c1 = cases.filter(pl.col("eval_id") == "c1").row(0, named=True)
    assert (c1["n"], c1["c"]) == (2, 1)  # two runs, one where every result passed


def test_cli_report_rejects_an_absurd_file(tmp_path):
    out = tmp_path / "report.html"
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval_nb", "report", str(ABSURD_NUM_RUNS), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 2
    assert "numRuns 1000000 is more than the file holds" in proc.stderr
    assert not out.exists()


def test_cli_report_of_a_folder_with_one_result(saved):
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval_nb", "report", str(saved.parent)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 0, proc.stderr
    assert saved.parent.with_suffix(".html").exists()
