"""The CLI with trpc-agent-python's {"metrics": [...], "num_runs": N} test_config.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _builders import evalset, trace_case

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "trpc-agent-python"


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "agenteval_nb", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )


def test_convert_detects_a_metrics_object(tmp_path):
    out = tmp_path / "metrics.json"
    proc = agenteval("convert", str(CORPUS / "pass_at_k.test_config.json"), str(out))
    assert proc.returncode == 0, proc.stderr
    assert "2 metric(s)" in proc.stdout
    metrics = json.loads(out.read_text(encoding="utf-8"))
    assert metrics[0]["criterion"]["toolTrajectory"]["defaultStrategy"]


def test_convert_a_csv_to_a_go_eval_set(tmp_path):
    table = tmp_path / "faq.csv"
    table.write_text("id,user,expected\nq1,hi,hello\n", encoding="utf-8")
    out = tmp_path / "faq.evalset.json"
    proc = agenteval("convert", str(table), str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["evalCases"][0]["evalId"] == "q1"


def test_run_takes_num_runs_from_the_file_and_says_so(tmp_path):
    sets = tmp_path / "s.evalset.json"
    sets.write_text(json.dumps(evalset(trace_case("a", ["x"], ["x"]), set_id="s")), "utf-8")
    proc = agenteval(
        "run", str(sets), "--metrics", str(CORPUS / "ci_integration.test_config.json"), "--quiet"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "num_runs 1 (from" in proc.stdout
    config = tmp_path / "test_config.json"
    data = json.loads((CORPUS / "ci_integration.test_config.json").read_text("utf-8"))
    config.write_text(json.dumps({**data, "num_runs": 2}), "utf-8")
    proc = agenteval("run", str(sets), "--metrics", str(config), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "num_runs 2 (from" in proc.stdout
    assert "2 run(s)" in proc.stdout
