"""The attribute keys non-OTel sources are read under (one block: the envelope readers write
them, the dialects read them).

The Agents SDK's trace processor objects and Langfuse observations are not OpenTelemetry spans;
their envelope readers (``traces/agents_sdk_export.py``, ``traces/langfuse_export.py``) keep each
object's own fields in :attr:`Span.attributes` as ``agents_sdk.<field>`` / ``langfuse.<field>``,
values as the source had them (objects stay objects, strings stay strings). These are the keys
the dialects read; they must match what the readers write.
"""

from __future__ import annotations

# OpenAI Agents SDK span data (``span_data`` fields; the trace's fields as
# ``agents_sdk.trace.<field>`` on its top-level spans).
AGENTS_SDK_TYPE = "agents_sdk.type"  # agent | generation | response | function | handoff | …
AGENTS_SDK_NAME = "agents_sdk.name"  # agent / function / custom span name
AGENTS_SDK_INPUT = "agents_sdk.input"  # generation: chat messages; function: argument string
AGENTS_SDK_OUTPUT = "agents_sdk.output"  # generation: output messages; function: result
AGENTS_SDK_MODEL = "agents_sdk.model"
AGENTS_SDK_USAGE = "agents_sdk.usage"  # {input_tokens, output_tokens, …}
AGENTS_SDK_GROUP_ID = "agents_sdk.trace.group_id"  # on top-level spans: the conversation key
AGENTS_SDK_ERROR = "agents_sdk.error"  # {message, data}
AGENTS_SDK_FROM_AGENT = "agents_sdk.from_agent"  # handoff
AGENTS_SDK_TO_AGENT = "agents_sdk.to_agent"  # handoff
AGENTS_SDK_RESPONSE = "agents_sdk.response"  # response span: the Response (in-process only)

# Langfuse observation fields (trace export ``observations[]``; the trace's own fields as
# ``langfuse.trace.<field>`` on its root observations; a trace without observations as one span
# of type TRACE).
LANGFUSE_TYPE = "langfuse.type"  # GENERATION | SPAN | EVENT | AGENT | TOOL | CHAIN | … | TRACE
LANGFUSE_INPUT = "langfuse.input"
LANGFUSE_OUTPUT = "langfuse.output"
LANGFUSE_MODEL = "langfuse.model"
LANGFUSE_USAGE = "langfuse.usageDetails"  # {input, output, total, …}
LANGFUSE_TOOL_CALLS = "langfuse.toolCalls"  # [{id?, name, arguments}]
LANGFUSE_LEVEL = "langfuse.level"  # DEBUG | DEFAULT | WARNING | ERROR
LANGFUSE_STATUS_MESSAGE = "langfuse.statusMessage"
LANGFUSE_SESSION_ID = "langfuse.trace.sessionId"  # on root observations: the conversation key
LANGFUSE_OBSERVATION_SESSION_ID = "langfuse.sessionId"  # rows that carry it themselves
LANGFUSE_TRACE_INPUT = "langfuse.trace.input"  # on root observations: the trace's input
LANGFUSE_TRACE_OUTPUT = "langfuse.trace.output"  # … and its output
LANGFUSE_METADATA = "langfuse.metadata"  # original OTel attributes live here
