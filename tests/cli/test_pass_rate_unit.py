"""One unit for pass rates (issue 24 §4): the CLI, ``summary_text``, the repr and the report show
the same pass rate, counted over cases (each case's runs averaged first), with the same label."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import agenteval_nb as ae
from agenteval_nb.analysis.headline import pass_rate_text

ROOT = Path(__file__).resolve().parents[2]

AGENT = """
CALLS = {}

def flaky(text):
    # q0 always right, q1 right on its first call only, q2 never right
    CALLS[text] = CALLS.get(text, 0) + 1
    if text == "q0" or (text == "q1" and CALLS[text] == 1):
        return {"q0": "a", "q1": "b"}[text]
    return "?"
"""
METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def live_case(eval_id: str, user: str, answer: str) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "sessionInput": {"appName": "app", "userId": "u"},
        "conversation": [
            {
                "userContent": {"role": "user", "content": user},
                "finalResponse": {"role": "assistant", "content": answer},
            }
        ],
    }


def visible_text(markup: str) -> str:
    """The page's text: tags dropped, entities decoded, whitespace collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup)))


def test_cli_summary_text_repr_and_report_agree_on_the_case_pass_rate(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENT, encoding="utf-8")
    three = {
        "evalSetId": "three",
        "evalCases": [
            live_case("c0", "q0", "a"),
            live_case("c1", "q1", "b"),
            live_case("c2", "q2", "c"),
        ],
    }
    (tmp_path / "three.evalset.json").write_text(json.dumps(three), encoding="utf-8")
    (tmp_path / "m.json").write_text(json.dumps(METRICS), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT)]))}
    env.pop("AGENTEVAL_DEBUG", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval_nb",
            "run",
            "three.evalset.json",
            "--agent",
            "agents.py:flaky",
            "--metrics",
            "m.json",
            "--runs",
            "3",
            "--quiet",
            "--out",
            "out",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    run = ae.load_run(next((tmp_path / "out").glob("*.evalset_result.json")))
    # 9 case results, 4 passed; over cases (runs averaged) only c0 passes: 1 of 3
    assert run.case_status_counts()["passed"] == 4
    expected = pass_rate_text(1, 3)
    assert expected == "33.3% (1/3 cases passed, runs averaged per case)"
    page = ae.export_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    report_rows = [visible_text(row) for row in page.split("<tr")]
    for shown in (proc.stdout, run.summary_text(), visible_text(run._repr_html_())):
        assert f"pass rate {expected}" in shown  # the cases
        assert f"final_response_avg_score: {expected}" in shown  # the metric
    assert f"pass rate {expected}" in visible_text(page)
    assert any("final_response_avg_score" in row and expected in row for row in report_rows)
    assert "cases=3" in repr(run) and "case_results=9" in repr(run)
