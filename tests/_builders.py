"""Small builders shared by the engine tests."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import agenteval_nb as ae
from agenteval_nb.schema import EvalMetricResultDetails, status_for
from agenteval_nb.testing.fake_server import completion


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


# -- judges over numbered answers (rejudge, compare_judges, estimate_cost) ----------------------

NUMBERED = re.compile(r"ans-(\d+)")


def numbered_cases(n: int, *, trace: bool = False) -> dict[str, Any]:
    """``n`` one-turn cases ``c<k>``: the user asks ``q-<k>``, the expected answer (and, in trace
    mode, the recorded one) is ``ans-<k>``; a judge reads the number back from its prompt."""
    cases = []
    for k in range(n):
        expected = turn(f"q-{k}", f"ans-{k}")
        case: dict[str, Any] = {
            "evalId": f"c{k}",
            "sessionInput": {"appName": "app", "userId": "u"},
            "conversation": [expected],
        }
        if trace:
            case.update(evalMode="trace", actualConversation=[turn(f"q-{k}", f"ans-{k}")])
        cases.append(case)
    return evalset(*cases, set_id="numbered")


def numbered_agent(calls: list[str]) -> Any:
    """An agent answering ``q-<k>`` with ``ans-<k>``, counting its calls in ``calls``."""

    def agent(text: str) -> str:
        calls.append(text)
        return "ans-" + text.split("-", 1)[1]

    return agent


def verdict_content(k: int, good: bool) -> str:
    """An ``llm_final_response`` answer for item ``k``."""
    label = "valid" if good else "invalid"
    return f"reasoning: item {k}\nis_the_agent_response_valid: {label}"


def scripted_handler(verdicts: Callable[[int], bool], model: str) -> Any:
    """A fake-server handler: item ``k`` (the last ``ans-<k>`` of the prompt) is judged valid
    iff ``verdicts(k)``."""

    def handler(request: dict[str, Any]) -> dict[str, Any]:
        text = "\n".join(str(m.get("content")) for m in request["messages"])
        k = int(NUMBERED.findall(text)[-1])
        return completion(verdict_content(k, verdicts(k)), model=model)

    return handler


def judge_metric(base_url: str, model: str = "mini", name: str = "fr") -> dict[str, Any]:
    """An ``llm_final_response`` metric judged by ``model`` at ``base_url``."""
    return {
        "metricName": name,
        "evaluatorName": "llm_final_response",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": model, "baseURL": base_url}}},
    }


EXACT_METRIC = {
    "metricName": "final_response_avg_score",
    "threshold": 1.0,
    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
}
