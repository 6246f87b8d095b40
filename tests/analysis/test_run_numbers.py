"""Run numbers a result cannot back (engine/summary.py ``check_run_numbers``, SPEC §8.6): a
``runId`` above ``numRuns``, a summary without ``runSummaries``, a ``numRuns`` larger than the
records support — each a format error naming the file and the JSON path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _analysis_builders import status_run

import agenteval_nb as ae
from agenteval_nb.engine.summary import SummaryError, run_bound, summarize
from agenteval_nb.schema import EvalCaseResult


@pytest.fixture
def document() -> dict:
    """Two cases over two runs: 4 case results, 2 run summaries, numRuns 2."""
    run = status_run({"c1": ["passed", "failed"], "c2": ["passed", "passed"]})
    return json.loads(run.result.model_dump_json(by_alias=True, exclude_none=True))


def write(tmp_path: Path, document: dict) -> Path:
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(document), "utf-8")
    return path


def loads_from_file_and_object(tmp_path: Path, document: dict, json_path: str, message: str):
    path = write(tmp_path, document)
    for value, source in ((path, str(path)), (document, "<object>")):
        pattern = f"{re.escape(source)}: {re.escape(json_path)}: .*{re.escape(message)}"
        with pytest.raises(ae.FormatError, match=pattern):
            ae.load_run(value)


def test_a_run_id_above_num_runs_is_a_format_error(tmp_path, document):
    document["evalCaseResults"][3]["runId"] = 3  # within the 4 records, above numRuns 2
    loads_from_file_and_object(
        tmp_path, document, "$.evalCaseResults[3].runId", "runId 3 exceeds numRuns 2"
    )


def test_a_summary_without_run_summaries_is_bounded_by_the_case_results(tmp_path, document):
    del document["summary"]["runSummaries"]
    document["summary"]["numRuns"] = 4  # as many as the case results: accepted
    assert ae.load_run(write(tmp_path, document)).num_runs == 4
    document["summary"]["numRuns"] = 5
    loads_from_file_and_object(
        tmp_path,
        document,
        "$.summary.numRuns",
        "numRuns 5 is more than the file holds (0 run summaries, 4 case results)",
    )


def test_num_runs_one_above_what_the_records_support_is_a_format_error(tmp_path, document):
    for _ in range(3):  # 5 run summaries over 4 case results: numRuns 5 is backed
        document["summary"]["runSummaries"].append(document["summary"]["runSummaries"][-1])
    document["summary"]["numRuns"] = 5
    assert ae.load_run(write(tmp_path, document)).num_runs == 5
    document["summary"]["numRuns"] = 6
    loads_from_file_and_object(
        tmp_path,
        document,
        "$.summary.numRuns",
        "numRuns 6 is more than the file holds (5 run summaries, 4 case results)",
    )


def test_the_bound_is_the_larger_record_count():
    run = status_run({"c1": ["passed", "failed"]})
    summary = run.result.summary
    assert run_bound(summary, 0) == 2  # two run summaries
    assert run_bound(summary, 3) == 3
    assert run_bound(None, 0) == 1
    assert run_bound(summary.model_copy(update={"run_summaries": None}), 0) == 1


def test_summarize_rejects_a_run_id_above_num_runs():
    results = [EvalCaseResult(eval_id="a", run_id=r, final_eval_status="passed") for r in (1, 3)]
    with pytest.raises(SummaryError, match="run id at index 1 exceeds num runs 2"):
        summarize(results, 2)
    assert summarize(results, 3).num_runs == 3
