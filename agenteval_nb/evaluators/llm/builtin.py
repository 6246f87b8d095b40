"""The built-in LLM-judge evaluators with a fixed prompt (SPEC §2, §4.3).

* ``llm_final_response``: final answer vs reference; scorer ``finalresponse``; no schema.
* ``llm_hallucinations``: segmentation call, then grounding check; scorer ``hallucination``.
* ``llm_rubric_response``: final answer vs rubrics; ``rubric_scores``;
  schema ``rubric_response_scores``.
* ``llm_rubric_critic``: + reference answer as golden truth; ``rubric_scores``;
  schema ``rubric_critic_scores``.
* ``llm_rubric_reference_critic``: + reference answer as quality anchor; ``rubric_scores``;
  schema ``rubric_reference_critic_scores``.
* ``llm_rubric_knowledge_recall``: retrieved knowledge vs rubrics; ``rubric_scores``;
  schema ``rubric_knowledge_recall_scores``.

Each class takes the keyword arguments of :class:`~.pipeline.LLMJudgeEvaluator`
(``operators=``, ``samples_aggregator=``, ``invocations_aggregator=``, ``scorer=``) to swap a
stage, e.g. ``LLMFinalResponseEvaluator(samples_aggregator="min")``.
"""

from __future__ import annotations

from typing import Any

from .constructors import (
    FinalResponseConstructor,
    HallucinationConstructor,
    KnowledgeRecallConstructor,
    RubricCriticConstructor,
    RubricReferenceCriticConstructor,
    RubricResponseConstructor,
)
from .pipeline import LLMJudgeEvaluator

__all__ = [
    "LLMFinalResponseEvaluator",
    "LLMHallucinationsEvaluator",
    "LLMRubricCriticEvaluator",
    "LLMRubricKnowledgeRecallEvaluator",
    "LLMRubricReferenceCriticEvaluator",
    "LLMRubricResponseEvaluator",
]


class LLMFinalResponseEvaluator(LLMJudgeEvaluator):
    name = "llm_final_response"
    description = "LLM judge: is the final answer equivalent to the reference answer?"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "finalresponse")
        super().__init__(FinalResponseConstructor(), **kwargs)


class LLMHallucinationsEvaluator(LLMJudgeEvaluator):
    name = "llm_hallucinations"
    description = "LLM judge: share of the final answer's sentences grounded in the context"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "hallucination")
        super().__init__(HallucinationConstructor(), **kwargs)


class LLMRubricResponseEvaluator(LLMJudgeEvaluator):
    name = "llm_rubric_response"
    description = "LLM judge: share of rubric items the final answer satisfies"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "rubric_scores")
        super().__init__(RubricResponseConstructor(), **kwargs)


class LLMRubricCriticEvaluator(LLMJudgeEvaluator):
    name = "llm_rubric_critic"
    description = "LLM judge: rubric items checked against a golden reference answer"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "rubric_scores")
        super().__init__(RubricCriticConstructor(), **kwargs)


class LLMRubricReferenceCriticEvaluator(LLMJudgeEvaluator):
    name = "llm_rubric_reference_critic"
    description = "LLM judge: rubric items with the reference answer as a quality anchor"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "rubric_scores")
        super().__init__(RubricReferenceCriticConstructor(), **kwargs)


class LLMRubricKnowledgeRecallEvaluator(LLMJudgeEvaluator):
    name = "llm_rubric_knowledge_recall"
    description = "LLM judge: is the retrieved knowledge sufficient for each rubric item?"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("scorer", "rubric_scores")
        super().__init__(KnowledgeRecallConstructor(), **kwargs)
