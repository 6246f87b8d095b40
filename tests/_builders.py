"""Small builders shared by the engine tests."""

from __future__ import annotations

import asyncio
from typing import Any

import agenteval_nb as ae
from agenteval_nb.schema import EvalMetricResultDetails, status_for


def turn(user: str, answer: str | None = None, **extra: Any) -> dict[str, Any]:
    inv: dict[str, Any] = {"userContent": {"role": "user", "content": user}}
    if answer is not None:
        inv["finalResponse"] = {"role": "assistant", "content": answer}
    inv.update(extra)
    return inv


def trace_case(
    eval_id: str, expected: list[str], actual: list[str], **extra: Any
) -> dict[str, Any]:
    case: dict[str, Any] = {
        "evalId": eval_id,
        "evalMode": "trace",
        "sessionInput": {"appName": "app", "userId": "user-1"},
        "conversation": [turn(f"q{i}", a) for i, a in enumerate(expected)],
        "actualConversation": [turn(f"q{i}", a) for i, a in enumerate(actual)],
    }
    case.update(extra)
    return case


def evalset(*cases: dict[str, Any], set_id: str = "set") -> dict[str, Any]:
    return {"evalSetId": set_id, "evalCases": list(cases)}


class ExactAnswer:
    """Scores 1 per turn when actual and expected final texts are equal; records what it saw."""

    name = "exact_answer"
    description = "final text equality (test evaluator)"

    def __init__(self, delay: float = 0.0) -> None:
        self.seen: list[tuple[list[ae.Invocation], list[ae.Invocation], ae.EvalMetric]] = []
        self.delay = delay

    async def evaluate(self, actuals, expecteds, metric):
        self.seen.append((actuals, expecteds, metric))
        if self.delay:
            await asyncio.sleep(self.delay)
        results = []
        for a, e in zip(actuals, expecteds, strict=True):
            same = (a.final_response and a.final_response.content) == (
                e.final_response and e.final_response.content
            )
            score = 1.0 if same else 0.0
            results.append(
                ae.PerInvocationResult(
                    a,
                    e,
                    score,
                    status_for(score, metric.threshold_value),
                    EvalMetricResultDetails(reason=None if same else "answers differ", score=score),
                )
            )
        overall = sum(r.score for r in results) / len(results)
        return ae.EvaluateResult(overall, status_for(overall, metric.threshold_value), results)


def registry_with(*evaluators: Any) -> ae.Registry:
    reg = ae.Registry.default()
    for ev in evaluators:
        reg.register(ev.name, ev)
    return reg


METRIC = {"metricName": "exact_answer", "threshold": 1.0}
