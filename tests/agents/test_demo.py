"""``agenteval demo`` end to end as a subprocess, offline: both demos write results and
reports; the live-agent demo is reproducible and says that its models are not LLMs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import agenteval_nb as ae

ROOT = Path(__file__).resolve().parents[2]


def _demo(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTEVAL_"))}
    env["AGENTEVAL_NB_CACHE_DIR"] = str(out / "cache")
    return subprocess.run(
        [sys.executable, "-m", "agenteval_nb", "demo", "--out", str(out), "--quiet", *extra],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_demo_runs_the_live_agent_offline(tmp_path: Path) -> None:
    done = _demo(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "neither is an LLM" in done.stdout
    assert (tmp_path / "report.html").is_file()
    report = (tmp_path / "agent" / "report.html").read_text()
    assert "scripted-agent (offline, not an LLM)" in report
    run = ae.load_run(tmp_path / "agent" / "travel_agent.evalset_result.json")
    cases = run.cases_df(backend="polars")
    assert cases.height == 36  # 12 cases x 3 runs
    statuses = set(cases["status"].to_list())
    assert statuses == {"passed", "failed"}  # the scripted model's mistakes show up
    passk = run.pass_at_k_df(ks=(1, 3), backend="polars")
    assert passk.height > 0
    exp = ae.load_experiment(tmp_path / "experiment")
    assert exp.variants == ["assistant", "careful", "weather_only"]
    overall = exp.leaderboard_df(backend="polars").filter(pl.col("metric_name") == "overall")
    assert overall["variant"][0] == "careful"  # fewer mistakes: a real spread
    assert len(set(overall["pass_rate"].to_list())) == 3
    assert (tmp_path / "experiment" / "report.html").is_file()
    first = json.loads((tmp_path / "agent" / "travel_agent.evalset_result.json").read_text())
    again = tmp_path / "again"
    assert _demo(again, "--no-judge").returncode == 0
    second = json.loads((again / "agent" / "travel_agent.evalset_result.json").read_text())

    def verdicts(doc):
        return [
            (
                c["runId"],
                c["evalId"],
                [
                    (m["metricName"], m["evalStatus"])
                    for m in c.get("overallEvalMetricResults", [])
                    if m["metricName"] in ("tool_trajectory_avg_score", "final_response_avg_score")
                ],
            )
            for c in doc["evalCaseResults"]
        ]

    assert verdicts(first) == verdicts(second)  # same session ids ⇒ same mistakes
