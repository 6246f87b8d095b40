"""Best-of-N selection (SPEC §5.3): tie-breaks, failed candidates, pointwise mode, end to end."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from _llm_helpers import RUBRICS

import agenteval_nb as ae
from agenteval_nb.bestofn import BestOfNError, best_of_n
from agenteval_nb.schema import status_for
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.heuristic_judge import heuristic_handler, heuristic_judge


class PairTable:
    """Scores a turn from a table keyed by (actual text, expected text); records what it saw."""

    name = "pair_table"
    description = "test evaluator"

    def __init__(self, table=None, point=None, fail=()):
        self.table = table or {}
        self.point = point or {}
        self.fail = set(fail)
        self.seen = []

    async def evaluate(self, actuals, expecteds, metric):
        a = actuals[0].final_response.content
        e = expecteds[0].final_response.content if expecteds[0].final_response else None
        self.seen.append((a, e))
        if a in self.fail:
            raise RuntimeError(f"cannot score {a}")
        score = self.table[(a, e)] if e is not None else self.point[a]
        status = status_for(score, metric.threshold_value)
        turn = ae.PerInvocationResult(actuals[0], expecteds[0], score, status)
        return ae.EvaluateResult(score, status, [turn])


def select(table=None, candidates=("a", "b", "c"), point=None, fail=(), **kw):
    evaluator = PairTable(table, point, fail)
    reg = ae.Registry.default()
    reg.register("pair_table", evaluator)
    metrics = [{"metricName": "pair_table", "threshold": 0.5}]
    result = best_of_n("question?", list(candidates), metrics, registry=reg, **kw)
    return result, evaluator


def test_most_wins():
    table = {("a", "b"): 0.9, ("a", "c"): 0.8, ("b", "c"): 0.6}
    result, evaluator = select(table)
    assert result.index == 0
    assert result.n_comparisons == 3
    assert sorted(evaluator.seen) == [("a", "b"), ("a", "c"), ("b", "c")]
    frame = result.comparisons
    assert list(frame.columns) == ["left", "right", "score", "winner", "margin", "status", "error"]
    assert frame[["left", "right"]].values.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert frame["winner"].tolist() == [0, 0, 1]
    assert frame["margin"].round(6).tolist() == [0.4, 0.3, 0.1]
    cands = result.candidates
    assert list(cands.columns) == ["index", "wins", "net_margin", "comparisons", "failed", "error"]
    assert cands["wins"].tolist() == [2, 1, 0]
    assert cands["net_margin"].round(6).tolist() == [0.7, -0.3, -0.4]
    assert cands["comparisons"].tolist() == [2, 2, 2]
    assert repr(result) == "BestOfNResult(mode='pairwise', index=0, candidates=3, n_comparisons=3)"


def test_equal_wins_then_net_signed_margin():
    # a>b by .1, b>c by .3, c>a by .05: one win each; net margins a .05, b .2, c -.25
    table = {("a", "b"): 0.6, ("b", "c"): 0.8, ("a", "c"): 0.45}
    result, _ = select(table)
    assert result.index == 1
    assert result.candidates["wins"].tolist() == [1, 1, 1]


def test_equal_wins_and_margins_then_lower_index():
    table = {("a", "b"): 0.5, ("a", "c"): 0.5, ("b", "c"): 0.5}
    result, _ = select(table)
    assert result.index == 0
    assert result.comparisons["status"].tolist() == ["tie"] * 3
    assert result.comparisons["winner"].isna().all()
    assert result.candidates["comparisons"].tolist() == [2, 2, 2]


def test_right_candidate_wins_below_half():
    result, _ = select({("a", "b"): 0.2}, candidates=("a", "b"))
    assert result.index == 1
    assert result.comparisons["margin"].round(6).tolist() == [0.3]


def test_failed_candidates_get_status_losses_and_are_not_evaluated():
    table = {("b", "c"): 0.5}
    result, evaluator = select(
        table, candidates=(RuntimeError("boom"), "b", "c", None, ValueError())
    )
    assert evaluator.seen == [("b", "c")]
    frame = result.comparisons
    statuses = dict(zip(zip(frame["left"], frame["right"]), frame["status"]))
    assert statuses == {
        (0, 1): "status_win",
        (0, 2): "status_win",
        (0, 4): "both_failed",
        (1, 2): "tie",
        (1, 4): "status_win",
        (2, 4): "status_win",
    }
    assert result.n_comparisons == 6
    cands = result.candidates.set_index("index")
    assert cands.loc[0, "failed"] and cands.loc[0, "error"] == "boom"
    assert cands.loc[4, "error"] == "ValueError"
    assert cands["wins"].to_dict() == {0: 0, 1: 2, 2: 2, 4: 0}
    assert cands["net_margin"].to_dict() == {0: -1.0, 1: 1.0, 2: 1.0, 4: -1.0}
    assert result.index == 1  # tie on wins and margin: lower index


def test_single_candidate():
    result, evaluator = select(candidates=("only",))
    assert result.index == 0 and result.n_comparisons == 0 and evaluator.seen == []
    with pytest.raises(BestOfNError, match=r"^bestofn: no passing candidate$"):
        select(candidates=(None, RuntimeError("x")))


def test_all_failed_has_no_comparison_result():
    with pytest.raises(BestOfNError, match=r"^bestofn: no pairwise comparison result$"):
        select(candidates=(RuntimeError("x"), RuntimeError("y")))


def test_pair_without_score_is_ignored():
    with pytest.raises(BestOfNError, match="no pairwise comparison result"):
        select(candidates=("a", "b"), fail={"a"})
    result, _ = select({("b", "c"): 0.7}, fail={"a"})
    assert result.index == 1
    rows = result.comparisons
    assert rows["status"].tolist() == ["no_result", "no_result", "win"]
    assert "cannot score a" in rows["error"][0]
    assert math.isnan(rows["score"][0])


def test_option_errors():
    with pytest.raises(ValueError, match='unsupported selection mode "listwise"'):
        select(mode="listwise")
    with pytest.raises(ValueError, match="bestofn: eval metrics are empty"):
        best_of_n("q", ["a", "b"], [])
    with pytest.raises(ValueError, match="not supported in pairwise selection mode"):
        select(require_passing=True)
    with pytest.raises(ValueError, match="bestofn: candidate attempts are empty"):
        select(candidates=())
    with pytest.raises(ValueError, match="bestofn: no usable candidate attempts"):
        select(candidates=(None,))


def test_pointwise_rules():
    point = {"a": 0.7, "b": 0.9, "c": 0.9, "d": 0.2}
    result, evaluator = select(
        point=point, candidates=("a", "b", "c", "d", RuntimeError("x")), mode="pointwise"
    )
    assert result.index == 1  # highest score, lower index on ties
    assert sorted(evaluator.seen) == [("a", None), ("b", None), ("c", None), ("d", None)]
    frame = result.candidates
    assert list(frame.columns) == ["index", "score", "status", "failed", "error"]
    assert frame["failed"].tolist() == [False, False, False, False, True]
    assert math.isnan(frame["score"][4])
    assert result.n_comparisons == 4 and result.comparisons.empty


def test_pointwise_prefers_passed_status_then_require_passing():
    point = {"a": 0.4, "b": 0.4}
    result, _ = select(point=point, candidates=("a", "b"), mode="pointwise")
    assert result.index == 0  # both failed the 0.5 threshold; equal score, lower index
    with pytest.raises(BestOfNError, match="no passing candidate"):
        select(point=point, candidates=("a", "b"), mode="pointwise", require_passing=True)
    result, _ = select(
        point={"a": 0.4, "b": 0.6}, candidates=("a", "b"), mode="pointwise", require_passing=True
    )
    assert result.index == 1


CRITERIA = [
    {"id": "c1", "content": {"text": "names Paris as the capital of France"}},
    {"id": "c2", "content": {"text": "gives the population of Paris"}},
]
ANSWERS = [
    "Maybe Lyon.",
    "Paris is the capital of France; the population of Paris is about 2.1 million.",
    "The capital of France is Paris.",
]


def verifier_metrics(base_url=None):
    judge_model = {"modelName": "judge"}
    if base_url:
        judge_model["baseURL"] = base_url
    return [
        {
            "metricName": "verifier",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": judge_model, "rubrics": CRITERIA}},
        }
    ]


def test_pairwise_verifier_end_to_end_with_heuristic_server():
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        result = best_of_n(
            "What is the capital of France?", ANSWERS, verifier_metrics(srv.base_url), cache=False
        )
        assert srv.request_count == 3
        assert all(body["logprobs"] is True for body in srv.chat_requests)
    # Candidates 1 and 2 both hold every word of the request and agree with each other, so
    # the heuristic ties them; equal wins and net margin leave the lower index (1).
    assert result.index == 1
    assert result.candidates["wins"].tolist() == [0, 1, 1]
    assert result.comparisons["status"].tolist() == ["win", "win", "tie"]
    assert result.candidates["net_margin"][1] == result.candidates["net_margin"][2]
    case_ids = sorted(r.eval_id for r in result.run.result.eval_case_results)
    assert case_ids == ["pair-0-1", "pair-0-2", "pair-1-2"]


def test_pointwise_verifier_with_heuristic_server():
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        result = best_of_n(
            "What is the capital of France?",
            ANSWERS,
            verifier_metrics(srv.base_url),
            mode="pointwise",
            cache=False,
        )
        prompts = [body["messages"][0]["content"] for body in srv.chat_requests]
    assert len(prompts) == 3 and not any("<score_B>" in p for p in prompts)
    assert result.index == 1
    scores = result.candidates["score"].tolist()
    assert scores[1] > scores[2] > scores[0]
    assert isinstance(result.candidates, pd.DataFrame)


def _rubric_metric(base_url: str) -> dict:
    return {
        "metricName": "rubric",
        "evaluatorName": "llm_rubric_response",
        "threshold": 0.5,
        "criterion": {
            "llmJudge": {"judgeModel": {"modelName": "j", "baseURL": base_url}, "rubrics": RUBRICS}
        },
    }


def test_pairwise_without_a_comparing_metric_warns_and_follows_the_reference():
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        with pytest.warns(
            UserWarning, match=r'pairwise selection without a verifier metric.*"pointwise"'
        ):
            pairwise = best_of_n(
                "Tell me about Paris", ["a", "b"], [_rubric_metric(srv.base_url)], cache=False
            )
        assert srv.request_count > 0  # every pair is still evaluated (SPEC §5.3)
        assert len(pairwise.comparisons) == 1
        result = best_of_n(
            "Tell me about Paris",
            ["Paris has a large population", "no idea"],
            [_rubric_metric(srv.base_url)],
            mode="pointwise",
            cache=False,
        )
    assert result.index == 0


def test_pair_score_is_the_mean_of_the_metric_scores():
    """A comparing metric plus a one-candidate metric: the pair score averages both."""
    evaluator = PairTable({("Paris has a large population", "no idea"): 0.9})
    reg = ae.Registry.default()
    reg.register("pair_table", evaluator)
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        metrics = [{"metricName": "pair_table", "threshold": 0.5}, _rubric_metric(srv.base_url)]
        result = best_of_n(
            "Tell me about Paris",
            ["Paris has a large population", "no idea"],
            metrics,
            registry=reg,
            cache=False,
        )
    case = result.run.result.eval_case_results[0]
    scores = [m.score for m in case.overall_eval_metric_results]
    assert len(scores) == 2 and scores[0] == 0.9
    assert result.comparisons["score"].tolist() == [pytest.approx(sum(scores) / 2)]
    assert result.index == 0


def test_injected_judge_is_accepted():
    result = best_of_n("Capital?", ANSWERS[1:], verifier_metrics(), judge=heuristic_judge)
    assert result.index == 0 and result.n_comparisons == 1
