"""Wire steps + span steps → one list for the builder (steps/merge.py rules)."""

from __future__ import annotations

from agenteval_nb.steps.builder import build_invocation
from agenteval_nb.steps.merge import merge_sources
from agenteval_nb.steps.records import (
    AgentRun,
    ModelCall,
    ToolResult,
    ToolRun,
    ToolUse,
    TurnSteps,
    Usage,
)


def wire(seq: int, start: int, end: int, **fields) -> ModelCall:
    return ModelCall(span_id=f"wire-{seq}", start_ns=start, end_ns=end, model="m-2024", **fields)


def span(span_id: str, start: int, end: int | None, parent: str | None = None, **fields):
    return ModelCall(span_id=span_id, start_ns=start, end_ns=end, parent_span_id=parent, **fields)


def ids(steps) -> list[str]:
    return [s.span_id for s in steps]


def test_layers_around_a_wire_call_are_its_twins_and_fill_what_it_lacks():
    call = wire(1, 100, 200)
    outer = span("outer", 90, 210, parent="agent", model="m", usage=Usage(5, 3))
    inner = span("inner", 95, 205, parent="outer", model="m")
    tool = ToolRun("tool", ToolUse("c1", "t"), 220, 230, parent_span_id="inner")
    merged = merge_sources([call], [AgentRun("agent", "a", 0, 300), outer, inner, tool])
    assert ids(merged) == ["agent", "wire-1", "tool"]
    assert call.usage == Usage(5, 3)  # the wire reported none: taken from a twin
    assert tool.parent_span_id == "agent"  # re-parented past the dropped layers


def test_wire_usage_is_kept_over_a_twins():
    call = wire(1, 100, 200, usage=Usage(10, 2))
    merge_sources([call], [span("s", 90, 210, usage=Usage(99, 99))])
    assert call.usage == Usage(10, 2)


def test_tool_call_ids_decide_before_time():
    asked = wire(1, 100, 200, tool_calls=[ToolUse("call_a", "t")])
    other = span("s", 90, 210, tool_calls=[ToolUse("call_b", "t")])
    same = span("s2", 5000, 6000, tool_calls=[ToolUse("call_a", "t")])
    merged = merge_sources([asked], [other, same])
    assert ids(merged) == ["s", "wire-1"]  # ids disagree: kept; ids agree: a twin at any time


def test_a_span_that_did_not_contain_the_wire_calls_start_is_its_own_call():
    call = wire(1, 100, 200)
    before = span("before", 10, 90)
    after = span("after", 150, 300)  # started after the wire call: not its layer
    still_open = span("open", 120, None)
    merged = merge_sources([call], [before, after, still_open])
    assert ids(merged) == ["before", "wire-1", "open", "after"]
    around_open = span("open-around", 50, None)
    assert ids(merge_sources([wire(2, 100, 200)], [around_open])) == ["wire-2"]


def test_the_wires_tool_result_replaces_a_spans_encoding_of_it():
    first = wire(1, 100, 200, tool_calls=[ToolUse("call_1", "lookup", {"q": "x"})])
    second = wire(2, 300, 400, tool_results=[ToolResult("call_1", "lookup", {"answer": 42})])
    run = ToolRun(
        "tool",
        ToolUse("call_1", "lookup", {"q": "x"}, '{"lc": 1, "kwargs": {"content": "42"}}', True),
        210,
        290,
    )
    merged = merge_sources([first, second], [run])
    assert run.tool.result == {"answer": 42}
    built = build_invocation(TurnSteps("t", merged, user_text="q", final_text="a"))
    assert [(t.id, t.result) for t in built.invocation.tools] == [("call_1", {"answer": 42})]


def test_a_tool_run_gives_the_result_the_wire_never_carried():
    asked = wire(1, 100, 200, tool_calls=[ToolUse("call_1", "lookup", {"q": "x"})])
    answer = wire(2, 300, 400)  # the result went back as plain text
    run = ToolRun("tool", ToolUse("call_1", "lookup", {"q": "x"}, {"answer": 42}, True), 210, 290)
    merged = merge_sources([asked, answer], [run])
    built = build_invocation(TurnSteps("t", merged, user_text="q", final_text="a"))
    assert [(t.id, t.result) for t in built.invocation.tools] == [("call_1", {"answer": 42})]
    assert built.tools_without_result == 0
    alone = build_invocation(TurnSteps("t", [asked, answer], user_text="q", final_text="a"))
    assert alone.tools_without_result == 1


def test_the_replys_id_decides_first():
    call = wire(1, 100, 200, response_id="chatcmpl-1")
    layer = span("layer", 90, 210, response_id="chatcmpl-1")
    concurrent = span("other", 90, 210, response_id="chatcmpl-2")  # contains the start too
    later = span("later", 5000, 6000, response_id="chatcmpl-1")
    assert ids(merge_sources([call], [layer, concurrent, later])) == ["other", "wire-1"]
