"""The one pass rule (schema/status.py) and every reader of it: an unscorable case never passes."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest
from _builders import evalset, registry_with, trace_case

import agenteval_nb as ae
from agenteval_nb.analysis.frames import across_runs_frame, passes_expr
from agenteval_nb.engine.aggregate import aggregate_case_runs
from agenteval_nb.evaluators.llm.judge_contract import SampleResult, average, majority_vote
from agenteval_nb.report.summary import metric_rows
from agenteval_nb.schema import EvalMetric, EvalStatus
from agenteval_nb.schema.status import passes, status_for
from agenteval_nb.views import report_html

NAN, INF = math.nan, math.inf

# (score, threshold, passes)
CASES = [
    (0.5, 0.5, True),
    (0.49, 0.5, False),
    (0.0, None, True),  # a missing threshold is the reference's zero value
    (-0.1, None, False),
    (NAN, 0.0, False),  # NaN never passes, not even a zero threshold
    (NAN, None, False),
    (NAN, -INF, False),
    (INF, 0.5, False),  # scores must be finite to pass
    (-INF, -INF, False),
    (0.3, -INF, True),  # an infinite threshold is still a number
    (1.0, INF, False),
    (0.7, NAN, False),  # a NaN threshold passes nothing
    (None, 0.0, False),  # nothing evaluated
]


@pytest.mark.parametrize(("score", "threshold", "expected"), CASES)
def test_passes(score, threshold, expected):
    assert passes(score, threshold) is expected


@pytest.mark.parametrize(("score", "threshold", "expected"), CASES)
def test_status_for(score, threshold, expected):
    status = status_for(score, threshold)
    if score is None:
        assert status == EvalStatus.NOT_EVALUATED
    else:
        assert status == (EvalStatus.PASSED if expected else EvalStatus.FAILED)


def test_the_polars_copy_agrees_with_the_rule():
    frame = pl.DataFrame(
        {"score": [c[0] for c in CASES], "threshold": [c[1] for c in CASES]},
        schema={"score": pl.Float64, "threshold": pl.Float64},
    )
    got = frame.select(passes_expr(pl.col("score"), pl.col("threshold"))).to_series().to_list()
    assert got == [c[2] for c in CASES]


def test_average_of_unscorable_turns_fails():
    metric = EvalMetric(metric_name="m", threshold=0.5)
    turns = [ae.PerInvocationResult(None, None, NAN, status_for(NAN, 0.5)) for _ in range(2)]
    result = average(turns, metric)
    assert math.isnan(result.overall_score)
    assert result.overall_status == EvalStatus.FAILED


def test_majority_vote_counts_nan_samples_as_negative():
    metric = EvalMetric(metric_name="m", threshold=0.5)
    nan = SampleResult(index=0, score=NAN, status=status_for(NAN, 0.5), reason="nan")
    good = SampleResult(index=1, score=1.0, status=EvalStatus.PASSED, reason="ok")
    assert majority_vote([nan, good], metric) is nan  # tie ⇒ the first negative


# -- end to end ---------------------------------------------------------------------------------


class Unscorable:
    """Every turn fails to produce a number (NaN) for case ``broken``; 1 elsewhere. The overall
    result goes through the LLM ``average`` aggregator, as a judge evaluator's would."""

    name = "unscorable"
    description = "NaN for case 'broken'"

    async def evaluate(self, actuals, expecteds, metric):
        broken = any(a.user_content and "broken" in a.user_content.content for a in actuals)
        score = NAN if broken else 1.0
        turns = [
            ae.PerInvocationResult(a, e, score, status_for(score, metric.threshold_value))
            for a, e in zip(actuals, expecteds, strict=True)
        ]
        return average(turns, metric)


def broken_case(eval_id: str) -> dict:
    case = trace_case(eval_id, ["a", "b"], ["a", "b"])
    for side in ("conversation", "actualConversation"):
        for turn in case[side]:
            turn["userContent"]["content"] = "broken " + turn["userContent"]["content"]
    return case


@pytest.fixture(scope="module")
def unscorable_run() -> ae.EvalRun:
    es = evalset(broken_case("broken"), trace_case("fine", ["a"], ["a"]))
    return ae.evaluate(
        es,
        [{"metricName": "unscorable", "threshold": 0.5}],
        registry=registry_with(Unscorable()),
        num_runs=2,
        progress=False,
    )


def test_unscorable_case_is_failed_in_the_result(unscorable_run):
    for case in unscorable_run.result.eval_case_results:
        metric = case.overall_eval_metric_results[0]
        if case.eval_id == "broken":
            # run.result is the wire form: a NaN score is written (and read back) as null
            assert metric.score is None
            assert metric.eval_status == "failed" and case.final_eval_status == "failed"
        else:
            assert case.final_eval_status == "passed"
    scores = unscorable_run.metrics_df(backend="polars").filter(eval_id="broken")["score"]
    assert scores.is_nan().all()  # the frames were built from the scores as computed


def test_unscorable_case_is_failed_in_the_summary(unscorable_run):
    summary = unscorable_run.result.summary
    case = next(c for c in summary.eval_case_summaries if c.eval_id == "broken")
    assert case.overall_status == "failed"
    assert case.metric_summaries[0].eval_status == "failed"
    assert all(r.metric_summaries[0].eval_status == "failed" for r in summary.run_summaries)
    assert summary.run_status_counts.passed is None


def test_unscorable_case_is_failed_in_the_case_aggregation(unscorable_run):
    aggregated = aggregate_case_runs(unscorable_run.result.eval_case_results)
    broken = next(a for a in aggregated if a.eval_id == "broken")
    assert broken.overall_status == "failed"
    assert broken.metric_results[0].eval_status == "failed"


def test_unscorable_case_is_failed_in_the_frames(unscorable_run):
    metrics = unscorable_run.metrics_df(backend="polars").filter(pl.col("eval_id") == "broken")
    assert metrics["status"].to_list() == ["failed", "failed"]
    across = across_runs_frame(unscorable_run.record).filter(pl.col("eval_id") == "broken")
    assert across["status"].to_list() == ["failed"] and across["passed"].to_list() == [False]
    summary = unscorable_run.summary_df(backend="polars")
    assert summary["n_passed"].to_list() == [1]  # only "fine"


def test_unscorable_case_is_failed_in_the_comparison(unscorable_run):
    frame = ae.compare(unscorable_run, unscorable_run, backend="polars").frame
    row = frame.filter(pl.col("eval_id") == "broken").row(0, named=True)
    assert row["status_a"] == row["status_b"] == "failed"
    invocations = ae.compare(unscorable_run, unscorable_run, by="invocation", backend="polars")
    statuses = invocations.frame.filter(pl.col("eval_id") == "broken")["status_a"].to_list()
    assert statuses == ["failed", "failed"]


def test_unscorable_case_is_failed_in_the_report(unscorable_run):
    (row,) = metric_rows(unscorable_run.record)
    # the NaN mean is left out of the mean (n = 1) but counts as a failure in the pass rate
    assert (row["n"], row["n_passed"], row["pass_rate"]) == (1, 1, 0.5)
    html = report_html(unscorable_run)
    rows = re.findall(r"<tr><td><code>unscorable</code>(.*?)</tr>", html, re.S)
    (summary_row,) = [r for r in rows if "cases passed" in r]  # the metrics summary table
    assert "<td>50.0% (1/2 cases passed, runs averaged per case)</td>" in summary_row
