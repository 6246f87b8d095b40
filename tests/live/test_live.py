"""Live runs (ae.start / ae.watch): the run fills while it goes, cancel keeps what finished,
a killed run leaves a journal that resume finishes without running a finished case twice."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import agenteval_nb as ae
from agenteval_nb.errors import ConfigError
from agenteval_nb.live.journal import journal_path, read_journal
from agenteval_nb.stores.local import LocalResultStore

METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]
CASES = 12


def evalset(n: int = CASES) -> dict:
    return {
        "evalSetId": "live",
        "evalCases": [
            {
                "evalId": f"c{i:02d}",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": f"q{i}"},
                        "finalResponse": {"role": "assistant", "content": f"a{i}"},
                    }
                ],
            }
            for i in range(n)
        ],
    }


class GatedAgent:
    """Answers ``a<i>`` (``c03`` answers wrong) once the test lets it; counts its calls."""

    def __init__(self) -> None:
        self.gate = threading.Semaphore(0)
        self.calls: list[str] = []

    def __call__(self, text: str) -> str:
        assert self.gate.acquire(timeout=30), "the test never let the agent answer"
        self.calls.append(text)
        return "wrong" if text == "q3" else "a" + text[1:]


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def done(live) -> int:
    return len(live.snapshot().record.table("cases"))


def test_a_live_run_fills_and_ends_as_evaluate_does(tmp_path):
    agent = GatedAgent()
    live = ae.start(evalset(), METRICS, agent=agent, results_dir=tmp_path, case_parallelism=1)
    assert live.state == "running" and done(live) == 0  # returned at once
    for _ in range(4):
        agent.gate.release()
    wait_for(lambda: done(live) == 4)
    assert "4/12 case-runs done" in repr(live)
    assert "passed 3 of 4 finished case-runs (75%)" in repr(live)
    for _ in range(CASES):
        agent.gate.release()
    run = live.result(timeout=60)
    assert live.state == "finished"
    reference = ae.evaluate(
        evalset(), METRICS, agent=lambda t: "wrong" if t == "q3" else "a" + t[1:], progress=False
    )
    assert run.cases_df()[["eval_id", "status"]].equals(reference.cases_df()[["eval_id", "status"]])
    journal = read_journal(journal_path(tmp_path))
    assert journal.end == "finished" and journal.result_id == run.info["saved_result_id"]
    assert len(journal.texts) == CASES
    saved = ae.load_run(LocalResultStore(tmp_path), "app", journal.result_id)
    assert saved.cases_df()[["eval_id", "status"]].equals(run.cases_df()[["eval_id", "status"]])


def test_cancel_keeps_the_finished_cases_and_says_the_run_is_partial(tmp_path):
    agent = GatedAgent()
    live = ae.start(evalset(), METRICS, agent=agent, results_dir=tmp_path, case_parallelism=1)
    for _ in range(3):
        agent.gate.release()
    wait_for(lambda: done(live) == 3)
    live.cancel()
    agent.gate.release()  # the case-run in flight finishes
    run = live.result(timeout=60)
    assert live.state == "cancelled"
    assert len(run.cases_df()) == 4 and len(agent.calls) == 4
    assert run.info["partial"] == "cancelled: 4 of 12 case-runs"
    assert run.header.summary.num_runs == 1 and run.info["summary_computed"]
    assert read_journal(journal_path(tmp_path)).end == "cancelled"


def test_resume_runs_only_what_the_journal_lacks(tmp_path):
    first = GatedAgent()
    live = ae.start(
        evalset(), METRICS, agent=first, results_dir=tmp_path, num_runs=2, case_parallelism=1
    )
    for _ in range(5):
        first.gate.release()
    wait_for(lambda: done(live) == 5)
    live.cancel()
    first.gate.release()
    live.result(timeout=60)
    second = GatedAgent()
    for _ in range(2 * CASES):
        second.gate.release()
    run = ae.start(evalset(), METRICS, agent=second, resume=tmp_path, num_runs=2).result(timeout=60)
    assert len(first.calls) + len(second.calls) == 2 * CASES
    cases = run.cases_df()
    assert len(cases) == 2 * CASES
    assert not cases.duplicated(["eval_id", "run_id"]).any()
    assert run.info["resumed"] == "6 case-runs from an earlier run"
    assert "partial" not in run.info


def test_resume_refuses_another_evaluation(tmp_path):
    agent = GatedAgent()
    for _ in range(CASES):
        agent.gate.release()
    ae.start(evalset(), METRICS, agent=agent, results_dir=tmp_path).result(timeout=60)
    with pytest.raises(
        ConfigError, match="journals another evaluation \\(num_runs: journal 1, now 3\\)"
    ):
        ae.start(evalset(), METRICS, agent=agent, resume=tmp_path, num_runs=3).result(timeout=60)


def test_await_a_live_run():
    async def main():
        agent = GatedAgent()
        for _ in range(CASES):
            agent.gate.release()
        return await ae.start(evalset(), METRICS, agent=agent)

    run = asyncio.run(main())
    assert len(run.cases_df()) == CASES


def test_watch_follows_a_journal_and_ignores_a_torn_last_line(tmp_path):
    agent = GatedAgent()
    live = ae.start(evalset(), METRICS, agent=agent, results_dir=tmp_path, case_parallelism=1)
    watched = ae.watch(tmp_path)
    assert len(watched.snapshot().cases_df()) == 0
    for _ in range(2):
        agent.gate.release()
    wait_for(lambda: len(watched.snapshot().cases_df()) == 2)
    for _ in range(CASES):
        agent.gate.release()
    live.result(timeout=60)
    assert len(watched.result(timeout=10).cases_df()) == CASES
    assert watched.state == "finished"
    path = journal_path(tmp_path)
    with path.open("ab") as handle:
        handle.write(b'{"position":99,"result":{"evalId":"tor')
    assert len(ae.watch(tmp_path).snapshot().cases_df()) == CASES


SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import agenteval_nb as ae
    evalset, metrics, out, calls = sys.argv[1:5]

    def agent(text):
        with open(calls, "a") as f:
            f.write(text + "\\n")
        time.sleep(0.05)
        return "a" + text[1:]

    ae.start(json.load(open(evalset)), json.load(open(metrics)), agent=agent,
             results_dir=out, num_runs=2, case_parallelism=2).result()
    """
)


def test_a_killed_run_leaves_a_journal_that_resume_finishes(tmp_path):
    (tmp_path / "set.json").write_text(json.dumps(evalset(20)))
    (tmp_path / "metrics.json").write_text(json.dumps(METRICS))
    out, calls = tmp_path / "out", tmp_path / "calls.txt"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SCRIPT,
            str(tmp_path / "set.json"),
            str(tmp_path / "metrics.json"),
            str(out),
            str(calls),
        ],
        env={**os.environ, "PYTHONPATH": str(Path(ae.__file__).parents[1])},
    )
    path = journal_path(out)
    wait_for(lambda: path.exists() and path.read_bytes().count(b"\n") >= 8, timeout=120)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    finished = read_journal(path)
    assert finished.end is None and 7 <= len(finished.texts) < 40
    partial = ae.watch(out).snapshot()
    assert len(partial.cases_df()) == len(finished.texts)  # loadable: what finished
    counted: list[str] = []

    def agent(text: str) -> str:
        counted.append(text)
        return "a" + text[1:]

    run = ae.start(tmp_path / "set.json", METRICS, agent=agent, resume=out, num_runs=2).result(
        timeout=120
    )
    cases = run.cases_df()
    assert len(cases) == 40 and not cases.duplicated(["eval_id", "run_id"]).any()
    assert len(counted) == 40 - len(finished.texts)  # no finished case-run ran twice
    assert (cases["status"] == "passed").all()


def test_the_live_inspector_grows_keeps_marks_and_stops_the_run(tmp_path):
    """Driven by hand (no running loop here): each update shows what finished; a mark set
    during the run is kept where the final run's marks live; stop cancels the run."""
    agent = GatedAgent()
    live = ae.start(evalset(), METRICS, agent=agent, results_dir=tmp_path, case_parallelism=1)
    view = ae.inspect(live, page_size=5)
    assert len(view.items) == 0
    for _ in range(3):
        agent.gate.release()
    wait_for(lambda: live.version() == 3)
    view.filters.search.value = "c0"
    assert view.update() and len(view.items) == 3 and view.updates == 1
    view.select("c01", 1)
    view.mark_selected("fail", "wrong city")
    agent.gate.release()
    wait_for(lambda: live.version() == 4)
    view.update()
    assert len(view.items) == 4 and view.source.key(view.selected) == ("c01", 1)
    assert view.filters.search.value == "c0"  # filters stay
    assert view.source.mark_of(view.selected) == "fail"  # the mark survived the refresh
    view.stop()
    agent.gate.release()
    run = live.result(timeout=60)
    assert not view.update() and view.stop_button.description == "ended"
    assert len(view.items) == 5
    saved = ae.load_run(LocalResultStore(tmp_path), "app", run.info["saved_result_id"])
    marks = saved.reviews_df()
    assert marks[["eval_id", "run_id", "mark", "note"]].values.tolist() == [
        ["c01", 1, "fail", "wrong city"]
    ]
    assert (
        saved.info.get("partial") is None and run.info["partial"] == "cancelled: 5 of 12 case-runs"
    )


def test_the_header_counts_judge_and_agent_tokens_so_far():
    from agenteval_nb.testing import FakeOpenAIServer, heuristic_handler, route_by_model
    from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL
    from agenteval_nb.testing.travel_agent import travel_model

    data = Path(ae.__file__).parents[1] / "data" / "demo" / "travel_agent"
    server = FakeOpenAIServer(
        handler=route_by_model({SCRIPTED_AGENT_MODEL: travel_model(), "judge": heuristic_handler})
    ).start()
    try:
        agent = ae.agents.OpenAIAgent(SCRIPTED_AGENT_MODEL, base_url=server.base_url, api_key="k")
        metrics = json.loads((data / "travel_agent.metrics.json").read_text())
        for metric in metrics:
            judge = (metric.get("criterion") or {}).get("llmJudge")
            if judge:
                judge["judgeModel"].update(modelName="judge", baseURL=server.base_url, apiKey="k")
        live = ae.start(
            data / "travel_agent.evalset.json",
            metrics,
            agent=agent,
            cache=False,
            price_table={"judge": (1.0, 2.0)},
        )
        run = live.result(timeout=120)
    finally:
        server.stop()
    line = repr(live)
    judge = run.info["judge_usage"]
    judge_tokens = judge["prompt_tokens"] + judge["completion_tokens"]
    agent_tokens = (
        run.info["agent_usage"]["prompt_tokens"] + run.info["agent_usage"]["completion_tokens"]
    )
    assert f"judge {judge_tokens:,} tokens (${judge['cost']:.4f})" in line
    assert f"agent {agent_tokens:,} tokens" in line
    assert judge_tokens > 0 and agent_tokens > 0


def test_a_live_run_shares_the_loop_of_blocking_evaluations():
    """Agent clients bound to a loop serve ae.evaluate and ae.start alike (syncio's one loop)."""
    loops = set()

    async def agent(text: str) -> str:
        loops.add(id(asyncio.get_running_loop()))
        return "a" + text[1:]

    ae.evaluate(evalset(2), METRICS, agent=agent, progress=False)
    ae.start(evalset(2), METRICS, agent=agent).result(timeout=60)
    assert len(loops) == 1
