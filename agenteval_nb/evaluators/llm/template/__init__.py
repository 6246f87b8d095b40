"""``llm_judge_template`` (SPEC §6): bindings, restricted JSONPath, rendering, the evaluator."""

from .bindings import BindingError, resolve_bindings, resolve_source
from .evaluator import LLMJudgeTemplateEvaluator, TemplateConstructor, prompt_text
from .jsonpath import JSONPathError, extract, parse_path
from .render import RenderError, render_template

__all__ = [
    "BindingError",
    "JSONPathError",
    "LLMJudgeTemplateEvaluator",
    "RenderError",
    "TemplateConstructor",
    "extract",
    "parse_path",
    "prompt_text",
    "render_template",
    "resolve_bindings",
    "resolve_source",
]
