"""Builders shared by the LLM-judge tests (imported as ``_llm_helpers``)."""

from __future__ import annotations

from typing import Any

from agenteval_nb.schema import EvalMetric, Invocation
from agenteval_nb.testing.fake_server import completion


def inv(user: str = "q", answer: str | None = "a", **extra: Any) -> Invocation:
    """An invocation from a user text, a final answer and extra wire fields."""
    data: dict[str, Any] = {"userContent": {"role": "user", "content": user}}
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    data.update(extra)
    return Invocation.model_validate(data)


RUBRICS = [
    {"id": "r1", "content": {"text": "mentions Paris"}},
    {"id": "r2", "content": {"text": "gives the population"}},
]


def make_metric(
    name: str,
    base_url: str | None,
    *,
    threshold: float = 0.5,
    judge_model: dict[str, Any] | None = None,
    evaluator: str | None = None,
    **llm: Any,
) -> EvalMetric:
    """A metric whose judge is the fake server (``llm`` = extra ``llmJudge`` wire fields)."""
    extension = llm.pop("extension", None)
    model: dict[str, Any] = {"modelName": "judge-1"}
    if base_url is not None:
        model["baseURL"] = base_url
    model.update(judge_model or {})
    data: dict[str, Any] = {
        "metricName": name,
        "threshold": threshold,
        "criterion": {"llmJudge": {"judgeModel": model, **llm}},
    }
    if evaluator:
        data["evaluatorName"] = evaluator
    if extension is not None:
        data["extension"] = extension
    return EvalMetric.model_validate(data)


def text_answer(content: str, **kw: Any) -> dict[str, Any]:
    return completion(content, **kw)


TEMPLATE_BASE = {
    "prompt": "Answer:\n<agent_response>\n{{a}}\n</agent_response>\n"
    "<reference_answer>\n{{r}}\n</reference_answer>",
    "variableBindings": [
        {"templateVariable": "a", "source": {"scope": "actual", "field": "finalResponse"}},
        {"templateVariable": "r", "source": {"scope": "expected", "field": "finalResponse"}},
    ],
}

EVALUATOR_CASES = [
    # (evaluator or template scorer name, llmJudge fields): one of every judge answer format
    ("llm_final_response", {}),
    ("llm_rubric_response", {"rubrics": RUBRICS}),
    ("llm_rubric_critic", {"rubrics": RUBRICS}),
    ("llm_rubric_reference_critic", {"rubrics": RUBRICS}),
    ("llm_rubric_knowledge_recall", {"rubrics": RUBRICS}),
    ("llm_hallucinations", {}),
    ("llm_verifier_pairwise", {"rubrics": RUBRICS}),
    ("single_score", {"template": {**TEMPLATE_BASE, "responseScorerName": "single_score"}}),
    ("boolean", {"template": {**TEMPLATE_BASE, "responseScorerName": "boolean"}}),
    (
        "rubric_scores",
        {
            "rubrics": RUBRICS,
            "template": {
                "prompt": TEMPLATE_BASE["prompt"] + "\nRubrics: {{rubrics}}",
                "responseScorerName": "rubric_scores",
                "variableBindings": [
                    *TEMPLATE_BASE["variableBindings"],
                    {
                        "templateVariable": "rubrics",
                        "source": {"scope": "metric", "field": "rubrics"},
                    },
                ],
            },
        },
    ),
    (
        "categorical",
        {
            "template": {
                **TEMPLATE_BASE,
                "responseScorerName": "categorical",
                "responseScorerOptions": {
                    "categories": [{"label": "right", "score": 1}, {"label": "wrong", "score": 0}]
                },
            }
        },
    ),
]
