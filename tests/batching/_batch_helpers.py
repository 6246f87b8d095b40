"""An eval set and metrics for batch tests: a trace case, an agent-run case, several judges."""

from __future__ import annotations

from typing import Any


def turn(user: str, answer: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"userContent": {"role": "user", "content": user}}
    if answer is not None:
        out["finalResponse"] = {"role": "assistant", "content": answer}
    return out


EVALSET: dict[str, Any] = {
    "evalSetId": "geo",
    "evalCases": [
        {
            "evalId": "paris",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of France?", "Paris is the capital of France.")],
            "actualConversation": [turn("Capital of France?", "The capital of France is Paris.")],
        },
        {
            "evalId": "two-turns",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [
                turn("Capital of Italy?", "Rome is the capital."),
                turn("And Spain?", "Madrid is the capital."),
            ],
        },
        {
            "evalId": "berlin",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of Germany?", "Berlin is the capital of Germany.")],
        },
    ],
}

ANSWERS = {
    "Capital of Italy?": "Rome is the capital of Italy.",
    "And Spain?": "Barcelona, I think.",
    "Capital of Germany?": "Berlin is the capital.",
}


def agent(text: str) -> str:
    """The agent under test: a fixed answer per question."""
    return ANSWERS[text]


RUBRICS = [
    {"id": "r1", "content": {"text": "names the capital city"}},
    {"id": "r2", "content": {"text": "answers in one sentence"}},
]


def metrics(base_url: str, *, model: str = "judge-a", num_samples: int = 2) -> list[dict]:
    """Four judge metrics (samples, rubrics, the two-stage hallucination judge, the verifier)."""
    judge = {"modelName": model, "baseURL": base_url, "numSamples": num_samples}
    one = {**judge, "numSamples": 1}
    return [
        {
            "metricName": "final",
            "evaluatorName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": judge}},
        },
        {
            "metricName": "rubric",
            "evaluatorName": "llm_rubric_response",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": one, "rubrics": RUBRICS}},
        },
        {
            "metricName": "halluc",
            "evaluatorName": "llm_hallucinations",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": one}},
        },
        {
            "metricName": "verifier",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": one, "rubrics": RUBRICS}},
        },
    ]


def session_ids():
    """Deterministic session ids (sync and batch runs then match field for field)."""
    count = iter(range(10_000))
    return lambda: f"s{next(count)}"
