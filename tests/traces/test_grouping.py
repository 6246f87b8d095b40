"""Grouping: classified spans → conversations → turns (agenteval_nb/traces/grouping.py)."""

from __future__ import annotations

from _trace_spans import agent, llm, other, tool

from agenteval_nb.steps.records import ToolUse
from agenteval_nb.traces.grouping import group


def ids(turn):
    return [s.span_id for s in turn.steps]


def test_conversation_id_inherited_down_the_tree_and_turns_in_start_order():
    # two traces of one conversation, written in the file in reverse order; the id sits on the
    # root agent only
    pairs = [
        agent("t2", "a2", None, 100, 200, conv="conv-1", inp="second", out="two"),
        llm("t2", "m2", "a2", 110, 190, user="second", out="two"),
        agent("t1", "a1", None, 0, 50, conv="conv-1", inp="first", out="one"),
        llm("t1", "m1", "a1", 10, 40, user="first", out="one"),
    ]
    (conv,) = group(pairs)
    assert conv.case_id == "conv-1" and conv.conversation_id == "conv-1"
    assert [t.turn_id for t in conv.turns] == ["a1", "a2"]
    assert [t.user_text for t in conv.turns] == ["first", "second"]
    assert conv.trace_ids == ["t2", "t1"]
    assert conv.turns[0].trace_id == "t1" and conv.turns[0].root_span_id == "a1"


def test_conversation_id_on_a_child_or_an_ancestor_is_found():
    pairs = [
        # ADK-like: the id is on a child of the turn's agent
        agent("t1", "inv", None, 0, 50, name="invocation"),
        agent("t1", "ia", "inv", 1, 49, conv="s-1"),
        # an HTTP server root carries the id above the agent
        other("t2", "http", None, 60, 120, conv="s-1"),
        agent("t2", "a2", "http", 61, 119),
    ]
    (conv,) = group(pairs)
    assert conv.case_id == "s-1"
    assert [t.turn_id for t in conv.turns] == ["inv", "a2"]
    assert ids(conv.turns[0]) == ["inv", "ia"]


def test_no_conversation_id_gives_one_case_per_trace_never_a_guess():
    pairs = [
        agent("t1", "a1", None, 0, 10, inp="q1", out="r1"),
        agent("t2", "a2", None, 20, 30, inp="q2", out="r2"),
    ]
    convs = group(pairs)
    assert [(c.case_id, c.conversation_id) for c in convs] == [("t1", None), ("t2", None)]
    assert all(len(c.turns) == 1 for c in convs)


def test_nested_agents_and_agent_as_tool_are_steps_of_one_turn():
    pairs = [
        agent("t", "root", None, 0, 100, name="planner"),
        llm("t", "m1", "root", 1, 10, user="q", tools=[ToolUse("c1", "researcher", {})]),
        tool("t", "tl", "root", 11, 60, call_id="c1", name="researcher", result="found"),
        agent("t", "sub", "tl", 12, 59, name="researcher"),
        llm("t", "m2", "sub", 13, 58, user="sub question", out="found"),
        llm("t", "m3", "root", 61, 99, out="answer"),
    ]
    (conv,) = group(pairs)
    (turn,) = conv.turns
    assert ids(turn) == ["root", "m1", "tl", "sub", "m2", "m3"]


def test_trace_without_agent_is_one_turn_rooted_at_its_root():
    pairs = [
        other("t", "chain", None, 0, 100, name="workflow"),
        llm("t", "m1", "chain", 1, 50, user="q", out="a"),
    ]
    (conv,) = group(pairs)
    (turn,) = conv.turns
    assert turn.turn_id == "chain" and ids(turn) == ["chain", "m1"]
    assert turn.user_text is None


def test_model_calls_outside_the_agents_join_the_turn_started_before_them():
    pairs = [
        other("t", "srv", None, 0, 300, name="GET /chat"),
        agent("t", "a1", "srv", 10, 100),
        agent("t", "a2", "srv", 150, 250),
        llm("t", "title", "srv", 110, 120, out="a title"),
        other("t", "db", "srv", 260, 270, name="SELECT"),
    ]
    (conv,) = group(pairs)
    assert [ids(t) for t in conv.turns] == [["a1", "title"], ["a2"]]


def test_orphans_are_bridged_under_the_nearest_root_and_flagged():
    pairs = [
        agent("t", "r1", None, 0, 10),
        agent("t", "r2", None, 100, 200),
        llm("t", "lost", "missing-parent", 150, 160, user="q", out="a"),
    ]
    (conv,) = group(pairs)
    assert [ids(t) for t in conv.turns] == [["r1"], ["r2", "lost"]]
    assert "orphan" in conv.turns[1].gaps and "orphan" not in conv.turns[0].gaps
    assert conv.turns[1].steps[1].parent_span_id == "r2"
    assert conv.flags == {"orphan": 1}


def test_a_trace_of_orphans_only_takes_its_earliest_as_root():
    pairs = [
        llm("t", "b", "gone", 20, 30, out="b"),
        agent("t", "a", "gone", 0, 40),
    ]
    (conv,) = group(pairs)
    (turn,) = conv.turns
    assert turn.turn_id == "a" and ids(turn) == ["a", "b"]


def test_span_flags_counted_and_non_content_flags_become_turn_gaps():
    pairs = [
        agent("t", "a", None, 0, 100),
        llm("t", "m", "a", 1, None, user="q", flags={"garbled", "content_missing"}),
        other("t", "o", "a", 2, 3, dropped=12),
    ]
    (conv,) = group(pairs)
    assert conv.flags == {
        "garbled": 1,
        "content_missing": 1,
        "open_span": 1,
        "dropped_attributes": 1,
    }
    assert conv.turns[0].gaps == {"garbled", "dropped_attributes"}
    assert conv.dialects == {"otel_genai": 2, "unclaimed": 1}


def test_a_parent_cycle_and_a_repeated_span_lose_nothing():
    pairs = [
        agent("t", "a", "b", 0, 100),
        llm("t", "b", "a", 10, 20, user="q", out="r"),
        llm("t", "b", "a", 10, 20, user="q", out="r"),  # the same span exported twice
    ]
    (conv,) = group(pairs)
    (turn,) = conv.turns
    assert ids(turn) == ["a", "b"] and "orphan" in turn.gaps
    assert conv.spans == 2 and conv.flags["duplicate"] == 1
