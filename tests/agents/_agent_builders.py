"""Eval sets and metrics for the agent tests (default-mode cases built in memory)."""

from __future__ import annotations

from typing import Any

import agenteval_nb as ae


def default_case(
    eval_id: str,
    turns: list[tuple[str, str]],
    *,
    tools: list[list[dict[str, Any]]] | None = None,
    state: dict[str, Any] | None = None,
    context: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A default-mode case: ``turns`` = [(user text, expected final text)], optional expected
    tool calls per turn."""
    conversation = []
    for i, (user, answer) in enumerate(turns):
        inv: dict[str, Any] = {
            "invocationId": f"{eval_id}-t{i + 1}",
            "userContent": {"role": "user", "content": user},
            "finalResponse": {"role": "assistant", "content": answer},
        }
        if tools is not None:
            inv["tools"] = tools[i]
        conversation.append(inv)
    case: dict[str, Any] = {
        "evalId": eval_id,
        "sessionInput": {"appName": "agent-app", "userId": "user-1", "state": state or {}},
        "conversation": conversation,
    }
    if context:
        case["contextMessages"] = [{"role": "system", "content": c} for c in context]
    case.update(extra)
    return case


def evalset(*cases: dict[str, Any], set_id: str = "agent-set") -> ae.EvalSet:
    return ae.load_evalset({"evalSetId": set_id, "evalCases": list(cases)})


EXACT_FINAL = {
    "metricName": "final_response_avg_score",
    "threshold": 1.0,
    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
}
TRAJECTORY = {
    "metricName": "tool_trajectory_avg_score",
    "threshold": 1.0,
    "criterion": {"toolTrajectory": {}},
}


def metrics(*items: dict[str, Any]) -> list[ae.EvalMetric]:
    return ae.load_metrics(list(items) or [EXACT_FINAL])
