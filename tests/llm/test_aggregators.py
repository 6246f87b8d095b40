"""Samples and invocations aggregators (SPEC §4.5, §4.6, §11 rows)."""

from __future__ import annotations

import pytest

from agenteval_nb.evaluators.base import PerInvocationResult
from agenteval_nb.evaluators.llm import average, majority_vote, mean_samples, min_sample
from agenteval_nb.evaluators.llm.judge_contract import AggregationError, SampleResult
from agenteval_nb.schema import EvalMetric, EvalStatus, RubricScore

P, F, N = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED


def metric(threshold: float) -> EvalMetric:
    return EvalMetric(metricName="m", threshold=threshold)


def samples(*pairs: tuple[float, EvalStatus]) -> list[SampleResult]:
    return [
        SampleResult(index=i, score=s, status=st, reason=f"s{i}") for i, (s, st) in enumerate(pairs)
    ]


def test_majority_vote_spec_row_tie_picks_first_failing_sample():
    chosen = majority_vote(samples((0.7, P), (0.2, F)), metric(0.5))
    assert chosen.index == 1 and chosen.score == 0.2


def test_majority_vote_majority_positive_returns_first_positive_unchanged():
    got = samples((0.2, F), (0.9, P), (0.6, P))
    chosen = majority_vote(got, metric(0.5))
    assert chosen is got[1]
    assert chosen.score == 0.9 and chosen.reason == "s1"


def test_majority_vote_majority_negative_returns_first_negative():
    chosen = majority_vote(samples((0.9, P), (0.1, F), (0.3, F)), metric(0.5))
    assert chosen.index == 1


def test_majority_vote_skips_not_evaluated_and_splits_by_score_not_status():
    # statuses are ignored for the split; only not_evaluated removes a sample
    got = samples((1.0, N), (0.6, F), (0.1, P), (0.7, F))
    assert majority_vote(got, metric(0.5)).index == 1


def test_majority_vote_all_not_evaluated_returns_first_sample():
    got = samples((0.3, N), (0.9, N))
    assert majority_vote(got, metric(0.5)) is got[0]


def test_majority_vote_empty_is_an_error():
    with pytest.raises(AggregationError, match="no samples"):
        majority_vote([], metric(0.5))


def test_min_and_mean_variants():
    got = samples((0.9, P), (0.4, F), (0.4, F))
    assert min_sample(got, metric(0.5)).index == 1
    got[0].rubric_scores = [RubricScore(id="r", score=1.0)]
    got[1].rubric_scores = [RubricScore(id="r", score=0.0)]
    mean = mean_samples(got, metric(0.5))
    assert mean.score == pytest.approx(1.7 / 3)
    assert mean.status == P and mean.index == -1
    assert mean.rubric_scores[0].score == 0.5


def turns(*pairs: tuple[float, str]) -> list[PerInvocationResult]:
    return [PerInvocationResult(None, None, s, st) for s, st in pairs]


def test_average_spec_row():
    result = average(turns((1, P), (0, F), (0, N)), metric(0.75))
    assert result.overall_score == 0.5
    assert result.overall_status == F
    assert len(result.per_invocation_results) == 3


def test_average_threshold_is_inclusive_and_empty_status_counts():
    result = average(turns((0.5, ""), (1.0, P)), metric(0.75))
    assert result.overall_score == 0.75 and result.overall_status == P


def test_average_nothing_evaluated_drops_turns():
    result = average(turns((1, N), (0, N)), metric(0.5))
    assert result.overall_status == N
    assert result.overall_score == 0
    assert result.per_invocation_results == []
