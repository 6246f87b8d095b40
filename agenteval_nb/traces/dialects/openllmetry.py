"""OpenLLMetry / Traceloop (and pre-v1.28 semconv): indexed message attributes.

``gen_ai.prompt.N.{role,content,tool_call_id,tool_calls.K.{id,name,arguments}}`` make the input,
``gen_ai.completion.N.*`` the choices (0 is the output); old usage names
(``gen_ai.usage.prompt_tokens`` / ``completion_tokens``, ``llm.usage.total_tokens``).
Non-LLM spans say their role in ``traceloop.span.kind`` (workflow, agent, task, tool) with
``traceloop.entity.name`` / ``.input`` / ``.output``.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import loads
from agenteval_nb.traces.dialects import genai_content, otel_genai
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import agent_run, tool_run
from agenteval_nb.traces.spans import Span

NAME = "openllmetry"
KIND = "traceloop.span.kind"


def claims(span: Span) -> bool:
    """Traceloop span kinds and spans with indexed message attributes."""
    return KIND in span.attributes or genai_content.has_indexed(span.attributes)


def read(span: Span) -> Classified:
    """A traceloop workflow/agent → agent run, tool → tool run, LLM → model call."""
    attributes = span.attributes
    kind = attributes.get(KIND)
    conversation = otel_genai.conversation(attributes)
    name = attributes.get("traceloop.entity.name") or span.name
    if kind in ("workflow", "agent"):
        inputs = _entity(attributes.get("traceloop.entity.input"))
        output = _entity(attributes.get("traceloop.entity.output"))
        step: Any = agent_run(span, name, _text(inputs), _text(output))
    elif kind == "tool":
        present_in = "traceloop.entity.input" in attributes
        present_out = "traceloop.entity.output" in attributes
        step = tool_run(
            span,
            name=name,
            call_id=attributes.get("gen_ai.tool.call.id"),
            args=_arguments(_entity(attributes.get("traceloop.entity.input"))),
            has_args=present_in,
            result=_entity(attributes.get("traceloop.entity.output")),
            has_result=present_out,
        )
    elif genai_content.has_indexed(attributes) or otel_genai.is_model_span(attributes):
        return otel_genai.read_model(span, NAME)
    else:
        step = otel_genai.other_step(span)
    return classified(NAME, step, conversation)


def _entity(value: Any) -> Any:
    return loads(value)


def _arguments(value: Any) -> Any:
    """Traceloop wraps a task's input as ``{args: [...], kwargs: {...}}``: the kwargs are the
    arguments when there are no positional ones."""
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"} and not value.get("args"):
        return value.get("kwargs", {})
    return value


def _text(value: Any) -> Any:
    if isinstance(value, dict):
        for key in ("output", "input", "content", "text", "query", "question"):
            if isinstance(value.get(key), str):
                return value[key]
    return value
