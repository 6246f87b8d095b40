"""The LLM judges (SPEC §4–§6): one contract, one file per judge.

Read :mod:`.judge_contract` first: the stages a judge has (build the prompt messages for a turn →
call the judge ``numSamples`` times → score each sample → aggregate the samples → aggregate the
turns), their types, and the loop :class:`LLMJudgeEvaluator` that runs them. Then each judge is
one file with its prompt, its scoring of a sample, its aggregation and its error texts:

* ``llm_final_response`` — :mod:`.final_response_judge`;
* ``llm_hallucinations`` — :mod:`.hallucinations_judge` (segmentation + validation);
* ``llm_rubric_response``, ``llm_rubric_critic``, ``llm_rubric_reference_critic``,
  ``llm_rubric_knowledge_recall`` — :mod:`.rubric_judges` (sharing :mod:`.rubric_scoring`);
* ``llm_judge_template`` — :mod:`.template_judge` (scored by the operators it names,
  :mod:`.operator_registry`);
* ``llm_verifier_pairwise`` — :mod:`.verifier_judge` (on :mod:`agenteval_nb.verifier.scoring`).

:mod:`.judge_text` holds the prompt and answer helpers all judges share (JSON written as Go
writes it included). A user swaps or adds a stage by name in an :class:`OperatorRegistry`::

    ops = OperatorRegistry.default()
    ops.register_scorer("strict", my_scorer)            # (response, metric) -> ScoreResult
    reg = ae.Registry.default()
    reg.register("llm_judge_template", LLMJudgeTemplateEvaluator(operators=ops))
    reg.register("llm_final_response", LLMFinalResponseEvaluator(samples_aggregator="min"))

Every turn's ``details.judge`` keeps the rendered prompt and every sample; the verifier adds
``details.verifier`` with the label distributions (``schema.extras``).
"""

from .final_response_judge import LLMFinalResponseEvaluator
from .hallucinations_judge import LLMHallucinationsEvaluator
from .judge_contract import (
    HEURISTIC_MODEL,
    InvocationsAggregator,
    JudgeStages,
    LLMJudgeEvaluator,
    MessagesConstructor,
    ResponseScorer,
    SampleResult,
    SamplesAggregator,
    ScoreResult,
    StructuredOutputProvider,
    TurnInput,
    average,
    majority_vote,
    mean_samples,
    min_sample,
)
from .operator_registry import OperatorRegistry, ResolvedOperators, UnknownOperatorError
from .rubric_judges import (
    LLMRubricCriticEvaluator,
    LLMRubricKnowledgeRecallEvaluator,
    LLMRubricReferenceCriticEvaluator,
    LLMRubricResponseEvaluator,
)
from .template_judge import LLMJudgeTemplateEvaluator
from .verifier_judge import LLMVerifierPairwiseEvaluator, VerifierOptions

__all__ = [
    "HEURISTIC_MODEL",
    "InvocationsAggregator",
    "JudgeStages",
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
    "StructuredOutputProvider",
    "TurnInput",
    "UnknownOperatorError",
    "VerifierOptions",
    "average",
    "majority_vote",
    "mean_samples",
    "min_sample",
]
