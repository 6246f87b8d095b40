"""Whatever an agent, a tool or a user simulator raises stays in its case (issue 20, class 2):
``BaseException``s other than ``KeyboardInterrupt`` included, and exceptions that cannot even
be printed; ``KeyboardInterrupt`` still stops the run; a stuck sync agent does not keep the
process alive."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _agent_builders import default_case, evalset, metrics

import agenteval_nb as ae
from agenteval_nb.agents import FunctionAgent, Turn
from agenteval_nb.agents.tools import DaemonThreadPool

ROOT = Path(__file__).resolve().parents[2]


class Unprintable(Exception):
    """An exception whose ``str`` and ``repr`` raise."""

    def __str__(self) -> str:
        raise RuntimeError("str() of this exception fails")

    def __repr__(self) -> str:
        raise RuntimeError("repr() of this exception fails")


class Custom(BaseException):
    """A user-defined BaseException (not an Exception)."""


class UnprintableBase(BaseException):
    def __str__(self) -> str:
        raise ValueError("no text")


RAISED: list[tuple[Callable[[], BaseException], str]] = [
    (lambda: SystemExit(0), "SystemExit: 0"),
    (lambda: SystemExit(), "SystemExit"),
    (lambda: GeneratorExit(), "GeneratorExit"),
    (lambda: Custom("boom"), "Custom: boom"),
    (lambda: Unprintable(), "Unprintable"),
    (lambda: UnprintableBase(), "UnprintableBase"),
    (lambda: RuntimeError("plain"), "RuntimeError: plain"),
]
IDS = ["SystemExit0", "SystemExit", "GeneratorExit", "custom", "unprintable", "unprintable-base"]
IDS.append("plain")

TWO = evalset(default_case("bad", [("x", "X")]), default_case("ok", [("y", "Y")]))


def _statuses(run: ae.EvalRun) -> list[str]:
    return [r.final_eval_status for r in run.result.eval_case_results]


def _error(run: ae.EvalRun, index: int = 0) -> str:
    return run.result.eval_case_results[index].error_message or ""


@pytest.mark.parametrize(("make", "shown"), RAISED, ids=IDS)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_anything_an_agent_raises_fails_only_its_case(make, shown, kind) -> None:
    def sync_agent(turn: Turn) -> str:
        if turn.eval_id == "bad":
            raise make()
        return turn.text.upper()

    async def async_agent(turn: Turn) -> str:
        return sync_agent(turn)

    agent = sync_agent if kind == "sync" else async_agent
    run = ae.evaluate(TWO, metrics(), agent=agent, progress=False, case_parallelism=1)
    assert _statuses(run) == ["failed", "passed"]
    assert f"turn 1: {shown}" in _error(run)


@pytest.mark.parametrize(("make", "shown"), RAISED, ids=IDS)
def test_anything_a_tool_raises_is_the_error_result_the_agent_sees(make, shown) -> None:
    def lookup(city: str) -> str:
        raise make()

    async def async_lookup(city: str) -> str:
        raise make()

    def agent(turn: Turn) -> str:
        answers = []
        for name in ("lookup", "async_lookup"):
            try:
                turn.tools.call(name, {"city": turn.text})
            except ae.agents.ToolCallError as exc:
                answers.append(str(exc))
        return " | ".join(answers)

    one = evalset(default_case("c", [("x", "X")]))
    run = ae.evaluate(
        one, metrics(), agent=FunctionAgent(agent, tools=[lookup, async_lookup]), progress=False
    )
    case = run.result.eval_case_results[0]
    assert case.error_message is None
    tools = case.eval_metric_result_per_invocation[0].actual_invocation.tools
    assert [t.name for t in tools] == ["lookup", "async_lookup"]
    assert all(t.result.startswith(f"error: {shown}") for t in tools), tools


SCENARIO = {
    "evalId": "sim",
    "sessionInput": {"appName": "a", "userId": "u"},
    "conversationScenario": {"conversationPlan": "say hi", "stopSignal": "STOP"},
}


@pytest.mark.parametrize(("make", "shown"), RAISED, ids=IDS)
def test_anything_a_user_simulator_raises_fails_only_its_case(make, shown) -> None:
    def user(scenario, conversation, last_reply):
        raise make()

    es = evalset(SCENARIO, default_case("ok", [("y", "Y")]))
    run = ae.evaluate(
        es, metrics(), agent=str.upper, user_simulator=user, progress=False, case_parallelism=1
    )
    assert _statuses(run) == ["failed", "passed"]
    assert f"user simulator, turn 1: {shown}" in _error(run)


class BrokenStart:
    """A simulator object whose ``start`` raises something that is not a SimulatorError."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def start(self, scenario: Any, state: dict[str, Any]) -> Any:
        raise self.exc


@pytest.mark.parametrize(("make", "shown"), RAISED, ids=IDS)
def test_a_user_simulator_that_cannot_start_fails_only_its_case(make, shown) -> None:
    es = evalset(SCENARIO, default_case("ok", [("y", "Y")]))
    run = ae.evaluate(
        es, metrics(), agent=str.upper, user_simulator=BrokenStart(make()), progress=False
    )
    assert _statuses(run) == ["failed", "passed"]
    assert f"user simulator: {shown}" in _error(run)


def test_an_agent_raising_timeout_error_without_agent_timeout_fails_its_case() -> None:
    def agent(turn: Turn) -> str:
        if turn.eval_id == "bad":
            raise TimeoutError("upstream timed out")
        return turn.text.upper()

    run = ae.evaluate(TWO, metrics(), agent=agent, progress=False)
    assert _statuses(run) == ["failed", "passed"]
    assert "turn 1: TimeoutError: upstream timed out" in _error(run)


def test_keyboard_interrupt_stops_the_evaluation_at_once() -> None:
    calls: list[str] = []

    def agent(turn: Turn) -> str:
        calls.append(turn.eval_id)
        raise KeyboardInterrupt

    many = evalset(*(default_case(f"c{i}", [("x", "X")]) for i in range(5)))
    with pytest.raises(KeyboardInterrupt):
        ae.evaluate(many, metrics(), agent=agent, progress=False, case_parallelism=1)
    assert calls == ["c0"]


def test_a_tool_raising_keyboard_interrupt_stops_the_evaluation() -> None:
    def tool() -> str:
        raise KeyboardInterrupt

    def agent(turn: Turn) -> str:
        return str(turn.tools.call("tool", {}))

    many = evalset(*(default_case(f"c{i}", [("x", "X")]) for i in range(3)))
    with pytest.raises(KeyboardInterrupt):
        ae.evaluate(many, metrics(), agent=FunctionAgent(agent, tools=[tool]), progress=False)


STUCK_SCRIPT = """
import sys, threading
import agenteval_nb as ae
from agenteval_nb.agents import FunctionAgent

EVALSET = {{
    "evalSetId": "stuck",
    "evalCases": [
        {{"evalId": eid, "sessionInput": {{"appName": "a", "userId": "u"}},
          "conversation": [{{"userContent": {{"role": "user", "content": eid}},
                             "finalResponse": {{"role": "assistant", "content": eid.upper()}}}}]}}
        for eid in ("stuck", "ok")
    ],
}}
METRICS = [{{"metricName": "final_response_avg_score", "threshold": 1,
            "criterion": {{"finalResponse": {{"text": {{"matchStrategy": "exact"}}}}}}}}]
NEVER = threading.Event()

def stuck_tool() -> str:
    NEVER.wait()
    return "never"

def agent(text):
    if text == "stuck":
        {stuck}
    return text.upper()

run = ae.evaluate(EVALSET, METRICS, agent=FunctionAgent(agent, tools=[stuck_tool]),
                  agent_timeout=0.5, progress=False)
print([r.final_eval_status for r in run.result.eval_case_results])
print(run.result.eval_case_results[0].error_message)
"""


@pytest.mark.parametrize(
    "stuck",
    ["NEVER.wait()", "import time; time.sleep(10**6)"],
    ids=["event", "sleep"],
)
def test_a_stuck_sync_agent_fails_its_case_and_the_script_still_exits(tmp_path, stuck) -> None:
    script = tmp_path / "stuck.py"
    script.write_text(textwrap.dedent(STUCK_SCRIPT.format(stuck=stuck)), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,  # the bug: the worker thread of the stuck agent kept the interpreter alive
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "['failed', 'passed']"
    assert "the agent did not answer within 0.5 s" in lines[1]


def test_a_stuck_sync_tool_fails_its_case_and_the_script_still_exits(tmp_path) -> None:
    # an async agent waiting on a sync tool that never returns: the tool's thread is the one left
    script = tmp_path / "stuck_tool.py"
    text = STUCK_SCRIPT.format(stuck="pass").replace(
        'def agent(text):\n    if text == "stuck":\n        pass\n    return text.upper()',
        "from agenteval_nb.agents import Turn\n"
        "async def agent(turn: Turn):\n"
        "    if turn.text == 'stuck':\n"
        "        await turn.tools.acall('stuck_tool', {})\n"
        "    return turn.text.upper()",
    )
    assert "async def agent" in text
    script.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "['failed', 'passed']"


def test_the_daemon_pool_gives_each_call_a_thread_until_the_cap() -> None:
    pool = DaemonThreadPool(3, "test-pool")
    release = threading.Event()

    def outer() -> str:  # waits for a call it submits itself: needs a second thread
        return "outer+" + pool.submit(inner).result(timeout=30)

    def inner() -> str:
        return "inner"

    def blocked(i: int) -> int:
        release.wait(timeout=30)
        return i

    assert pool.submit(outer).result(timeout=30) == "outer+inner"
    waiting = [pool.submit(blocked, i) for i in range(5)]  # 3 threads, 2 calls queue
    assert not any(f.done() for f in waiting)
    release.set()
    assert [f.result(timeout=30) for f in waiting] == [0, 1, 2, 3, 4]
    assert all(t.daemon for t in threading.enumerate() if t.name.startswith("test-pool"))
    assert sum(t.name.startswith("test-pool") for t in threading.enumerate()) == 3
    failing = pool.submit(sys.exit, 3)
    with pytest.raises(SystemExit):
        failing.result(timeout=30)
