"""The ordered detector: first match wins, noise stays unclaimed, user grouping, flags."""

from __future__ import annotations

import pytest
from _dialect_spans import span

from agenteval_nb.steps.records import AgentRun, ModelCall, OtherStep, ToolRun
from agenteval_nb.traces.dialects import CONTENT_SWITCH, DIALECTS, classify


def test_dialects_order_and_every_dialect_has_a_content_switch() -> None:
    assert DIALECTS[:3] == ("agents_sdk", "langfuse", "openinference")
    assert DIALECTS[-1] == "unclaimed"
    assert DIALECTS.index("adk") < DIALECTS.index("otel_genai")
    assert DIALECTS.index("otel_genai") < DIALECTS.index("otel_genai_events")
    assert DIALECTS.index("otel_genai_events") < DIALECTS.index("openllmetry")
    assert DIALECTS.index("vercel_ai") < DIALECTS.index("heuristic")
    assert set(CONTENT_SWITCH) == set(DIALECTS)
    assert all(CONTENT_SWITCH[name] for name in DIALECTS if name != "unclaimed")


def test_first_match_wins() -> None:
    """OpenInference's kind beats a GenAI operation on the same span; ADK's scope beats it."""
    both = {"openinference.span.kind": "TOOL", "gen_ai.operation.name": "chat", "tool.name": "t"}
    assert classify(span(both)).dialect == "openinference"
    adk = span({"gen_ai.operation.name": "invoke_agent"}, name="invoke_agent a",
               scope="gcp.vertex.agent")  # fmt: skip
    assert classify(adk).dialect == "adk"


def test_http_and_infrastructure_spans_are_unclaimed() -> None:
    """A GenAI-looking prefix alone never classifies (the kagent Jaeger sample's noise)."""
    for attributes in (
        {"http.method": "POST", "url.full": "https://api.openai.com/v1/chat/completions"},
        {"gen_ai.system": "openai", "server.address": "api.openai.com"},
        {"gen_ai.usage.input_tokens": 3},
        {},
    ):
        result = classify(span(attributes, name="POST", status="error", status_message="503"))
        assert result.dialect == "unclaimed"
        assert isinstance(result.step, OtherStep) and result.step.error == "503"
        assert result.flags == set() and result.conversation_id is None
    root = classify(span({"session.id": "from-baggage"}, name="my turn"))
    assert root.dialect == "unclaimed" and root.conversation_id == "from-baggage"


def test_heuristics_tool_and_model() -> None:
    tool = classify(span({"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "c"}))
    assert tool.dialect == "heuristic" and isinstance(tool.step, ToolRun)
    assert tool.step.tool.id == "c"
    model = classify(span({"gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 1}))
    assert model.dialect == "heuristic" and isinstance(model.step, ModelCall)
    assert model.flags == {"content_missing"}


def test_legacy_events_claim_a_span_without_operation() -> None:
    from agenteval_nb.traces.spans import SpanEvent

    result = classify(
        span({}, events=[SpanEvent("gen_ai.user.message", attributes={"content": "hello"})])
    )
    assert result.dialect == "otel_genai_events"
    assert result.step.last_user_text == "hello"  # type: ignore[union-attr]


def test_group_by_overrides_the_dialect_key() -> None:
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.conversation.id": "g", "user.id": 7}
    assert classify(span(attributes), group_by="user.id").conversation_id == "7"
    assert classify(span(attributes), group_by="missing.key").conversation_id is None
    assert classify(span(attributes)).conversation_id == "g"


def test_dropped_attributes_flag_on_any_dialect() -> None:
    for attributes in ({"openinference.span.kind": "AGENT"}, {}):
        result = classify(span(attributes, dropped_attributes=3))
        assert "dropped_attributes" in result.flags
    assert "dropped_attributes" not in classify(span({})).flags


def test_agent_spans_never_flag_content_missing() -> None:
    result = classify(span({"gen_ai.operation.name": "invoke_agent"}, name="invoke_agent x"))
    assert isinstance(result.step, AgentRun) and result.step.name == "x"
    assert result.flags == set()


def test_log_record_named_by_its_event_name_attribute() -> None:
    from agenteval_nb.traces.spans import SpanEvent

    log = SpanEvent(
        "log", attributes={"event.name": "gen_ai.user.message"}, body={"content": "hey"},
        from_log=True,
    )  # fmt: skip
    result = classify(span({"gen_ai.operation.name": "chat"}, events=[log]))
    assert result.dialect == "otel_genai_events"
    assert result.step.last_user_text == "hey"  # type: ignore[union-attr]


GARBAGE = [None, 0, 1.5, True, "", "{bad", "[1, 2]", '"x"', [None, {"role": 3}], {"parts": 5}]
KEYS = {
    "gen_ai.operation.name": ["chat", "execute_tool", "invoke_agent", "other"],
    "openinference.span.kind": ["LLM", "TOOL", "AGENT", "CHAIN"],
    "langsmith.span.kind": ["llm", "tool", "chain"],
    "traceloop.span.kind": ["workflow", "tool", "task"],
    "ai.operationId": ["ai.toolCall", "ai.generateText.doGenerate", "ai.generateText"],
    "agents_sdk.type": ["generation", "response", "function", "agent", "handoff"],
    "langfuse.type": ["GENERATION", "TOOL", "AGENT", "SPAN"],
}
CONTENT_KEYS = [
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion",
    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.usage.input_tokens",
    "gen_ai.response.finish_reasons", "input.value", "output.value",
    "llm.input_messages.0.message.role", "llm.output_messages.0.message.content",
    "gen_ai.prompt.0.role", "gen_ai.completion.0.content", "ai.prompt.messages",
    "ai.response.toolCalls", "agents_sdk.input", "agents_sdk.output", "agents_sdk.usage",
    "agents_sdk.error", "langfuse.input", "langfuse.output", "langfuse.usageDetails",
    "langfuse.toolCalls", "langfuse.metadata", "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response", "pydantic_ai.all_messages", "final_result",
]  # fmt: skip


@pytest.mark.parametrize("kind_key", sorted(KEYS))
def test_garbage_values_never_raise(kind_key: str) -> None:
    """Every dialect reads wrong-typed and broken values without an exception."""
    from agenteval_nb.traces.spans import SpanEvent

    for kind in KEYS[kind_key]:
        for junk in GARBAGE:
            attributes: dict[str, object] = {kind_key: kind}
            attributes.update(dict.fromkeys(CONTENT_KEYS, junk))
            events = [SpanEvent("gen_ai.choice", body=junk, from_log=True),
                      SpanEvent("gen_ai.user.message", attributes={"content": junk})]  # fmt: skip
            for scope in (None, "gcp.vertex.agent", "pydantic-ai"):
                result = classify(span(attributes, scope=scope, events=events, name="call_llm"))
                assert result.dialect in DIALECTS
