"""LangSmith runs exported over OTel (``langsmith.span.kind`` = llm, chain, tool, …).

``llm`` → ``ModelCall`` (messages in ``gen_ai.input.messages`` / ``gen_ai.prompt`` /
``input.value`` in LangChain, OpenAI or Anthropic shape; output in the matching ``…output…`` /
``gen_ai.completion`` / ``output.value``); ``tool`` → ``ToolRun`` (its ``{"input": …}``
wrapper removed); ``agent``, and a ``chain`` that is a trace root → ``AgentRun``; the rest →
``OtherStep``. Conversation key: the thread metadata (``langsmith.metadata.session_id`` /
``thread_id`` / ``conversation_id``).
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_output, decode_recent, loads
from agenteval_nb.traces.dialects import otel_genai
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_input_text,
    agent_output_text,
    agent_run,
    conversation_key,
    first_present,
    model_call,
    tool_run,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "langsmith"
KIND = "langsmith.span.kind"
INPUT_KEYS = ("gen_ai.input.messages", "gen_ai.prompt", "input.value")
OUTPUT_KEYS = ("gen_ai.output.messages", "gen_ai.completion", "output.value")
CONVERSATION_KEYS = (
    "langsmith.metadata.session_id",
    "langsmith.metadata.thread_id",
    "langsmith.metadata.conversation_id",
    "langsmith.trace.session_id",
    "gen_ai.conversation.id",
)


def claims(span: Span) -> bool:
    """Spans that name a LangSmith run type."""
    return KIND in span.attributes


def read(span: Span) -> Classified:
    """The run's step by its type (see the module rule)."""
    attributes = span.attributes
    kind = str(attributes.get(KIND, "")).lower()
    conversation = conversation_key(attributes, CONVERSATION_KEYS)
    has_in, source = first_present(attributes, INPUT_KEYS)
    has_out, produced = first_present(attributes, OUTPUT_KEYS)
    step: Any
    if kind in ("llm", "chat_model"):
        step = model_call(
            span,
            decode_recent(source) if has_in else None,
            decode_output(produced) if has_out else None,
            model=attributes.get("gen_ai.request.model") or attributes.get("gen_ai.response.model"),
            usage=usage_of(attributes, otel_genai.USAGE_KEYS),
        )
    elif kind == "tool":
        step = tool_run(
            span,
            name=attributes.get("gen_ai.tool.name") or span.name,
            call_id=attributes.get("gen_ai.tool.call.id"),
            args=tool_arguments(source),
            has_args=has_in,
            result=produced,
            has_result=has_out,
        )
    elif kind == "agent" or (kind == "chain" and span.parent_id is None):
        step = agent_run(span, span.name, agent_input_text(source), agent_output_text(produced))
    else:
        step = otel_genai.other_step(span)
    return classified(NAME, step, conversation)


def tool_arguments(value: Any) -> Any:
    """A tool run's inputs: LangSmith wraps a tool's single input as ``{"input": …}``; the
    wrapped object is the arguments."""
    decoded = loads(value)
    if isinstance(decoded, dict) and len(decoded) == 1 and isinstance(decoded.get("input"), dict):
        return decoded["input"]
    return value
