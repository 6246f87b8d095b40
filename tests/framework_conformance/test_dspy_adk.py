"""DSPy and Google ADK through ``ae.evaluate`` against the loopback server playing the scripted
agent model, one run per mode of their conformance modules (``frameworks/dspy.py``,
``frameworks/adk.py``): either every turn is captured in full (tool ids, arguments and results
from the wire, the final answer, usage) or the module's :class:`Gap` check passes on the run.

The second case needs memory: its follow-up names no city, so the scripted model finds the city
only in an earlier user message the framework sent along (``ToolRule(recall=True)``).
"""

from __future__ import annotations

import ast
import importlib
import os
from typing import Any

import pytest

import agenteval_nb as ae
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer
from framework_conformance.contract import MODES, Gap

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM: no cost map download

WEATHER = ToolRule(
    "get_weather",
    ["weather", "raining"],
    arguments=r"in (?P<city>[A-Z]\w+)",
    answer="It is {result[condition]} in {arguments[city]}.",
    recall=True,
)


def get_weather(city: str) -> dict[str, Any]:
    """Current weather of a city."""
    return {"city": city, "condition": "sunny" if city == "Paris" else "rainy"}


def cases() -> ae.EvalSet:
    def case(eval_id: str, turns: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {
            "evalId": eval_id,
            "sessionInput": {"appName": "weather", "userId": "u"},
            "conversation": [
                {
                    "invocationId": f"{eval_id}-{i}",
                    "userContent": {"role": "user", "content": text},
                    "finalResponse": {"role": "assistant", "content": answer},
                    "tools": [{"name": "get_weather", "arguments": {"city": city}}],
                }
                for i, (text, answer, city) in enumerate(turns)
            ],
        }

    return ae.load_evalset(
        {
            "evalSetId": "weather",
            "evalCases": [
                case(
                    "paris", [("What is the weather in Paris?", "It is sunny in Paris.", "Paris")]
                ),
                case(
                    "follow-up",
                    [
                        ("Weather in Oslo please", "It is rainy in Oslo.", "Oslo"),
                        ("Is it raining there?", "It is rainy in Oslo.", "Oslo"),
                    ],
                ),
            ],
        }
    )


METRICS = ae.load_metrics(
    [
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
        },
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
        },
    ]
)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(ScriptedAgentModel([WEATHER])) as srv:
        yield srv


def conformance(name: str) -> Any:
    module = importlib.import_module(f"framework_conformance.frameworks.{name}")
    pytest.importorskip(module.PACKAGE, reason=f"{module.FRAMEWORK} is not installed")
    return module


def turns_of(run: ae.EvalRun) -> list[tuple[Any, ...]]:
    """Per (case, turn): final text, tools (id, name, arguments, result)."""
    out = []
    for case in sorted(run.result.eval_case_results, key=lambda c: c.eval_id):
        for metric_turn in case.eval_metric_result_per_invocation or ():
            inv = metric_turn.actual_invocation
            tools = [(t.id, t.name, t.arguments, t.result) for t in inv.tools or ()]
            out.append((case.eval_id, inv.final_response.content, tools))
    return out


def literal(text: str) -> Any:
    """A dict's ``str()`` back as the dict it names (literals only, never evaluated as code)."""
    return ast.literal_eval(text)


def statuses(run: ae.EvalRun) -> dict[tuple[str, str], str]:
    frame = run.metrics_df()
    return {(r.eval_id, r.metric_name): r.status for r in frame.itertuples(index=False)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["dspy", "adk", "crewai"])
def test_each_mode_is_captured_or_its_gap_is_proven(server, name, mode):
    module = conformance(name)
    made = module.make(server.base_url, mode, [get_weather])
    agent = made.agent if isinstance(made, Gap) else made
    assert agent is not None
    run = ae.evaluate(cases(), METRICS, agent=agent, progress=False)
    assert not [c.error_message for c in run.result.eval_case_results if c.error_message]
    if isinstance(made, Gap):
        assert made.reason and made.check is not None
        made.check(run)
        return
    turns = turns_of(run)
    # ids as the wire gave them (CrewAI's memory resends texts only, so its ids restart per turn)
    assert all(t[0].startswith("call_") for _, _, tools in turns for t in tools)
    # CrewAI sends a tool's dict as its str(): what crossed the wire is the result
    assert [
        (
            case,
            final,
            [(t[1], t[2], t[3] if isinstance(t[3], dict) else literal(t[3])) for t in tools],
        )
        for case, final, tools in turns
    ] == [
        (
            "follow-up",
            "It is rainy in Oslo.",
            [("get_weather", {"city": "Oslo"}, get_weather("Oslo"))],
        ),
        (
            "follow-up",
            "It is rainy in Oslo.",
            [("get_weather", {"city": "Oslo"}, get_weather("Oslo"))],
        ),
        (
            "paris",
            "It is sunny in Paris.",
            [("get_weather", {"city": "Paris"}, get_weather("Paris"))],
        ),
    ]
    assert set(statuses(run).values()) == {"passed"}
    assert run.info["agent_usage"]["prompt_tokens"] > 0
    for case in run.result.eval_case_results:
        for turn in case.eval_metric_result_per_invocation:
            assert not turn.actual_invocation.source.gaps


def test_the_dspy_gap_is_the_tools_alone(server):
    """DSPy ReAct runs its tools (the trajectory holds them, and the answers that need their
    results are right), scores its final answers, and only the tool trajectory fails."""
    module = conformance("dspy")
    made = module.make(server.base_url, "async", [get_weather])
    run = ae.evaluate(cases(), METRICS, agent=made.agent, progress=False)
    found = statuses(run)
    assert {k: v for k, v in found.items() if k[1] == "final_response_avg_score"} == {
        ("paris", "final_response_avg_score"): "passed",
        ("follow-up", "final_response_avg_score"): "passed",
    }
    assert {v for k, v in found.items() if k[1] == "tool_trajectory_avg_score"} == {"failed"}


def test_dspy_default_engine_is_not_on_the_wire(server):
    """DSPy 3's default engine for ``openai/…`` with an api_base is its vendored stdlib client:
    the model answers, and the wire records nothing (documented; a change would show here)."""
    dspy = pytest.importorskip("dspy", reason="DSPy is not installed")
    lm = dspy.LM("openai/scripted", api_base=server.base_url, api_key="k", cache=False)
    program = dspy.Predict("question -> answer")
    program.set_lm(lm)
    with ae.capture() as cap:
        prediction = program(question="Hello?")
    assert prediction.answer.startswith("I am a scripted agent model")
    assert cap.calls_df().empty
    lm = dspy.LM(
        "openai/scripted", api_base=server.base_url, api_key="k", cache=False, engine="litellm"
    )
    program.set_lm(lm)
    with ae.capture() as cap:
        program(question="Hello?")
    assert len(cap.calls_df()) == 1


def test_a_dspy_module_of_ones_own_and_a_custom_call_keep_the_answer_rule():
    """Without a signature the text goes to ``forward``'s first parameter and the answer is the
    ``answer`` field; ``ae.agent(obj, call=...)`` still reads the answer by DSPy's rule."""
    dspy = pytest.importorskip("dspy", reason="DSPy is not installed")

    class Echo(dspy.Module):
        def forward(self, question: str) -> Any:
            return dspy.Prediction(reasoning="-", answer=question.upper())

    custom = ae.agent(Echo(), call=lambda m, turn: m(question=turn.text + "!"))
    for agent, suffix in ((Echo(), ""), (custom, "!")):
        run = ae.evaluate(cases(), METRICS, agent=agent, progress=False)
        finals = [final for _, final, _ in turns_of(run)]
        assert finals == [
            "WEATHER IN OSLO PLEASE" + suffix,
            "IS IT RAINING THERE?" + suffix,
            "WHAT IS THE WEATHER IN PARIS?" + suffix,
        ]


def test_an_adk_runner_is_driven_as_given_with_a_session_per_case(server):
    """A runner of one's own keeps its session service: each case's session is in it, under the
    case's user id, holding the case's turns (what gave the follow-up its city)."""
    adk = conformance("adk")
    from google.adk.runners import InMemoryRunner

    runner = InMemoryRunner(agent=adk.make(server.base_url, "async", [get_weather]), app_name="w")
    run = ae.evaluate(cases(), METRICS, agent=runner, progress=False)
    assert set(statuses(run).values()) == {"passed"}
    listed = runner.session_service.list_sessions_sync(app_name="w", user_id="u").sessions
    assert len(listed) == 2
    texts = []
    for found in listed:
        session = runner.session_service.get_session_sync(
            app_name="w", user_id="u", session_id=found.id
        )
        texts.append(
            [e.content.parts[0].text for e in session.events if e.author == "user" and e.content]
        )
    assert sorted(texts) == [
        ["Weather in Oslo please", "Is it raining there?"],
        ["What is the weather in Paris?"],
    ]


def test_dspy_streams_without_usage_unless_the_lm_asks_for_it(server):
    """LiteLLM streams without ``stream_options.include_usage`` by default: every call is
    captured, none with usage, and each turn says so (``call_without_usage``)."""
    dspy = pytest.importorskip("dspy", reason="DSPy is not installed")
    made = conformance("dspy").make(server.base_url, "streaming", [get_weather])
    made.agent.react.set_lm(
        dspy.LM(
            "openai/scripted", api_base=server.base_url, api_key="k", engine="litellm", cache=False
        )
    )
    run = ae.evaluate(cases(), METRICS, agent=made.agent, progress=False)
    for case in run.result.eval_case_results:
        for turn in case.eval_metric_result_per_invocation:
            source = turn.actual_invocation.source
            assert len(source.span_ids) >= 2 and "call_without_usage" in source.gaps
    assert not run.info["agent_usage"].get("prompt_tokens")
