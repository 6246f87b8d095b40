"""The result summary (SPEC §8.6)."""

from __future__ import annotations

import pytest

from agenteval_nb.engine.summary import SummaryError, summarize
from agenteval_nb.schema import EvalCaseResult, EvalMetricResult


def case(eval_id, run_id, status, metrics=(), error=None):
    return EvalCaseResult(
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        error_message=error,
        overall_eval_metric_results=[
            EvalMetricResult(metric_name=n, score=s, eval_status=st, threshold=t)
            for n, s, st, t in metrics
        ],
    )


def test_single_run_statuses_and_counts():
    s = summarize(
        [
            case("b", 1, "passed", [("m", 1.0, "passed", 0.5)]),
            case("a", 1, "failed", [("m", 0.0, "failed", 0.5)]),
        ],
        1,
    )
    assert s.overall_status == "failed" and s.num_runs == 1
    assert (s.run_status_counts.failed, s.run_status_counts.passed) == (1, None)
    assert [c.eval_id for c in s.eval_case_summaries] == ["a", "b"]
    run = s.run_summaries[0]
    assert (run.case_status_counts.passed, run.case_status_counts.failed) == (1, 1)
    assert run.metric_summaries[0].average_score == 0.5
    assert run.metric_summaries[0].eval_status == "passed"


def test_empty_runs_are_summarised_as_not_evaluated():
    s = summarize([case("a", 1, "passed", [("m", 1.0, "passed", 1)])], 3)
    assert [r.overall_status for r in s.run_summaries] == [
        "passed",
        "not_evaluated",
        "not_evaluated",
    ]
    assert s.run_summaries[1].case_status_counts is None
    assert (s.run_status_counts.passed, s.run_status_counts.not_evaluated) == (1, 2)


def test_metric_summary_averages_evaluated_only_and_keeps_first_threshold():
    s = summarize(
        [
            case("a", 1, "passed", [("m", 1.0, "passed", 0.6), ("z", 0.0, "not_evaluated", 1)]),
            case("a", 2, "failed", [("m", 0.5, "failed", 0.9), ("z", 0.0, "not_evaluated", 1)]),
        ],
        2,
    )
    m, z = s.eval_case_summaries[0].metric_summaries
    assert (m.metric_name, m.average_score, m.threshold, m.eval_status) == (
        "m",
        0.75,
        0.6,
        "passed",
    )
    assert (m.status_counts.passed, m.status_counts.failed) == (1, 1)
    assert (z.average_score, z.eval_status, z.status_counts.not_evaluated) == (
        0.0,
        "not_evaluated",
        2,
    )


def test_multi_run_case_status_comes_from_metric_summaries():
    # run 1 failed, run 2 passed; the mean metric score 0.75 >= 0.7 ⇒ the case passes overall
    s = summarize(
        [
            case("a", 1, "failed", [("m", 0.5, "failed", 0.7)]),
            case("a", 2, "passed", [("m", 1.0, "passed", 0.7)]),
        ],
        2,
    )
    assert s.eval_case_summaries[0].overall_status == "passed"
    assert s.run_status_counts.failed == 1 and s.run_status_counts.passed == 1
    assert s.overall_status == "passed"


def test_not_evaluated_with_an_error_becomes_failed():
    s = summarize([case("a", 1, "failed", error="inference failed")], 2)
    assert s.eval_case_summaries[0].overall_status == "failed"
    s1 = summarize([case("a", 1, "not_evaluated")], 1)
    assert s1.eval_case_summaries[0].overall_status == "not_evaluated"


def test_case_run_summaries_sort_metric_results_by_name():
    s = summarize([case("a", 1, "passed", [("z", 1, "passed", 1), ("b", 1, "passed", 1)])], 1)
    assert [m.metric_name for m in s.eval_case_summaries[0].run_summaries[0].metric_results] == [
        "b",
        "z",
    ]


def test_num_runs_defaults_to_max_run_id():
    assert summarize([case("a", 2, "passed")], None).num_runs == 2


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (EvalCaseResult(eval_id="", run_id=1), "eval id at index 0 is empty"),
        (EvalCaseResult(eval_id="a"), "run id at index 0 is not set"),
    ],
)
def test_invalid_case_results_are_rejected(result, message):
    with pytest.raises(SummaryError, match=message):
        summarize([result], 1)


def test_unknown_status_is_an_error():
    with pytest.raises(ValueError, match="unexpected eval status"):
        summarize([case("a", 1, "unknown")], 1)


def test_case_aggregation_across_runs_follows_the_reference():
    from agenteval_nb.engine.aggregate import aggregate_case_runs

    results = [
        case("b", 1, "failed", [("m", 0.5, "failed", 0.7), ("x", 0.0, "not_evaluated", 1)]),
        case("a", 1, "passed", [("m", 1.0, "passed", 0.9)]),
        case("b", 2, "passed", [("m", 1.0, "passed", 0.8)]),
        case("zz", 1, "failed", error="inference failed"),
        case("c", 1, "not_evaluated"),
    ]
    out = aggregate_case_runs(results, case_order=["a", "b", "c"])
    assert [c.eval_id for c in out] == ["a", "b", "c", "zz"]
    b = out[1]
    assert [(m.metric_name, m.score, m.threshold, m.eval_status) for m in b.metric_results] == [
        ("m", 0.75, 0.7, "passed")
    ]
    assert b.overall_status == "passed"  # several runs: from the aggregated metric statuses
    assert len(b.eval_case_results) == 2
    assert out[0].overall_status == "passed"
    assert out[2].overall_status == "not_evaluated"
    assert out[3].overall_status == "failed"  # not_evaluated + a run error ⇒ failed


def test_run_case_aggregates_use_evalset_order():
    from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case

    import agenteval_nb as ae

    es = evalset(trace_case("z", ["a"], ["a"]), trace_case("y", ["a"], ["b"]))
    run = ae.evaluate(
        es, [METRIC], registry=registry_with(ExactAnswer()), num_runs=2, progress=False
    )
    aggregates = run.case_aggregates()
    assert [(c.eval_id, c.overall_status) for c in aggregates] == [("z", "passed"), ("y", "failed")]


def test_each_case_counts_the_statuses_of_its_runs():
    s = summarize(
        [
            case("a", 1, "passed"),
            case("b", 1, "failed"),
            case("a", 2, "failed"),
            case("b", 2, "failed"),
            case("a", 3, "not_evaluated"),
        ],
        3,
    )
    counts = {
        c.eval_id: (
            c.run_status_counts.passed,
            c.run_status_counts.failed,
            c.run_status_counts.not_evaluated,
        )
        for c in s.eval_case_summaries
    }
    assert counts == {"a": (1, 1, 1), "b": (None, 2, None)}  # zero counts are omitted
    assert [r.run_id for r in s.eval_case_summaries[1].run_summaries] == [1, 2]  # b: no run 3
