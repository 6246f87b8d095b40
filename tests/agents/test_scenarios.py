"""conversationScenario (SPEC §8.3, §8.4): callable and agent-played simulated users, the stop
signal rule, limits and their errors, the expected driver, and the LLM simulator through the real
openai client on the loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_builders import evalset

import agenteval_nb as ae
from agenteval_nb.agents import Turn
from agenteval_nb.agents.simulator import AgentUserSimulator, LLMUserSimulator, is_stop
from agenteval_nb.render.case import render_case
from agenteval_nb.testing import FakeOpenAIServer, completion

SEEDS = Path(__file__).resolve().parents[2] / "data" / "seeds"
LENGTH = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}},
    }
]


def scenario_case(eval_id: str = "s", **scenario: Any) -> dict[str, Any]:
    plan = {"conversationPlan": "ask about the weather, then say thanks", **scenario}
    return {
        "evalId": eval_id,
        "sessionInput": {"appName": "a", "userId": "u", "state": {"city": "Oslo"}},
        "conversationScenario": plan,
    }


def echo_agent(text: str) -> str:
    return f"you said: {text}"


def test_callable_simulator_drives_the_agent_until_none() -> None:
    calls: list[tuple[list[str], str]] = []

    def user(scenario, conversation, last_reply):
        calls.append(([m.content for m in conversation], last_reply))
        return ["hello", "thanks", None][len(calls) - 1]

    run = ae.evaluate(
        evalset(scenario_case()), LENGTH, agent=echo_agent, user_simulator=user, progress=False
    )
    case = run.result.eval_case_results[0]
    assert case.error_message is None
    turns = [t.actual_invocation for t in case.eval_metric_result_per_invocation]
    assert [(t.user_content.content, t.final_response.content) for t in turns] == [
        ("hello", "you said: hello"),
        ("thanks", "you said: thanks"),
    ]
    assert all(t.simulated_user for t in turns)
    assert calls[1] == (["hello", "you said: hello"], "you said: hello")
    assert calls[2][0] == ["hello", "you said: hello", "thanks", "you said: thanks"]
    # placeholder expecteds: only the user content (SPEC §8.2)
    expected = case.eval_metric_result_per_invocation[0].expected_invocation
    assert expected.final_response is None and expected.user_content.content == "hello"


def test_agent_played_simulator_follows_the_reference_rules() -> None:
    seen: list[Turn] = []

    def sim(turn: Turn) -> str:
        seen.append(turn)
        return "  </FINISHED>  " if len(seen) == 2 else "what about tomorrow?"

    es = evalset(
        scenario_case(startingPrompt="hi there", stopSignal="</finished>", maxAllowedInvocations=5)
    )
    run = ae.evaluate(
        es, LENGTH, agent=echo_agent, user_simulator=AgentUserSimulator(sim), progress=False
    )
    turns = [
        t.actual_invocation.user_content.content
        for t in run.result.eval_case_results[0].eval_metric_result_per_invocation
    ]
    assert turns == ["hi there", "what about tomorrow?"]  # starting prompt, one generated, stop
    first = seen[0]
    assert first.text == "you said: hi there"  # the agent's last reply
    assert first.state == {"city": "Oslo"}
    prompt = first.context_messages[0].content
    assert "Conversation plan:\nask about the weather, then say thanks" in prompt
    assert "</finished>" in prompt and "hi there" in prompt


def test_stop_signal_must_be_the_whole_answer() -> None:
    assert is_stop(" DONE\n", "done")
    assert not is_stop("we are done", "done")
    assert not is_stop("done", "")


def test_max_allowed_invocations_stops_the_simulation() -> None:
    es = evalset(scenario_case(maxAllowedInvocations=3))
    run = ae.evaluate(
        es,
        LENGTH,
        agent=echo_agent,
        user_simulator=AgentUserSimulator(lambda t: "more"),
        progress=False,
    )
    assert len(run.result.eval_case_results[0].eval_metric_result_per_invocation) == 3


@pytest.mark.parametrize(
    ("scenario", "options", "needle"),
    [
        ({"conversationPlan": " "}, {}, "conversation plan is empty"),
        ({"stopSignal": ""}, {}, "stop signal and max allowed invocations cannot both be disabled"),
        (
            {"maxAllowedInvocations": -1, "stopSignal": "x"},
            {},
            "max allowed invocations must be >= 0",
        ),
        (
            {"stopSignal": "x"},
            {"max_allowed_invocations": -2},
            "max allowed invocations must be >= 0",
        ),
    ],
)
def test_simulator_setup_errors_fail_the_case(scenario, options, needle) -> None:
    es = evalset(scenario_case(**scenario))
    sim = AgentUserSimulator(lambda t: "x", **options)
    run = ae.evaluate(es, LENGTH, agent=echo_agent, user_simulator=sim, progress=False)
    assert needle in run.result.eval_case_results[0].error_message


def test_scenario_errors() -> None:
    both = scenario_case()
    both["conversation"] = [{"userContent": {"role": "user", "content": "x"}}]
    no_sim = scenario_case("nosim")
    run = ae.evaluate(evalset(both, no_sim), LENGTH, agent=echo_agent, progress=False)
    errors = [r.error_message for r in run.result.eval_case_results]
    assert "conversation and conversationScenario cannot both be set" in errors[0]
    assert "conversationScenario needs a user simulator" in errors[1]

    trace = scenario_case("trace")
    trace["evalMode"] = "trace"
    run = ae.evaluate(
        evalset(trace), LENGTH, agent=echo_agent, user_simulator=lambda *a: None, progress=False
    )
    assert (
        "conversationScenario is not supported in trace mode"
        in run.result.eval_case_results[0].error_message
    )

    nothing = ae.evaluate(
        evalset(scenario_case()),
        LENGTH,
        agent=echo_agent,
        user_simulator=lambda *a: None,
        progress=False,
    )
    assert "invocations are empty" in nothing.result.eval_case_results[0].error_message

    wrong_role = ae.evaluate(
        evalset(scenario_case()),
        LENGTH,
        agent=echo_agent,
        user_simulator=lambda *a: ae.Message(role="assistant", content="x"),
        progress=False,
    )
    assert "is not user" in wrong_role.result.eval_case_results[0].error_message


def test_target_must_answer() -> None:
    def silent(turn: Turn) -> ae.Invocation:
        return ae.Invocation()

    run = ae.evaluate(
        evalset(scenario_case()),
        LENGTH,
        agent=silent,
        user_simulator=lambda s, c, r: None if c else "hi",
        progress=False,
    )
    assert "target final response is nil" in run.result.eval_case_results[0].error_message


def test_expected_driver_replays_the_generated_user_turns() -> None:
    es = evalset(
        scenario_case(driver="expected", maxAllowedInvocations=2),
    )
    es.eval_cases[0].expected_runner_enabled = True
    sessions: dict[str, list[str]] = {}

    def target(turn: Turn) -> str:
        sessions.setdefault(turn.session_id, []).append(turn.text)
        return f"you said: {turn.text}"

    def user(scenario, conversation, last_reply):
        return f"message {len(conversation) // 2 + 1}"

    run = ae.evaluate(
        es,
        LENGTH,
        agent=target,
        expected_agent=target,
        user_simulator=user,
        session_id_factory=lambda: "S",
        progress=False,
    )
    case = run.result.eval_case_results[0]
    assert case.error_message is None
    assert sessions == {"S-expected": ["message 1", "message 2"], "S": ["message 1", "message 2"]}
    assert case.final_eval_status == "passed"
    expected = case.eval_metric_result_per_invocation[1].expected_invocation
    assert expected.final_response.content == "you said: message 2"

    without = ae.evaluate(es, LENGTH, agent=target, user_simulator=user, progress=False)
    assert "expected runner is nil" in without.result.eval_case_results[0].error_message


def test_callable_simulators_respect_the_scenario_limits() -> None:
    es = evalset(scenario_case(maxAllowedInvocations=2), scenario_case("stop", stopSignal="bye"))

    def user(scenario, conversation, last_reply):
        return "bye" if scenario.stop_signal and conversation else "again"

    run = ae.evaluate(es, LENGTH, agent=echo_agent, user_simulator=user, progress=False)
    lengths = [len(r.eval_metric_result_per_invocation) for r in run.result.eval_case_results]
    assert lengths == [2, 1]


def test_unknown_driver() -> None:
    run = ae.evaluate(
        evalset(scenario_case(driver="sideways")),
        LENGTH,
        agent=echo_agent,
        user_simulator=lambda *a: "x",
        progress=False,
    )
    assert (
        'unknown conversationScenario driver "sideways"'
        in run.result.eval_case_results[0].error_message
    )


def test_llm_user_simulator_on_the_seed_scenario() -> None:
    es = ae.load_evalset(SEEDS / "travel-eval-app" / "usersimulation-basic.evalset.json")
    script = iter(["预算五千，住两晚。", "航班要早上的。", " </finished> "])

    def model(request: dict[str, Any]) -> dict[str, Any]:
        if request["model"] == "simulator":
            return completion(next(script))
        return completion(f"好的：{request['messages'][-1]['content']}")

    with FakeOpenAIServer(handler=model) as server:
        agent = ae.agents.OpenAIAgent("agent", base_url=server.base_url)
        simulator = LLMUserSimulator(
            "simulator", base_url=server.base_url, api_key="sk-sim-SECRET-123456"
        )
        run = ae.evaluate(es, LENGTH, agent=agent, user_simulator=simulator, progress=False)
        sim_requests = [r for r in server.chat_requests if r["model"] == "simulator"]
    case = run.result.eval_case_results[0]
    assert case.error_message is None
    users = [
        t.actual_invocation.user_content.content for t in case.eval_metric_result_per_invocation
    ]
    assert users == ["帮我规划下周去北京出差的行程。", "预算五千，住两晚。", "航班要早上的。"]
    system = sim_requests[0]["messages"][0]
    assert system["role"] == "system" and "Conversation plan:" in system["content"]
    # the simulator sees the agent's replies as the user side of its own chat
    assert sim_requests[0]["messages"][-1] == {
        "role": "user",
        "content": "好的：帮我规划下周去北京出差的行程。",
    }
    assert "sk-sim-SECRET" not in repr(simulator)


def test_simulated_turns_and_mocked_calls_are_labelled_in_the_detail_view() -> None:
    def book(city: str) -> dict:
        """Book a hotel."""
        return {"ok": True, "real": True}

    def agent(turn: Turn) -> str:
        turn.tools.call("book", {"city": "Oslo"})
        return "booked"

    case = scenario_case(maxAllowedInvocations=1)
    run = ae.evaluate(
        evalset(case),
        LENGTH,
        agent=ae.agents.FunctionAgent(agent, tools=[book]),
        user_simulator=lambda *a: "book Oslo",
        progress=False,
    )
    html = str(render_case(run.result.eval_case_results[0]))
    assert "user (simulated)" in html

    static = {
        "evalId": "m",
        "sessionInput": {"appName": "a", "userId": "u"},
        "conversation": [
            {
                "userContent": {"role": "user", "content": "book"},
                "finalResponse": {"role": "assistant", "content": "booked"},
                "tools": [{"name": "book", "arguments": {"city": "Oslo"}}],
                "toolMock": {"actual": [{"name": "book", "result": {"ok": True}}]},
            }
        ],
    }
    run = ae.evaluate(
        evalset(static), LENGTH, agent=ae.agents.FunctionAgent(agent, tools=[book]), progress=False
    )
    html = str(render_case(run.result.eval_case_results[0]))
    assert "mocked (static rule 1)" in html
    assert run.result.eval_case_results[0].final_eval_status == "passed"
    assert "user (simulated)" not in html
