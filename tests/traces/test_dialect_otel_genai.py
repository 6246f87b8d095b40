"""OTel GenAI spans (current semconv and its content sources) → steps, incl. content flags."""

from __future__ import annotations

import json

from _dialect_spans import corpus_spans, span

from agenteval_nb.steps.records import AgentRun, Content, ModelCall, OtherStep, ToolRun
from agenteval_nb.traces.dialects import classify
from agenteval_nb.traces.spans import SpanEvent

CONVENTION = "strands-evals/otel_genai_convention_spans.json"
OPENAI_AGENTS = "strands-evals/openai_agents_genai_live_spans.json"


def test_convention_fixture_operation_details_events_and_failing_tool() -> None:
    """strands-agents/evals' hand-built current-semconv turn: content on the
    operation-details span events, two parallel tool calls, one tool failing."""
    spans = corpus_spans(CONVENTION)
    results = [classify(one) for one in spans]
    assert {r.dialect for r in results} == {"otel_genai"}
    assert {r.conversation_id for r in results} == {"conv_otel_test_001"}
    agent, first, paris, london, second = (r.step for r in results)
    assert isinstance(agent, AgentRun) and agent.name == "WeatherAssistant"
    assert agent.input_text == "What's the weather in Paris and London?"
    assert agent.output_text.startswith("The weather in Paris is rainy")  # type: ignore[union-attr]
    assert isinstance(first, ModelCall)
    assert first.output_text == "Let me check the weather for both cities."
    assert [(c.id, c.arguments) for c in first.tool_calls] == [
        ("call_paris_001", {"location": "Paris"}),
        ("call_london_001", {"location": "London"}),
    ]
    assert first.finish_reason == "tool_calls"
    assert first.usage is not None and (first.usage.input_tokens, first.usage.output_tokens) == (
        80,
        25,
    )
    assert isinstance(paris, ToolRun) and paris.tool.result == "rainy, 57°F"
    assert paris.tool.has_result and paris.tool.error is None
    assert isinstance(london, ToolRun) and london.tool.error == "TimeoutError"
    assert not london.tool.has_result and london.tool.arguments == {"location": "London"}
    assert isinstance(second, ModelCall) and second.finish_reason == "stop"
    assert [r.call_id for r in second.tool_results] == ["call_paris_001", "call_london_001"]
    assert second.output_text.endswith("due to a service timeout.")  # type: ignore[union-attr]
    assert all(r.flags == set() for r in results)


def test_model_span_without_content_keeps_usage_and_flags_missing() -> None:
    result = classify(
        span(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 3,
                "gen_ai.usage.output_tokens": 4,
            }
        )
    )
    assert isinstance(result.step, ModelCall)
    assert result.step.content is Content.MISSING
    assert result.flags == {"content_missing"}
    assert result.step.usage is not None and result.step.usage.output_tokens == 4
    assert result.step.model == "gpt-4o"


def test_legacy_events_without_content_keep_tool_names_and_ids() -> None:
    """Content off in the event era: the choice keeps the call's id and name, nothing else."""
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f"}}]},
    }
    result = classify(
        span(
            {"gen_ai.operation.name": "chat"},
            events=[
                SpanEvent("gen_ai.user.message", body={}, from_log=True),
                SpanEvent("gen_ai.choice", body=choice, from_log=True),
            ],
        )
    )
    assert result.dialect == "otel_genai_events"
    assert result.flags == {"content_missing"}
    assert isinstance(result.step, ModelCall)
    assert [(c.id, c.name, c.arguments) for c in result.step.tool_calls] == [("c1", "f", None)]


def test_external_refs_flag_ref_unresolved() -> None:
    result = classify(
        span(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages_ref": "s3://bucket/in.json",
                "gen_ai.output.messages_ref": "s3://bucket/out.json",
            }
        )
    )
    assert result.step.content is Content.EXTERNAL  # type: ignore[union-attr]
    assert result.flags == {"ref_unresolved"}


def test_redacted_text_is_none_and_flagged() -> None:
    messages = [{"role": "user", "parts": [{"type": "text", "content": "__REDACTED__"}]}]
    result = classify(
        span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages)})
    )
    assert result.flags == {"redacted"}
    assert result.step.last_user_text is None  # type: ignore[union-attr]


def test_tool_span_without_content_keeps_name_and_id() -> None:
    result = classify(
        span(
            {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "c9"},
            name="execute_tool lookup",
        )
    )
    assert isinstance(result.step, ToolRun)
    assert (result.step.tool.name, result.step.tool.id) == ("lookup", "c9")
    assert result.flags == {"content_missing"}


def test_result_key_variants_and_nonstandard_input_output() -> None:
    """``gen_ai.tool.call.result`` / ``.response``, and the ``input``/``output`` keys of the
    openinference fixture's execute_tool span."""
    (execution,) = corpus_spans("openinference/otel_genai_tool_execution_span.otlp.json")
    fixture = classify(execution)
    tool = fixture.step
    assert isinstance(tool, ToolRun)
    assert tool.tool.arguments == {"city": "New York"}
    assert tool.tool.result["status"] == "success"  # type: ignore[index]
    assert (tool.tool.name, tool.tool.id) == ("get_weather", "1234")
    response = classify(
        span(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "t",
                "gen_ai.tool.call.response": "ok",
            }
        )
    ).step
    assert response.tool.result == "ok" and response.tool.has_result  # type: ignore[union-attr]


def test_tool_result_part_named_result_is_accepted() -> None:
    """The span doc's example writes ``result`` where the schema says ``response``."""
    history = [
        {"role": "user", "parts": [{"type": "text", "content": "q"}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c", "result": 7}]},
    ]
    step = classify(span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": history})).step
    assert [(r.call_id, r.result) for r in step.tool_results] == [("c", 7)]  # type: ignore[union-attr]


def test_other_operations_are_other_steps_and_keep_errors() -> None:
    result = classify(
        span(
            {"gen_ai.operation.name": "embeddings"},
            name="embeddings m",
            status="error",
            status_message="boom",
        )
    )
    assert isinstance(result.step, OtherStep)
    assert result.step.error == "boom" and result.dialect == "otel_genai"


def test_conversation_key_order() -> None:
    both = {"gen_ai.operation.name": "chat", "session.id": "s", "gen_ai.conversation.id": "g"}
    assert classify(span(both)).conversation_id == "g"
    assert (
        classify(span({"gen_ai.operation.name": "chat", "session.id": "s"})).conversation_id == "s"
    )


def test_usage_names_old_and_new() -> None:
    old = {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.prompt_tokens": "11",
        "gen_ai.usage.completion_tokens": 5,
        "gen_ai.usage.cache_read.input_tokens": 2,
    }
    usage = classify(span(old)).step.usage  # type: ignore[union-attr]
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (11, 5, 2)


def test_cut_json_is_truncated_and_non_json_is_garbled() -> None:
    """A JSON message attribute cut by the SDK's value length limit, and one that is not JSON."""
    cut = '[{"role": "user", "parts": [{"type": "text", "content": "a long hist'
    truncated = classify(span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": cut}))
    assert truncated.step.content is Content.TRUNCATED  # type: ignore[union-attr]
    assert truncated.flags == {"truncated"}
    assert truncated.step.last_user_text is None  # type: ignore[union-attr]
    garbled = classify(
        span(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": "hello there",
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]
                ),
            }
        )
    )
    assert garbled.flags == {"garbled"}
    assert garbled.step.output_text == "hi"  # type: ignore[union-attr]
    assert garbled.step.last_user_text is None  # type: ignore[union-attr]


def test_openai_agents_capture_through_genai_instrumentation() -> None:
    """strands-agents/evals' live OpenAI Agents SDK run (agents as tools): every model call,
    tool and agent is recovered; tool spans of this instrumentation carry no call ids."""
    results = [classify(one) for one in corpus_spans(OPENAI_AGENTS)]
    tools = [(r.step.tool.name, r.step.tool.arguments, r.step.tool.result)
             for r in results if isinstance(r.step, ToolRun)]  # fmt: skip
    assert tools[0] == ("lookup_stock_price", {"ticker": "AMZN"}, "AMZN: $240.98")
    assert [name for name, _, _ in tools] == [
        "lookup_stock_price",
        "ask_research_specialist",
        "multiply_numbers",
        "multiply_numbers",
        "ask_math_specialist",
    ]
    agents = [r.step.name for r in results if isinstance(r.step, AgentRun)]
    assert agents == ["research_specialist", "math_specialist", "coordinator", "Agent Workflow"]
    models = [r.step for r in results if isinstance(r.step, ModelCall)]
    assert len(models) == 8 and all(m.content is Content.PRESENT for m in models)
    assert models[0].last_user_text.startswith("Look up the stock price for AMZN")  # type: ignore[union-attr]
    assert models[2].output_text == "The current stock price of Amazon (AMZN) is $240.98."
    assert all(r.flags == set() for r in results)


def test_semantic_kernel_content_events() -> None:
    """Semantic Kernel's older spans: operation ``chat.completions``, content on events."""
    prompt = json.dumps([{"role": "user", "content": "sk question"}])
    completion = json.dumps([{"role": "assistant", "content": "sk answer"}])
    events = [
        SpanEvent("gen_ai.content.prompt", attributes={"gen_ai.prompt": prompt}),
        SpanEvent("gen_ai.content.completion", attributes={"gen_ai.completion": completion}),
    ]
    model = classify(span({"gen_ai.operation.name": "chat.completions"}, events=events)).step
    assert isinstance(model, ModelCall)
    assert (model.last_user_text, model.output_text) == ("sk question", "sk answer")
