"""Stages by name, so users can add or swap one stage of a judge (SPEC §6.5), and the named
operators a judge template can use out of the box.

There is no process-global registry: :meth:`OperatorRegistry.default` returns a fresh registry
with the built-ins, owned by whoever created it (an evaluator takes one as ``operators=``).
Built-in names:

* response scorers: ``single_score``, ``rubric_scores``, ``boolean``, ``categorical``;
* samples aggregators: ``majority_vote`` (default), ``min``, ``mean``;
* invocations aggregators: ``average`` (default);
* structured outputs: ``single_score``, ``rubric_scores``, ``boolean``, ``categorical``.

The built-in judges (``llm_final_response``, …) wire their own scorer by direct import; register
it by name to reuse it elsewhere, e.g. ``ops.register_scorer("finalresponse",
final_response_judge.score_final_response)``.

Lookups of unknown names fail with the reference's texts: ``unsupported response scorer "x"``,
``unsupported samples aggregator "x"``, ``unsupported invocations aggregator "x"``,
``unsupported structured output "x"``.

Template resolution (SPEC §6.5), in order: ``responseScorerName`` required (``template
responseScorerName is empty``) and registered; samples aggregator (default ``majority_vote``);
invocations aggregator (default ``average``); structured output = the one named by
``structuredOutputName`` if set, else the one registered under the scorer's name, else none.

The template's built-in scorers (SPEC §4.4):

* ``single_score``: ``{"score": number, "reason": str}``; errors in order ``score is
  required``, ``reason is required``, ``score must be between 0 and 1``; value numeric;
* ``boolean``: ``{"passed": bool, "reason": str}``; errors ``passed is required``, ``reason is
  required``; score 1 if passed else 0, value ``{kind: boolean, boolean: passed}``;
* ``categorical``: ``template.responseScorerOptions.categories`` (``[{label, score}]``) checked
  on every use, in order: ``template is nil``, ``responseScorerOptions is required``,
  ``categorical response scorer categories are required``, then per item ``categorical
  category is nil``, ``categorical category label is empty``, ``categorical category "x" score
  must be between 0 and 1``, ``duplicate categorical category label "x"``. Answer
  ``{"category": str, "reason": str}`` (``category is required``, ``reason is required``);
  score = the label's configured score (exact, case-sensitive); an unknown label scores 0 with
  reason ``unknown categorical label "<x>": <reason>`` (not an error); value ``{kind:
  categorical, categorical: label}``;
* ``rubric_scores``: :mod:`.rubric_scoring`.

Their structured outputs: ``single_score_result`` (score in [0, 1]), ``boolean_result``,
``categorical_result`` (category enum = the configured labels, validated first),
``rubric_scores_result``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...criteria.gofmt import go_quote
from ...schema import EvalMetric, JudgeTemplateOptions, ScoreValue
from .judge_contract import (
    InvocationsAggregator,
    ResponseScorer,
    SamplesAggregator,
    ScoreResult,
    StructuredOutputProvider,
    TurnInput,
    average,
    majority_vote,
    mean_samples,
    min_sample,
)
from .judge_text import (
    JudgeOutputError,
    field,
    json_schema_output,
    object_schema,
    unmarshal_content,
)
from .rubric_scoring import rubric_scores_output, score_rubric_scores

__all__ = [
    "DEFAULT_INVOCATIONS_AGGREGATOR",
    "DEFAULT_SAMPLES_AGGREGATOR",
    "OperatorRegistry",
    "ResolvedOperators",
    "UnknownOperatorError",
    "category_scores",
    "score_boolean",
    "score_categorical",
    "score_single_score",
]

DEFAULT_SAMPLES_AGGREGATOR = "majority_vote"
DEFAULT_INVOCATIONS_AGGREGATOR = "average"


# the template's built-in scorers and schemas --------------------------------------------------


def score_single_score(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    payload = unmarshal_content(response)
    score = field(payload, "score", "number")
    reason = field(payload, "reason", "string")
    if score is None:
        raise JudgeOutputError("score is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    if score < 0 or score > 1:
        raise JudgeOutputError("score must be between 0 and 1")
    value = float(score)
    return ScoreResult(score=value, reason=reason, value=ScoreValue(kind="numeric", numeric=value))


def score_boolean(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    payload = unmarshal_content(response)
    passed = field(payload, "passed", "bool")
    reason = field(payload, "reason", "string")
    if passed is None:
        raise JudgeOutputError("passed is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    return ScoreResult(
        score=1.0 if passed else 0.0,
        reason=reason,
        value=ScoreValue(kind="boolean", boolean=bool(passed)),
    )


def category_scores(metric: EvalMetric) -> dict[str, float]:
    """Validated ``{label: score}`` in configured order (errors in the module doc)."""
    llm = metric.criterion.llm_judge if metric.criterion else None
    if llm is None:
        raise JudgeOutputError("llm judge criterion is required")
    template = llm.template
    if template is None:
        raise JudgeOutputError("template is nil")
    options = template.response_scorer_options
    if options is None:
        raise JudgeOutputError("responseScorerOptions is required")
    if not options.categories:
        raise JudgeOutputError("categorical response scorer categories are required")
    scores: dict[str, float] = {}
    for category in options.categories:
        if category is None:
            raise JudgeOutputError("categorical category is nil")
        label = category.label or ""
        if not label:
            raise JudgeOutputError("categorical category label is empty")
        if category.score < 0 or category.score > 1:
            raise JudgeOutputError(
                f"categorical category {go_quote(label)} score must be between 0 and 1"
            )
        if label in scores:
            raise JudgeOutputError(f"duplicate categorical category label {go_quote(label)}")
        scores[label] = float(category.score)
    return scores


def score_categorical(response: Mapping[str, Any], metric: EvalMetric) -> ScoreResult:
    scores = category_scores(metric)
    payload = unmarshal_content(response)
    label = field(payload, "category", "string")
    reason = field(payload, "reason", "string")
    if label is None:
        raise JudgeOutputError("category is required")
    if reason is None:
        raise JudgeOutputError("reason is required")
    value = ScoreValue(kind="categorical", categorical=label)
    if label not in scores:
        return ScoreResult(
            score=0.0, reason=f"unknown categorical label {go_quote(label)}: {reason}", value=value
        )
    return ScoreResult(score=scores[label], reason=reason, value=value)


def single_score_output(turn: TurnInput) -> dict[str, Any]:
    unit = {"type": "number", "minimum": 0, "maximum": 1}
    return json_schema_output(
        "single_score_result",
        "A score between 0 and 1 and a short reason.",
        object_schema({"score": unit, "reason": {"type": "string"}}),
    )


def boolean_output(turn: TurnInput) -> dict[str, Any]:
    return json_schema_output(
        "boolean_result",
        "Whether the evaluation passed and a short reason.",
        object_schema({"passed": {"type": "boolean"}, "reason": {"type": "string"}}),
    )


def categorical_output(turn: TurnInput) -> dict[str, Any]:
    labels = list(category_scores(turn.metric))
    return json_schema_output(
        "categorical_result",
        "One category label and a short reason.",
        object_schema(
            {"category": {"type": "string", "enum": labels}, "reason": {"type": "string"}}
        ),
    )


# the registry ---------------------------------------------------------------------------------


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
        reg.register_scorer("rubric_scores", score_rubric_scores)
        reg.register_scorer("single_score", score_single_score)
        reg.register_scorer("boolean", score_boolean)
        reg.register_scorer("categorical", score_categorical)
        reg.register_samples_aggregator("majority_vote", majority_vote)
        reg.register_samples_aggregator("min", min_sample)
        reg.register_samples_aggregator("mean", mean_samples)
        reg.register_invocations_aggregator("average", average)
        reg.register_structured_output("single_score", single_score_output)
        reg.register_structured_output("rubric_scores", rubric_scores_output)
        reg.register_structured_output("boolean", boolean_output)
        reg.register_structured_output("categorical", categorical_output)
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
