"""ae.estimate_cost: the judge calls of an evaluation counted and priced before any call."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import polars as pl
import pytest
from _builders import EXACT_METRIC, judge_metric, numbered_cases, scripted_handler

import agenteval_nb as ae
from agenteval_nb.cost_estimate import estimated_input_tokens, output_bound
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.heuristic_judge import heuristic_handler

sys.path.insert(0, str(Path(__file__).parent / "llm"))
from _llm_helpers import EVALUATOR_CASES

PRICES = {"mini": (1.0, 2.0), "big": (10.0, 20.0)}


def every_judge(base_url: str) -> list[dict]:
    """One metric per built-in judge and template scorer, three samples each."""
    out = []
    for name, fields in EVALUATOR_CASES:
        metric = {
            "metricName": f"m_{name}",
            "evaluatorName": name if name.startswith("llm_") else "llm_judge_template",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {"modelName": "mini", "baseURL": base_url, "numSamples": 3},
                    **fields,
                }
            },
        }
        if name == "llm_verifier_pairwise":
            metric["extension"] = {"verifier": {"swap": "report"}}
        out.append(metric)
    return out


def test_the_estimate_counts_the_calls_the_evaluation_makes_and_sends_nothing():
    """Every built-in judge, numSamples 3, extra calls (segmentation, swapped order) and two
    turns: the dry run asks for exactly the calls the evaluation then makes."""
    evalset = numbered_cases(4, trace=True)
    case = evalset["evalCases"][0]
    case["conversation"].append({**case["conversation"][0]})
    case["actualConversation"].append({**case["actualConversation"][0]})
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        metrics = every_judge(srv.base_url)
        est = ae.estimate_cost(evalset, metrics, price_table=PRICES, cache=False, backend="polars")
        assert srv.request_count == 0
        run = ae.evaluate(evalset, metrics, cache=False, progress=False)
        sent = srv.request_count
    assert run.num_errored() == 0
    made = dict(
        run.samples_df(backend="polars")
        .group_by("metric_name")
        .len()
        .select("metric_name", "len")
        .rows()
    )
    assert dict(est.select("metric_name", "calls").rows()) == made
    assert est["calls"].sum() == sent
    assert est["errors"].sum() == 0 and est["cache_hits"].sum() == 0
    # numSamples multiplies: the final-response judge asks 3 times per turn, 5 turns
    assert est.filter(pl.col("metric_name") == "m_llm_final_response")["calls"][0] == 15
    # every output at max_tokens (2000 by default); dollars at the mini prices
    row = est.row(0, named=True)
    assert row["output_tokens_max"] == 2000 * row["calls"]
    assert row["usd_in"] == pytest.approx(row["input_tokens"] * 1.0 / 1e6)
    assert row["usd_max"] == pytest.approx(row["usd_in"] + row["output_tokens_max"] * 2.0 / 1e6)


def test_cache_hits_are_free_and_candidates_are_priced_apart(tmp_path):
    routes = scripted_handler(lambda k: k < 3, "mini")
    with FakeOpenAIServer(handler=routes) as srv:
        metrics = [judge_metric(srv.base_url), EXACT_METRIC]
        evalset = numbered_cases(5, trace=True)
        ae.evaluate(evalset, metrics, cache=tmp_path, progress=False)
        sent = srv.request_count
        est = ae.estimate_cost(
            evalset,
            metrics,
            judges={"mini": None, "big": {"modelName": "big"}, "mine": lambda messages: "x"},
            price_table=PRICES,
            cache=tmp_path,
            backend="polars",
        )
        assert srv.request_count == sent
    rows = {r["judge"]: r for r in est.iter_rows(named=True)}
    assert list(rows) == ["mini", "big", "mine"]  # deterministic metrics cost nothing: no rows
    mini, big, mine = rows["mini"], rows["big"], rows["mine"]
    assert (mini["calls"], mini["cache_hits"], mini["input_tokens"]) == (5, 5, 0)
    assert mini["usd_max"] == 0.0
    assert (big["judge_model"], big["calls"], big["cache_hits"]) == ("big", 5, 0)
    assert big["usd_in"] == pytest.approx(big["input_tokens"] * 10.0 / 1e6)
    assert mine["judge_model"] == "injected judge" and mine["usd_max"] is None


def test_default_mode_cases_are_estimated_from_their_expected_answers():
    with FakeOpenAIServer() as srv:
        evalset = numbered_cases(3)
        evalset["evalCases"].append(
            {
                "evalId": "sim",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversationScenario": {"goal": "book a flight"},
            }
        )
        with pytest.warns(UserWarning) as caught:
            est = ae.estimate_cost(evalset, [judge_metric(srv.base_url)], backend="polars")
    texts = " ".join(str(w.message) for w in caught)
    assert "3 default-mode case(s)" in texts and "1 conversationScenario case(s)" in texts
    assert est.select("calls", "from_expected").row(0) == (3, 3)
    assert est["usd_max"][0] is None  # no price table


def test_the_token_rule():
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "x" * 10}, {"role": "system", "content": ""}],
        "max_tokens": 50,
    }
    # (4 + ⌈4/4⌉ + ⌈10/4⌉) + (4 + ⌈6/4⌉ + 0)
    assert estimated_input_tokens(body) == 8 + 6
    assert output_bound(body) == 50 and output_bound({"messages": []}) == 2000
    with_format = {**body, "response_format": {"type": "json_object"}}
    assert estimated_input_tokens(with_format) == 14 + math.ceil(len("{'type': 'json_object'}") / 4)


def test_a_panel_is_estimated_member_by_member():
    class Panel:  # what estimate_cost reads of a panel: its judges by name
        def __init__(self):
            self.judges = {"a": {"modelName": "mini"}, "b": {"modelName": "big"}}

    with FakeOpenAIServer() as srv:
        est = ae.estimate_cost(
            numbered_cases(2, trace=True),
            [judge_metric(srv.base_url)],
            Panel(),
            price_table=PRICES,
            backend="polars",
        )
        assert srv.request_count == 0
    assert est.select("judge", "judge_model", "calls").rows() == [("a", "mini", 2), ("b", "big", 2)]


def test_an_unusable_cache_counts_every_request_as_sent(tmp_path):
    broken = tmp_path / "judge.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    with FakeOpenAIServer() as srv, pytest.warns(UserWarning, match="cannot be opened"):
        est = ae.estimate_cost(
            numbered_cases(2, trace=True),
            [judge_metric(srv.base_url)],
            cache=broken,
            backend="polars",
        )
    assert est.select("calls", "cache_hits").row(0) == (2, 0)
