"""Issue 20 class 4: every result reader error names the file and the JSON path.

Mutated copies of a Go-written result file — statuses spelled otherwise, scores and run ids of
the wrong type, ids missing — read by each reader (the whole load, the streamed load, a dict)
with its summary (kept as written) and without (computed, SPEC §8.6).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

import agenteval_nb as ae
from agenteval_nb.io import open_result

GO_RESULT = (
    Path(__file__).resolve().parents[2]
    / "data/seeds/spec_examples"
    / "spec_examples_calc_trace_8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e.evalset_result.json"
)
BASE: dict[str, Any] = json.loads(GO_RESULT.read_text())
MISSING = object()

CASE = ("evalCaseResults", 1)
METRIC = (*CASE, "overallEvalMetricResults", 0)
PER_TURN = (*CASE, "evalMetricResultPerInvocation", 0, "evalMetricResults", 0)
SUMMARY = ("summary",)
LOCATIONS = {
    "case status": (*CASE, "finalEvalStatus"),
    "metric status": (*METRIC, "evalStatus"),
    "turn metric status": (*PER_TURN, "evalStatus"),
    "summary status": (*SUMMARY, "overallStatus"),
    "run summary status": (*SUMMARY, "runSummaries", 0, "overallStatus"),
    "case summary status": (*SUMMARY, "evalCaseSummaries", 0, "overallStatus"),
    "case score": (*CASE, "score"),
    "metric score": (*METRIC, "score"),
    "threshold": (*METRIC, "threshold"),
    "run id": (*CASE, "runId"),
    "eval id": (*CASE, "evalId"),
    "num runs": (*SUMMARY, "numRuns"),
}
VALUES = ["PASSED", "Passed", "skipped", "", 1, -1, "1", 1.5, None, MISSING]
MUTATIONS = [
    (name, value, summary)
    for summary in (True, False)
    for name, loc in LOCATIONS.items()
    if summary or loc[0] != "summary"  # the computed variant has no summary to mutate
    for value in VALUES
]


def _path(loc: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


def _mutated(loc: tuple[Any, ...], value: Any, summary: bool) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    parent = doc
    for part in loc[:-1]:
        parent = parent[part]
    if value is MISSING:
        parent.pop(loc[-1], None)
    else:
        parent[loc[-1]] = value
    if not summary:
        doc.pop("summary", None)
    return doc


def _read_streamed(path: Path) -> None:
    streamed = open_result(path)
    if streamed is not None:
        for i in range(len(streamed.texts)):
            streamed.case_result(i)
        list(streamed.case_summaries())


READERS = {
    "load_result": ae.load_result,
    "load_run": ae.load_run,
    "streamed": _read_streamed,
    "run frames": lambda path: ae.load_run(path).cases_df(),
}


@pytest.mark.parametrize(
    ("where", "value", "summary"),
    MUTATIONS,
    ids=[
        f"{n}={'missing' if v is MISSING else repr(v)}-{'summary' if s else 'computed'}"
        for n, v, s in MUTATIONS
    ],
)
def test_a_result_reader_either_reads_or_names_file_and_path(where, value, summary, tmp_path):
    """The error's path is the mutated value or a container of it, or (numRuns against the
    runIds) the runId the changed count no longer backs."""
    loc = LOCATIONS[where]
    doc = _mutated(loc, value, summary)
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(doc))
    for name, read in [*READERS.items(), ("dict", lambda _: ae.load_run(copy.deepcopy(doc)))]:
        try:
            read(path)
        except ae.FormatError as err:
            source = "<object>" if name == "dict" else str(path)
            assert err.source == source, (name, str(err))
            mutated = _path(loc)
            assert mutated.startswith(err.json_path) or (
                where == "num runs" and err.json_path.endswith(".runId")
            ), (name, str(err))
        except Exception as exc:
            pytest.fail(f"{name}: {type(exc).__name__} without file and JSON path: {exc}")


@pytest.mark.parametrize("status", ["PASSED", "skipped", ""])
def test_a_computed_summary_names_the_status_it_cannot_count(status, tmp_path):
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_mutated(LOCATIONS["case status"], status, summary=False)))
    for read in (ae.load_run, lambda p: ae.load_run(json.loads(p.read_text()))):
        with pytest.raises(ae.FormatError) as info:
            read(path)
        assert info.value.json_path == "$.evalCaseResults[1].finalEvalStatus"
        assert '"passed", "failed", "not_evaluated"' in info.value.expected


def test_a_summary_less_file_is_streamed_and_its_odd_case_named_by_file_and_path(tmp_path):
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_mutated(LOCATIONS["run id"], -1, summary=False)))
    streamed = open_result(path)
    assert streamed is not None and streamed.head.summary is None
    with pytest.raises(ae.FormatError) as info:
        ae.load_run(path)
    assert (info.value.source, info.value.json_path) == (str(path), "$.evalCaseResults[1].runId")


def test_report_of_an_unreadable_result_names_file_and_path_without_traceback(tmp_path):
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_mutated(LOCATIONS["case status"], "PASSED", summary=False)))
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval_nb", "report", str(path), "-o", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"{path}: $.evalCaseResults[1].finalEvalStatus: " in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_streamed_result_keeps_each_case_result_as_its_compact_text(tmp_path):
    """The texts are cut from the case array formatted compact in one pass: each is the case
    result's own text without whitespace, values written as they stand."""
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(BASE, indent=2))
    streamed = open_result(path)
    assert streamed is not None
    top = msgspec.json.decode(path.read_bytes(), type=dict[str, msgspec.Raw])
    cases = msgspec.json.decode(top["evalCaseResults"], type=list[msgspec.Raw])
    assert len(cases) > 1
    assert streamed.texts == [msgspec.json.format(r, indent=-1) for r in cases]
    assert [json.loads(t) for t in streamed.texts] == BASE["evalCaseResults"]


def _respelled(node: Any) -> Any:
    """``node`` with every key in upper case (Go's decoder matches keys ignoring case)."""
    if isinstance(node, dict):
        return {k.upper(): _respelled(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_respelled(v) for v in node]
    return node


@pytest.mark.parametrize("summary", [True, False])
def test_a_streamed_case_result_is_folded_when_its_keys_are_spelled_otherwise(summary, tmp_path):
    """Folding is skipped only for bytes that show it would change nothing: a case result
    (and a case summary) whose keys are spelled in another case reads as the file's model
    reader reads it, beside one written in the wire spelling."""
    doc = copy.deepcopy(BASE)
    if not summary:
        del doc["summary"]
    case = doc["evalCaseResults"][1] = _respelled(doc["evalCaseResults"][1])
    case["runId"] = case.pop("RUNID")  # (the splitter reads runIds by their wire key)
    if summary:
        doc["summary"]["evalCaseSummaries"][0] = _respelled(doc["summary"]["evalCaseSummaries"][0])
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(doc, indent=2))
    streamed = open_result(path)
    assert streamed is not None
    whole = ae.load_result(path)
    assert whole.eval_case_results is not None
    got = [streamed.case_result(i) for i in range(len(streamed.texts))]
    assert got == whole.eval_case_results
    assert got[1].eval_id == BASE["evalCaseResults"][1]["evalId"]
    assert got[1].overall_eval_metric_results
    if summary:
        assert whole.summary is not None
        assert list(streamed.case_summaries()) == whole.summary.eval_case_summaries
    cases = ae.load_run(path).cases_df(backend="polars")
    assert cases["eval_id"].to_list() == [c["evalId"] for c in BASE["evalCaseResults"]]
