"""Metrics file (SPEC §1.4): a JSON array of :class:`EvalMetric`.

Defaults that matter at evaluation time are applied by the code that reads a field, not here,
so a file written back has the same keys it was read with.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..secrets import register_secret
from .base import SnakeWireModel, WireModel
from .envexpand import expand


class LengthCriterion(WireModel):
    """Inclusive bounds on the number of Unicode code points."""

    ignore: bool | None = None
    min: int | None = None
    max: int | None = None


class TextCriterion(WireModel):
    """Text comparison: ``matchStrategy`` is exact (default), contains, regex or skip."""

    ignore: bool | None = None
    case_insensitive: bool | None = None
    match_strategy: str | None = None
    length: LengthCriterion | None = None
    compare_name: str | None = None


class JSONCriterion(WireModel):
    """JSON comparison; ``numberTolerance`` defaults to 1e-6 when absent."""

    ignore: bool | None = None
    ignore_tree: dict[str, Any] | None = None
    only_tree: dict[str, Any] | None = None
    match_strategy: str | None = None
    number_tolerance: float | None = None
    valid: bool | None = None
    schema_: Any = Field(default=None, alias="schema")
    compare_name: str | None = None


class RougeThreshold(WireModel):
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None


class RougeCriterion(WireModel):
    """ROUGE of the actual text against the expected text."""

    ignore: bool | None = None
    rouge_type: str | None = None
    measure: str | None = None
    threshold: RougeThreshold | None = None
    use_stemmer: bool | None = None
    split_summaries: bool | None = None
    tokenizer_name: str | None = None


class XMLCriterion(WireModel):
    """XML well-formedness check; ``matchStrategy`` must be ``skip``."""

    ignore: bool | None = None
    valid: bool | None = None
    match_strategy: str | None = None


class ToolStrategy(WireModel):
    """How one tool pair is compared; an absent sub-key is not compared at all."""

    name: TextCriterion | None = None
    arguments: JSONCriterion | None = None
    result: JSONCriterion | None = None


class ToolTrajectoryCriterion(WireModel):
    default_strategy: ToolStrategy | None = None
    tool_strategy: dict[str, ToolStrategy] | None = None
    order_sensitive: bool | None = None
    subset_matching: bool | None = None
    compare_name: str | None = None


class FinalResponseCriterion(WireModel):
    text: TextCriterion | None = None
    json_: JSONCriterion | None = Field(default=None, alias="json")
    rouge: RougeCriterion | None = None
    xml: XMLCriterion | None = None
    compare_name: str | None = None


class RubricContent(WireModel):
    text: str | None = None


class Rubric(WireModel):
    """A rubric item; one without ``content`` is invisible everywhere."""

    id: str | None = None
    content: RubricContent | None = None
    description: str | None = None
    type: str | None = None


class GenerationConfig(SnakeWireModel):
    """Judge request parameters (snake_case on the wire); ``stream`` is always written."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stream: bool = False
    stop: list[str] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    reasoning_effort: str | None = None
    thinking_enabled: bool | None = None
    thinking_tokens: int | None = None
    thinking_level: str | None = None


DEFAULT_GENERATION_CONFIG = GenerationConfig(max_tokens=2000, temperature=0.8, stream=False)
"""Used when ``judgeModel.generationConfig`` is absent; a partial config is used as is."""


class JudgeModelOptions(WireModel):
    """Judge endpoint. ``apiKey`` is usable in memory but never written or shown."""

    provider_name: str | None = None
    model_name: str | None = None
    variant: str | None = None
    base_url: str | None = Field(default=None, alias="baseURL")
    api_key: str | None = Field(default=None, alias="apiKey", exclude=True, repr=False)
    extra_fields: dict[str, Any] | None = None
    num_samples: int | None = None
    generation_config: GenerationConfig | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_key_then_expand(cls, data: Any) -> Any:
        """Fold every spelling of the key field into ``apiKey``, then expand ``${VAR}``.

        ``api_key``, ``APIKey``, ``Api-Key`` … all name the key (case, ``_`` and ``-``
        ignored), so none of them survives as an unknown key that would be written or shown.
        Two spellings with different values are rejected. Expansion (SPEC §1.4) applies to the
        endpoint strings at decode time.
        """
        if not isinstance(data, dict):
            return data
        expanded: dict[Any, Any] = {}
        keys: dict[str, Any] = {}
        for key, value in data.items():
            if is_api_key_name(key):
                keys[key] = value
                continue
            if isinstance(value, str) and isinstance(key, str) and key.lower() in _EXPANDED_KEYS:
                value = expand(value)
            expanded[key] = value
        if keys:
            if len({repr(v) for v in keys.values()}) > 1:
                raise ValueError(
                    f"the API key is given twice under different spellings ({', '.join(keys)}); "
                    "give it once, as apiKey"
                )
            value = next(iter(keys.values()))
            expanded["apiKey"] = expand(value) if isinstance(value, str) else value
        return expanded

    @model_validator(mode="after")
    def _register_key(self) -> JudgeModelOptions:
        """A configured ``apiKey`` is redacted from any text from then on (``secrets``)."""
        register_secret(self.api_key)
        return self


def is_api_key_name(key: Any) -> bool:
    """True for any spelling of the judge's key field: ``apiKey`` ignoring case, ``_``, ``-``."""
    return isinstance(key, str) and key.lower().replace("_", "").replace("-", "") == "apikey"


_EXPANDED_KEYS = frozenset(
    {
        "providername",
        "modelname",
        "variant",
        "baseurl",
        "provider_name",
        "model_name",
        "base_url",
    }
)


class CategoryScore(WireModel):
    label: str | None = None
    score: float = 0.0


class ResponseScorerOptions(WireModel):
    categories: list[CategoryScore | None] | None = None


class BindingSelector(WireModel):
    node_id: str | None = Field(default=None, alias="nodeID")


class BindingSource(WireModel):
    scope: str | None = None
    field: str | None = None
    selector: BindingSelector | None = None
    path: str | None = None


class VariableBinding(WireModel):
    template_variable: str | None = None
    source: BindingSource | None = None


class JudgeTemplateOptions(WireModel):
    """Prompt template of ``llm_judge_template`` (SPEC §6)."""

    prompt: str | None = None
    response_scorer_name: str | None = None
    structured_output_name: str | None = None
    response_scorer_options: ResponseScorerOptions | None = None
    variable_bindings: list[VariableBinding | None] | None = None
    sample_aggregator_name: str | None = None
    invocation_aggregator_name: str | None = None


class LLMCriterion(WireModel):
    """The judge criterion. ``judgeModels`` (an extension key beside ``judgeModel``, which Go
    readers ignore) makes the metric's judge a panel of these models (``judge.panel``); each
    is laid over ``judgeModel``."""

    rubrics: list[Rubric] | None = None
    judge_model: JudgeModelOptions | None = None
    judge_models: list[JudgeModelOptions] | None = None
    sample_parallelism_enabled: bool | None = None
    sample_parallelism: int | None = None
    template: JudgeTemplateOptions | None = None


class Criterion(WireModel):
    tool_trajectory: ToolTrajectoryCriterion | None = None
    final_response: FinalResponseCriterion | None = None
    llm_judge: LLMCriterion | None = None


class EvalMetric(WireModel):
    """A metric instance: evaluator lookup key = ``evaluatorName`` or else ``metricName``."""

    metric_name: str = Field(alias="metricName")
    evaluator_name: str | None = None
    threshold: float | None = None
    criterion: Criterion | None = None
    extension: Any = None

    @property
    def evaluator_key(self) -> str:
        return self.evaluator_name or self.metric_name

    @property
    def threshold_value(self) -> float:
        return self.threshold if self.threshold is not None else 0.0
