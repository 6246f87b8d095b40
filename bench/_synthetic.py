"""Synthetic trace-mode eval sets for the benchmarks (deterministic, seeded).

Each case has one turn with 1–3 tool calls whose arguments are nested objects. Of the actual
turns, 15 % call their tools in another order, 10 % change one argument and 30 % change the
final text; everything else matches the expected turn.
"""

from __future__ import annotations

import random
from typing import Any

TOOLS = ("get_weather", "calculator", "knowledge_search")


def _tool(rng: random.Random, i: int) -> dict[str, Any]:
    name = rng.choice(TOOLS)
    return {
        "id": f"call-{i}",
        "name": name,
        "arguments": {
            "query": f"q{rng.randrange(1000)}",
            "options": {
                "unit": rng.choice(["c", "f"]),
                "limit": rng.randrange(1, 10),
                "tags": ["a", "b"],
            },
            "request_id": f"r{rng.randrange(10**9)}",
        },
        "result": {"value": rng.random(), "items": [rng.randrange(100) for _ in range(3)]},
    }


def make_cases(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` cases in the Go shape: conversation (expected) and actualConversation."""
    rng = random.Random(seed)
    cases = []
    for c in range(n):
        tools = [_tool(rng, i) for i in range(rng.randint(1, 3))]
        answer = f"The answer for case {c} is {rng.randrange(10**6)} units."
        actual_tools = [
            {**t, "arguments": {**t["arguments"], "request_id": f"x{c}"}} for t in tools
        ]
        roll = rng.random()
        if roll < 0.15 and len(actual_tools) > 1:
            actual_tools.reverse()
        elif roll < 0.25:
            changed = actual_tools[0]
            changed["arguments"] = {**changed["arguments"], "query": "changed"}
        actual_answer = answer.upper() if rng.random() >= 0.3 else f"Sorry, case {c} failed."
        user = {"role": "user", "content": f"Question {c}?"}
        cases.append(
            {
                "evalId": f"case-{c}",
                "evalMode": "trace",
                "sessionInput": {"appName": "bench", "userId": "u"},
                "conversation": [
                    {
                        "invocationId": f"inv-{c}",
                        "userContent": user,
                        "finalResponse": {"role": "assistant", "content": answer},
                        "tools": tools,
                    }
                ],
                "actualConversation": [
                    {
                        "invocationId": f"inv-{c}",
                        "userContent": user,
                        "finalResponse": {"role": "assistant", "content": actual_answer},
                        "tools": actual_tools,
                    }
                ],
            }
        )
    return cases


def evalset(n: int) -> dict[str, Any]:
    return {"evalSetId": f"bench_{n}", "evalCases": make_cases(n)}


METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {
                "defaultStrategy": {"name": {}, "arguments": {"ignoreTree": {"request_id": True}}}
            }
        },
    },
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {
            "finalResponse": {"text": {"matchStrategy": "contains", "caseInsensitive": True}}
        },
    },
]


def _adk_message(msg: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "model" if msg["role"] == "assistant" else msg["role"],
        "parts": [{"text": msg["content"]}],
    }


def _adk_invocation(inv: dict[str, Any]) -> dict[str, Any]:
    return {
        "invocation_id": inv["invocationId"],
        "user_content": _adk_message(inv["userContent"]),
        "final_response": _adk_message(inv["finalResponse"]),
        "intermediate_data": {
            "tool_uses": [
                {"id": t["id"], "name": t["name"], "args": t["arguments"]} for t in inv["tools"]
            ],
            "tool_responses": [
                {"id": t["id"], "name": t["name"], "response": t["result"]} for t in inv["tools"]
            ],
        },
    }


def adk_evalset(n: int) -> dict[str, Any]:
    """The same cases in the trpc-agent-python (google-adk) shape."""
    return {
        "eval_set_id": f"bench_{n}",
        "eval_cases": [
            {
                "eval_id": c["evalId"],
                "eval_mode": "trace",
                "session_input": {"app_name": "bench", "user_id": "u"},
                "conversation": [_adk_invocation(i) for i in c["conversation"]],
                "actual_conversation": [_adk_invocation(i) for i in c["actualConversation"]],
            }
            for c in make_cases(n)
        ],
    }


TRPC_METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {
                "default": {"name": {}, "arguments": {"ignore_tree": {"request_id": True}}}
            }
        },
    },
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"match": "contains", "case_insensitive": True}}},
    },
]
