"""ae.record: live turns → eval set (SPEC §8.9), inside and outside an evaluation."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections import Counter
from pathlib import Path

import pytest

import agenteval_nb as ae
from agenteval_nb.agents import FunctionAgent, RecorderError, RecordingAgent, Turn
from agenteval_nb.agents.recorder import intermediate_responses, json_value, run_error_text
from agenteval_nb.agents.recordings import RecordedTurn, merge_turn
from agenteval_nb.stores import InMemoryEvalSetStore

FINAL_EXACT = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {}}},
    }
]
TOOLS_EXACT = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1,
        "criterion": {"toolTrajectory": {"defaultStrategy": {"name": {}, "arguments": {}}}},
    }
]
KEY = "sk-live0123456789abcdefXYZ"


def _evalset(n_cases: int, n_turns: int, set_id: str = "set") -> dict:
    return {
        "evalSetId": set_id,
        "evalCases": [
            {
                "evalId": f"c{c:02d}",
                "sessionInput": {"appName": "app", "userId": f"u{c}", "state": {"case": c}},
                "contextMessages": [{"role": "system", "content": f"ctx {c}"}],
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": f"c{c:02d} q{t}"},
                        "finalResponse": {"role": "assistant", "content": f"echo c{c:02d} q{t}"},
                    }
                    for t in range(n_turns)
                ],
            }
            for c in range(n_cases)
        ],
    }


def _actual_ids(run: ae.EvalRun) -> dict[tuple[int, str], list[str]]:
    out = {}
    for case in run.result.eval_case_results or ():
        per = case.eval_metric_result_per_invocation or []
        out[(case.run_id, case.eval_id)] = [p.actual_invocation.invocation_id for p in per]
    return out


def _turns(case: ae.EvalCase) -> list[ae.Invocation]:
    return list((case.actual_conversation if case.is_trace else case.conversation) or [])


def _assert_sorted(turns: list[ae.Invocation]) -> None:
    keys = [(t.creation_timestamp, t.invocation_id) for t in turns]
    assert keys == sorted(keys)


def test_parallel_multi_run_evaluation_loses_no_turn():
    rng = random.Random(7)
    delays = {f"c{c:02d} q{t}": rng.random() / 200 for c in range(16) for t in range(3)}

    async def agent(turn: Turn) -> str:
        await asyncio.sleep(delays[turn.text])
        return f"echo {turn.text}"

    store = InMemoryEvalSetStore()
    wrapped = ae.record(
        agent, store, eval_set_id="recorded", case_id=lambda t: t.eval_id, app_name="app"
    )
    run = ae.evaluate(
        _evalset(16, 3),
        FINAL_EXACT,
        agent=wrapped,
        num_runs=2,
        runs_parallel=True,
        case_parallelism=6,
        progress=False,
    )
    assert run.case_status_counts() == {"passed": 32}
    recorded = store.get("app", "recorded")
    assert sorted(c.eval_id for c in recorded.eval_cases) == [f"c{c:02d}" for c in range(16)]
    ids = _actual_ids(run)
    for case in recorded.eval_cases:
        turns = case.conversation
        assert len(turns) == 6  # 3 turns × 2 runs, none lost
        _assert_sorted(turns)
        assert {t.invocation_id for t in turns} == set(
            ids[(1, case.eval_id)] + ids[(2, case.eval_id)]
        )
        assert Counter(t.user_content.content for t in turns) == Counter(
            {f"{case.eval_id} q{t}": 2 for t in range(3)}
        )
        assert all(t.final_response.content == f"echo {t.user_content.content}" for t in turns)
        index = int(case.eval_id[1:])
        assert case.session_input.user_id == f"u{index}"
        assert case.session_input.state == {"case": index}
        assert case.session_input.app_name == "app"
        assert [m.content for m in case.context_messages] == [f"ctx {index}"]
        assert case.eval_mode is None


def test_a_turn_recorded_twice_is_kept_once():
    answers: Counter[str] = Counter()

    def agent(turn: Turn) -> ae.Invocation:
        key = f"{turn.eval_id}-{turn.turn_index}"
        answers[key] += 1
        return ae.Invocation(
            invocation_id=key,
            final_response=ae.Message(role="assistant", content=f"v{answers[key]}"),
        )

    store = InMemoryEvalSetStore()
    wrapped = ae.record(agent, store, eval_set_id="rec", case_id=lambda t: t.eval_id)
    run = ae.evaluate(_evalset(5, 2), FINAL_EXACT, agent=wrapped, num_runs=2, progress=False)
    assert len(run.result.eval_case_results) == 10
    cases = store.get("default", "rec").eval_cases
    assert len(cases) == 5
    for case in cases:
        assert [t.invocation_id for t in case.conversation] == [
            f"{case.eval_id}-0",
            f"{case.eval_id}-1",
        ]
        assert [t.final_response.content for t in case.conversation] == ["v1", "v1"]


def test_direct_use_keeps_sessions_and_records_tools(tmp_path: Path):
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    seen_history: list[int] = []

    def agent(turn: Turn) -> str:
        seen_history.append(len(turn.history))
        total = turn.tools.call("add", {"a": turn.turn_index, "b": 10})
        return f"{turn.session_id}:{turn.text}:{total}:{turn.state.get('lang')}"

    path = tmp_path / "live.evalset.json"
    wrapped = ae.record(FunctionAgent(agent, tools=[add]), path, app_name="shop")
    assert isinstance(wrapped, ae.agents.Agent)
    assert [t.name for t in wrapped.tools] == ["add"]
    assert wrapped.respond("hi", session_id="s1", user_id="ann", state={"lang": "en"}) == (
        "s1:hi:10:en"
    )
    assert wrapped.respond("hola", session_id="s2", state={"lang": "es"}) == "s2:hola:10:es"
    assert wrapped.respond("more", session_id="s1") == "s1:more:11:en"
    assert asyncio.run(wrapped.arespond("last", session_id="s1")) == "s1:last:12:en"
    assert seen_history == [0, 0, 2, 4]
    assert [m.content for m in wrapped.history("s1")] == [
        "hi",
        "s1:hi:10:en",
        "more",
        "s1:more:11:en",
        "last",
        "s1:last:12:en",
    ]

    recorded = ae.load_evalset(path)
    assert recorded.eval_set_id == "live"
    assert [c.eval_id for c in recorded.eval_cases] == ["s1", "s2"]
    s1 = recorded.case("s1")
    assert s1.session_input.model_dump(by_alias=True, exclude_none=True) == {
        "appName": "shop",
        "userId": "ann",
        "state": {"lang": "en"},
    }
    assert [t.user_content.content for t in s1.conversation] == ["hi", "more", "last"]
    assert [t.tools[0].arguments for t in s1.conversation] == [
        {"a": 0, "b": 10},
        {"a": 1, "b": 10},
        {"a": 2, "b": 10},
    ]
    assert [t.tools[0].result for t in s1.conversation] == [10, 11, 12]
    _assert_sorted(s1.conversation)
    assert len(recorded.case("s2").conversation) == 1


def test_a_raising_turn_is_recorded_as_run_error_and_reraised(tmp_path: Path):
    def agent(text: str) -> str:
        if text == "boom":
            raise ValueError(f"upstream refused key {KEY}")
        if text == "quiet":
            raise RuntimeError()
        return "ok"

    path = tmp_path / "errors.evalset.json"
    wrapped = ae.record(agent, path)
    assert wrapped.respond("fine", session_id="s") == "ok"
    with pytest.raises(ValueError, match="upstream refused"):
        wrapped.respond("boom", session_id="s")
    with pytest.raises(RuntimeError):
        wrapped.respond("quiet", session_id="s")
    text = path.read_text()
    assert KEY not in text and "sk-live" not in text
    finals = [t.final_response.content for t in ae.load_evalset(path).case("s").conversation]
    assert finals == [
        "ok",
        "[RUN_ERROR] ValueError: upstream refused key ***",
        "[RUN_ERROR] RuntimeError: unknown",
    ]


def test_failing_turns_inside_an_evaluation_are_recorded_and_fail_the_case():
    class Keyed:
        def __init__(self) -> None:
            self.tools: list = []

        def secrets(self) -> tuple[str, ...]:
            return ("my-private-token-42",)

        async def run_turn(self, turn: Turn) -> str:
            if turn.turn_index == 1:
                raise ConnectionError("token my-private-token-42 rejected")
            return f"echo {turn.text}"

    store = InMemoryEvalSetStore()
    wrapped = ae.record(Keyed(), store, eval_set_id="rec", case_id=lambda t: t.eval_id)
    run = ae.evaluate(_evalset(2, 3), FINAL_EXACT, agent=wrapped, progress=False)
    assert run.case_status_counts() == {"failed": 2}
    for result in run.result.eval_case_results:
        assert "my-private-token-42" not in result.error_message
    for case in store.get("default", "rec").eval_cases:
        finals = [t.final_response.content for t in case.conversation]
        assert finals == [
            f"echo {case.eval_id} q0",
            "[RUN_ERROR] ConnectionError: token *** rejected",
        ]


def test_a_timed_out_turn_is_recorded():
    async def slow(text: str) -> str:
        await asyncio.sleep(5)
        return "late"

    store = InMemoryEvalSetStore()
    wrapped = ae.record(slow, store, eval_set_id="rec", case_id=lambda t: t.eval_id)
    run = ae.evaluate(
        _evalset(1, 1), FINAL_EXACT, agent=wrapped, agent_timeout=0.05, progress=False
    )
    assert "did not answer within" in run.result.eval_case_results[0].error_message
    (turn,) = store.get_case("default", "rec", "c00").conversation
    assert turn.final_response.content == "[RUN_ERROR] CancelledError: unknown"


def test_trace_recording_reevaluates_to_the_same_turns(tmp_path: Path):
    def lookup(city: str) -> dict:
        """Weather of a city."""
        return {"city": city, "temp": len(city)}

    async def agent(turn: Turn) -> ae.Message:
        weather = await turn.tools.acall("lookup", json.dumps({"city": turn.text[:3]}))
        return ae.Message(role="assistant", content=f"{turn.text} -> {weather['temp']}")

    path = tmp_path / "trace.evalset.json"
    wrapped = ae.record(
        FunctionAgent(agent, tools=[lookup]), path, trace=True, case_id=lambda t: t.eval_id
    )
    live = ae.evaluate(_evalset(4, 2), TOOLS_EXACT, agent=wrapped, progress=False)
    recorded = ae.load_evalset(path)
    assert all(c.eval_mode == "trace" and c.conversation is None for c in recorded.eval_cases)
    replay = ae.evaluate(path, TOOLS_EXACT, progress=False)
    assert all(c.error_message is None for c in replay.result.eval_case_results)

    def turns(run: ae.EvalRun) -> dict:
        out = {}
        for case in run.result.eval_case_results:
            out[case.eval_id] = [
                (
                    p.actual_invocation.invocation_id,
                    p.actual_invocation.final_response.content,
                    [(t.name, t.arguments, t.result) for t in p.actual_invocation.tools],
                )
                for p in case.eval_metric_result_per_invocation
            ]
        return out

    assert turns(replay) == turns(live)
    assert turns(live)["c01"][0][2] == [("lookup", {"city": "c01"}, {"city": "c01", "temp": 3})]


def test_mode_mismatch_is_a_clear_error():
    store = InMemoryEvalSetStore()
    ae.record(lambda text: "a", store, eval_set_id="rec").respond("x", session_id="s")
    tracer = ae.record(lambda text: "b", store, eval_set_id="rec", trace=True)
    with pytest.raises(RecorderError, match=r"recorded in default mode.*trace-mode"):
        tracer.respond("y", session_id="s")
    assert len(store.get_case("default", "rec", "s").conversation) == 1


def test_a_file_target_keeps_its_eval_set_id(tmp_path: Path):
    path = tmp_path / "one.evalset.json"
    ae.record(lambda text: "a", path, eval_set_id="named").respond("x", session_id="s")
    assert ae.load_evalset(path).eval_set_id == "named"
    ae.record(lambda text: "b", path).respond("y", session_id="t")  # default: the file's id
    with pytest.raises(RecorderError, match="holds eval set 'named'"):
        ae.record(lambda text: "c", path, eval_set_id="other").respond("z", session_id="s")
    assert [c.eval_id for c in ae.load_evalset(path).eval_cases] == ["s", "t"]


def test_default_ids_are_the_session_id_and_a_folder_is_a_local_store(tmp_path: Path):
    wrapped = ae.record(lambda text: text.upper(), tmp_path / "recordings", app_name="app")
    wrapped.respond("hello", session_id="sess-1")
    case = ae.stores.LocalEvalSetStore(tmp_path / "recordings").get_case("app", "sess-1", "sess-1")
    assert case.conversation[0].final_response.content == "HELLO"


def test_threads_and_loops_recording_into_one_file_lose_nothing(tmp_path: Path):
    path = tmp_path / "shared.evalset.json"

    def serve(worker: int) -> None:
        wrapped = ae.record(lambda text: text[::-1], path)
        for i in range(10):
            wrapped.respond(f"w{worker} t{i}", session_id=f"w{worker}")

    threads = [threading.Thread(target=serve, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cases = ae.load_evalset(path).eval_cases
    assert sorted(c.eval_id for c in cases) == ["w0", "w1", "w2", "w3"]
    for case in cases:
        assert [t.user_content.content for t in case.conversation] == [
            f"{case.eval_id} t{i}" for i in range(10)
        ]


def test_merge_sorts_by_timestamp_then_id_and_fills_missing_session_input():
    def recorded(inv_id: str, ts: float) -> RecordedTurn:
        return RecordedTurn(
            app_name="app",
            eval_set_id="set",
            eval_case_id="case",
            user_id="u",
            state={"k": 1},
            context_messages=[ae.Message(role="system", content="ctx")],
            invocation=ae.Invocation(invocation_id=inv_id, creation_timestamp=ts),
        )

    case = ae.EvalCase(eval_id="case")
    for inv_id, ts in [("b", 2.0), ("c", 1.0), ("a", 2.0)]:
        case = merge_turn(case, recorded(inv_id, ts))
    assert [t.invocation_id for t in case.conversation] == ["c", "a", "b"]
    assert case.session_input.state == {"k": 1} and case.session_input.user_id == "u"
    assert case.context_messages[0].content == "ctx"
    assert merge_turn(case, recorded("a", 9.0)) is None


def test_helpers():
    assert run_error_text(None) == "[RUN_ERROR] unknown: unknown"
    assert run_error_text(KeyError("secret-value"), "secret-value") == "[RUN_ERROR] KeyError: '***'"
    assert json_value({"a": (1, float("nan")), 2: {3}, "m": ae.SessionInput(user_id="u")}) == {
        "a": [1, "nan"],
        "2": [3],
        "m": {"app_name": None, "user_id": "u", "state": None},
    }
    final = ae.Message(role="assistant", content="done")
    messages = [
        ae.Message(role="user", content="q"),
        ae.Message(role="assistant", content="thinking aloud"),
        ae.Message(role="assistant", content="", tool_calls=[]),
        ae.Message(role="assistant", content="done"),
    ]
    assert [m.content for m in intermediate_responses(messages, final)] == ["thinking aloud"]


def test_repr_and_exports():
    wrapped = ae.record(lambda text: text, InMemoryEvalSetStore())
    assert isinstance(wrapped, RecordingAgent)
    assert ae.agents.record is ae.record
    assert "mode=default" in repr(wrapped)


def test_resolved_set_ids_and_the_state_as_it_was_before_the_turn():
    def agent(turn: Turn) -> str:
        turn.state["visits"] = turn.state.get("visits", 0) + 1  # the agent's own change
        return "ok"

    store = InMemoryEvalSetStore()
    wrapped = ae.record(agent, store, eval_set_id=lambda t: f"user-{t.user_id}", app_name="app")
    wrapped.respond("a", session_id="s1", user_id="ann", state={"visits": 0, "when": {1, 2}})
    wrapped.respond("b", session_id="s2", user_id="bob")
    assert store.list("app") == ["user-ann", "user-bob"]
    case = store.get_case("app", "user-ann", "s1")
    assert case.session_input.state == {"visits": 0, "when": [1, 2]}
    with pytest.raises(ValueError, match="non-empty string"):
        ae.record(agent, store, eval_set_id=lambda t: "").respond("c")
