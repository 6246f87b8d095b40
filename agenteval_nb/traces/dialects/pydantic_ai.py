"""Pydantic AI native spans (instrumentation scope ``pydantic-ai``; logfire).

Version 2 names its spans ``agent run`` / ``running tool`` (``tool_arguments`` /
``tool_response``), version 3 ``invoke_agent`` / ``execute_tool`` (``gen_ai.tool.call.*``);
both carry current-semconv model spans. The agent span holds ``pydantic_ai.all_messages`` (the
history: its last user text is the run's input) and ``final_result`` (the output), and
``gen_ai.aggregated_usage.*`` — a sum over the run's model calls that is NEVER read here (usage
counts once, from the model spans).
"""

from __future__ import annotations

from agenteval_nb.traces.dialects import otel_genai
from agenteval_nb.traces.dialects.classified import Classified
from agenteval_nb.traces.spans import Span

NAME = "pydantic_ai"
SCOPE = "pydantic-ai"
AGENT_SPANS = frozenset({"agent run"})
TOOL_SPANS = frozenset({"running tool"})


def claims(span: Span) -> bool:
    """Spans of the pydantic-ai scope, or named as its version 2 names them."""
    return span.scope == SCOPE or span.name in AGENT_SPANS or span.name in TOOL_SPANS


def read(span: Span) -> Classified:
    """Agent and tool spans read with Pydantic AI's keys; the rest as OTel GenAI."""
    attributes = span.attributes
    operation = attributes.get(otel_genai.OPERATION)
    if span.name in AGENT_SPANS or operation in otel_genai.AGENT_OPERATIONS:
        result = otel_genai.read_agent(
            span,
            NAME,
            output_fallback=attributes.get("final_result"),
            history=attributes.get("pydantic_ai.all_messages"),
        )
        if attributes.get("gen_ai.agent.name") is None and attributes.get("agent_name"):
            result.step.name = str(attributes["agent_name"])  # type: ignore[union-attr]
        return result
    if span.name in TOOL_SPANS or operation == otel_genai.TOOL_OPERATION:
        return otel_genai.read_tool(
            span,
            NAME,
            ("gen_ai.tool.call.arguments", "tool_arguments"),
            ("gen_ai.tool.call.result", "tool_response"),
        )
    return otel_genai.read(span, NAME)
