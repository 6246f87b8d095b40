"""run.cost_df(): judge calls, cache hits, tokens, $ and $ saved per judge model."""

from __future__ import annotations

import pytest
from _builders import EXACT_METRIC, judge_metric, numbered_cases, scripted_handler

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer

PRICES = {"mini": (1.0, 3.0)}


def test_cost_df_counts_requests_cache_hits_and_savings(tmp_path):
    with FakeOpenAIServer(handler=scripted_handler(lambda k: k % 2 == 0, "mini")) as srv:
        metrics = [judge_metric(srv.base_url), EXACT_METRIC]
        evalset = numbered_cases(4, trace=True)
        first = ae.evaluate(evalset, metrics, cache=tmp_path, price_table=PRICES, progress=False)
        again = ae.evaluate(evalset, metrics, cache=tmp_path, price_table=PRICES, progress=False)
    paid = first.cost_df(backend="polars").row(0, named=True)
    calls = first.samples_df(backend="polars")
    prompt, completion = int(calls["prompt_tokens"].sum()), int(calls["completion_tokens"].sum())
    assert paid["judge_model"] == "mini"
    assert (paid["calls"], paid["requests"], paid["cache_hits"], paid["batch_calls"]) == (
        4,
        4,
        0,
        0,
    )
    assert (paid["prompt_tokens"], paid["completion_tokens"]) == (prompt, completion)
    assert paid["cost_usd"] == pytest.approx((prompt * 1.0 + completion * 3.0) / 1e6)
    assert paid["cost_usd"] == pytest.approx(first.info["judge_usage"]["cost"])
    assert paid["saved_usd"] == 0.0

    free = again.cost_df(backend="polars").row(0, named=True)
    assert (free["calls"], free["requests"], free["cache_hits"]) == (4, 0, 4)
    assert (free["prompt_tokens"], free["completion_tokens"], free["cost_usd"]) == (0, 0, 0.0)
    assert free["saved_usd"] == pytest.approx(paid["cost_usd"])


def test_prices_given_later_and_unpriced_models(tmp_path):
    with FakeOpenAIServer(handler=scripted_handler(lambda k: True, "mini")) as srv:
        run = ae.evaluate(
            numbered_cases(2, trace=True), [judge_metric(srv.base_url)], progress=False
        )
    unpriced = run.cost_df(backend="polars").row(0, named=True)
    assert unpriced["requests"] == 2
    assert unpriced["cost_usd"] is None  # an unknown price is never $0
    assert unpriced["saved_usd"] == 0.0  # no cache hit: nothing saved, whatever the price
    priced = run.cost_df(prices=PRICES, backend="polars").row(0, named=True)
    calls = run.samples_df(backend="polars")
    expected = (calls["prompt_tokens"].sum() * 1.0 + calls["completion_tokens"].sum() * 3.0) / 1e6
    assert priced["cost_usd"] == pytest.approx(expected)
    with pytest.raises(ValueError, match="price_table"):
        run.cost_df(prices={"mini": (-1.0, 0.0)})
    no_judge = ae.evaluate(numbered_cases(2, trace=True), [EXACT_METRIC], progress=False)
    assert no_judge.cost_df(backend="polars").height == 0
