"""The LLM-judge pipeline (SPEC §4–§6) and the ``llm_*`` evaluators.

Stages (:mod:`.operators`): messages constructor → judge call (through the run's judge
client, ``EvaluationContext.judge``) → response scorer → samples aggregator → invocations
aggregator. The base loop is :class:`LLMJudgeEvaluator` (:mod:`.pipeline`); operators are
looked up by name in an :class:`OperatorRegistry` owned by each evaluator instance, so one
stage can be swapped without touching the evaluator::

    ops = OperatorRegistry.default()
    ops.register_scorer("strict", my_scorer)            # (response, metric) -> ScoreResult
    reg = ae.Registry.default()
    reg.register("llm_judge_template", LLMJudgeTemplateEvaluator(operators=ops))
    reg.register("llm_final_response", LLMFinalResponseEvaluator(samples_aggregator="min"))

Every turn's ``details.judge`` keeps the rendered prompt and every sample; the verifier adds
``details.verifier`` with the label distributions (``schema.extras``).
"""

from .aggregators import average, majority_vote, mean_samples, min_sample
from .builtin import (
    LLMFinalResponseEvaluator,
    LLMHallucinationsEvaluator,
    LLMRubricCriticEvaluator,
    LLMRubricKnowledgeRecallEvaluator,
    LLMRubricReferenceCriticEvaluator,
    LLMRubricResponseEvaluator,
)
from .operator_registry import OperatorRegistry, ResolvedOperators, UnknownOperatorError
from .operators import (
    InvocationsAggregator,
    MessagesConstructor,
    ResponseScorer,
    SampleResult,
    SamplesAggregator,
    ScoreResult,
    StructuredOutputProvider,
    TurnInput,
)
from .pipeline import LLMJudgeEvaluator, StageNames
from .records import HEURISTIC_MODEL
from .template import LLMJudgeTemplateEvaluator
from .verifier import LLMVerifierPairwiseEvaluator, VerifierOptions

__all__ = [
    "HEURISTIC_MODEL",
    "InvocationsAggregator",
    "LLMFinalResponseEvaluator",
    "LLMHallucinationsEvaluator",
    "LLMJudgeEvaluator",
    "LLMJudgeTemplateEvaluator",
    "LLMRubricCriticEvaluator",
    "LLMRubricKnowledgeRecallEvaluator",
    "LLMRubricReferenceCriticEvaluator",
    "LLMRubricResponseEvaluator",
    "LLMVerifierPairwiseEvaluator",
    "MessagesConstructor",
    "OperatorRegistry",
    "ResolvedOperators",
    "ResponseScorer",
    "SampleResult",
    "SamplesAggregator",
    "ScoreResult",
    "StageNames",
    "StructuredOutputProvider",
    "TurnInput",
    "UnknownOperatorError",
    "VerifierOptions",
    "average",
    "majority_vote",
    "mean_samples",
    "min_sample",
]
