"""Agents as Python functions through ``ae.evaluate``: forms, session fidelity (SPEC §8.3),
failures, timeouts, callbacks, parallelism and order."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from _agent_builders import EXACT_FINAL, TRAJECTORY, default_case, evalset, metrics

import agenteval_nb as ae
from agenteval_nb.agents import FunctionAgent, Turn


def _statuses(run: ae.EvalRun) -> list[str]:
    return [r.final_eval_status for r in run.result.eval_case_results]


def _errors(run: ae.EvalRun) -> list[str | None]:
    return [r.error_message for r in run.result.eval_case_results]


def _actual(run: ae.EvalRun, case: int = 0, turn: int = 0) -> ae.Invocation:
    per_turn = run.result.eval_case_results[case].eval_metric_result_per_invocation
    return per_turn[turn].actual_invocation


ONE = evalset(default_case("c1", [("hello", "HELLO"), ("bye", "BYE")]))


def test_plain_sync_function_gets_the_text() -> None:
    run = ae.evaluate(ONE, metrics(), agent=lambda text: text.upper(), progress=False)
    assert _statuses(run) == ["passed"]
    assert _actual(run, 0, 1).final_response.content == "BYE"
    assert _actual(run, 0, 1).user_content.content == "bye"


def test_plain_async_function() -> None:
    async def agent(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    run = ae.evaluate(ONE, metrics(), agent=agent, progress=False)
    assert _statuses(run) == ["passed"]


def test_wrong_answer_fails_with_score() -> None:
    run = ae.evaluate(ONE, metrics(), agent=lambda text: text, progress=False)
    assert _statuses(run) == ["failed"]
    assert _errors(run) == [None]
    assert run.result.eval_case_results[0].overall_eval_metric_results[0].score == 0.0


def test_turn_function_by_annotation_sees_session_state_context_history() -> None:
    seen: list[Turn] = []
    states: list[dict] = []

    def agent(t: Turn) -> str:
        seen.append(t)
        states.append(dict(t.state))
        t.state["mutated"] = True  # a copy: the next turn must not see it
        return t.text.upper()

    es = evalset(
        default_case(
            "c1",
            [("hello", "HELLO"), ("bye", "BYE")],
            state={"tier": "gold"},
            context=["be brief"],
        )
    )
    run = ae.evaluate(es, metrics(), agent=agent, progress=False, session_id_factory=lambda: "S1")
    assert _statuses(run) == ["passed"]
    first, second = seen
    assert first.session_id == second.session_id == "S1"
    assert first.user_id == "user-1"
    assert states == [{"tier": "gold"}, {"tier": "gold"}]
    assert [m.content for m in first.context_messages] == ["be brief"]
    assert [m.content for m in second.context_messages] == ["be brief"]
    assert first.history == []
    assert [(m.role, m.content) for m in second.history] == [
        ("user", "hello"),
        ("assistant", "HELLO"),
    ]
    assert (first.turn_index, second.turn_index, first.eval_id) == (0, 1, "c1")
    assert run.result.eval_case_results[0].session_id == "S1"
    assert run.result.eval_case_results[0].user_id == "user-1"


def test_turn_function_by_name_returns_message_or_invocation() -> None:
    async def agent(turn):
        if turn.turn_index == 0:
            return ae.Message(content=turn.text.upper())
        return ae.Invocation(
            invocation_id="mine",
            final_response=ae.Message(role="assistant", content="BYE"),
            intermediate_responses=[ae.Message(role="assistant", content="thinking")],
        )

    run = ae.evaluate(ONE, metrics(), agent=agent, progress=False)
    assert _statuses(run) == ["passed"]
    assert _actual(run, 0, 0).final_response.role == "assistant"
    second = _actual(run, 0, 1)
    assert second.invocation_id == "mine"
    assert second.user_content.content == "bye"
    assert second.intermediate_responses[0].content == "thinking"
    assert second.creation_timestamp is not None


def test_tools_through_the_toolbox_are_recorded_and_scored() -> None:
    def get_weather(city: str, unit: str = "c") -> dict:
        """Current weather of a city."""
        return {"city": city, "temp": 21, "unit": unit}

    def agent(turn: Turn) -> str:
        result = turn.tools.call("get_weather", {"city": "Paris"})
        return f"{result['temp']} degrees"

    expected_tools = [[{"name": "get_weather", "arguments": {"city": "Paris"}, "result": {}}]]
    es = evalset(default_case("c1", [("weather in Paris?", "21 degrees")], tools=expected_tools))
    ms = ae.load_metrics(
        [
            EXACT_FINAL,
            {
                "metricName": "tool_trajectory_avg_score",
                "threshold": 1.0,
                "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
            },
        ]
    )
    run = ae.evaluate(es, ms, agent=FunctionAgent(agent, tools=[get_weather]), progress=False)
    assert _statuses(run) == ["passed"], _errors(run)
    tool = _actual(run).tools[0]
    assert (tool.name, tool.arguments) == ("get_weather", {"city": "Paris"})
    assert tool.result == {"city": "Paris", "temp": 21, "unit": "c"}
    assert tool.id.startswith("call_")


def test_tool_errors_are_recorded_as_results_and_raised_to_the_agent() -> None:
    def flaky(x: int) -> int:
        raise ValueError("backend down")

    def agent(turn: Turn) -> str:
        outcomes = []
        for args in ({"x": 1}, {"x": "not a number"}):
            try:
                turn.tools.call("flaky", args)
            except ae.agents.ToolCallError as exc:
                outcomes.append(str(exc))
        try:
            turn.tools.call("missing", {})
        except ae.agents.ToolCallError as exc:
            outcomes.append(str(exc))
        return " | ".join(outcomes)

    run = ae.evaluate(ONE, metrics(), agent=FunctionAgent(agent, tools=[flaky]), progress=False)
    tools = _actual(run).tools
    assert [t.name for t in tools] == ["flaky", "flaky", "missing"]
    assert tools[0].result == "error: ValueError: backend down"
    assert tools[1].result.startswith("error: ValidationError")
    assert "unknown tool 'missing'" in tools[2].result
    assert _actual(run).final_response.content.startswith("error: ValueError: backend down")


@pytest.mark.parametrize(
    ("agent", "needle"),
    [
        (lambda text: 1 / 0, "turn 1: ZeroDivisionError: division by zero"),
        (lambda text: 42, "turn 1: TypeError: the agent returned int; expected str"),
        (lambda text: None, "the agent returned NoneType"),
    ],
)
def test_failing_turn_fails_only_that_case(agent, needle) -> None:
    es = evalset(default_case("bad", [("x", "X")]), default_case("ok", [("y", "Y")]))

    def routed(turn: Turn):
        return turn.text.upper() if turn.eval_id == "ok" else agent(turn.text)

    run = ae.evaluate(es, metrics(), agent=routed, progress=False, session_id_factory=lambda: "S")
    assert _statuses(run) == ["failed", "passed"]
    error = _errors(run)[0]
    assert error.startswith("inference eval case (evalCaseID=bad, sessionID=S): ")
    assert needle in error


def test_second_turn_failure_stops_the_case() -> None:
    calls: list[str] = []

    def agent(text: str) -> str:
        calls.append(text)
        if text == "bye":
            raise RuntimeError("boom")
        return text.upper()

    es = evalset(default_case("c1", [("hello", "HELLO"), ("bye", "BYE"), ("never", "NEVER")]))
    run = ae.evaluate(es, metrics(), agent=agent, progress=False)
    assert calls == ["hello", "bye"]
    assert "turn 2: RuntimeError: boom" in _errors(run)[0]


def test_agent_error_text_is_redacted() -> None:
    def agent(text: str) -> str:
        raise RuntimeError("auth failed for key sk-live-0123456789abcdef with Bearer abcdefghijkl")

    run = ae.evaluate(ONE, metrics(), agent=agent, progress=False)
    error = _errors(run)[0]
    assert "0123456789abcdef" not in error and "abcdefghijkl" not in error
    assert "***" in error


def test_timeout_fails_the_case_and_not_the_run() -> None:
    async def agent(turn: Turn) -> str:
        if turn.eval_id == "slow":
            await asyncio.sleep(30)
        return turn.text.upper()

    es = evalset(default_case("slow", [("x", "X")]), default_case("fast", [("y", "Y")]))
    started = time.perf_counter()
    run = ae.evaluate(es, metrics(), agent=agent, agent_timeout=0.2, progress=False)
    assert time.perf_counter() - started < 20  # hang guard only
    assert _statuses(run) == ["failed", "passed"]
    assert "turn 1: the agent did not answer within 0.2 s" in _errors(run)[0]


@pytest.mark.parametrize("bad", [0, -1, "1", True])
def test_agent_timeout_is_validated(bad) -> None:
    with pytest.raises(ValueError, match="agent_timeout"):
        ae.evaluate(ONE, metrics(), agent=str.upper, agent_timeout=bad, progress=False)


@pytest.mark.parametrize("bad", [42, "not callable", object()])
def test_bad_agent_objects_are_rejected(bad) -> None:
    with pytest.raises(TypeError, match="agent must be"):
        ae.evaluate(ONE, metrics(), agent=bad, progress=False)


def test_two_argument_function_is_rejected() -> None:
    with pytest.raises(TypeError, match="must take one argument"):
        ae.evaluate(ONE, metrics(), agent=lambda a, b: a, progress=False)


def test_default_mode_without_agent_still_fails_clearly() -> None:
    run = ae.evaluate(ONE, metrics(), progress=False)
    assert "no agent given" in _errors(run)[0]


def test_default_mode_with_actual_conversation_fails_with_reference_text() -> None:
    case = default_case("c1", [("hello", "HELLO")])
    case["actualConversation"] = case["conversation"]
    run = ae.evaluate(evalset(case), metrics(), agent=str.upper, progress=False)
    assert "actualConversation is only supported in trace mode" in _errors(run)[0]


def test_mixed_set_replays_trace_cases_and_runs_default_cases() -> None:
    trace = default_case("trace", [("recorded", "RECORDED")])
    trace["evalMode"] = "trace"
    trace["actualConversation"] = trace["conversation"]
    calls: list[str] = []

    def agent(text: str) -> str:
        calls.append(text)
        return text.upper()

    es = evalset(trace, default_case("live", [("live", "LIVE")]))
    run = ae.evaluate(es, metrics(), agent=agent, progress=False)
    assert _statuses(run) == ["passed", "passed"]
    assert calls == ["live"]


def test_expected_runner_supplies_the_expecteds() -> None:
    case = default_case("c1", [("hello", "ignored")], expectedRunnerEnabled=True)
    sessions: list[str] = []

    def expected(turn: Turn) -> str:
        sessions.append(turn.session_id)
        return turn.text.upper()

    run = ae.evaluate(
        evalset(case),
        metrics(),
        agent=str.upper,
        expected_agent=expected,
        progress=False,
        session_id_factory=lambda: "S9",
    )
    assert _statuses(run) == ["passed"]
    assert sessions == ["S9-expected"]
    missing = ae.evaluate(evalset(case), metrics(), agent=str.upper, progress=False)
    assert "expected runner is nil" in _errors(missing)[0]


def test_runs_and_results_keep_case_order_under_parallelism() -> None:
    async def agent(turn: Turn) -> str:
        await asyncio.sleep(0.002 * (10 - int(turn.eval_id[1:])))
        return turn.text.upper()

    es = evalset(*[default_case(f"c{i}", [(f"q{i}", f"Q{i}")]) for i in range(10)])
    run = ae.evaluate(es, metrics(), agent=agent, num_runs=3, runs_parallel=True, progress=False)
    results = run.result.eval_case_results
    assert [(r.run_id, r.eval_id) for r in results] == [
        (run_id, f"c{i}") for run_id in (1, 2, 3) for i in range(10)
    ]
    assert set(_statuses(run)) == {"passed"}


def test_cases_run_in_parallel_and_sync_agents_do_not_block_each_other() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def agent(text: str) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        return text.upper()

    es = evalset(*[default_case(f"c{i}", [(f"q{i}", f"Q{i}")]) for i in range(24)])
    run = ae.evaluate(es, metrics(), agent=agent, case_parallelism=8, progress=False)
    assert set(_statuses(run)) == {"passed"}
    assert peak == 8


def test_parallel_wall_time_scales_with_parallelism() -> None:
    async def agent(text: str) -> str:
        await asyncio.sleep(0.1)
        return text.upper()

    es = evalset(*[default_case(f"c{i}", [(f"q{i}", f"Q{i}")]) for i in range(40)])
    started = time.perf_counter()
    ae.evaluate(es, metrics(), agent=agent, case_parallelism=20, progress=False)
    wall = time.perf_counter() - started
    serial = 40 * 0.1
    assert wall < serial / 2, f"{wall:.2f}s is not parallel (serial would be {serial:.1f}s)"


def test_inference_callbacks_fire_in_order_and_case_errors_fail_the_case() -> None:
    seen: list[tuple[str, str | None]] = []
    callbacks = ae.Callbacks()
    for point in ae.CallbackPoint:
        callbacks.register(point, lambda e: seen.append((e.point.value, e.eval_case_id)))

    def refuse(event: ae.CallbackEvent) -> None:
        if event.eval_case_id == "c2":
            raise RuntimeError("not today")

    callbacks.register("BeforeInferenceCase", refuse, name="gate")
    es = evalset(default_case("c1", [("a", "A")]), default_case("c2", [("b", "B")]))
    run = ae.evaluate(
        es, metrics(), agent=str.upper, callbacks=callbacks, case_parallelism=1, progress=False
    )
    assert _statuses(run) == ["passed", "failed"]
    assert _errors(run)[1] == "BeforeInferenceCase callback[1] (gate): not today"
    points = [p for p, _ in seen]
    assert points[0] == "BeforeInferenceSet"
    assert points.index("AfterInferenceSet") < points.index("BeforeEvaluateSet")
    assert points.index("AfterInferenceSet") > max(
        i for i, p in enumerate(points) if p == "AfterInferenceCase"
    )
    assert points[-1] == "AfterEvaluateSet"


def test_inference_set_callback_error_fails_the_evaluation() -> None:
    callbacks = ae.Callbacks().register(
        "AfterInferenceSet", lambda e: (_ for _ in ()).throw(RuntimeError("stop")), name="halt"
    )
    with pytest.raises(
        ae.EvaluationError, match=r"run 1 inference: AfterInferenceSet callback\[0\] \(halt\): stop"
    ):
        ae.evaluate(ONE, metrics(), agent=str.upper, callbacks=callbacks, progress=False)


def test_after_inference_case_sees_the_captured_turns() -> None:
    captured = []
    callbacks = ae.Callbacks().register(
        "AfterInferenceCase", lambda e: captured.append(e.result.inferences)
    )
    ae.evaluate(ONE, metrics(), agent=str.upper, callbacks=callbacks, progress=False)
    assert [inv.final_response.content for inv in captured[0]] == ["HELLO", "BYE"]


def test_pass_at_k_over_agent_runs() -> None:
    counter = iter(range(1000))

    def agent(text: str) -> str:
        return text.upper() if next(counter) % 2 == 0 else "wrong"

    es = evalset(default_case("c1", [("q", "Q")]))
    run = ae.evaluate(es, metrics(), agent=agent, num_runs=4, progress=False)
    assert run.result.summary.num_runs == 4
    assert _statuses(run) == ["passed", "failed", "passed", "failed"]
    frame = run.pass_at_k_df(ks=(1, 2), backend="polars")
    assert frame.height >= 1


def test_trajectory_mismatch_from_agent_run_is_explained() -> None:
    def agent(turn: Turn) -> str:
        turn.tools.call("lookup", {"q": "wrong"})
        return "done"

    def lookup(q: str) -> str:
        return q

    expected = [[{"name": "lookup", "arguments": {"q": "right"}}]]
    es = evalset(default_case("c1", [("x", "done")], tools=expected))
    run = ae.evaluate(
        es, metrics(TRAJECTORY), agent=FunctionAgent(agent, tools=[lookup]), progress=False
    )
    reason = run.result.eval_case_results[0].overall_eval_metric_results[0].details.reason
    assert reason.startswith("tool trajectory mismatch")
