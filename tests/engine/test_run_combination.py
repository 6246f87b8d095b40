"""The one cross-run rule (schema/status.py ``combine_runs``, ``case_status``; SPEC §8.6, §8.7)
and every reader of it: the summary, the case aggregation and the frames."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.analysis.frames import across_runs_frame, combine_runs_exprs
from agenteval_nb.engine.aggregate import aggregate_case_runs
from agenteval_nb.engine.summary import summarize
from agenteval_nb.schema import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval_nb.schema.status import EvalStatus, case_status, combine_runs

NAN, INF = math.nan, math.inf
STATUSES = ["passed", "failed", "not_evaluated"]


def same(a: float | None, b: float | None) -> bool:
    """Equal, NaN equal to NaN."""
    if a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b))


# -- the rule ------------------------------------------------------------------------------------


def test_not_evaluated_runs_are_skipped():
    combined = combine_runs(
        [(0.0, "not_evaluated", 0.9), (0.5, "failed", 0.7), (1.0, "passed", 0.8)]
    )
    assert combined == (0.75, 0.7, EvalStatus.PASSED, 2)  # threshold: the first evaluated run's


def test_the_summary_holds_the_mean_to_the_first_seen_threshold():
    runs = [(0.0, "not_evaluated", 0.9), (0.5, "failed", 0.7), (1.0, "passed", 0.8)]
    assert combine_runs(runs, first_seen_threshold=True) == (0.75, 0.9, EvalStatus.FAILED, 2)


def test_a_missing_score_of_an_evaluated_run_reads_as_zero():
    assert combine_runs([(None, "failed", 0.5), (1.0, "passed", 0.5)]).score == 0.5
    assert combine_runs([(None, None, 0.5)]) == (0.0, 0.5, EvalStatus.FAILED, 1)


def test_no_evaluated_run_is_not_evaluated():
    assert combine_runs([(1.0, "not_evaluated", 0.5)]) == (None, None, EvalStatus.NOT_EVALUATED, 0)
    assert combine_runs([]) == (None, None, EvalStatus.NOT_EVALUATED, 0)


def test_a_single_run_is_rederived_from_its_score():
    # the reference re-derives the status from the mean even for one run
    assert combine_runs([(0.9, "failed", 0.5)]).status == EvalStatus.PASSED


def test_unscorable_runs_fail_without_raising():
    assert combine_runs([(NAN, "failed", 0.0), (1.0, "passed", 0.0)]).status == EvalStatus.FAILED
    combined = combine_runs([(INF, "failed", 0.0), (-INF, "failed", 0.0)])  # fsum would raise
    assert math.isnan(combined.score) and combined.status == EvalStatus.FAILED
    huge = combine_runs([(1e308, "passed", 0.5), (1e308, "passed", 0.5)])  # fsum overflows
    assert huge.score == INF and huge.status == EvalStatus.FAILED


@pytest.mark.parametrize(
    ("runs", "metrics", "error", "single", "expected"),
    [
        (["failed"], ["passed"], False, True, "failed"),  # one run: its own verdict stands
        (["failed", "passed"], ["passed"], False, False, "passed"),  # several: the metrics'
        (["not_evaluated"], [], True, True, "failed"),  # not_evaluated + an error ⇒ failed
        (["failed", "failed"], [], True, False, "failed"),
        (["not_evaluated"], [], False, True, "not_evaluated"),
        ([None], ["passed"], False, False, "passed"),
    ],
)
def test_case_status(runs, metrics, error, single, expected):
    assert case_status(runs, metrics, error, single_run=single) == expected


# -- the columnar copy ---------------------------------------------------------------------------

# dyadic scores: every sum is exact, so fsum and polars agree to the bit
scores = st.one_of(
    st.none(),
    st.integers(-8, 16).map(lambda n: n / 8),
    st.sampled_from([NAN, INF, -INF]),
)
thresholds = st.one_of(st.none(), st.integers(-8, 16).map(lambda n: n / 8), st.just(NAN))
statuses = st.sampled_from([*STATUSES, None, "unknown"])
metric_runs = st.lists(st.tuples(scores, statuses, thresholds), max_size=6)


@settings(deadline=None, max_examples=300)
@given(st.lists(metric_runs, min_size=1, max_size=5))
def test_the_polars_copy_agrees_with_the_rule(groups):
    rows = [(g, *run) for g, runs in enumerate(groups) for run in runs]
    frame = pl.DataFrame(
        rows,
        schema={"g": pl.Int64, "score": pl.Float64, "status": pl.String, "threshold": pl.Float64},
        orient="row",
    )
    got = frame.group_by("g", maintain_order=True).agg(
        combine_runs_exprs(pl.col("score"), pl.col("status"), pl.col("threshold"))
    )
    for row in got.iter_rows(named=True):
        expected = combine_runs(groups[row["g"]])
        assert same(row["score"], expected.score), (row, expected)
        assert same(row["threshold"], expected.threshold), (row, expected)
        assert (row["status"], row["n_runs"]) == (expected.status, expected.n_evaluated)


# -- every reader --------------------------------------------------------------------------------

reader_scores = st.one_of(st.none(), st.integers(0, 8).map(lambda n: n / 8))
metric_results = st.tuples(
    st.sampled_from(["m", "n"]),
    reader_scores,
    st.sampled_from(STATUSES),
    st.sampled_from([0.25, 0.5, 0.75]),
)
case_results = st.tuples(
    st.sampled_from(["a", "b"]),
    st.sampled_from(STATUSES),
    st.booleans(),  # an error message
    st.lists(metric_results, max_size=2, unique_by=lambda m: m[0]),
)


def result_of(runs: list[list[tuple]]) -> EvalSetResult:
    """Case results in run order (each run: its cases), as the engine writes them."""
    return EvalSetResult(
        eval_set_result_id="r",
        eval_set_id="s",
        eval_case_results=[
            EvalCaseResult(
                eval_id=eval_id,
                run_id=run_id,
                final_eval_status=status,
                error_message="boom" if error else None,
                overall_eval_metric_results=[
                    EvalMetricResult(metric_name=n, score=s, eval_status=st_, threshold=t)
                    for n, s, st_, t in metrics
                ],
            )
            for run_id, cases in enumerate(runs, start=1)
            for eval_id, status, error, metrics in cases
        ],
    )


def per_key(result: EvalSetResult) -> dict[str, dict[str, list[tuple]]]:
    """eval id → metric name → (score, status, threshold) per run, in run order."""
    out: dict[str, dict[str, list[tuple]]] = {}
    for case in result.eval_case_results:
        metrics = out.setdefault(case.eval_id, {})
        for m in case.overall_eval_metric_results:
            metrics.setdefault(m.metric_name, []).append((m.score, m.eval_status, m.threshold))
    return out


@settings(deadline=None, max_examples=40)
@given(
    st.lists(
        st.lists(case_results, min_size=1, max_size=3, unique_by=lambda c: c[0]),
        min_size=1,
        max_size=3,
    )
)
def test_every_reader_follows_the_rule(runs):
    result = result_of(runs)
    cases = result.eval_case_results
    expected = per_key(result)

    summary = summarize(cases, len(runs))
    for case in summary.eval_case_summaries:
        combined = {
            name: combine_runs(values, first_seen_threshold=True)
            for name, values in sorted(expected[case.eval_id].items())
        }
        got = [
            (m.metric_name, m.average_score, m.eval_status, m.threshold)
            for m in case.metric_summaries or ()
        ]
        assert got == [
            (name, 0.0 if c.score is None else c.score, c.status, c.threshold or 0.0)
            for name, c in combined.items()
        ]
        own = [c for c in cases if c.eval_id == case.eval_id]
        assert case.overall_status == case_status(
            [c.final_eval_status for c in own],
            [c.status for c in combined.values()],
            any(c.error_message for c in own),
            single_run=len(runs) <= 1,
        )

    for aggregate in aggregate_case_runs(cases):
        combined = {
            name: combine_runs(values)
            for name, values in sorted(expected[aggregate.eval_id].items())
        }
        got = [
            (m.metric_name, m.score, m.eval_status, m.threshold) for m in aggregate.metric_results
        ]
        assert got == [
            (name, c.score, c.status, c.threshold) for name, c in combined.items() if c.n_evaluated
        ]
        own = aggregate.eval_case_results
        assert aggregate.overall_status == case_status(
            [c.final_eval_status for c in own],
            [m.eval_status for m in aggregate.metric_results],
            any(c.error_message for c in own),
            single_run=len(own) <= 1,
        )

    frame = across_runs_frame(ae.load_run(result))
    for row in frame.iter_rows(named=True):
        c = combine_runs(expected[row["eval_id"]][row["metric_name"]])
        assert (row["score"], row["threshold"], row["status"], row["n_runs"]) == tuple(c)
        assert row["passed"] == (c.status == EvalStatus.PASSED)
    assert frame.height == sum(len(metrics) for metrics in expected.values())
