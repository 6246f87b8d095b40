"""Operators by name, so one stage of an LLM evaluator can be swapped without touching it.

There is no process-global registry: :meth:`OperatorRegistry.default` returns a fresh registry
with the built-ins, owned by whoever created it (an evaluator instance takes one as
``operators=``). Built-in names:

* response scorers: ``finalresponse``, ``hallucination``, ``rubric_scores``, ``single_score``,
  ``boolean``, ``categorical``, ``verifier_pairwise``;
* samples aggregators: ``majority_vote`` (default), ``min``, ``mean``;
* invocations aggregators: ``average`` (default);
* structured outputs: ``single_score``, ``rubric_scores``, ``boolean``, ``categorical``.

Lookups of unknown names fail with the reference's texts: ``unsupported response scorer "x"``,
``unsupported samples aggregator "x"``, ``unsupported invocations aggregator "x"``,
``unsupported structured output "x"``.

Template resolution (SPEC §6.5), in order: ``responseScorerName`` required (``template
responseScorerName is empty``) and registered; samples aggregator (default ``majority_vote``);
invocations aggregator (default ``average``); structured output = the one named by
``structuredOutputName`` if set, else the one registered under the scorer's name, else none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...schema import JudgeTemplateOptions
from . import aggregators, structured
from .gojson import go_quote
from .operators import (
    InvocationsAggregator,
    ResponseScorer,
    SamplesAggregator,
    StructuredOutputProvider,
)
from .scorers import (
    score_boolean,
    score_categorical,
    score_final_response,
    score_hallucination,
    score_rubric_scores,
    score_single_score,
    score_verifier_pairwise,
)

__all__ = [
    "DEFAULT_INVOCATIONS_AGGREGATOR",
    "DEFAULT_SAMPLES_AGGREGATOR",
    "OperatorRegistry",
    "ResolvedOperators",
    "UnknownOperatorError",
]

DEFAULT_SAMPLES_AGGREGATOR = "majority_vote"
DEFAULT_INVOCATIONS_AGGREGATOR = "average"


class UnknownOperatorError(LookupError):
    """No operator of that kind is registered under the name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True, slots=True)
class ResolvedOperators:
    """The operators a template metric names (``structured_output`` may be ``None``)."""

    scorer: ResponseScorer
    samples_aggregator: SamplesAggregator
    invocations_aggregator: InvocationsAggregator
    structured_output: StructuredOutputProvider | None


_KINDS = {
    "scorer": "response scorer",
    "samples": "samples aggregator",
    "invocations": "invocations aggregator",
    "structured": "structured output",
}


class OperatorRegistry:
    """Named response scorers, aggregators and structured outputs (rules in the module doc)."""

    def __init__(self) -> None:
        self._tables: dict[str, dict[str, Any]] = {kind: {} for kind in _KINDS}

    @classmethod
    def default(cls) -> OperatorRegistry:
        """A fresh registry holding the built-in operators."""
        reg = cls()
        for name, scorer in (
            ("finalresponse", score_final_response),
            ("hallucination", score_hallucination),
            ("rubric_scores", score_rubric_scores),
            ("single_score", score_single_score),
            ("boolean", score_boolean),
            ("categorical", score_categorical),
            ("verifier_pairwise", score_verifier_pairwise),
        ):
            reg.register_scorer(name, scorer)
        reg.register_samples_aggregator("majority_vote", aggregators.majority_vote)
        reg.register_samples_aggregator("min", aggregators.min_sample)
        reg.register_samples_aggregator("mean", aggregators.mean_samples)
        reg.register_invocations_aggregator("average", aggregators.average)
        reg.register_structured_output("single_score", structured.single_score_output)
        reg.register_structured_output("rubric_scores", structured.rubric_scores_output)
        reg.register_structured_output("boolean", structured.boolean_output)
        reg.register_structured_output("categorical", structured.categorical_output)
        return reg

    def copy(self) -> OperatorRegistry:
        """An independent registry with the same entries."""
        reg = OperatorRegistry()
        reg._tables = {kind: dict(table) for kind, table in self._tables.items()}
        return reg

    def _register(self, kind: str, name: str, operator: Any) -> None:
        if not name:
            raise ValueError(f"{_KINDS[kind]} name is empty")
        if operator is None or not callable(operator):
            raise ValueError(f"{_KINDS[kind]} {go_quote(name)} is not callable")
        self._tables[kind][name] = operator

    def register_scorer(self, name: str, scorer: ResponseScorer) -> None:
        """Register (or replace) ``scorer(response, metric) -> ScoreResult | float``."""
        self._register("scorer", name, scorer)

    def register_samples_aggregator(self, name: str, aggregator: SamplesAggregator) -> None:
        """Register ``aggregator(samples, metric) -> SampleResult``."""
        self._register("samples", name, aggregator)

    def register_invocations_aggregator(self, name: str, aggregator: InvocationsAggregator) -> None:
        """Register ``aggregator(turn_results, metric) -> EvaluateResult``."""
        self._register("invocations", name, aggregator)

    def register_structured_output(self, name: str, provider: StructuredOutputProvider) -> None:
        """Register ``provider(turn) -> {"type": "json_schema", ...} | None``."""
        self._register("structured", name, provider)

    def _get(self, kind: str, name: str) -> Any:
        try:
            return self._tables[kind][name]
        except KeyError:
            raise UnknownOperatorError(f"unsupported {_KINDS[kind]} {go_quote(name)}") from None

    def scorer(self, name: str) -> ResponseScorer:
        return self._get("scorer", name)

    def samples_aggregator(self, name: str) -> SamplesAggregator:
        return self._get("samples", name)

    def invocations_aggregator(self, name: str) -> InvocationsAggregator:
        return self._get("invocations", name)

    def structured_output(self, name: str) -> StructuredOutputProvider:
        return self._get("structured", name)

    def has_structured_output(self, name: str) -> bool:
        return name in self._tables["structured"]

    def names(self) -> dict[str, list[str]]:
        """Registered names per kind: ``scorers``, ``samples_aggregators``, …"""
        keys = {
            "scorer": "scorers",
            "samples": "samples_aggregators",
            "invocations": "invocations_aggregators",
            "structured": "structured_outputs",
        }
        return {keys[kind]: sorted(table) for kind, table in self._tables.items()}

    def resolve_template(self, template: JudgeTemplateOptions) -> ResolvedOperators:
        """The operators a template names (SPEC §6.5, order in the module doc)."""
        scorer_name = template.response_scorer_name or ""
        if not scorer_name:
            raise UnknownOperatorError("template responseScorerName is empty")
        scorer = self.scorer(scorer_name)
        samples = self.samples_aggregator(
            template.sample_aggregator_name or DEFAULT_SAMPLES_AGGREGATOR
        )
        invocations = self.invocations_aggregator(
            template.invocation_aggregator_name or DEFAULT_INVOCATIONS_AGGREGATOR
        )
        if template.structured_output_name:
            provider = self.structured_output(template.structured_output_name)
        elif self.has_structured_output(scorer_name):
            provider = self.structured_output(scorer_name)
        else:
            provider = None
        return ResolvedOperators(scorer, samples, invocations, provider)

    def __repr__(self) -> str:
        return f"OperatorRegistry({self.names()})"
