"""The builder: a turn's steps → Invocation (agenteval_nb/steps/builder.py rules 1–7)."""

from __future__ import annotations

from agenteval_nb.steps.builder import (
    build_invocation,
    canonical_arguments,
    collapse_model_calls,
    rfc3339,
    sum_usage,
)
from agenteval_nb.steps.records import (
    AgentRun,
    Content,
    ModelCall,
    OtherStep,
    ToolResult,
    ToolRun,
    ToolUse,
    TurnSteps,
    Usage,
)

MS = 1_000_000


def turn(*steps, **kw) -> TurnSteps:
    kw.setdefault("start_ns", 0)
    kw.setdefault("end_ns", 100 * MS)
    return TurnSteps(turn_id=kw.pop("turn_id", "t1"), steps=list(steps), **kw)


def call(span, start, end, **kw) -> ModelCall:
    return ModelCall(span_id=span, start_ns=start * MS, end_ns=end * MS, **kw)


def run(span, start, end, tool: ToolUse, **kw) -> ToolRun:
    return ToolRun(span_id=span, tool=tool, start_ns=start * MS, end_ns=end * MS, **kw)


def agent(span="a", name="bot", **kw) -> AgentRun:
    kw.setdefault("start_ns", 0)
    kw.setdefault("end_ns", 100 * MS)
    return AgentRun(span_id=span, name=name, **kw)


def tools_of(built):
    return [t.to_wire() for t in built.invocation.tools or []]


# -- texts --------------------------------------------------------------------------------------


def test_user_is_last_user_of_first_call_and_final_the_last_call_without_tools():
    built = build_invocation(
        turn(
            agent(),
            call(
                "m1",
                1,
                10,
                parent_span_id="a",
                last_user_text="weather in Paris?",
                output_text="let me look",
                tool_calls=[ToolUse("c1", "weather", {"city": "Paris"})],
            ),
            run(
                "t1",
                11,
                20,
                ToolUse("c1", "weather", {"city": "Paris"}, "sunny", True),
                parent_span_id="a",
            ),
            call(
                "m2",
                21,
                30,
                parent_span_id="a",
                last_user_text="later user",
                output_text="It is sunny.",
            ),
        )
    )
    inv = built.invocation
    assert inv.user_content.content == "weather in Paris?"
    assert inv.final_response.content == "It is sunny."
    assert [m.content for m in inv.intermediate_responses] == ["let me look"]
    assert tools_of(built) == [
        {"id": "c1", "name": "weather", "arguments": {"city": "Paris"}, "result": "sunny"}
    ]
    assert built.gaps == set()
    assert inv.source.span_ids == ["a", "m1", "t1", "m2"]
    assert inv.source.gaps is None


def test_turn_texts_override_the_calls():
    built = build_invocation(
        turn(
            call("m1", 1, 10, last_user_text="history user", output_text="draft"),
            user_text="the root's input",
            final_text="the agent's return value",
        )
    )
    assert built.invocation.user_content.content == "the root's input"
    assert built.invocation.final_response.content == "the agent's return value"
    # the last call is the final one: its draft is not an intermediate response
    assert built.invocation.intermediate_responses is None


def test_last_call_with_tool_calls_is_no_final_response():
    built = build_invocation(
        turn(
            call(
                "m1",
                1,
                10,
                last_user_text="q",
                output_text="calling",
                tool_calls=[ToolUse("c1", "stop_run", {})],
            ),
            run("t1", 11, 20, ToolUse("c1", "stop_run", {}, "ok", True)),
        )
    )
    assert built.invocation.final_response is None
    assert [m.content for m in built.invocation.intermediate_responses] == ["calling"]
    assert "no_final_response" in built.gaps
    assert "no_final_response" in built.invocation.source.gaps


# -- tools --------------------------------------------------------------------------------------


def test_tools_join_by_id_and_keep_request_order_for_parallel_calls():
    requested = [
        ToolUse("c1", "search", {"q": "a"}),
        ToolUse("c2", "search", {"q": "b"}),
        ToolUse("c3", "fetch", {"url": "u"}),
    ]
    built = build_invocation(
        turn(
            call("m1", 1, 10, last_user_text="q", tool_calls=requested),
            # executed in parallel: started in another order than requested
            run("t3", 11, 15, ToolUse("c3", "fetch", None, "page", True)),
            run("t2", 11, 16, ToolUse("c2", "search", None, "B", True)),
            run("t1", 12, 17, ToolUse("c1", "search", None, "A", True)),
            call("m2", 20, 30, output_text="done"),
        )
    )
    assert [(t["id"], t["arguments"], t["result"]) for t in tools_of(built)] == [
        ("c1", {"q": "a"}, "A"),
        ("c2", {"q": "b"}, "B"),
        ("c3", {"url": "u"}, "page"),
    ]


def test_tools_without_ids_join_by_name_and_canonical_arguments_in_order():
    built = build_invocation(
        turn(
            call(
                "m1",
                1,
                10,
                last_user_text="q",
                tool_calls=[
                    ToolUse(None, "add", '{"b": 2, "a": 1}'),
                    ToolUse(None, "add", {"a": 5, "b": 6}),
                    ToolUse(None, "add", {"a": 1, "b": 2}),
                ],
            ),
            run("t1", 11, 12, ToolUse(None, "add", {"a": 5, "b": 6}, 11, True)),
            run("t2", 12, 13, ToolUse(None, "add", {"a": 1, "b": 2}, "first", True)),
            run("t3", 13, 14, ToolUse(None, "add", {"a": 1, "b": 2}, "second", True)),
            call("m2", 20, 30, output_text="done"),
        )
    )
    assert [t["result"] for t in tools_of(built)] == ["first", 11, "second"]


def test_tool_result_from_a_later_model_call_input():
    built = build_invocation(
        turn(
            call("m1", 1, 10, last_user_text="q", tool_calls=[ToolUse("c9", "lookup", {"k": 1})]),
            call(
                "m2",
                20,
                30,
                tool_results=[ToolResult("other", "x", 0), ToolResult("c9", "lookup", {"v": 2})],
                output_text="v is 2",
            ),
        )
    )
    assert tools_of(built) == [
        {"id": "c9", "name": "lookup", "arguments": {"k": 1}, "result": {"v": 2}}
    ]
    assert "tool_without_result" not in built.gaps


def test_a_failed_tool_result_is_the_later_call_input_else_its_error():
    """TRACES.md §2: result = the tool span's, else the next model input's tool message; the
    tool error (``error.type``, status ERROR) is the outcome when neither holds one."""
    failed = ToolUse("c1", "get_weather", {"city": "London"}, error="TimeoutError")
    requested = [ToolUse("c1", "get_weather", {"city": "London"})]
    told = build_invocation(
        turn(
            call("m1", 1, 10, last_user_text="q", tool_calls=requested),
            run("t1", 11, 12, failed),
            call("m2", 20, 30, tool_results=[ToolResult("c1", None, "Error: TimeoutError")]),
        )
    )
    assert [t["result"] for t in tools_of(told)] == ["Error: TimeoutError"]
    silent = build_invocation(
        turn(
            call("m1", 1, 10, last_user_text="q", tool_calls=requested),
            run("t1", 11, 12, failed, content=Content.MISSING),
            call("m2", 20, 30, content=Content.MISSING),
        )
    )
    assert tools_of(silent) == [
        {
            "id": "c1",
            "name": "get_weather",
            "arguments": {"city": "London"},
            "result": {"error": "TimeoutError"},
        }
    ]
    assert "tool_without_result" not in silent.gaps


def test_duplicate_requests_are_one_tool_and_unrequested_runs_are_added():
    use = ToolUse("c1", "lookup", {"k": 1})
    built = build_invocation(
        turn(
            call(
                "m1", 1, 10, last_user_text="q", tool_calls=[use, ToolUse("c1", "lookup", {"k": 1})]
            ),
            run("t1", 11, 12, ToolUse("c1", "lookup", None, "r1", True)),
            run("t2", 13, 14, ToolUse("c7", "side_effect", {"x": 1}, None, False)),
            call("m2", 20, 30, output_text="ok"),
        )
    )
    assert [(t.get("id"), t.get("result")) for t in tools_of(built)] == [("c1", "r1"), ("c7", None)]
    assert "tool_without_result" in built.gaps


def test_content_off_keeps_tool_names_and_ids_and_flags_the_gap():
    built = build_invocation(
        turn(
            agent(content=Content.MISSING),
            call("m1", 1, 10, parent_span_id="a", content=Content.MISSING, usage=Usage(5, 2)),
            run(
                "t1",
                11,
                20,
                ToolUse("call_1", "weather"),
                parent_span_id="a",
                content=Content.MISSING,
            ),
            call("m2", 21, 30, parent_span_id="a", content=Content.MISSING, usage=Usage(9, 3)),
        )
    )
    inv = built.invocation
    assert inv.user_content.content is None and inv.final_response is None
    assert [(t.id, t.name) for t in inv.tools] == [("call_1", "weather")]
    assert {
        "content_missing",
        "no_user_content",
        "no_final_response",
        "tool_without_result",
    } <= built.gaps
    assert inv.execution_trace.usage.prompt_tokens == 14


def test_server_tools_need_no_result():
    built = build_invocation(
        turn(
            call(
                "m1",
                1,
                10,
                last_user_text="q",
                output_text="found it",
                tool_calls=[ToolUse("ws1", "web_search", {"q": "x"}, server=True)],
            )
        )
    )
    assert "tool_without_result" not in built.gaps


# -- model calls and usage ----------------------------------------------------------------------


def test_nested_duplicate_model_calls_collapse_and_usage_counts_once():
    # ADK: call_llm (framework layer, no content) wraps generate_content (client layer, content),
    # with an HTTP span in between; both carry the same usage.
    steps = [
        agent(),
        call(
            "outer",
            1,
            30,
            parent_span_id="a",
            model="gemini-2.0-flash",
            usage=Usage(100, 20, 120),
            content=Content.MISSING,
        ),
        OtherStep("http", "POST", 2 * MS, 28 * MS, parent_span_id="outer"),
        call(
            "inner",
            3,
            27,
            parent_span_id="http",
            model="models/gemini-2.0-flash",
            last_user_text="hi",
            output_text="hello",
            usage=Usage(100, 20, 120),
        ),
        call(
            "next",
            40,
            50,
            parent_span_id="a",
            model="gemini-2.0-flash",
            last_user_text="hi",
            output_text="bye",
            usage=Usage(130, 5),
        ),
    ]
    calls, dropped = collapse_model_calls(steps)
    assert [c.span_id for c in calls] == ["inner", "next"]
    assert dropped == {"outer"}
    built = build_invocation(turn(*steps))
    usage = built.invocation.execution_trace.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (230, 25, 255)
    assert built.model_calls == 2
    # the dropped layer is no step; its content flag is no gap (the twin has the content)
    assert [s.step_id for s in built.invocation.execution_trace.steps] == [
        "a",
        "http",
        "inner",
        "next",
    ]
    assert "content_missing" not in built.gaps
    assert [m.content for m in built.invocation.intermediate_responses] == ["hello"]


def test_nested_calls_of_other_models_or_times_are_separate_calls():
    steps = [
        call(
            "outer", 1, 30, model="gpt-4o", last_user_text="q", output_text="a", usage=Usage(10, 1)
        ),
        call(
            "router",
            2,
            5,
            parent_span_id="outer",
            model="gpt-4o-mini",
            output_text="r",
            usage=Usage(3, 1),
        ),
        call(
            "later",
            40,
            50,
            parent_span_id="outer",
            model="gpt-4o",
            output_text="b",
            usage=Usage(4, 1),
        ),
    ]
    calls, dropped = collapse_model_calls(steps)
    assert len(calls) == 3 and dropped == set()
    assert sum_usage(c.usage for c in calls).input_tokens == 17


def test_duplicate_layer_fills_what_the_kept_call_lacks():
    steps = [
        call("outer", 1, 30, model="m", usage=Usage(7, 3, 10), tool_calls=[ToolUse("c1", "f", {})]),
        call(
            "inner", 2, 29, parent_span_id="outer", model="m", last_user_text="q", output_text=None
        ),
    ]
    calls, _ = collapse_model_calls(steps)
    (merged,) = calls
    assert merged.span_id == "inner"
    assert merged.usage == Usage(7, 3, 10)
    assert [t.id for t in merged.tool_calls] == ["c1"]


def test_usage_sums_only_model_calls_and_missing_fields_stay_none():
    assert sum_usage([None, None]) is None
    summed = sum_usage([Usage(10, 2), Usage(5, None, 9, cached_input_tokens=4)])
    assert summed == Usage(15, 2, 21, cached_input_tokens=4, reasoning_tokens=None)
    # an agent's aggregate usage is not a model call: no field carries it
    built = build_invocation(
        turn(
            agent(),
            call(
                "m",
                1,
                2,
                parent_span_id="a",
                last_user_text="q",
                output_text="x",
                usage=Usage(1, 1),
            ),
        )
    )
    assert built.invocation.execution_trace.usage.total_tokens == 2


def test_no_model_call_and_open_span_gaps():
    built = build_invocation(
        turn(
            agent(end_ns=None),
            OtherStep("o", "chain", 1, None),
            end_ns=None,
            user_text="q",
            final_text="a",
        )
    )
    assert {"no_model_call", "open_span"} <= built.gaps
    assert built.invocation.execution_trace.status == "incomplete"


def test_redacted_and_external_content_are_named():
    built = build_invocation(
        turn(
            call("m1", 1, 2, content=Content.REDACTED),
            call("m2", 3, 4, content=Content.EXTERNAL),
            turn_id="t",
            gaps={"dropped_attributes"},
        )
    )
    assert {"content_redacted", "content_external", "dropped_attributes"} <= set(
        built.invocation.source.gaps
    )


# -- executionTrace -----------------------------------------------------------------------------


def test_execution_trace_steps_node_types_agent_names_and_times():
    built = build_invocation(
        turn(
            agent("root", "planner", error=None),
            call(
                "m1",
                1,
                2,
                parent_span_id="root",
                model="gpt",
                last_user_text="q",
                output_text="x",
                usage=Usage(1, 2),
            ),
            agent("sub", "helper", parent_span_id="root", start_ns=3 * MS, end_ns=9 * MS),
            run(
                "t1",
                4,
                5,
                ToolUse("c", "calc", {"x": 1}, {"y": 2}, True, error="boom"),
                parent_span_id="sub",
            ),
            OtherStep("h", "POST", 6 * MS, 7 * MS, parent_span_id="sub"),
            trace_id="abc",
            root_span_id="root",
        )
    )
    trace = built.invocation.execution_trace
    rows = [(s.step_id, s.node_type, s.agent_name, s.node_id) for s in trace.steps]
    assert rows == [
        ("root", "agent", "planner", "planner"),
        ("m1", "llm", "planner", "gpt"),
        ("sub", "agent", "helper", "helper"),
        ("t1", "tool", "helper", "calc"),
        ("h", "function", "helper", "POST"),
    ]
    tool_step = trace.steps[3]
    assert tool_step.input.text == '{"x": 1}' and tool_step.output.text == '{"y": 2}'
    assert tool_step.error == "boom"
    assert trace.root_agent_name == "planner" and trace.status == "completed"
    assert trace.started_at == "1970-01-01T00:00:00Z"
    assert trace.steps[1].started_at == "1970-01-01T00:00:00.001Z"
    assert (
        built.invocation.source.trace_id == "abc" and built.invocation.source.root_span_id == "root"
    )
    wire = built.invocation.to_wire()
    assert wire["executionTrace"]["Steps"][1]["Usage"]["total_tokens"] == 3


def test_rfc3339_and_canonical_arguments():
    assert rfc3339(1_700_000_000_123_456_789) == "2023-11-14T22:13:20.123456789Z"
    assert rfc3339(None) is None
    assert canonical_arguments('{"b":1,"a":[1,2]}') == canonical_arguments({"a": [1, 2], "b": 1})
    assert canonical_arguments("not json") == "not json"


def test_content_flags_of_steps_the_turn_does_not_read_are_no_gap():
    # an agent span without text of its own, an intermediate call redacted: the turn's texts
    # are there, from calls that carry content
    built = build_invocation(
        turn(
            agent(content=Content.MISSING),
            call("m1", 1, 2, parent_span_id="a", last_user_text="q", output_text="draft"),
            call(
                "m2",
                3,
                4,
                parent_span_id="a",
                content=Content.REDACTED,
                output_text=None,
                tool_calls=[ToolUse("c", "f", {})],
            ),
            run("t", 5, 6, ToolUse("c", "f", {}, 1, True), parent_span_id="a"),
            call("m3", 7, 8, parent_span_id="a", output_text="final"),
        )
    )
    assert built.invocation.final_response.content == "final"
    assert not {g for g in built.gaps if g.startswith("content_")}
    # the call that gave the final text is truncated: that is named
    truncated = build_invocation(
        turn(call("m1", 1, 2, last_user_text="q", output_text="fin", content=Content.TRUNCATED))
    )
    assert truncated.gaps == {"content_truncated"}
