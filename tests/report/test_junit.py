"""JUnit XML of a run: one testcase per case × run, failures/errors/skips, clean text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import agenteval_nb as ae
from agenteval_nb.report.junit import MESSAGE_LIMIT, junit_xml, write_junit


def _case(eval_id: str, run_id: int, status: str, **extra: object) -> dict[str, object]:
    return {
        "evalSetId": "s",
        "evalId": eval_id,
        "runId": run_id,
        "finalEvalStatus": status,
        **extra,
    }


def _metric(status: str, score: float, reason: str) -> dict[str, object]:
    return {
        "metricName": "m",
        "score": score,
        "threshold": 0.8,
        "evalStatus": status,
        "details": {"reason": reason},
    }


def _run() -> ae.EvalRun:
    return ae.load_run(
        {
            "evalSetId": "s",
            "evalCaseResults": [
                _case("a", 1, "passed", overallEvalMetricResults=[_metric("passed", 1, "ok")]),
                _case(
                    "a", 2, "failed", overallEvalMetricResults=[_metric("failed", 0.25, "bad \x00")]
                ),
                _case("b", 1, "failed", errorMessage="agent raised: key sk-abcdefghijklmnopqrstu"),
                _case("b", 2, "not_evaluated"),
            ],
        }
    )


def test_one_testcase_per_case_and_run_with_outcomes():
    root = ET.fromstring(junit_xml(_run().record))
    suite = root.find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == ["a [run 1]", "a [run 2]", "b [run 1]", "b [run 2]"]
    assert len(cases["a [run 1]"]) == 0
    failure = cases["a [run 2]"].find("failure")
    assert failure.get("message") == "m: failed (score 0.25, threshold 0.8): bad \ufffd"
    error = cases["b [run 1]"].find("error")
    assert "agent raised" in error.get("message") and "sk-abc" not in error.get("message")
    assert cases["b [run 2]"].find("skipped") is not None
    assert (
        suite.get("tests"),
        suite.get("failures"),
        suite.get("errors"),
        suite.get("skipped"),
    ) == (
        "4",
        "1",
        "1",
        "1",
    )


def test_long_messages_are_cut_but_the_body_keeps_everything(tmp_path):
    reason = "x" * (MESSAGE_LIMIT * 2)
    run = ae.load_run(
        {
            "evalSetId": "s",
            "evalCaseResults": [
                _case("a", 1, "failed", overallEvalMetricResults=[_metric("failed", 0, reason)])
            ],
        }
    )
    path = write_junit(run.record, tmp_path / "deep" / "junit.xml")
    failure = ET.parse(path).getroot().find("testsuite/testcase/failure")
    assert len(failure.get("message")) == MESSAGE_LIMIT
    assert reason in failure.text
    assert path.read_text(encoding="utf-8").startswith("<?xml version='1.0' encoding='utf-8'?>")
