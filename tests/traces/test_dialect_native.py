"""Dialects written by hand-made spans: OpenLLMetry indexed attributes, LangSmith, Vercel AI,
and the non-OTel sources (Agents SDK, Langfuse) under the keys their readers write."""

from __future__ import annotations

import json

from _dialect_spans import span

from agenteval_nb.steps.records import AgentRun, Content, ModelCall, OtherStep, ToolRun
from agenteval_nb.traces.dialects import classify
from agenteval_nb.traces.dialects import native_keys as keys


def test_openllmetry_indexed_llm_span() -> None:
    attributes = {
        "gen_ai.system": "openai",
        "llm.request.type": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "What's 2+2?",
        "gen_ai.prompt.1.role": "assistant",
        "gen_ai.prompt.1.tool_calls.0.id": "c1",
        "gen_ai.prompt.1.tool_calls.0.name": "add",
        "gen_ai.prompt.1.tool_calls.0.arguments": '{"a": 2, "b": 2}',
        "gen_ai.prompt.2.role": "tool",
        "gen_ai.prompt.2.tool_call_id": "c1",
        "gen_ai.prompt.2.content": "4",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "4",
        "gen_ai.completion.0.finish_reason": "stop",
        "gen_ai.usage.prompt_tokens": 30,
        "gen_ai.usage.completion_tokens": 1,
        "llm.usage.total_tokens": 31,
        "traceloop.association.properties.session_id": "sess-9",
    }
    result = classify(span(attributes, name="openai.chat"))
    assert result.dialect == "openllmetry" and result.conversation_id == "sess-9"
    step = result.step
    assert isinstance(step, ModelCall)
    assert (step.last_user_text, step.output_text, step.finish_reason) == (
        "What's 2+2?",
        "4",
        "stop",
    )
    assert [(r.call_id, r.result) for r in step.tool_results] == [("c1", "4")]
    assert step.usage is not None and (step.usage.input_tokens, step.usage.total_tokens) == (30, 31)


def test_openllmetry_completion_tool_calls_and_traceloop_kinds() -> None:
    call = classify(
        span(
            {
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": "q",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.tool_calls.0.id": "x",
                "gen_ai.completion.0.tool_calls.0.name": "search",
                "gen_ai.completion.0.tool_calls.0.arguments": '{"q": "q"}',
            }
        )
    ).step
    assert [(c.id, c.name, c.arguments) for c in call.tool_calls] == [  # type: ignore[union-attr]
        ("x", "search", {"q": "q"})
    ]
    tool = classify(
        span(
            {
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "search",
                "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"q": "q"}}),
                "traceloop.entity.output": '"found"',
            },
            name="search.tool",
        )
    )
    assert tool.dialect == "openllmetry" and isinstance(tool.step, ToolRun)
    assert (tool.step.tool.name, tool.step.tool.arguments) == ("search", {"q": "q"})
    workflow = classify(
        span(
            {
                "traceloop.span.kind": "workflow",
                "traceloop.entity.name": "wf",
                "traceloop.entity.input": json.dumps({"input": "go"}),
            }
        )
    )
    assert isinstance(workflow.step, AgentRun)
    assert (workflow.step.name, workflow.step.input_text) == ("wf", "go")
    task = classify(span({"traceloop.span.kind": "task"}, name="task"))
    assert isinstance(task.step, OtherStep)


def test_langsmith_runs() -> None:
    llm = classify(
        span(
            {
                "langsmith.span.kind": "llm",
                "langsmith.metadata.thread_id": "th-1",
                "gen_ai.prompt": json.dumps({"messages": [[{"type": "human", "content": "hey"}]]}),
                "gen_ai.completion": json.dumps(
                    {
                        "generations": [
                            [{"text": "yo", "message": {"kwargs": {"content": "yo", "type": "ai"}}}]
                        ]
                    }
                ),
                "gen_ai.usage.input_tokens": 5,
            }
        )
    )
    assert llm.dialect == "langsmith" and llm.conversation_id == "th-1"
    assert isinstance(llm.step, ModelCall)
    assert (llm.step.last_user_text, llm.step.output_text) == ("hey", "yo")
    tool = classify(
        span(
            {"langsmith.span.kind": "tool", "input.value": '{"x": 1}', "output.value": "2"},
            name="calc",
        )
    )
    assert isinstance(tool.step, ToolRun) and tool.step.tool.arguments == {"x": 1}
    nested_chain = classify(span({"langsmith.span.kind": "chain"}, parent_id="p"))
    assert isinstance(nested_chain.step, OtherStep)


def test_vercel_ai_operations() -> None:
    outer = classify(
        span(
            {
                "ai.operationId": "ai.generateText",
                "ai.prompt": json.dumps({"prompt": "weather in Oslo?"}),
                "ai.response.text": "Cold.",
                "ai.telemetry.metadata.sessionId": "v-1",
            },
            name="ai.generateText",
        )
    )
    assert outer.dialect == "vercel_ai" and outer.conversation_id == "v-1"
    assert isinstance(outer.step, AgentRun)
    assert (outer.step.input_text, outer.step.output_text) == ("weather in Oslo?", "Cold.")
    inner = classify(
        span(
            {
                "ai.operationId": "ai.generateText.doGenerate",
                "ai.model.id": "gpt-4o-mini",
                "ai.prompt.messages": json.dumps(
                    [{"role": "user", "content": [{"type": "text", "text": "weather in Oslo?"}]}]
                ),
                "ai.response.toolCalls": json.dumps(
                    [{"toolCallType": "function", "toolCallId": "v1", "toolName": "weather",
                      "args": '{"city": "Oslo"}'}]
                ),
                "ai.response.finishReason": "tool-calls",
                "ai.usage.promptTokens": 12,
                "ai.usage.completionTokens": 4,
            }
        )
    )  # fmt: skip
    step = inner.step
    assert isinstance(step, ModelCall) and step.model == "gpt-4o-mini"
    assert [(c.id, c.name, c.arguments) for c in step.tool_calls] == [
        ("v1", "weather", {"city": "Oslo"})
    ]
    assert step.usage is not None and (step.usage.input_tokens, step.usage.output_tokens) == (12, 4)
    tool = classify(
        span(
            {
                "ai.operationId": "ai.toolCall",
                "ai.toolCall.name": "weather",
                "ai.toolCall.id": "v1",
                "ai.toolCall.args": '{"city": "Oslo"}',
                "ai.toolCall.result": '"cold"',
            }
        )
    )
    assert isinstance(tool.step, ToolRun) and tool.step.tool.id == "v1"


def test_agents_sdk_span_types() -> None:
    generation = classify(
        span(
            {
                keys.AGENTS_SDK_TYPE: "generation",
                keys.AGENTS_SDK_GROUP_ID: "thread-1",
                keys.AGENTS_SDK_MODEL: "gpt-4o",
                keys.AGENTS_SDK_INPUT: [{"role": "user", "content": "hi"}],
                keys.AGENTS_SDK_OUTPUT: [{"role": "assistant", "content": "hello"}],
                keys.AGENTS_SDK_USAGE: {"input_tokens": 3, "output_tokens": 2},
            }
        )
    )
    assert generation.dialect == "agents_sdk" and generation.conversation_id == "thread-1"
    step = generation.step
    assert isinstance(step, ModelCall)
    assert (step.last_user_text, step.output_text, step.model) == ("hi", "hello", "gpt-4o")
    assert step.usage is not None and step.usage.output_tokens == 2
    response = classify(
        span(
            {
                keys.AGENTS_SDK_TYPE: "response",
                keys.AGENTS_SDK_INPUT: "what now?",
                keys.AGENTS_SDK_RESPONSE: {
                    "model": "gpt-4.1",
                    "output": [{"type": "function_call", "call_id": "fc", "name": "go",
                                "arguments": "{}"}],
                    "usage": {"input_tokens": 9, "output_tokens": 1},
                },
            }
        )
    )  # fmt: skip
    assert isinstance(response.step, ModelCall) and response.step.model == "gpt-4.1"
    assert [c.id for c in response.step.tool_calls] == ["fc"]
    exported = classify(span({keys.AGENTS_SDK_TYPE: "response"}))
    assert exported.flags == {"content_missing"}
    function = classify(
        span(
            {
                keys.AGENTS_SDK_TYPE: "function",
                keys.AGENTS_SDK_NAME: "go",
                keys.AGENTS_SDK_INPUT: '{"x": 1}',
                keys.AGENTS_SDK_OUTPUT: "done",
                keys.AGENTS_SDK_ERROR: {"message": "bad", "data": None},
            }
        )
    )
    assert isinstance(function.step, ToolRun)
    assert (function.step.tool.name, function.step.tool.arguments) == ("go", {"x": 1})
    assert function.step.tool.error == "bad"
    agent = classify(span({keys.AGENTS_SDK_TYPE: "agent", keys.AGENTS_SDK_NAME: "Triage"}))
    assert isinstance(agent.step, AgentRun) and agent.step.name == "Triage"
    handoff = classify(span({keys.AGENTS_SDK_TYPE: "handoff", keys.AGENTS_SDK_FROM_AGENT: "A",
                             keys.AGENTS_SDK_TO_AGENT: "B"}))  # fmt: skip
    assert isinstance(handoff.step, OtherStep) and handoff.step.name == "handoff A -> B"


def test_langfuse_observations() -> None:
    generation = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "GENERATION",
                keys.LANGFUSE_SESSION_ID: "lf-session",
                keys.LANGFUSE_MODEL: "gpt-4o",
                keys.LANGFUSE_INPUT: [{"role": "user", "content": "ping"}],
                keys.LANGFUSE_OUTPUT: {"role": "assistant", "content": None},
                keys.LANGFUSE_TOOL_CALLS: [{"id": "t1", "name": "pong", "arguments": "{}"}],
                keys.LANGFUSE_USAGE: {"input": 4, "output": 1, "total": 5},
            }
        )
    )
    assert generation.dialect == "langfuse" and generation.conversation_id == "lf-session"
    step = generation.step
    assert isinstance(step, ModelCall) and step.last_user_text == "ping"
    assert [(c.id, c.name) for c in step.tool_calls] == [("t1", "pong")]
    assert step.usage is not None and step.usage.total_tokens == 5
    tool = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "TOOL",
                keys.LANGFUSE_INPUT: {"q": 1},
                keys.LANGFUSE_LEVEL: "ERROR",
                keys.LANGFUSE_STATUS_MESSAGE: "timeout",
                keys.LANGFUSE_METADATA: {"attributes": {"gen_ai.tool.call.id": "t1"}},
            },
            name="pong",
        )
    )
    assert isinstance(tool.step, ToolRun)
    assert (tool.step.tool.name, tool.step.tool.id, tool.step.tool.error) == (
        "pong",
        "t1",
        "timeout",
    )
    trace = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "TRACE",
                keys.LANGFUSE_INPUT: "question",
                keys.LANGFUSE_OUTPUT: "answer",
            }
        )
    )
    assert isinstance(trace.step, AgentRun)
    assert (trace.step.input_text, trace.step.output_text) == ("question", "answer")
    missing = classify(span({keys.LANGFUSE_TYPE: "GENERATION"}))
    assert missing.step.content is Content.MISSING  # type: ignore[union-attr]
    assert isinstance(classify(span({keys.LANGFUSE_TYPE: "SPAN"}, parent_id="p")).step, OtherStep)


def test_langfuse_root_observation_takes_the_trace_texts() -> None:
    root = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "SPAN",
                keys.LANGFUSE_SESSION_ID: "s-1",
                keys.LANGFUSE_TRACE_INPUT: {"messages": [{"role": "user", "content": "hi"}]},
                keys.LANGFUSE_TRACE_OUTPUT: "hello",
            },
            name="agent-run",
        )
    )
    assert isinstance(root.step, AgentRun) and root.conversation_id == "s-1"
    assert (root.step.input_text, root.step.output_text) == ("hi", "hello")
    nested = classify(span({keys.LANGFUSE_TYPE: "SPAN"}, parent_id="p"))
    assert isinstance(nested.step, OtherStep)


def test_a_langfuse_observation_named_like_a_vercel_span_is_langfuse() -> None:
    """The observation keeps Vercel's span name, but its fields are Langfuse's."""
    result = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "GENERATION",
                keys.LANGFUSE_INPUT: [{"role": "user", "content": "hi"}],
                keys.LANGFUSE_OUTPUT: '"hello"',
            },
            name="ai.generateText.doGenerate",
        )
    )
    assert result.dialect == "langfuse"
    assert result.step.output_text == "hello"  # type: ignore[union-attr]


def test_agent_texts_from_json_literals_runner_inputs_and_message_lists() -> None:
    """Langfuse keeps encoded inputs (``"\\"text\\""``), ADK's runner input is
    ``{new_message}``, an agent's output may be its new messages (the answer last)."""
    quoted = classify(span({keys.LANGFUSE_TYPE: "AGENT", keys.LANGFUSE_INPUT: '"What is X?"',
                            keys.LANGFUSE_OUTPUT: '"X is Y."'}))  # fmt: skip
    assert (quoted.step.input_text, quoted.step.output_text) == ("What is X?", "X is Y.")  # type: ignore[union-attr]
    runner = {"user_id": "u", "new_message": {"role": "user", "parts": [{"text": "hi"}]}}
    produced = [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "f"}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c", "response": 1}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "done"}]},
    ]
    agent = classify(span({keys.LANGFUSE_TYPE: "AGENT", keys.LANGFUSE_INPUT: json.dumps(runner),
                           keys.LANGFUSE_OUTPUT: json.dumps(produced)}))  # fmt: skip
    assert (agent.step.input_text, agent.step.output_text) == ("hi", "done")  # type: ignore[union-attr]


def test_langfuse_tool_from_langsmith_and_adk_producers() -> None:
    """Claude Agent SDK via LangSmith → Langfuse wraps the arguments; ADK names the
    observation ``execute_tool {name}``."""
    wrapped = classify(
        span(
            {
                keys.LANGFUSE_TYPE: "TOOL",
                keys.LANGFUSE_INPUT: '{"input":{"city":"New York"}}',
                keys.LANGFUSE_METADATA: json.dumps({"attributes": {"langsmith.span.kind": "tool"}}),
            },
            name="mcp__weather__get_weather",
        )
    ).step
    assert wrapped.tool.arguments == {"city": "New York"}  # type: ignore[union-attr]
    adk = classify(span({keys.LANGFUSE_TYPE: "TOOL", keys.LANGFUSE_INPUT: "{}"},
                        name="execute_tool say_hello")).step  # fmt: skip
    assert adk.tool.name == "say_hello" and adk.tool.arguments == {}  # type: ignore[union-attr]
