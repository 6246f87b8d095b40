"""``RayExecutor`` on a real local Ray instance (``ray.init(num_cpus=2)``): the same results as
the local executor, workers killed mid-run, cases lost beyond retries, cases that travel
together but come back each as it finishes, judge limits and usage across workers, and clear
errors for what cannot be sent to a worker or back."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest

ray = pytest.importorskip(
    "ray", reason="the ray extra is not installed (pip install agenteval_nb[ray])"
)
from ray import cloudpickle  # noqa: E402

import agenteval_nb as ae  # noqa: E402
from agenteval_nb.agents import Turn  # noqa: E402
from agenteval_nb.schema import EvalMetricResultDetails  # noqa: E402
from agenteval_nb.testing import FakeOpenAIServer, heuristic_handler  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from _agent_builders import EXACT_FINAL, default_case, evalset  # noqa: E402
from _builders import registry_with  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import test modules

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture
def executor_factory():
    """``make(**options)`` -> a RayExecutor whose workers are stopped after the test (each
    worker holds one of the instance's two CPUs)."""
    made: list[ae.RayExecutor] = []

    def make(**options) -> ae.RayExecutor:
        executor = ae.RayExecutor(**options)
        made.append(executor)
        return executor

    yield make
    for executor in made:
        executor.shutdown()


async def upper_agent(text: str) -> str:
    await asyncio.sleep(0.005)
    return text.upper() if not text.endswith("7") else "wrong"


CASES = evalset(
    *[default_case(f"c{i}", [(f"q{i}", f"Q{i}"), (f"r{i}", f"R{i}")]) for i in range(12)]
)


def judge_metrics(base_url: str) -> list[dict]:
    return [
        EXACT_FINAL,
        {
            "metricName": "llm_final_response",
            "threshold": 1.0,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {"modelName": "agenteval-heuristic-judge", "baseURL": base_url}
                }
            },
        },
    ]


def verdicts(run: ae.EvalRun) -> list[tuple]:
    return [
        (
            r.run_id,
            r.eval_id,
            r.final_eval_status,
            r.score,
            [(m.metric_name, m.score, m.eval_status) for m in r.overall_eval_metric_results or ()],
            [
                t.actual_invocation.final_response.content
                for t in r.eval_metric_result_per_invocation or ()
            ],
        )
        for r in run.result.eval_case_results
    ]


def test_ray_gives_the_same_results_as_local_and_gathers_usage(executor_factory) -> None:
    ids = iter(range(10_000))
    with FakeOpenAIServer(handler=heuristic_handler) as server:
        kwargs = dict(agent=upper_agent, num_runs=2, cache=False, progress=False)
        local = ae.evaluate(
            CASES,
            judge_metrics(server.base_url),
            session_id_factory=lambda: f"s{next(ids)}",
            **kwargs,
        )
        ids = iter(range(10_000))
        remote = ae.evaluate(
            CASES,
            judge_metrics(server.base_url),
            executor=executor_factory(workers=2),
            session_id_factory=lambda: f"s{next(ids)}",
            **kwargs,
        )
    assert verdicts(remote) == verdicts(local)
    assert {r.session_id for r in remote.result.eval_case_results} == {
        r.session_id for r in local.result.eval_case_results
    }
    assert remote.result.summary.model_dump() == local.result.summary.model_dump()
    assert remote.info["judge_usage"]["calls"] == local.info["judge_usage"]["calls"] == 48


def test_judge_concurrency_is_shared_between_workers(executor_factory) -> None:
    with FakeOpenAIServer(handler=heuristic_handler, latency_s=0.05) as server:
        ae.evaluate(
            CASES,
            judge_metrics(server.base_url),
            agent=upper_agent,
            cache=False,
            progress=False,
            judge_concurrency=4,
            executor=executor_factory(workers=2, max_in_flight=12),
        )
        assert 1 <= server.max_in_flight <= 4


def dying_agent(turn: Turn) -> str:
    """Kills its worker process the first time it sees case c3 (a marker file remembers)."""
    marker = Path(turn.state["marker_dir"]) / f"{turn.eval_id}-{turn.turn_index}"
    if turn.eval_id == "c3" and not marker.exists():
        marker.touch()
        os._exit(1)
    return turn.text.upper()


def always_dying_agent(turn: Turn) -> str:
    if turn.eval_id == "c3":
        os._exit(1)
    return turn.text.upper()


def _with_marker(tmp_path: Path) -> ae.EvalSet:
    cases = [
        default_case(f"c{i}", [(f"q{i}", f"Q{i}")], state={"marker_dir": str(tmp_path)})
        for i in range(6)
    ]
    return evalset(*cases)


def test_a_killed_worker_loses_only_its_case_which_is_retried(
    tmp_path: Path, executor_factory
) -> None:
    run = ae.evaluate(
        _with_marker(tmp_path),
        [EXACT_FINAL],
        agent=dying_agent,
        progress=False,
        executor=executor_factory(workers=2, max_retries=2),
    )
    assert [r.final_eval_status for r in run.result.eval_case_results] == ["passed"] * 6
    assert (tmp_path / "c3-0").exists()  # the worker really died once


def test_a_case_lost_beyond_retries_fails_alone(tmp_path: Path, executor_factory) -> None:
    run = ae.evaluate(
        _with_marker(tmp_path),
        [EXACT_FINAL],
        agent=always_dying_agent,
        progress=False,
        executor=executor_factory(workers=2, max_retries=1, max_in_flight=2),
    )
    assert_only_c3_lost(run)


def assert_only_c3_lost(run: ae.EvalRun) -> None:
    """c3 failed with a Ray reason and every other case passed; a failure lists the cases."""
    outcomes = {
        r.eval_id: (r.final_eval_status, r.error_message) for r in run.result.eval_case_results
    }
    status, reason = outcomes["c3"]
    assert status == "failed" and (reason or "").startswith("ray: "), f"c3: {status} {reason}"
    others = {key: outcome for key, outcome in outcomes.items() if key != "c3"}
    lost = {key: outcome for key, outcome in others.items() if outcome[0] != "passed"}
    assert not lost, f"cases other than c3 did not pass: {lost}"


def crowding_agent(turn: Turn) -> str:
    """The first time, every case waits on the worker until c3 kills it, which c3 does once all
    six are in flight; c3 kills its worker every time, the others pass when tried again."""
    folder = Path(turn.state["marker_dir"])
    started = folder / f"started-{turn.eval_id}"
    first = not started.exists()
    started.touch()
    if turn.eval_id == "c3":
        for _ in range(600):
            if len(list(folder.glob("started-*"))) == 6:
                break
            time.sleep(0.05)
        os._exit(1)
    if first:
        time.sleep(60)  # the worker dies under this case
    return turn.text.upper()


def test_cases_sharing_a_dying_worker_are_not_lost(tmp_path: Path, executor_factory) -> None:
    """All six cases are in flight on the one worker when c3 kills it; only c3, which kills it
    again when tried alone, is charged (no retries here); the others are tried again."""
    run = ae.evaluate(
        _with_marker(tmp_path),
        [EXACT_FINAL],
        agent=crowding_agent,
        progress=False,
        executor=executor_factory(workers=1, max_retries=0, max_in_flight=6),
    )
    assert_only_c3_lost(run)


async def held_agent(turn: Turn) -> str:
    """c0 waits until the driver has seen every other case come back (the release file),
    at most 20 s; the others answer at once."""
    release = Path(turn.state["marker_dir"]) / "released"
    if turn.eval_id == "c0":
        for _ in range(400):
            if release.exists():
                return turn.text.upper()
            await asyncio.sleep(0.05)
        return "held back"
    return turn.text.upper()


def test_a_slow_case_does_not_hold_back_the_cases_sent_with_it(
    tmp_path: Path, executor_factory
) -> None:
    """The six cases go to the one worker together; the five quick ones reach the driver
    while c0 is still running (its callback releases c0)."""
    back: set[str] = set()

    def came_back(event: ae.CallbackEvent) -> None:
        back.add(event.eval_case_id or "")
        if back >= {f"c{i}" for i in range(1, 6)}:
            (tmp_path / "released").touch()

    run = ae.evaluate(
        _with_marker(tmp_path),
        [EXACT_FINAL],
        agent=held_agent,
        callbacks=ae.Callbacks().register("AfterInferenceCase", came_back),
        progress=False,
        executor=executor_factory(workers=1, max_in_flight=6),
    )
    assert [r.final_eval_status for r in run.result.eval_case_results] == ["passed"] * 6


async def reverse_agent(turn: Turn) -> str:
    """Case c<i> of 8 answers after (8 - i) * 20 ms: the cases finish in reverse order."""
    await asyncio.sleep((8 - int(turn.eval_id.removeprefix("c"))) * 0.02)
    return turn.text.upper()


def test_outcomes_find_their_cases_when_they_finish_out_of_order(executor_factory) -> None:
    cases = evalset(*[default_case(f"c{i}", [(f"q{i}", f"Q{i}")]) for i in range(8)])
    run = ae.evaluate(
        cases,
        [EXACT_FINAL],
        agent=reverse_agent,
        progress=False,
        executor=executor_factory(workers=1, max_in_flight=8),
    )
    assert [(r.eval_id, r.final_eval_status) for r in run.result.eval_case_results] == [
        (f"c{i}", "passed") for i in range(8)
    ]
    finals = [
        r.eval_metric_result_per_invocation[0].actual_invocation.final_response.content
        for r in run.result.eval_case_results
    ]
    assert finals == [f"Q{i}" for i in range(8)]


def self_killing_agent(turn: Turn) -> str:
    """c3 stops its worker for good (Ray does not restart a killed actor)."""
    if turn.eval_id == "c3":
        ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
        time.sleep(60)
    return turn.text.upper()


def test_a_worker_that_never_comes_back_takes_no_other_case(
    tmp_path: Path, executor_factory
) -> None:
    run = ae.evaluate(
        _with_marker(tmp_path),
        [EXACT_FINAL],
        agent=self_killing_agent,
        progress=False,
        executor=executor_factory(workers=2, max_retries=0, max_in_flight=2),
    )
    assert_only_c3_lost(run)


TWO_EXECUTORS = """
import sys
import ray
import agenteval_nb as ae

def upper(text: str) -> str:
    return text.upper()

case = {"evalId": "only", "conversation": [
    {"invocationId": "i", "userContent": {"role": "user", "parts": [{"text": "a"}]},
     "finalResponse": {"role": "model", "parts": [{"text": "A"}]}}]}
evalset = {"evalSetId": "two", "evalCases": [case]}
metrics = [{"metricName": "final_response_avg_score", "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}}}]
ray.init(address=sys.argv[1], log_to_driver=False)
small = ae.RayExecutor(workers=1)
big = ae.RayExecutor(workers=4)
for name, executor in [("small", small), ("big", big), ("small again", small)]:
    run = ae.evaluate(evalset, metrics, agent=upper, progress=False, executor=executor)
    print(name, [r.final_eval_status for r in run.result.eval_case_results], flush=True)
"""


def test_two_executors_alive_in_one_process_share_the_cluster() -> None:
    """A notebook holding ``small`` (1 worker) and ``big`` (4 workers) on this 2-CPU instance:
    both evaluate, in any order (a driver process of its own, so a hang cannot wedge ours)."""
    address = ray.get_runtime_context().gcs_address
    try:
        done = subprocess.run(
            [sys.executable, "-c", TWO_EXECUTORS, address],
            capture_output=True,
            text=True,
            timeout=240,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"two executors hung; output so far: {exc.stdout!r}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "small ['passed']",
        "big ['passed']",
        "small again ['passed']",
    ], done.stderr[-2000:]


@pytest.mark.timeout(120)
def test_workers_that_cannot_be_placed_are_reported_within_the_timeout(executor_factory) -> None:
    hog = executor_factory(workers=2, actor_options={"num_cpus": 1})
    ae.evaluate(CASES, [EXACT_FINAL], agent=upper_agent, progress=False, executor=hog)
    late = executor_factory(workers=1, actor_options={"num_cpus": 1}, start_timeout=2)
    with pytest.raises(TimeoutError) as caught:
        ae.evaluate(CASES, [EXACT_FINAL], agent=upper_agent, progress=False, executor=late)
    message = str(caught.value)
    assert message.startswith(f"1 of 1 workers of {late!r} could not be placed within 2 s: ")
    assert "each asks for {'CPU': 1}" in message
    assert "the cluster has 2 CPU (0 free)" in message
    assert f"held in this process by {hog!r} (2 workers, each {{'CPU': 1}})" in message


class Unpicklable:
    name = "holder of a lock"
    tools: ClassVar[list] = []

    def __init__(self) -> None:
        self.lock = threading.Lock()

    async def run_turn(self, turn: Turn) -> str:
        return turn.text


def test_an_agent_that_cannot_travel_is_named(executor_factory) -> None:
    with pytest.raises(
        TypeError,
        match=r"the agent \(Unpicklable 'holder of a lock'\) cannot be sent to Ray workers",
    ):
        ae.evaluate(
            CASES,
            [EXACT_FINAL],
            agent=Unpicklable(),
            progress=False,
            executor=executor_factory(workers=1),
        )


def test_a_run_the_workers_cannot_load_fails_its_cases_and_completes(
    tmp_path: Path, executor_factory
) -> None:
    """The agent lives in a module only the driver can import: every case fails with the
    worker's error as its reason, and the run completes."""
    (tmp_path / "driver_only_agents.py").write_text("def shout(text):\n    return text.upper()\n")
    sys.path.insert(0, str(tmp_path))
    try:
        from driver_only_agents import shout  # type: ignore[import-not-found]

        run = ae.evaluate(
            _with_marker(tmp_path),
            [EXACT_FINAL],
            agent=shout,
            progress=False,
            executor=executor_factory(workers=2, max_in_flight=4),
        )
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("driver_only_agents", None)
    reasons = [(r.final_eval_status, r.error_message or "") for r in run.result.eval_case_results]
    assert len(reasons) == 6
    for status, reason in reasons:
        assert status == "failed" and reason.startswith("ray: "), reason
        assert "No module named 'driver_only_agents'" in reason, reason


class Clinging:
    """Passes every case; case c3's result holds a lock, which cannot leave its worker."""

    name = "clinging"
    description = "keeps a lock in the details of case c3"

    async def evaluate(self, actuals, expecteds, metric):
        details = None
        if actuals[0].user_content.content == "q3":
            details = EvalMetricResultDetails(reason="held", lock=threading.Lock())
        per_turn = [
            ae.PerInvocationResult(a, e, 1.0, "passed", details)
            for a, e in zip(actuals, expecteds, strict=True)
        ]
        return ae.EvaluateResult(1.0, "passed", per_turn)


def shouting_agent(turn: Turn) -> str:
    return turn.text.upper()


def test_a_result_that_cannot_travel_fails_only_its_case(tmp_path: Path, executor_factory) -> None:
    """All six cases share the one worker and its calls; c3's result cannot be sent back."""
    run = ae.evaluate(
        _with_marker(tmp_path),
        [{"metricName": "clinging"}],
        agent=shouting_agent,
        registry=registry_with(Clinging()),
        progress=False,
        executor=executor_factory(workers=1, max_in_flight=6),
    )
    assert_only_c3_lost(run)
    reason = run.result.eval_case_results[3].error_message or ""
    assert "pickle" in reason and "lock" in reason, reason


def test_between_phase_callbacks_need_the_local_executor(executor_factory) -> None:
    callbacks = ae.Callbacks().register("AfterInferenceSet", lambda e: None)
    with pytest.raises(ae.EvaluationError, match="executor='local'"):
        ae.evaluate(
            CASES,
            [EXACT_FINAL],
            agent=upper_agent,
            callbacks=callbacks,
            progress=False,
            executor=executor_factory(workers=1),
        )


def test_case_callbacks_fire_in_the_driver(executor_factory) -> None:
    seen: list[tuple[str, str]] = []
    callbacks = ae.Callbacks()
    for point in (
        "BeforeInferenceCase",
        "AfterInferenceCase",
        "BeforeEvaluateCase",
        "AfterEvaluateCase",
    ):
        callbacks.register(point, lambda e: seen.append((e.point.value, e.eval_case_id)))
    ae.evaluate(
        evalset(default_case("only", [("a", "A")])),
        [EXACT_FINAL],
        agent=upper_agent,
        callbacks=callbacks,
        progress=False,
        executor=executor_factory(workers=1),
    )
    assert [p for p, _ in seen] == [
        "BeforeInferenceCase",
        "AfterInferenceCase",
        "BeforeEvaluateCase",
        "AfterEvaluateCase",
    ]


@pytest.mark.parametrize(
    "bad", [{"workers": 0}, {"max_in_flight": -1}, {"max_retries": -1}, {"num_cpus": True}]
)
def test_executor_arguments_are_checked(bad) -> None:
    with pytest.raises(ValueError):
        ae.RayExecutor(**bad)


def test_executor_option_is_checked() -> None:
    with pytest.raises(TypeError, match="executor must be 'local'"):
        ae.evaluate(CASES, [EXACT_FINAL], agent=upper_agent, progress=False, executor="ray")
