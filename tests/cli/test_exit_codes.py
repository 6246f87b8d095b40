"""Every row of the exit-code table of ``docs/cli.md``, as a CI job meets it: ``agenteval run`` in
a subprocess, with agents (hostile ones included) written to ``tmp_path`` (issue 20, class 1)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOISE = "Task exception was never retrieved"

AGENTS = """
import asyncio, os, pathlib, sys, threading

from agenteval_nb.agents import FunctionAgent, Turn

ANSWERS = {"q0": "a", "q1": "b"}


def good(text):
    return ANSWERS[text]


def wrong(text):
    return "?"


def exits(text):
    if text == "q1":
        sys.exit(0)
    return ANSWERS[text]


async def async_exits(text):
    if text == "q1":
        sys.exit(0)
    return ANSWERS[text]


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


def unprintable(text):
    if text == "q1":
        raise Unprintable()
    return ANSWERS[text]


def exiting_tool(city: str) -> str:
    sys.exit(0)


def _calls_tool(turn: Turn) -> str:
    if turn.text == "q1":
        return turn.tools.call("exiting_tool", {"city": "Oslo"})
    return ANSWERS[turn.text]


tool_exits = FunctionAgent(_calls_tool, tools=[exiting_tool])


def stuck(text):
    if text == "q1":
        threading.Event().wait()
    return ANSWERS[text]


def always_raises(text):
    raise RuntimeError("backend down")


async def ends_the_loop(text):
    asyncio.get_running_loop().call_soon(sys.exit, 0)
    await asyncio.sleep(0.2)
    return ANSWERS[text]


def waits_for_ctrl_c(text):
    pathlib.Path(os.environ["AGENT_STARTED"]).write_text("started")
    threading.Event().wait()


NOT_CALLABLE = 42


def two_arguments(a, b):
    return a


class NeedsArguments:
    def __init__(self, model):
        self.model = model

    def __call__(self, text):
        return text


def factory_raises():
    raise RuntimeError("factory broke\\nsecond line")


class InitExits:
    def __init__(self):
        sys.exit(0)


def factory_returns_junk():
    return 42


class RunTurnWithoutTools:
    async def run_turn(self, turn):
        return "x"
"""

MODULES = {
    "hostile.py": AGENTS,
    "broken_import.py": "raise RuntimeError('cannot import me')\n",
    "exits_on_import.py": "import sys\nsys.exit(0)\n",
    "buggy.py": (
        "import agenteval_nb.cli as cli\n"
        "def _bug(run):\n    raise ZeroDivisionError('a bug in the toolkit')\n"
        "cli.summary_table = _bug  # stands in for a bug of agenteval itself\n"
        "def agent(text):\n    return {'q0': 'a', 'q1': 'b'}[text]\n"
    ),
}
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


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """``tmp_path`` with the agent modules, a two-case eval set, an empty one and the metrics."""
    for name, text in MODULES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    two = {
        "evalSetId": "two",
        "evalCases": [live_case("c0", "q0", "a"), live_case("c1", "q1", "b")],
    }
    (tmp_path / "two.evalset.json").write_text(json.dumps(two), encoding="utf-8")
    empty = {"evalSetId": "empty", "evalCases": []}
    (tmp_path / "empty.evalset.json").write_text(json.dumps(empty), encoding="utf-8")
    (tmp_path / "m.json").write_text(json.dumps(METRICS), encoding="utf-8")
    return tmp_path


def environment(**extra: str) -> dict[str, str]:
    """This checkout first on the path (the subprocess runs in ``tmp_path``); no debug."""
    env = {k: v for k, v in os.environ.items() if k != "AGENTEVAL_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return {**env, **extra}


def agenteval_run(work: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agenteval_nb", "run", *args, "--metrics", "m.json", "--quiet"],
        capture_output=True,
        text=True,
        cwd=work,
        timeout=120,
        env=environment(**env),
    )


def with_agent(spec: str, *more: str) -> list[str]:
    return ["two.evalset.json", "--agent", f"hostile.py:{spec}", *more]


# (row of the docs table, arguments, exit code, text expected on stdout or stderr)
ROWS: list[tuple[str, list[str], int, str]] = [
    ("passed", with_agent("good"), 0, "PASSED: overall status passed"),
    ("passed", with_agent("good", "--fail-under", "100%"), 0, "PASSED: pass rate 100.0%"),
    ("gate failed", with_agent("wrong"), 1, "FAILED: overall status failed"),
    ("gate failed", with_agent("exits", "--fail-under", "0.9"), 1, "FAILED: pass rate 50.0%"),
    ("case could not finish", with_agent("exits"), 1, "turn 1: SystemExit: 0"),
    ("case could not finish", with_agent("async_exits"), 1, "turn 1: SystemExit: 0"),
    ("case could not finish", with_agent("unprintable"), 1, "turn 1: Unprintable"),
    ("case could not finish", with_agent("tool_exits"), 1, "error: SystemExit: 0"),
    (
        "case could not finish",
        with_agent("stuck", "--agent-timeout", "0.5"),
        1,
        "the agent did not answer within 0.5 s",
    ),
    ("nothing evaluated", ["empty.evalset.json"], 1, "FAILED: no case results"),
    (
        "nothing evaluated",
        with_agent("always_raises", "--fail-under", "0"),
        1,
        "FAILED: no case was evaluated",
    ),
    (
        "nothing evaluated",
        ["two.evalset.json", "--fail-under", "0"],
        1,
        "FAILED: no case was evaluated",
    ),
    (
        "did not run to the end",
        with_agent("ends_the_loop"),
        1,
        "FAILED: the evaluation did not run to the end: SystemExit: 0",
    ),
    ("usage", ["two.evalset.json", "--agent", "no_such_module_xyz:agent"], 2, "cannot import"),
    ("usage", with_agent("missing"), 2, "has no 'missing'"),
    ("usage", ["two.evalset.json", "--agent", "missing.py:agent"], 2, "no file missing.py"),
    ("usage", with_agent("NOT_CALLABLE"), 2, "not an agent: agent must be a function"),
    ("usage", with_agent("two_arguments"), 2, "must take one argument"),
    ("usage", with_agent("RunTurnWithoutTools"), 2, "has run_turn but no `tools` list"),
    ("usage", with_agent("NeedsArguments"), 2, "cannot build NeedsArguments() without arguments"),
    (
        "usage",
        with_agent("factory_raises"),
        2,
        "factory_raises() raised RuntimeError: factory broke",
    ),
    ("usage", with_agent("InitExits"), 2, "InitExits() raised SystemExit: 0"),
    ("usage", with_agent("factory_returns_junk"), 2, "factory_returns_junk() returned int"),
    (
        "usage",
        ["two.evalset.json", "--agent", "broken_import.py:agent"],
        2,
        "importing broken_import.py raised RuntimeError: cannot import me",
    ),
    (
        "usage",
        ["two.evalset.json", "--agent", "exits_on_import.py:agent"],
        2,
        "importing exits_on_import.py raised SystemExit: 0",
    ),
    ("usage", with_agent("good", "--agent-timeout", "0"), 2, "--agent-timeout"),
    (
        "unexpected failure",
        ["two.evalset.json", "--agent", "buggy.py:agent"],
        3,
        "ZeroDivisionError: a bug in the toolkit",
    ),
]


@pytest.mark.parametrize(("row", "args", "code", "text"), ROWS, ids=[" ".join(r[1]) for r in ROWS])
def test_exit_code(work, row, args, code, text) -> None:
    proc = agenteval_run(work, *args)
    output = proc.stdout + proc.stderr
    assert proc.returncode == code, output
    assert text in output
    assert NOISE not in proc.stderr
    if code == 0:
        assert "FAILED" not in proc.stdout
    if code == 1:
        assert proc.stdout.rstrip().splitlines()[-1].startswith("FAILED: "), output
    if code == 2:
        assert proc.stdout == ""
    if row == "usage" and "--agent-timeout" not in args:  # argparse adds its usage line
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: "), proc.stderr
    if code in (1, 2):
        assert "Traceback" not in proc.stderr
    if code == 3:
        assert "Traceback" in proc.stderr and "unexpected failure (exit 3)" in proc.stderr


@pytest.mark.parametrize(
    ("flag", "env"), [(["--debug"], {}), ([], {"AGENTEVAL_DEBUG": "1"})], ids=["flag", "env"]
)
def test_debug_shows_the_traceback_of_a_bad_agent(work, flag, env) -> None:
    proc = agenteval_run(work, *with_agent("factory_raises"), *flag, **env)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" in proc.stderr and 'raise RuntimeError("factory broke' in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("error: --agent")


def test_ctrl_c_stops_the_run_with_exit_130(work) -> None:
    started = work / "started.txt"
    command = ["run", *with_agent("waits_for_ctrl_c"), "--metrics", "m.json", "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval_nb", *command],
        cwd=work,
        env=environment(AGENT_STARTED=str(started)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the agent never started"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)  # the stuck agent's thread must not hold it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert NOISE not in stderr


DOCUMENTED = {
    "passed": 0,
    "gate failed": 1,
    "case could not finish": 1,
    "nothing evaluated": 1,
    "did not run to the end": 1,
    "usage": 2,
    "unexpected failure": 3,
    "interrupted": 130,
}
"""The rows of the docs table (by their first words) and their exit codes."""


def test_the_docs_table_lists_every_tested_row() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| \*\*([^*]+)\*\*", text, flags=re.MULTILINE)
    assert {name: int(code) for code, name in rows} == DOCUMENTED
    assert {row for row, *_ in ROWS} | {"interrupted"} == set(DOCUMENTED)
    assert all(DOCUMENTED[row] == code for row, _, code, _ in ROWS)
