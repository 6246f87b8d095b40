"""The provider protocol's pure rules: lines, shards, outcomes, polling, planning (no server)."""

from __future__ import annotations

import asyncio
import json

import pytest

from agenteval_nb.judge.batch import (
    BatchConfig,
    BatchPollError,
    outcome,
    poll,
    request_line,
    shards,
)
from agenteval_nb.judge.planning import BatchJudgeClient, PlannedRequest, feeds_prompt, judged_turn
from agenteval_nb.judge.usage import BATCH_DISCOUNT, JudgeUsage, UsageTotals
from agenteval_nb.schema import JudgeModelOptions
from agenteval_nb.testing.fake_server import completion


def req(key, model="m", base="http://x/v1", text="q"):
    body = {"model": model, "messages": [{"role": "user", "content": text}]}
    return PlannedRequest(key, base, model, body)


def line(key, status=200, body=None, error=None):
    response = None if status is None else {"status_code": status, "body": body}
    return json.dumps({"custom_id": key, "response": response, "error": error})


def test_line_is_compact_json_with_the_cache_key_as_id():
    text = request_line(req("k1")).decode()
    assert text.endswith("\n") and " " not in text.replace("\n", "")
    item = json.loads(text)
    assert item == {
        "custom_id": "k1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": req("k1").body,
    }


def test_shards_split_by_model_then_by_lines_and_bytes():
    requests = [req(f"a{i}") for i in range(5)] + [req(f"b{i}", model="n") for i in range(2)]
    cut = shards(requests, BatchConfig(max_requests=2))
    assert [[r.key for r in s] for s in cut] == [["a0", "a1"], ["a2", "a3"], ["a4"], ["b0", "b1"]]
    size = len(request_line(req("a0")))
    by_bytes = shards(requests[:5], BatchConfig(max_bytes=2 * size + 1))
    assert [len(s) for s in by_bytes] == [2, 2, 1]
    with pytest.raises(ValueError, match="above the batch file limit"):
        shards([req("big", text="x" * 500)], BatchConfig(max_bytes=100))


def test_a_line_counts_only_with_status_200_no_error_and_a_valid_body():
    ok = completion("fine")
    output = "\n".join(
        [
            line("ok", 200, ok),
            line("http", 400, {"error": {"message": "bad request"}}),  # error null: HTTP failure
            line("both", 200, ok, error={"code": "request_timeout", "message": "slow"}),
            line("empty", 200, {"choices": []}),
            "not json",
        ]
    )
    errors = line("expired", None, error={"code": "batch_expired", "message": "too late"})
    planned = ["ok", "http", "both", "empty", "expired", "gone"]
    result = outcome({"status": "completed"}, planned, output, errors)
    assert set(result.answers) == {"ok"}
    codes = {k: (f.code, f.message) for k, f in result.failures.items()}
    assert codes["http"] == ("http_400", "bad request")
    assert codes["both"] == ("request_timeout", "slow")
    assert codes["empty"][0] == "invalid_response"
    assert codes["expired"] == ("batch_expired", "too late")
    assert codes["gone"] == ("missing", "no result line for this request (batch completed)")


def test_a_failed_batch_names_its_lines():
    batch = {
        "status": "failed",
        "errors": {"data": [{"code": "mismatched_model", "line": 2, "message": "two models"}]},
    }
    result = outcome(batch, ["a", "b", "c"], None, None)
    assert result.failures["b"].code == "mismatched_model"
    assert result.failures["b"].message == "two models (line 2)"
    assert result.failures["a"].code == "batch_failed" and not result.answers


def test_poll_stops_on_every_terminal_status_and_bounds_failures():
    for status in ("completed", "failed", "expired", "cancelled"):
        states = iter(["validating", "in_progress", status, "never"])
        sleeps: list[float] = []

        async def retrieve(states=states):
            return {"status": next(states)}

        async def sleep(s, sleeps=sleeps):
            sleeps.append(s)

        config = BatchConfig(poll_every=1.0, max_poll_every=1.2)
        batch = asyncio.run(poll(retrieve, config, sleep=sleep))
        assert batch == {"status": status} and sleeps == [1.0, 1.2]  # capped backoff

    async def broken():
        raise OSError("down")

    async def no_sleep(s):
        return None

    with pytest.raises(BatchPollError, match="3 polls in a row failed; last: OSError: down"):
        asyncio.run(poll(broken, BatchConfig(max_poll_failures=3), sleep=no_sleep))


def test_poll_gives_up_at_the_deadline():
    now = [1000.0]

    async def retrieve():
        return {"status": "in_progress", "created_at": 1000}

    async def sleep(s):
        now[0] += 10.0

    result = asyncio.run(
        poll(
            retrieve,
            BatchConfig(poll_every=10.0, deadline_s=35.0),
            sleep=sleep,
            clock=lambda: now[0],
        )
    )
    assert result is None and now[0] == 1040.0


def test_batch_price_is_discounted_and_the_saving_counted():
    response = completion("x", usage={"prompt_tokens": 1000, "completion_tokens": 100})
    table = {"m": (2.0, 8.0)}
    full = JudgeUsage.from_response(response, "m", table)
    half = JudgeUsage.from_response(response, "m", table, batch=True)
    assert half.cost == pytest.approx(full.cost * BATCH_DISCOUNT) and half.batch
    totals = UsageTotals()
    totals.add(half, latency_s=0.0, cache_hit=False)
    snap = totals.as_dict()
    assert snap["batch_requests"] == 1 and snap["batch_saved"] == pytest.approx(
        full.cost - half.cost
    )


def test_planning_records_misses_and_never_plans_what_a_made_up_answer_fed(tmp_path):
    model = JudgeModelOptions(model_name="m", base_url="http://127.0.0.1:9/v1")

    async def main():
        client = BatchJudgeClient(
            planning=True, placeholder=lambda body: completion("made up"), cache=tmp_path / "c"
        )
        try:
            first = await client.complete(model, [{"role": "user", "content": "a"}])
            with judged_turn():
                with feeds_prompt():
                    await client.complete(model, [{"role": "user", "content": "segment"}])
                await client.complete(model, [{"role": "user", "content": "built on it"}])
            with judged_turn():  # a new turn plans again
                await client.complete(model, [{"role": "user", "content": "next turn"}])
        finally:
            await client.aclose()
        return first, client.planned

    first, planned = asyncio.run(main())
    assert first.content == "made up"
    texts = [p.body["messages"][0]["content"] for p in planned.values()]
    assert texts == ["a", "segment", "next turn"]
