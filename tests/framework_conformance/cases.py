"""The conformance cases every framework runs: a single-turn tool case and a two-turn case
whose second turn needs the first (the scripted model finds the city of "What should I pack?"
only in the earlier user message: :attr:`ToolRule.recall`), scored with the tool trajectory
(names and arguments) and the exact final response. The tools are plain typed Python functions
with docstrings (Google style: smolagents needs each argument described)."""

from __future__ import annotations

from typing import Any

import agenteval_nb as ae
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule


def get_weather(city: str) -> dict[str, str]:
    """Current weather of a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    return {"city": city, "condition": "sunny" if city == "Paris" else "rainy"}


def pack_for(city: str) -> dict[str, str]:
    """What to pack for a trip to a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    return {"city": city, "item": "sunglasses" if city == "Paris" else "an umbrella"}


TOOLS = (get_weather, pack_for)

RULES = (
    ToolRule(
        "get_weather",
        ["weather"],
        arguments=r"in (?P<city>[A-Z]\w+)",
        answer="It is {result[condition]} in {arguments[city]}.",
    ),
    ToolRule(
        "pack_for",
        ["pack"],
        arguments=r"in (?P<city>[A-Z]\w+)",
        answer="Pack {result[item]} for {arguments[city]}.",
        recall=True,
    ),
)

TURNS: dict[str, list[tuple[str, str, str, str]]] = {
    "weather": [("What is the weather in Paris?", "It is sunny in Paris.", "get_weather", "Paris")],
    "trip": [
        ("What is the weather in Oslo?", "It is rainy in Oslo.", "get_weather", "Oslo"),
        ("What should I pack for the trip?", "Pack an umbrella for Oslo.", "pack_for", "Oslo"),
    ],
}
"""Per case: (user text, expected final answer, expected tool, its ``city`` argument)."""


def scripted_model() -> ScriptedAgentModel:
    """The model the loopback server plays: one tool call per step; speaks smolagents' text
    protocol (``Observation:`` results, the ``final_answer`` tool) when a framework does."""
    return ScriptedAgentModel(
        RULES, parallel=False, observations="Observation:", finish_tool="final_answer"
    )


def expected_result(tool: str, city: str) -> dict[str, str]:
    return {"get_weather": get_weather, "pack_for": pack_for}[tool](city)


def evalset() -> ae.EvalSet:
    def case(eval_id: str, turns: list[tuple[str, str, str, str]]) -> dict[str, Any]:
        return {
            "evalId": eval_id,
            "sessionInput": {"appName": "trip", "userId": "u"},
            "conversation": [
                {
                    "invocationId": f"{eval_id}-{i}",
                    "userContent": {"role": "user", "content": text},
                    "finalResponse": {"role": "assistant", "content": answer},
                    "tools": [{"name": tool, "arguments": {"city": city}}],
                }
                for i, (text, answer, tool, city) in enumerate(turns)
            ],
        }

    return ae.load_evalset(
        {
            "evalSetId": "framework-conformance",
            "evalCases": [case(eval_id, turns) for eval_id, turns in TURNS.items()],
        }
    )


METRICS = ae.load_metrics(
    [
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
        },
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
        },
    ]
)
"""Results are not scored (frameworks send a dict result as JSON or as its ``str``); the
conformance check compares them itself."""
