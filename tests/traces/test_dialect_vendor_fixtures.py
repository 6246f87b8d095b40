"""Live captures published by strands-agents/evals (ADK, Pydantic AI, OpenInference/LangGraph)
→ steps. Expected values read from the fixture files by hand."""

from __future__ import annotations

from _dialect_spans import by_name, corpus_spans, span

from agenteval_nb.steps.records import AgentRun, Content, ModelCall, OtherStep, ToolRun
from agenteval_nb.traces.dialects import classify

ADK = "strands-evals/adk_live_spans.json"
PYDANTIC = "strands-evals/pydantic_ai_live_spans.json"
OPENINFERENCE = "strands-evals/openinference_live_spans.json"
SESSION = "b4866a2a-a3d4-4d2f-8f40-6bb0d03d135c"


def test_adk_call_llm_reads_gemini_request_and_response() -> None:
    spans = corpus_spans(ADK)
    first, second = (classify(one) for one in by_name(spans, "call_llm"))
    assert first.dialect == "adk" and first.conversation_id == SESSION
    assert isinstance(first.step, ModelCall) and isinstance(second.step, ModelCall)
    assert first.step.last_user_text == "What is 15 multiplied by 37?"
    assert [(c.id, c.name, c.arguments) for c in first.step.tool_calls] == [
        ("uwpsprd2", "calculator", {"expression": "15 * 37"})
    ]
    assert second.step.output_text == "15 multiplied by 37 is 555."
    assert [(r.call_id, r.result) for r in second.step.tool_results] == [
        ("uwpsprd2", {"result": "555"})
    ]
    assert second.step.usage is not None and second.step.usage.reasoning_tokens == 20


def test_adk_tool_agent_and_invocation_spans() -> None:
    spans = corpus_spans(ADK)
    tool = classify(by_name(spans, "execute_tool calculator")[0])
    assert isinstance(tool.step, ToolRun) and tool.flags == set()
    assert tool.step.tool.arguments == {"expression": "15 * 37"}
    assert tool.step.tool.result == {"result": "555"} and tool.step.tool.id == "uwpsprd2"
    agent = classify(by_name(spans, "invoke_agent math_agent")[0])
    assert isinstance(agent.step, AgentRun) and agent.step.name == "math_agent"
    root = classify(by_name(spans, "invocation")[0])
    assert isinstance(root.step, AgentRun) and root.dialect == "adk"


def test_adk_inner_generate_content_is_missing_but_not_flagged() -> None:
    """The genai SDK layer inside ``call_llm``: usage kept, no content, no trace flag."""
    inner = [
        classify(one) for one in by_name(corpus_spans(ADK), "generate_content gemini-3.5-flash")
    ]
    assert all(r.flags == set() and r.dialect == "adk" for r in inner)
    assert all(r.step.content is Content.MISSING for r in inner)  # type: ignore[union-attr]
    assert [r.step.usage.input_tokens for r in inner] == [157, 222]  # type: ignore[union-attr]


def test_adk_placeholders_mean_missing_or_redacted() -> None:
    scope = "gcp.vertex.agent"
    off = classify(
        span(
            {"gcp.vertex.agent.llm_request": "{}", "gcp.vertex.agent.llm_response": "{}"},
            name="call_llm",
            scope=scope,
        )
    )
    assert off.flags == {"content_missing"}
    hidden = classify(
        span(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "calc",
                "gen_ai.tool.call.id": "x1",
                "gcp.vertex.agent.tool_call_args": "<not specified>",
                "gcp.vertex.agent.tool_response": "<not specified>",
            },
            name="execute_tool calc",
            scope=scope,
        )
    )
    assert hidden.flags == {"redacted"}
    assert (hidden.step.tool.name, hidden.step.tool.id) == ("calc", "x1")  # type: ignore[union-attr]
    assert hidden.step.tool.arguments is None  # type: ignore[union-attr]


def test_pydantic_ai_agent_uses_final_result_and_never_aggregated_usage() -> None:
    results = [classify(one) for one in corpus_spans(PYDANTIC)]
    assert {r.dialect for r in results} == {"pydantic_ai"}
    agent = results[-1].step
    assert isinstance(agent, AgentRun) and agent.name == "agent"
    assert agent.input_text == "What's the weather like in Seattle right now?"
    assert agent.output_text == (
        "The current weather in Seattle is 62°F and cloudy with light rain. "
        "Pretty typical Seattle weather!"
    )
    assert not hasattr(agent, "usage")  # aggregated usage has nowhere to go
    models = [r.step for r in results if isinstance(r.step, ModelCall)]
    assert sum(m.usage.input_tokens for m in models) == 588 + 663  # type: ignore[union-attr]
    tool = results[1].step
    assert isinstance(tool, ToolRun) and tool.tool.result == "62°F, cloudy with light rain"


def test_pydantic_ai_v2_names_and_keys() -> None:
    tool = classify(
        span(
            {
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "c1",
                "tool_arguments": '{"city": "Oslo"}',
                "tool_response": "cold",
            },
            name="running tool",
        )
    )
    assert tool.dialect == "pydantic_ai"
    assert tool.step.tool.arguments == {"city": "Oslo"}  # type: ignore[union-attr]
    assert tool.step.tool.result == "cold"  # type: ignore[union-attr]
    agent = classify(span({"agent_name": "a", "final_result": "done"}, name="agent run"))
    assert isinstance(agent.step, AgentRun)
    assert (agent.step.name, agent.step.output_text) == ("a", "done")


def test_openinference_langgraph_capture() -> None:
    spans = corpus_spans(OPENINFERENCE)
    results = {one.span_id: classify(one) for one in spans}
    assert {r.dialect for r in results.values()} == {"openinference"}
    llm1 = results["llm-1"].step
    assert isinstance(llm1, ModelCall)
    assert llm1.last_user_text == "What is the weather difference between Taipei and Seattle?"
    assert [(c.id, c.name, c.arguments) for c in llm1.tool_calls] == [
        ("toolu_001", "get_weather", {"city": "Taipei"})
    ]
    tool = results["tool-finish"].step
    assert isinstance(tool, ToolRun)
    assert (tool.tool.name, tool.tool.id) == ("finish", "toolu_002")
    assert tool.tool.arguments == {"answer": "Taipei is warmer"}
    root = results["chain-root"].step
    assert isinstance(root, AgentRun)
    assert root.input_text == "What is the weather difference between Taipei and Seattle?"
    assert root.output_text == "Taipei is warmer than Seattle overall."
    assert isinstance(results["chain-sub"].step, OtherStep)  # a nested CHAIN is not an agent
    assert isinstance(results["agent-mislabeled"].step, AgentRun)


def test_adk_spans_are_known_by_their_keys_when_the_scope_is_lost() -> None:
    """A Tempo batch names one scope for all its spans (agentevals' sample): ADK's keys still
    claim the span, so the tool's arguments come from ADK's attributes."""
    tool = classify(
        span(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "helm_list_releases",
                "gen_ai.tool.call.id": "call_1",
                "gcp.vertex.agent.event_id": "e1",
                "gcp.vertex.agent.tool_call_args": "{}",
                "gcp.vertex.agent.tool_response": '{"content": [{"type": "text", "text": "ok"}]}',
            },
            name="execute_tool helm_list_releases",
            scope="opentelemetry.instrumentation.httpx",
        )
    )
    assert tool.dialect == "adk" and tool.flags == set()
    assert tool.step.tool.arguments == {}  # type: ignore[union-attr]  # a real empty call
    assert tool.step.tool.has_result  # type: ignore[union-attr]
