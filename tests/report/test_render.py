"""The shared detail view: one case with tools, final response, metrics, rubrics, judge
samples and verifier distributions, built by hand with the extras models."""

from __future__ import annotations

import math
import re

import pytest
from markupsafe import Markup
from report_builders import _verifier, build_result, build_run, case_result, distribution

from agenteval_nb.io import dumps, load_result
from agenteval_nb.render import (
    HEURISTIC_LABEL,
    align_tools,
    diff_values,
    distribution_svg,
    render_case,
    text,
    word_diff,
)
from agenteval_nb.render.case import invocation_status, metric_rubric_texts
from agenteval_nb.render.order import display_order
from agenteval_nb.render.text import number, plain, score_text
from agenteval_nb.render.tools import ABSENT, pair_verdict
from agenteval_nb.render.verifier import PLOT_HEIGHT
from agenteval_nb.schema import Tool
from agenteval_nb.schema.extras import LabelDistributionRecord


@pytest.fixture(scope="module")
def bad_html() -> str:
    return str(render_case(case_result("weather_bad", 1, ok=False)))


@pytest.fixture(scope="module")
def ok_html() -> str:
    return str(render_case(case_result("weather_ok", 1, ok=True)))


def sections(html: str) -> list[str]:
    return re.findall(r'<section class="ae-sec"><h3>([^<]+)</h3>', html)


def test_case_has_every_section(bad_html):
    assert sections(bad_html) == [
        "user message",
        "tool trajectory",
        "final response",
        "metrics",
        "rubric scores",
        "judge samples",
        "verifier",
    ]
    assert "weather in Paris?" in bad_html
    assert "You are a weather bot" in bad_html  # context message
    assert "error: case failed" in bad_html


def test_tool_trajectory_aligned_with_key_differences(bad_html):
    # the metric's mismatch reason is shown in the trajectory section
    trajectory = bad_html.split("<h3>tool trajectory</h3>")[1].split("<h3>final response")[0]
    assert "tool trajectory mismatch: number of tool calls mismatch" in trajectory
    assert "1 expected call(s), 2 actual call(s)" in trajectory
    # get_weather pairs with get_weather; its differing argument and result keys are marked
    assert "arguments + result differ" in trajectory
    diff_rows = re.findall(r'<tr class="ae-diff"><td><code>([^<]+)</code>', trajectory)
    assert diff_rows == ["city", "temp", "sky"]
    same_rows = re.findall(r'<tr class=""><td><code>([^<]+)</code>', trajectory)
    assert "unit" in same_rows
    assert re.search(r'<tr class="ae-extra"><td><code>x</code>', trajectory)
    # send_email has no expected counterpart
    assert re.search(r"ae-ne\">extra</span> expected .*send_email", trajectory)


def test_matching_tools_are_marked_match(ok_html):
    trajectory = ok_html.split("<h3>tool trajectory</h3>")[1].split("<h3>final response")[0]
    assert ">match</span>" in trajectory
    assert "ae-diff" not in trajectory


def test_final_response_word_diff(bad_html, ok_html):
    final = bad_html.split("<h3>final response</h3>")[1].split("<h3>metrics")[0]
    assert "<del>21</del>" in final and "<ins>18</ins>" in final
    assert "<del>Paris</del>" in final and "<ins>Lyon</ins>" in final
    assert "(identical)" in ok_html.split("<h3>final response</h3>")[1].split("<h3>metrics")[0]


def test_metric_and_rubric_tables(bad_html):
    metrics = bad_html.split("<h3>metrics</h3>")[1].split("<h3>rubric scores")[0]
    names = re.findall(r"<tr class=\"[^\"]*\"><td><code>([^<]+)</code>", metrics)
    assert names == ["tool_trajectory_avg_score", "llm_rubric_response", "llm_verifier_pairwise"]
    assert metrics.count('class="ae-row-fail"') == 3
    rubrics = bad_html.split("<h3>rubric scores</h3>")[1].split("<h3>judge samples")[0]
    assert "Mentions the city" in rubrics and "<code>r1</code>" in rubrics


def test_judge_samples_table(bad_html, ok_html):
    judge = bad_html.split("<h3>judge samples</h3>")[1].split("<h3>verifier")[0]
    rows = re.findall(r"<tr><td class=\"ae-num\">(\d)</td><td>(.*?)</td>", judge)
    assert [(i, "chosen" in mark) for i, mark in rows] == [("0", False), ("1", True), ("2", False)]
    assert judge.count(">hit<") == 1 and judge.count(">miss<") == 2
    assert "prompt 121, completion 30" in judge
    assert "251 ms" in judge
    assert "judge reason 1" in judge and "raw answer" in judge
    assert "judge-model-x" in judge
    # the failing variant was produced by the heuristic judge, the passing one by an LLM
    assert HEURISTIC_LABEL in judge
    assert HEURISTIC_LABEL not in ok_html


def test_verifier_charts(bad_html):
    verifier = bad_html.split("<h3>verifier</h3>")[1]
    assert verifier.count("<svg") == 2
    assert verifier.count('<rect class="ae-bar') == 40
    assert verifier.count('class="ae-bar-sel"') == 2  # the sampled label of A and of B
    assert "swap gap <b>-0.1</b>" in verifier
    assert "swapped score 0.3" in verifier
    assert "expected score <b>0.3684</b>" in verifier  # peak at M (k=12): 1 − 12/19
    assert "valid mass 0.97" in verifier
    assert "swap mode report" in verifier


def test_render_reads_extras_from_a_loaded_file():
    """A result file holds the extras as plain dicts; the view is the same."""
    result = build_result()
    loaded = load_result(dumps(result))
    direct = [str(render_case(c)) for c in result.eval_case_results]
    again = [str(render_case(c)) for c in loaded.eval_case_results]
    assert direct == again


def test_render_is_deterministic():
    case = case_result("weather_bad", 1, ok=False)
    assert str(render_case(case)) == str(render_case(case_result("weather_bad", 1, ok=False)))


def test_rubric_text_from_metric_definitions():
    run = build_run()
    case = case_result("weather_bad", 1, ok=False)
    for per in case.eval_metric_result_per_invocation:
        for m in per.eval_metric_results:
            m.criterion = None  # as in a Go-written file without criteria
    texts = metric_rubric_texts(run.metrics)
    assert texts == {("llm_rubric_response", "r1"): "Mentions the city "}
    assert "Mentions the city" in str(render_case(case, rubric_texts=texts))
    assert "Mentions the city" not in str(render_case(case))


def test_render_returns_markup_and_tolerates_empty_case():
    from agenteval_nb.schema import EvalCaseResult

    html = render_case(EvalCaseResult(eval_id="empty", final_eval_status="not_evaluated"))
    assert isinstance(html, Markup)
    assert "no per-invocation results" in html


def test_invocation_status():
    case = case_result("weather_bad", 1, ok=False)
    assert invocation_status(case.eval_metric_result_per_invocation[0]) == "failed"


# -- alignment and key diffs -----------------------------------------------------------------


def tool(name: str, **args) -> Tool:
    return Tool(name=name, arguments=args)


def test_align_pairs_by_name_then_position():
    expected = [tool("a"), tool("b"), tool("c")]
    actual = [tool("a"), tool("x"), tool("c"), tool("d")]
    pairs = [
        (p.expected.name if p.expected else None, p.actual.name if p.actual else None)
        for p in align_tools(expected, actual)
    ]
    assert pairs == [("a", "a"), ("b", "x"), ("c", "c"), (None, "d")]


def test_align_missing_call():
    pairs = align_tools([tool("a"), tool("b")], [tool("b")])
    assert [(p.expected_index, p.actual_index) for p in pairs] == [(0, None), (1, 0)]
    assert [pair_verdict(p) for p in pairs] == ["missing", "match"]


def test_pair_verdicts():
    (pair,) = align_tools([tool("a", x=1)], [tool("a", x=2)])
    assert pair_verdict(pair) == "arguments differ"
    (pair,) = align_tools([tool("a", x=1)], [tool("b", x=1)])
    assert pair_verdict(pair) == "name differ"


def test_diff_values_nested_and_tolerant():
    rows = diff_values(
        {"a": 1, "b": {"c": [1, 2], "d": "x"}, "gone": True},
        {"a": 1.0000001, "b": {"c": [1, 3], "d": "x"}, "new": None},
    )
    table = {r.path: r.same for r in rows}
    assert table == {
        "a": True,
        "b.c[0]": True,
        "b.c[1]": False,
        "b.d": True,
        "gone": False,
        "new": False,
    }
    gone = next(r for r in rows if r.path == "gone")
    assert gone.actual is ABSENT
    assert [r.same for r in diff_values('{"k": 1}', {"k": 1})] == [True]  # JSON string decoded
    assert [r.same for r in diff_values(1, True)] == [False]  # a boolean is not a number


# -- small pieces ------------------------------------------------------------------------------


def test_text_escapes_and_marks_controls():
    assert text("<b>&</b>") == "&lt;b&gt;&amp;&lt;/b&gt;"
    shown = str(text("a\x00b\u202ec"))
    assert "\x00" not in shown and "\u202e" not in shown
    assert "U+0000" in shown and "U+202E" in shown
    cut = str(text("x" * 50, limit=10))
    assert cut.startswith("x" * 10) and "40 more characters" in cut
    assert plain("a\u202eb") == "aU+202Eb"


def test_numbers_and_scores():
    assert number(0.5) == "0.5" and number(1.0) == "1" and number(2 / 3) == "0.6667"
    assert number(None) == "—" and number(math.nan) == "nan"
    assert score_text(None, "failed") == "0"
    assert score_text(None, "not_evaluated") == "—"


def test_word_diff_marks_only_changes():
    left, right = word_diff("the cat sat", "the dog sat")
    assert str(left) == "the <del>cat</del> sat"
    assert str(right) == "the <ins>dog</ins> sat"


def test_distribution_svg_clamps_and_is_deterministic():
    record = LabelDistributionRecord(
        labels=["A", "B", "C"], probs=[1.5, math.nan, -1.0], sampled_label="A"
    )
    svg = str(distribution_svg(record))
    heights = [float(h) for h in re.findall(r'<rect [^>]*height="([^"]+)"', svg)]
    assert heights == [PLOT_HEIGHT, 0.0, 0.0]
    assert svg == str(distribution_svg(record))
    assert svg.startswith("<svg") and "xmlns" not in svg
    assert str(distribution_svg(distribution(3))).count("<rect") == 20


def test_distribution_svg_has_an_axis_and_numbers_without_hovering():
    svg = str(distribution_svg(distribution(3)))
    ticks = re.findall(r'<text class="ae-tick"[^>]*>([^<]*)</text>', svg)
    assert ticks == ["0", ".5", "1"]
    # the peak (0.81) is written above its bar; the 0.01 bars stay unlabelled
    assert re.findall(r'<text class="ae-val"[^>]*>([^<]*)</text>', svg) == [".81"]


def test_verifier_block_says_which_candidate_is_which():
    from agenteval_nb.render.verifier import verifier_block

    html = str(verifier_block("v", _verifier(False)))
    assert "candidate A</b> — the agent&#39;s answer (actual)" in html
    assert "candidate B</b> — the reference answer (expected)" in html
    assert "sampled label" in html


def test_failures_first_order():
    statuses = ["passed", "failed", "passed", "not_evaluated", "passed"]
    scores = [1.0, 0.5, 1.0, None, float("nan")]
    assert display_order(statuses, scores, ["b", "a", "c", "d", "a"], [1, 1, 1, 1, 1]) == [
        1,
        3,
        0,
        2,
        4,
    ]
