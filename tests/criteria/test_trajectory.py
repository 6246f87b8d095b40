"""Tool trajectory matching (SPEC §3.1, §9 and §11)."""

import pytest

from agenteval_nb.criteria import (
    Hooks,
    MatchError,
    match_tool_trajectory,
    validate_tool_trajectory,
)
from agenteval_nb.schema import (
    Invocation,
    JSONCriterion,
    TextCriterion,
    Tool,
    ToolStrategy,
    ToolTrajectoryCriterion,
)

C = ToolTrajectoryCriterion


def ordered(**kwargs):
    """Ordered matching reports the cause of the failing pair (unordered lists only ids)."""
    return C(order_sensitive=True, **kwargs)


def tool(name, arguments=None, result=None, id=None):
    return Tool(id=id, name=name, arguments=arguments, result=result)


def inv(*tools):
    return Invocation(tools=list(tools))


def mismatch(criterion, actual, expected, hooks=None):
    with pytest.raises(MatchError) as info:
        match_tool_trajectory(criterion, actual, expected, *(() if hooks is None else (hooks,)))
    return str(info.value)


# --- SPEC §11 worked examples -------------------------------------------------------------


def test_unordered_shared_name_reversed_matches():
    actual = inv(tool("shared", {"a": 1}, {"r": 2}), tool("shared", {"a": 2}, {"r": 3}))
    expected = inv(tool("shared", {"a": 2}, {"r": 3}), tool("shared", {"a": 1}, {"r": 2}))
    match_tool_trajectory(C(), actual, expected)


def test_order_sensitive_reversed_fails():
    actual = inv(tool("tool", {"a": 1}), tool("tool", {"a": 2}))
    expected = inv(tool("tool", {"a": 2}), tool("tool", {"a": 1}))
    match_tool_trajectory(C(), actual, expected)
    assert mismatch(C(order_sensitive=True), actual, expected).startswith("match tools: ")


def test_subset_matching_worked_example():
    actual = inv(tool("tool", {"a": 0}), tool("tool", {"a": 1}), tool("tool", {"a": 2}))
    expected = inv(tool("tool", {"a": 1}), tool("tool", {"a": 2}))
    match_tool_trajectory(C(subset_matching=True), actual, expected)
    match_tool_trajectory(C(subset_matching=True, order_sensitive=True), actual, expected)


# --- SPEC §9 reason strings ---------------------------------------------------------------


def test_count_mismatch_text():
    actual = inv(tool("a"))
    expected = inv(tool("a"), tool("b"))
    assert mismatch(C(), actual, expected) == (
        "validate tool counts: number of tool calls mismatch: actual(1) != expected(2)"
    )
    assert mismatch(C(subset_matching=True), actual, expected) == (
        "validate tool counts: number of tool calls mismatch: actual(1) < expected(2)"
    )


def test_ordered_mismatch_text():
    actual = inv(tool("tool", {"a": 1}, id="call-1"), tool("tool", {"a": 2}, id="call-2"))
    expected = inv(tool("tool", {"a": 1}, id="call-1"), tool("tool", {"a": 3}, id="call-3"))
    assert mismatch(C(order_sensitive=True), actual, expected) == (
        "match tools: tool id call-3 with name tool mismatch: actual tool call-2 named tool "
        "mismatch with expected tool call-3 named tool: arguments mismatch: actual map[a:2] and "
        "expected map[a:3] do not match: compare a: actual 2 and expected 3 do not match"
    )


def test_ordered_exhausted_actuals_has_no_cause():
    actual = inv(
        tool("tool", {"a": 0}, id="c0"), tool("tool", {"a": 1}, id="c1"), tool("x", id="c2")
    )
    expected = inv(tool("x", id="call-2"), tool("tool", {"a": 1}, id="call-3"))
    # "x" is found at the last actual, nothing is left for the second expected tool
    assert mismatch(C(order_sensitive=True, subset_matching=True), actual, expected) == (
        "match tools: tool id call-3 with name tool mismatch"
    )


def test_ordered_reports_error_of_last_pair_tried():
    actual = inv(tool("a", id="1"), tool("b", id="2"))
    expected = inv(tool("c", id="9"))
    text = mismatch(C(order_sensitive=True, subset_matching=True), actual, expected)
    assert text == (
        "match tools: tool id 9 with name c mismatch: actual tool 2 named b mismatch with "
        "expected tool 9 named c: name mismatch: source b and target c do not match"
    )


def test_ordered_extra_leading_actual_makes_last_expected_unmatched():
    actual = inv(tool("x"), tool("a"), tool("b"))
    expected = inv(tool("a"), tool("b"), tool("c"))
    text = mismatch(C(order_sensitive=True), actual, expected)
    assert text.startswith("match tools: tool id  with name c mismatch")


def test_unordered_failure_is_a_multierror():
    actual = inv(tool("a", id="1"), tool("b", id="2"))
    expected = inv(tool("a", id="x"), tool("c", id="y"))
    assert mismatch(C(), actual, expected) == (
        "match tools: 2 errors occurred:\n\t* cannot match all left vertices\n"
        "\t* tool id y with name c mismatch\n\n"
    )


def test_unordered_unmatched_set_follows_kuhn_order():
    # expected 0 and 1 can both only use actual 0; expected 2 fits actual 1 only.
    actual = inv(tool("t", {"k": 1}, id="a0"), tool("u", id="a1"), tool("v", id="a2"))
    expected = inv(tool("t", {"k": 1}, id="e0"), tool("t", {"k": 1}, id="e1"), tool("u", id="e2"))
    text = mismatch(C(), actual, expected)
    assert text == (
        "match tools: 2 errors occurred:\n\t* cannot match all left vertices\n"
        "\t* tool id e1 with name t mismatch\n\n"
    )


def test_unordered_lists_every_unmatched_expected_in_order():
    actual = inv(tool("a"), tool("b"), tool("c"))
    expected = inv(tool("z", id="1"), tool("b", id="2"), tool("y", id="3"))
    assert mismatch(C(), actual, expected).endswith(
        "3 errors occurred:\n\t* cannot match all left vertices\n"
        "\t* tool id 1 with name z mismatch\n\t* tool id 3 with name y mismatch\n\n"
    )


# --- basics -------------------------------------------------------------------------------


def test_nil_and_empty():
    assert mismatch(C(), None, inv()) == "actual or expected invocation is nil"
    assert mismatch(C(), inv(), None) == "actual or expected invocation is nil"
    match_tool_trajectory(C(), inv(), inv())
    match_tool_trajectory(C(), Invocation(), Invocation(tools=[]))
    match_tool_trajectory(C(subset_matching=True), inv(tool("a"), tool("b")), inv())


def test_default_strategy_compares_name_arguments_and_result():
    base = inv(tool("get", {"id": 1}, {"ok": True}))
    match_tool_trajectory(ordered(), base, inv(tool("get", {"id": 1}, {"ok": True})))
    assert "name mismatch: source get and target put do not match" in mismatch(
        ordered(), base, inv(tool("put", {"id": 1}, {"ok": True}))
    )
    assert "arguments mismatch: actual map[id:1] and expected map[id:2]" in mismatch(
        ordered(), base, inv(tool("get", {"id": 2}, {"ok": True}))
    )
    assert "result mismatch: actual map[ok:true] and expected map[ok:false]" in mismatch(
        ordered(), base, inv(tool("get", {"id": 1}, {"ok": False}))
    )


def test_default_tolerance_is_one_millionth_and_ids_are_ignored():
    actual = inv(tool("f", {"x": 0.1000001}, id="a"))
    match_tool_trajectory(ordered(), actual, inv(tool("f", {"x": 0.1}, id="b")))
    assert "arguments mismatch" in mismatch(ordered(), actual, inv(tool("f", {"x": 0.1001})))


def test_json_string_arguments_do_not_match_decoded_arguments():
    assert "arguments mismatch" in mismatch(
        ordered(), inv(tool("f", {"a": 1})), inv(tool("f", '{"a": 1}'))
    )


def test_default_strategy_replaces_builtin_without_merging():
    only_name = ordered(default_strategy=ToolStrategy(name=TextCriterion()))
    match_tool_trajectory(only_name, inv(tool("f", {"a": 1}, 1)), inv(tool("f", {"a": 2}, 2)))
    assert "name mismatch" in mismatch(only_name, inv(tool("f")), inv(tool("g")))


def test_empty_tool_strategy_matches_anything_with_that_name():
    criterion = ordered(tool_strategy={"x": ToolStrategy()})
    match_tool_trajectory(criterion, inv(tool("x", {"a": 1})), inv(tool("other", {"b": 2})))
    match_tool_trajectory(criterion, inv(tool("other", {"a": 1})), inv(tool("x", {"b": 2})))
    assert "name mismatch" in mismatch(criterion, inv(tool("y")), inv(tool("z")))


def test_tool_strategy_replaces_default_strategy():
    criterion = ordered(
        default_strategy=ToolStrategy(
            name=TextCriterion(), arguments=JSONCriterion(), result=JSONCriterion()
        ),
        tool_strategy={"search": ToolStrategy(name=TextCriterion())},
    )
    # arguments and result are not compared for "search"...
    match_tool_trajectory(criterion, inv(tool("search", {"q": 1})), inv(tool("search", {"q": 2})))
    # ...but still are for other tools, through the default strategy
    assert "arguments mismatch" in mismatch(
        criterion, inv(tool("fetch", {"q": 1})), inv(tool("fetch", {"q": 2}))
    )


def test_strategy_lookup_prefers_actual_name_then_expected_name():
    by_actual = ToolStrategy(name=TextCriterion(match_strategy="contains"))
    by_expected = ToolStrategy(name=TextCriterion(match_strategy="exact"))
    criterion = ordered(tool_strategy={"search_web": by_actual, "search": by_expected})
    # the actual's name selects "contains": "search_web" contains "search"
    match_tool_trajectory(criterion, inv(tool("search_web")), inv(tool("search")))
    # reversed roles: the actual name "search" selects "exact"
    assert "name mismatch: source search and target search_web do not match" in mismatch(
        criterion, inv(tool("search")), inv(tool("search_web"))
    )


def test_expected_name_strategy_used_when_actual_has_none():
    criterion = C(tool_strategy={"calc": ToolStrategy(arguments=JSONCriterion(number_tolerance=1))})
    match_tool_trajectory(criterion, inv(tool("other", {"x": 1.5})), inv(tool("calc", {"x": 1})))


def test_strategy_with_only_tree_for_volatile_results():
    criterion = C(
        tool_strategy={
            "workspace_exec": ToolStrategy(
                name=TextCriterion(),
                arguments=JSONCriterion(only_tree={"command": True}),
                result=JSONCriterion(only_tree={"exit_code": True, "timed_out": True}),
            )
        }
    )
    actual = inv(
        tool(
            "workspace_exec",
            {"command": "ls", "cwd": "/tmp"},
            {"exit_code": 0, "timed_out": False, "stdout": "a", "duration_ms": 12},
        )
    )
    expected = inv(tool("workspace_exec", {"command": "ls"}, {"exit_code": 0, "timed_out": False}))
    match_tool_trajectory(criterion, actual, expected)


def test_name_regex_strategy():
    criterion = C(default_strategy=ToolStrategy(name=TextCriterion(match_strategy="regex")))
    match_tool_trajectory(criterion, inv(tool("search_v2")), inv(tool("^search_v\\d$")))


def test_configuration_errors_surface_through_pairs():
    criterion = ordered(
        default_strategy=ToolStrategy(arguments=JSONCriterion(match_strategy="fuzzy"))
    )
    assert "arguments mismatch: invalid match strategy fuzzy" in mismatch(
        criterion, inv(tool("a")), inv(tool("a")), None
    )
    assert validate_tool_trajectory(criterion) == "arguments mismatch: invalid match strategy fuzzy"
    bad_name = ordered(tool_strategy={"t": ToolStrategy(name=TextCriterion(match_strategy="x"))})
    assert validate_tool_trajectory(bad_name) == "name mismatch: invalid match strategy x"
    assert validate_tool_trajectory(ordered()) is None


def test_custom_compare_gets_the_invocations():
    seen = []

    def compare(actual, expected):
        seen.append((actual, expected))
        return len(actual.tools or []) == len(expected.tools or [])

    hooks = Hooks(compare={"count": compare})
    criterion = C(compare_name="count")
    actual, expected = inv(tool("a")), inv(tool("b"))
    match_tool_trajectory(criterion, actual, expected, hooks)
    assert seen == [(actual, expected)]
    assert mismatch(criterion, actual, inv(), hooks) == ""
    # custom compare runs even for nil invocations
    match_tool_trajectory(C(compare_name="yes"), None, None, Hooks(compare={"yes": lambda a, e: 1}))


def test_custom_compare_go_style_tuple():
    hooks = Hooks(compare={"go": lambda a, e: (False, "tools differ")})
    assert mismatch(C(compare_name="go"), inv(), inv(), hooks) == "tools differ"


def test_nested_text_compare_hook_inside_strategy():
    hooks = Hooks(compare={"ci": lambda a, e: a.lower() == e.lower()})
    criterion = ordered(default_strategy=ToolStrategy(name=TextCriterion(compare_name="ci")))
    match_tool_trajectory(criterion, inv(tool("Search")), inv(tool("search")), hooks)
    assert "name mismatch" in mismatch(criterion, inv(tool("a")), inv(tool("b")), hooks)


@pytest.mark.parametrize("ordered", [False, True])
def test_replace_not_merge_in_both_modes(ordered):
    criterion = C(
        order_sensitive=ordered,
        default_strategy=ToolStrategy(name=TextCriterion(), arguments=JSONCriterion()),
        tool_strategy={"volatile": ToolStrategy(name=TextCriterion())},
    )
    actual = inv(tool("volatile", {"t": 1}, "r1"), tool("stable", {"a": 1}, "r2"))
    expected = inv(tool("volatile", {"t": 2}, "x"), tool("stable", {"a": 1}, "y"))
    match_tool_trajectory(criterion, actual, expected)  # results never compared
    changed = inv(tool("volatile", {"t": 2}), tool("stable", {"a": 2}))
    assert mismatch(criterion, actual, changed).startswith("match tools: ")
