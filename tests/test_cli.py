"""The ``agenteval`` CLI as a CI job runs it: a subprocess, its exit code, stdout/stderr, files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _builders import evalset, trace_case, turn

import agenteval_nb as ae
from agenteval_nb.cli import build_parser, gate
from agenteval_nb.stores import SQLResultStore

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "io" / "samples"
EXACT = {
    "metricName": "final_response_avg_score",
    "threshold": 1,
    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
}


def agenteval(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a subprocess; this checkout's package first, also when ``cwd`` is
    elsewhere."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "agenteval_nb", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )


def write(path: Path, data: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """A trace eval set with one passing and one failing case, and an exact-match metric."""
    return {
        "mixed": write(
            tmp_path / "mixed.evalset.json",
            evalset(
                trace_case("ok", ["a"], ["a"]),
                trace_case("bad <&>", ["a"], ["x \x01 ctrl"]),
                set_id="mixed",
            ),
        ),
        "good": write(
            tmp_path / "good.evalset.json",
            evalset(trace_case("ok", ["a"], ["a"]), set_id="good"),
        ),
        "metrics": write(tmp_path / "exact.metrics.json", [EXACT]),
    }


# ------------------------------------------------------------------------------ JUnit


JUNIT_SCHEMA: dict[str, dict[str, Any]] = {
    # element: required attributes, optional attributes, allowed children
    "testsuites": {
        "required": set(),
        "optional": {"name", "tests", "failures", "errors", "skipped", "time"},
        "children": {"testsuite"},
    },
    "testsuite": {
        "required": {"name", "tests", "failures", "errors"},
        "optional": {"skipped", "time", "timestamp"},
        "children": {"properties", "testcase"},
    },
    "properties": {"required": set(), "optional": set(), "children": {"property"}},
    "property": {"required": {"name", "value"}, "optional": set(), "children": set()},
    "testcase": {
        "required": {"name", "classname"},
        "optional": {"time"},
        "children": {"failure", "error", "skipped"},
    },
    "failure": {"required": {"message"}, "optional": {"type"}, "children": set()},
    "error": {"required": {"message"}, "optional": {"type"}, "children": set()},
    "skipped": {"required": set(), "optional": {"message"}, "children": set()},
}
"""The subset of the JUnit XML schema (Jenkins / Ant ``junit-4.xsd``) that CI systems read."""


def check_junit(path: Path) -> ET.Element:
    """Parse ``path`` and check it against :data:`JUNIT_SCHEMA` and the counts it claims."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    stack = [root]
    while stack:
        element = stack.pop()
        rule = JUNIT_SCHEMA[element.tag]
        attributes = set(element.attrib)
        assert rule["required"] <= attributes, (element.tag, attributes)
        assert attributes <= rule["required"] | rule["optional"], (element.tag, attributes)
        for child in element:
            assert child.tag in rule["children"], (element.tag, child.tag)
            stack.append(child)
        if element.tag == "testcase":
            assert len(element) <= 1
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        for kind, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attr, "0")) == sum(1 for c in cases if c.find(kind) is not None)
        for attr in ("tests", "failures", "errors", "skipped"):
            assert root.get(attr) == suite.get(attr)
    return root


# ------------------------------------------------------------------------------ run


def test_run_that_passes_exits_0_with_table_and_junit(files, tmp_path):
    junit = tmp_path / "ci" / "junit.xml"
    report = tmp_path / "ci" / "report.html"
    proc = agenteval(
        "run", files["good"], "--metrics", files["metrics"], "--junit", str(junit),
        "--report", str(report), "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "final_response_avg_score" in proc.stdout and "PASSED" in proc.stdout
    assert "Traceback" not in proc.stderr
    assert f"junit: {junit}" in proc.stderr  # file paths go to stderr, the table to stdout
    root = check_junit(junit)
    (case,) = root.iter("testcase")
    assert (case.get("classname"), case.get("name")) == ("good", "ok")
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_run_that_fails_exits_1_and_junit_carries_the_reason(files, tmp_path):
    junit = tmp_path / "junit.xml"
    proc = agenteval("run", files["mixed"], "--metrics", files["metrics"], "--junit", str(junit))
    assert proc.returncode == 1, proc.stderr
    assert "FAILED: overall status failed" in proc.stdout
    assert "pass rate 50.0% (1/2" in proc.stdout
    root = check_junit(junit)
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"ok", "bad <&>"}
    assert cases["ok"].find("failure") is None
    failure = cases["bad <&>"].find("failure")
    assert failure.get("type") == "threshold"
    assert "final_response_avg_score: failed (score 0, threshold 1)" in failure.get("message")
    assert "\x01" not in ET.tostring(root, encoding="unicode")  # not XML 1.0, replaced
    assert root.find("testsuite").get("failures") == "1"


@pytest.mark.parametrize(("rate", "code"), [("0.5", 0), ("50%", 0), ("0.51", 1), ("100%", 1)])
def test_fail_under_gates_on_the_pass_rate(files, rate, code):
    proc = agenteval("run", files["mixed"], "--metrics", files["metrics"], "--fail-under", rate)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "required" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "{good}"], "the following arguments are required: --metrics"),
        (["run", "{missing}", "--metrics", "{metrics}"], "file not found"),
        (["run", "{good}", "--metrics", "{good}"], "a JSON array of metrics"),
        (["run", "{good}", "--metrics", "{metrics}", "--fail-under", "2"], "between 0 and 1"),
        (["run", "{good}", "--metrics", "{metrics}", "--runs", "0"], "at least 1"),
        (["run", "{good}", "--metrics", "{metrics}", "--agent", "nomodule_xyz:f"], "cannot import"),
        (["run", "{good}", "--metrics", "{metrics}", "--agent", "json"], "module:object"),
        (["run", "{good}", "--metrics", "{metrics}", "--store", "nodb+x://h/d"], "dialect"),
        (["report", "{missing}"], "file not found"),
        (["report", "--store", "sqlite:///{tmp}/r.db"], "--store needs --app"),
        (["passk"], "give a RESULT"),
        (["convert", "{missing}", "{tmp}/out.json"], "file not found"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_user_errors_exit_2_without_traceback(files, tmp_path, args, message):
    values = {**files, "missing": str(tmp_path / "missing.json"), "tmp": str(tmp_path)}
    proc = agenteval(*(a.format(**values) for a in args))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


AGENT_MODULE = """
ANSWERS = {"q0": "a", "q1": "b"}

def agent(text):
    return ANSWERS.get(text, "?")

def make_agent(prefix=""):
    def answer(text):
        return prefix + ANSWERS.get(text, "?")
    return answer

class Shouty:
    def __call__(self, text):
        return ANSWERS.get(text, "?").upper()
"""


@pytest.mark.parametrize(
    ("spec", "code"),
    [("my_agents:agent", 0), ("my_agents:make_agent", 0), ("my_agents:Shouty", 1)],
)
def test_agent_objects_factories_and_classes(tmp_path, spec, code):
    (tmp_path / "my_agents.py").write_text(AGENT_MODULE, encoding="utf-8")
    live = {
        "evalId": "live",
        "conversation": [turn("q0", "a"), turn("q1", "b")],
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    es = write(tmp_path / "live.evalset.json", {"evalSetId": "live", "evalCases": [live]})
    metrics = write(tmp_path / "m.json", [EXACT])
    proc = agenteval("run", es, "--metrics", metrics, "--agent", spec, "--quiet", cwd=tmp_path)
    assert proc.returncode == code, proc.stdout + proc.stderr


def test_agent_from_a_file_path_and_several_runs(tmp_path):
    (tmp_path / "agents_file.py").write_text(AGENT_MODULE, encoding="utf-8")
    live = {
        "evalId": "live",
        "conversation": [turn("q0", "a")],
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    es = write(tmp_path / "live.evalset.json", {"evalSetId": "live", "evalCases": [live]})
    metrics = write(tmp_path / "m.json", [EXACT])
    junit = tmp_path / "j.xml"
    out = tmp_path / "out"
    proc = agenteval(
        "run", es, "--metrics", metrics, "--agent", f"{tmp_path / 'agents_file.py'}:agent",
        "--runs", "3", "--junit", str(junit), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    names = [c.get("name") for c in check_junit(junit).iter("testcase")]
    assert names == ["live [run 1]", "live [run 2]", "live [run 3]"]
    result = out / "live.evalset_result.json"
    assert ae.load_run(result).num_runs == 3

    passk = agenteval("passk", str(result), "--k", "1", "2", "3")
    assert passk.returncode == 0, passk.stderr
    lines = passk.stdout.splitlines()
    assert lines[1].split()[:3] == ["k", "cases", "pass@k"]
    assert [line.split()[0] for line in lines[3:]] == ["1", "2", "3"]
    as_json = agenteval("passk", str(result), "--k", "2", "--json")
    rows = json.loads(as_json.stdout)
    assert {r["level"] for r in rows} == {"case", "overall", "eval_set"}


# ------------------------------------------------------------------------------ stores


def test_store_then_report_and_load_run_from_the_store(files, tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    first = agenteval("run", files["good"], "--metrics", files["metrics"], "--store", url)
    second = agenteval("run", files["mixed"], "--metrics", files["metrics"], "--store", url)
    assert (first.returncode, second.returncode) == (0, 1), first.stderr + second.stderr
    assert "stored: SQLResultStore" in first.stderr

    with SQLResultStore(url) as store:
        ids = store.list_results("app")
        assert len(ids) == 2
        runs = ae.load_run(store, "app")
        assert sorted(run.result.eval_set_id for run in runs) == ["good", "mixed"]
        one = ae.load_run(store, "app", ids[0])
        assert one.app_name == "app" and one.result.eval_set_result_id == ids[0]

    reports = tmp_path / "reports"
    proc = agenteval("report", "--store", url, "--app", "app", "-o", str(reports))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in reports.iterdir()) == sorted(f"{i}.html" for i in ids)
    single = agenteval(
        "report", "--store", url, "--app", "app", "--result-id", ids[1], cwd=tmp_path
    )
    assert single.returncode == 0, single.stderr
    assert (tmp_path / f"{ids[1]}.html").is_file()


def test_report_of_a_folder_with_several_results(files, tmp_path):
    out = tmp_path / "results"
    for name in ("good", "mixed"):
        proc = agenteval("evaluate", files[name], "--metrics", files["metrics"], "--out", str(out / name), "--quiet")  # fmt: skip
        assert proc.returncode in (0, 1), proc.stderr
        assert (out / name / "report.html").is_file()  # evaluate = run with report in --out
    proc = agenteval("report", str(out), "-o", str(tmp_path / "html"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "html").iterdir()) == ["good.html", "mixed.html"]


# ------------------------------------------------------------------------------ compare


def test_compare_two_results(files, tmp_path):
    # same cases: "ok" passes in both, the second run fixes nothing and breaks "ok"
    a = write(tmp_path / "a.evalset.json", evalset(trace_case("ok", ["a"], ["a"]), trace_case("c2", ["a"], ["a"]), set_id="s"))  # fmt: skip
    b = write(tmp_path / "b.evalset.json", evalset(trace_case("ok", ["a"], ["x"]), trace_case("c2", ["a"], ["a"]), set_id="s"))  # fmt: skip
    for name, path in (("a", a), ("b", b)):
        agenteval("run", path, "--metrics", files["metrics"], "--out", str(tmp_path / name), "--quiet")  # fmt: skip
    result_a = tmp_path / "a" / "s.evalset_result.json"
    result_b = tmp_path / "b" / "s.evalset_result.json"
    csv = tmp_path / "cmp.csv"
    proc = agenteval("compare", str(result_a), str(result_b), "--csv", str(csv))
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("final_response"))
    cells = row.split()
    assert cells[1] == "2" and float(cells[2]) == 0.5  # n, mean diff A − B
    expected = ae.compare(result_a, result_b).stats
    assert int(cells[-2]) == int(expected["n_flipped"].iloc[0]) == 1
    assert "score_a" in csv.read_text(encoding="utf-8").splitlines()[0]


# ------------------------------------------------------------------------------ convert


def test_convert_adk_eval_set_and_test_config(tmp_path):
    out = tmp_path / "roll_dice.evalset.json"
    proc = agenteval("convert", str(SAMPLES / "roll_dice.test.json"), str(out))
    assert proc.returncode == 0, proc.stderr
    converted = json.loads(out.read_text(encoding="utf-8"))
    assert "evalCases" in converted and "evalSetId" in converted
    assert ae.load_evalset(out) == ae.load_evalset(SAMPLES / "roll_dice.test.json")

    metrics_out = tmp_path / "m.metrics.json"
    proc = agenteval("convert", str(SAMPLES / "test_config.json"), str(metrics_out))
    assert proc.returncode == 0, proc.stderr
    names = [m["metricName"] for m in json.loads(metrics_out.read_text(encoding="utf-8"))]
    assert names == [m.metric_name for m in ae.load_metrics(SAMPLES / "test_config.json")]


# ------------------------------------------------------------------------------ in process


def test_gate_rules():
    run = ae.load_run(
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {"evalSetId": "s", "evalId": "a", "runId": 1, "finalEvalStatus": "passed"},
                {"evalSetId": "s", "evalId": "b", "runId": 1, "finalEvalStatus": "failed"},
            ],
        }
    )
    assert gate(run, None) == (
        False,
        "FAILED: overall status failed, pass rate 50.0% (1/2 cases passed, runs averaged per case)",
    )
    assert gate(run, 0.5) == (
        True,
        "PASSED: pass rate 50.0% (1/2 cases passed, runs averaged per case), required 50.0%",
    )
    assert gate(run, 0.6)[0] is False
    empty = ae.load_run({"evalSetId": "s", "evalCaseResults": []})
    assert gate(empty, 0.0) == (False, "FAILED: no case results")


def test_every_command_has_help():
    parser = build_parser()
    for command in (
        "run",
        "evaluate",
        "report",
        "passk",
        "compare",
        "leaderboard",
        "convert",
        "demo",
    ):
        with pytest.raises(SystemExit) as info:
            parser.parse_args([command, "--help"])
        assert info.value.code == 0
