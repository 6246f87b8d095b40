"""Plain-language glosses of the reference's Go-internal wording (render/reasons.py): shown
under the reason in the case view, the stored reason kept as the reference wrote it."""

from __future__ import annotations

import pytest
from markupsafe import escape

from agenteval_nb.criteria.trajectory import trajectory_reason
from agenteval_nb.render import render_case
from agenteval_nb.render.reasons import GLOSSES, glosses
from agenteval_nb.schema import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    Invocation,
    Tool,
    ToolTrajectoryCriterion,
)

STORED = {
    "cannot match all left vertices": (
        "tool trajectory mismatch: match tools: 2 errors occurred:\n"
        "\t* cannot match all left vertices\n\t* tool id c1 with name lookup mismatch\n\n"
    ),
    "actual or expected invocation is nil": (
        "tool trajectory mismatch: actual or expected invocation is nil"
    ),
    "actual or expected tool is nil": (
        "tool trajectory mismatch: match tools: tool id c1 with name lookup mismatch: "
        "actual or expected tool is nil"
    ),
    "actual or expected final response is nil": (
        "final response mismatch: actual or expected final response is nil"
    ),
    "target final response is nil": "turn 2: target final response is nil",
    "into Go value of type": (
        "text mismatch: parse actual raw json: json: cannot unmarshal number 1e999 into Go "
        "value of type float64"
    ),
    "into Go struct field": (
        "unmarshal response json: json: cannot unmarshal string into Go struct field "
        "rubricScore.score of type float64"
    ),
    "parse actual raw json": (
        "json mismatch: parse actual raw json: invalid character 'x' looking for beginning of value"
    ),
    "parse expected raw json": "json mismatch: parse expected raw json: unexpected end of JSON input",
    "unmarshal response json": "unmarshal response json: invalid character 'S' looking for beginning of value",
    "session input is nil": "session input is nil",
    "expected runner is nil": "expected runner is nil",
    "template is nil": "template is nil",
    "template binding is nil": "template binding is nil",
    "source is nil": 'resolve template variable "x": source is nil',
}
"""For every glossed reference text, a stored reason (or case error) that carries it."""


def case_with_reason(reason: str) -> EvalCaseResult:
    result = EvalMetricResult(
        metric_name="m",
        score=0.0,
        eval_status="failed",
        threshold=1.0,
        details=EvalMetricResultDetails(reason=reason, score=0.0),
    )
    return EvalCaseResult(
        eval_set_id="set",
        eval_id="c",
        run_id=1,
        final_eval_status="failed",
        overall_eval_metric_results=[result],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=Invocation(invocation_id="t1"),
                expected_invocation=Invocation(invocation_id="t1"),
                eval_metric_results=[result.model_copy(deep=True)],
            )
        ],
    )


def test_every_glossed_text_has_a_stored_example():
    assert {fragment for fragment, _ in GLOSSES} == set(STORED)


@pytest.mark.parametrize("fragment", sorted(STORED))
def test_the_case_view_glosses_the_reference_text(fragment):
    stored = STORED[fragment]
    (gloss,) = [g for f, g in GLOSSES if f == fragment]
    assert gloss in glosses(stored)
    case = case_with_reason(stored)
    shown = str(render_case(case))
    assert escape(f"in plain words: {gloss}") in shown
    assert case.overall_eval_metric_results[0].details.reason == stored


def test_a_case_error_is_glossed_too():
    case = case_with_reason("answers differ")
    case.error_message = "session input is nil"
    assert "in plain words: the eval case has no sessionInput" in str(render_case(case))


def test_plain_reasons_get_no_gloss():
    assert glosses("answers differ") == []
    assert "in plain words" not in str(render_case(case_with_reason("answers differ")))


def test_a_failed_unordered_trajectory_reason_from_the_criterion_is_glossed():
    cause = trajectory_reason(
        ToolTrajectoryCriterion(),
        Invocation(tools=[Tool(id="a1", name="search")]),
        Invocation(tools=[Tool(id="c1", name="lookup")]),
    )
    assert cause is not None
    (gloss,) = glosses(cause())
    assert "expected tool call" in gloss
