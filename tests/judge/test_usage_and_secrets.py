"""Usage accounting and cost; the API key never leaves memory except as the bearer token."""

from __future__ import annotations

import asyncio
import logging
import pickle

import pytest

from agenteval_nb.judge import JudgeClient, JudgeError, JudgeUsage, build_request
from agenteval_nb.judge.usage import checked_prices
from agenteval_nb.testing import FakeResponse, completion
from agenteval_nb.testing.fake_server import error_body

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "user", "content": "rate it"}]
USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 300,
    "total_tokens": 1500,
    "prompt_tokens_details": {"cached_tokens": 1000},
    "completion_tokens_details": {"reasoning_tokens": 250},
}
PRICES = {"judge-1": (2.0, 8.0)}  # per million input / output tokens


async def test_per_call_usage_and_cost(server, judge_model):
    server.handler = lambda request: completion("ok", usage=USAGE)
    async with JudgeClient(price_table=PRICES) as client:
        call = await client.complete(judge_model(), MESSAGES)
    assert call.usage == JudgeUsage(1200, 300, 1000, 250, cost=(1200 * 2.0 + 300 * 8.0) / 1e6)
    assert (call.prompt_tokens, call.completion_tokens) == (1200, 300)
    assert (call.cached_tokens, call.reasoning_tokens) == (1000, 250)
    assert call.cost == pytest.approx(0.0048)
    assert call.latency_s > 0


async def test_totals_count_live_requests_hits_and_errors(server, judge_model, tmp_path):
    server.handler = lambda request: completion("ok", usage=USAGE)
    async with JudgeClient(price_table=PRICES, cache=tmp_path) as client:
        await asyncio.gather(
            *(client.complete(judge_model(), MESSAGES, sample_index=i) for i in range(3))
        )
        await client.complete(judge_model(), MESSAGES, sample_index=0)  # cache hit
        await client.complete(judge_model(modelName="unpriced"), MESSAGES)
        server.enqueue(FakeResponse(400, error_body("bad")))
        with pytest.raises(JudgeError):
            await client.complete(judge_model(modelName="x"), MESSAGES)
        totals = client.usage.as_dict()
    assert totals["calls"] == 5
    assert totals["requests"] == 4
    assert totals["cache_hits"] == 1
    assert totals["errors"] == 1
    assert totals["prompt_tokens"] == 4 * 1200
    assert totals["completion_tokens"] == 4 * 300
    assert totals["cached_tokens"] == 4 * 1000
    assert totals["reasoning_tokens"] == 4 * 250
    assert totals["unpriced_requests"] == 1
    assert totals["cost"] == pytest.approx(3 * 0.0048)
    assert totals["latency_s"] > 0
    assert client.usage.requests == 4 and client.usage.cost == pytest.approx(3 * 0.0048)


async def test_missing_usage_counts_zero(server, judge_model):
    body = completion("ok")
    body["usage"] = None
    server.enqueue(body)
    async with JudgeClient(price_table=PRICES) as client:
        call = await client.complete(judge_model(), MESSAGES)
    assert call.usage == JudgeUsage(0, 0, 0, 0, cost=0.0)


# --- the API key ------------------------------------------------------------------------------


async def test_key_not_in_reprs_results_or_cache_file(server, judge_model, secret, tmp_path):
    model = judge_model()
    async with JudgeClient(cache=tmp_path / "c.sqlite") as client:
        call = await client.complete(model, MESSAGES)
        hit = await client.complete(model, MESSAGES)
        shown = [repr(model), str(model), repr(client), repr(call), repr(hit), repr(call.usage)]
        shown += [repr(build_request(model, MESSAGES)), model.model_dump_json()]
        shown += [str(call.response), str(client.usage.as_dict())]
        assert hit.cache_hit
    assert server.requests[-1].headers["authorization"] == f"Bearer {secret}"  # it was used
    for text in shown:
        assert secret not in text
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert stored and secret.encode() not in stored
    assert secret.encode() not in pickle.dumps(call)


async def test_key_scrubbed_from_error_messages(server, judge_model, secret):
    echo = f"Incorrect API key provided: {secret}. Find your key at the dashboard."
    server.enqueue(FakeResponse(401, error_body(echo, type_="invalid_request_error")))
    async with JudgeClient() as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(), MESSAGES)
    err = info.value
    assert err.status_code == 401 and "HTTP 401" in str(err)
    assert "Incorrect API key provided: ***" in str(err)
    assert secret not in str(err) and secret not in repr(err)
    assert err.__cause__ is None and err.__suppress_context__


async def test_key_not_logged(server, judge_model, secret, caplog):
    caplog.set_level(logging.DEBUG)
    server.enqueue(FakeResponse(500, error_body("oops"), {"retry-after-ms": "1"}), completion("ok"))
    async with JudgeClient(max_retries=1) as client:
        await client.complete(judge_model(), MESSAGES)
    assert caplog.records  # openai did log (debug), so the check below means something
    for record in caplog.records:
        assert secret not in record.getMessage()


BAD_PRICES = [
    (-0.5, 1.0),
    (1.0, float("nan")),
    (float("inf"), 1.0),
    (1.0,),
    ("1", 2.0),
    (True, 1.0),
    3.0,
]


@pytest.mark.parametrize("prices", BAD_PRICES, ids=repr)
def test_a_price_that_is_negative_nan_or_not_a_pair_is_refused_naming_the_model(prices):
    table = {"judge-1": (1.0, 1.0), "judge-2": prices}
    with pytest.raises(ValueError, match=r"price_table\['judge-2'\]"):
        checked_prices(table)
    with pytest.raises(ValueError, match="'judge-2'"):
        JudgeClient(price_table=table)


def test_prices_of_zero_and_any_real_number_are_kept_as_floats():
    numpy = pytest.importorskip("numpy", reason="numpy numbers are prices too")
    table = {"free": (0, 0), "np": (numpy.float32(0.5), numpy.int64(2)), "list": [1, 2.5]}
    assert checked_prices(table) == {"free": (0.0, 0.0), "np": (0.5, 2.0), "list": (1.0, 2.5)}
    assert checked_prices(None) == {}
