"""The tool diff pairs calls the way the trajectory metric matched them (render/tools.py over
criteria/trajectory.tool_matching): ordered, unordered, subset, and calls left unmatched."""

from __future__ import annotations

from agenteval_nb.criteria.trajectory import tool_matching, trajectory_reason
from agenteval_nb.render import render_case
from agenteval_nb.render.tools import align_tools, pair_verdict
from agenteval_nb.schema import (
    Criterion,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    Invocation,
    Tool,
    ToolTrajectoryCriterion,
)

ORDERED = ToolTrajectoryCriterion(order_sensitive=True)
UNORDERED = ToolTrajectoryCriterion()
SUBSET = ToolTrajectoryCriterion(subset_matching=True)


def tool(name: str, **args) -> Tool:
    return Tool(id=f"{name}{sorted(args.items())}", name=name, arguments=args)


def rows(expected, actual, criterion):
    """(expected index, actual index, verdict) per row of the diff."""
    return [
        (p.expected_index, p.actual_index, pair_verdict(p))
        for p in align_tools(expected, actual, criterion)
    ]


def test_ordered_pairs_the_greedy_subsequence_then_names_for_the_rest():
    expected = [tool("a", x=1), tool("b", y=1)]
    assert rows(expected, [tool("a", x=1), tool("b", y=1)], ORDERED) == [
        (0, 0, "match"),
        (1, 1, "match"),
    ]
    # The metric stops at "a"; the rest is paired by name: only "a" is flagged.
    assert rows(expected, [tool("a", x=2), tool("b", y=1)], ORDERED) == [
        (0, 0, "arguments differ"),
        (1, 1, "match"),
    ]


def test_a_passed_unordered_case_pairs_as_the_metric_did():
    expected = [tool("s", a=2), tool("s", a=1)]
    actual = [tool("s", a=1), tool("s", a=2)]
    assert (
        trajectory_reason(UNORDERED, Invocation(tools=actual), Invocation(tools=expected)) is None
    )
    assert rows(expected, actual, UNORDERED) == [(0, 1, "match"), (1, 0, "match")]


def test_a_failed_unordered_case_flags_only_the_unmatched_calls():
    expected = [tool("s", a=1), tool("s", a=2), tool("t")]
    actual = [tool("s", a=2), tool("s", a=9), tool("t")]
    assert tool_matching(UNORDERED, actual, expected) == [None, 0, 2]
    assert rows(expected, actual, UNORDERED) == [
        (0, 1, "arguments differ"),
        (1, 0, "match"),
        (2, 2, "match"),
    ]


def test_subset_pairs_the_matched_call_and_lists_the_extra_ones():
    expected = [tool("s", a=2)]
    actual = [tool("s", a=1), tool("s", a=2)]
    assert rows(expected, actual, SUBSET) == [(0, 1, "match"), (None, 0, "extra")]


def test_unmatched_calls_are_missing_or_extra():
    assert rows([tool("s", a=1)], [], UNORDERED) == [(0, None, "missing")]
    assert rows([], [tool("s", a=1)], UNORDERED) == [(None, 0, "extra")]
    # Ordered: "s" finds no match and ends the metric's walk; "t" is paired by name.
    assert rows([tool("s", a=1), tool("t")], [tool("t")], ORDERED) == [
        (0, None, "missing"),
        (1, 0, "match"),
    ]
    # Left over on both sides: paired by position to show what differs.
    assert rows([tool("s", a=1)], [tool("u")], UNORDERED) == [(0, 0, "name + arguments differ")]


def test_without_a_criterion_calls_pair_by_name_and_position():
    expected = [tool("s", a=2), tool("s", a=1)]
    actual = [tool("s", a=1), tool("s", a=2)]
    assert rows(expected, actual, None) == [
        (0, 0, "arguments differ"),
        (1, 1, "arguments differ"),
    ]


def trajectory_case(expected, actual, criterion, status) -> EvalCaseResult:
    result = EvalMetricResult(
        metric_name="tool_trajectory_avg_score",
        score=1.0 if status == "passed" else 0.0,
        eval_status=status,
        threshold=1.0,
        criterion=Criterion(tool_trajectory=criterion),
        details=EvalMetricResultDetails(score=1.0 if status == "passed" else 0.0),
    )
    return EvalCaseResult(
        eval_set_id="set",
        eval_id="c",
        run_id=1,
        final_eval_status=status,
        overall_eval_metric_results=[result],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=Invocation(invocation_id="t", tools=actual),
                expected_invocation=Invocation(invocation_id="t", tools=expected),
                eval_metric_results=[result.model_copy(deep=True)],
            )
        ],
    )


def test_the_case_view_of_a_passed_unordered_case_shows_no_differs():
    case = trajectory_case(
        [tool("s", a=2), tool("s", a=1)], [tool("s", a=1), tool("s", a=2)], UNORDERED, "passed"
    )
    shown = str(render_case(case))
    assert "differ" not in shown
    assert shown.count(">match<") == 2
