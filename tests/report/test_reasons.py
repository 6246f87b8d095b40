"""Reasons as displayed (render/reasons.py); the stored reasons keep the wire format."""

from __future__ import annotations

from report_builders import case_result

from agenteval_nb.render import render_case
from agenteval_nb.render.reasons import display_overall_reason, display_reason
from agenteval_nb.schema import EvalMetricResult, EvalMetricResultDetails


def test_rouge_figures_are_shown_once():
    stored = "rouge mismatch: rougeL f1=0.086957 precision=0.111111 recall=0.071429 f1=0.086957"
    assert display_reason(stored) == (
        "rouge mismatch: rougeL f1=0.086957 precision=0.111111 recall=0.071429"
    )


def test_text_reasons_name_actual_and_expected():
    assert display_reason("text mismatch: source Lyon and target Paris do not match") == (
        "text mismatch: actual Lyon and expected Paris do not match"
    )
    assert display_reason("source abc does not contain target x") == (
        "actual abc does not contain expected x"
    )
    assert display_reason("source abc does not match regex ^x$") == (
        "actual abc does not match the expected regex ^x$"
    )
    assert display_reason("no source words here") == "no source words here"


def test_overall_reason_is_labelled_by_turn_only_when_it_is_the_join():
    assert display_overall_reason("a;b", ["a", None, "b"]) == "turn 1: a\nturn 3: b"
    assert display_overall_reason("a;b", ["a;b"]) == "a;b"  # one turn: shown as stored
    assert display_overall_reason("other", ["a", "b"]) == "other"


def test_case_view_labels_turns_but_the_stored_reason_keeps_semicolons():
    case = case_result("two_turns", 1, ok=False)
    per = case.eval_metric_result_per_invocation
    per.append(per[0].model_copy(deep=True))
    for i, inv in enumerate(per):
        inv.eval_metric_results[0].details = EvalMetricResultDetails(reason=f"why {i + 1}")
    name = per[0].eval_metric_results[0].metric_name
    case.overall_eval_metric_results = [
        EvalMetricResult(
            metric_name=name,
            score=0.0,
            eval_status="failed",
            threshold=1.0,
            details=EvalMetricResultDetails(reason="why 1;why 2"),
        )
    ]
    html = str(render_case(case))
    assert "turn 1: why 1\nturn 2: why 2" in html
    assert case.overall_eval_metric_results[0].details.reason == "why 1;why 2"
