"""Faults: retries (by the openai client itself), timeouts, malformed 200 bodies ⇒ JudgeError."""

from __future__ import annotations

import logging
import re

import pytest

from agenteval_nb.judge import JudgeClient, JudgeError
from agenteval_nb.testing import FakeResponse, completion
from agenteval_nb.testing.fake_server import error_body

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "user", "content": "grade this"}]
FAST_RETRY = {"retry-after-ms": "1"}  # keeps retried tests quick; openai honours it exactly


def retry_delays(caplog) -> list[float]:
    """Delays openai announced before each retry ("Retrying request in X seconds")."""
    found = []
    for record in caplog.records:
        match = re.match(r"Retrying request in ([0-9.]+) seconds", record.getMessage())
        if match:
            found.append(float(match.group(1)))
    return found


async def test_429_with_retry_after_then_success(server, judge_model, caplog):
    caplog.set_level(logging.INFO, logger="openai")
    server.enqueue(
        FakeResponse(429, error_body("slow down", type_="rate_limit"), {"Retry-After": "0.05"}),
        completion("recovered"),
    )
    async with JudgeClient(max_retries=2) as client:
        call = await client.complete(judge_model(), MESSAGES)
    assert call.content == "recovered"
    assert call.retries == 1
    assert server.request_count == 2
    # Retry-After is waited exactly (the exponential backoff would be 0.375–0.5 s)
    assert retry_delays(caplog) == [0.05]


async def test_retry_after_beyond_openai_limit_is_not_retried(server, judge_model):
    server.enqueue(FakeResponse(429, error_body("come back later"), {"Retry-After": "600"}))
    async with JudgeClient(max_retries=3) as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(), MESSAGES)
    assert server.request_count == 1
    assert info.value.status_code == 429
    assert "come back later" in str(info.value)
    assert "retries" not in str(info.value)


async def test_500s_then_success(server, judge_model):
    server.enqueue(
        FakeResponse(500, error_body("boom"), FAST_RETRY),
        FakeResponse(503, "<html>unavailable</html>", FAST_RETRY, content_type="text/html"),
        completion("fine"),
    )
    async with JudgeClient(max_retries=2) as client:
        call = await client.complete(judge_model(), MESSAGES)
    assert call.content == "fine"
    assert call.retries == 2
    assert server.request_count == 3


async def test_persistent_500_is_a_judge_error(server, judge_model):
    server.handler = lambda request: FakeResponse(500, error_body("db on fire"), FAST_RETRY)
    async with JudgeClient(max_retries=2) as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(), MESSAGES)
        assert client.usage.errors == 1
    assert server.request_count == 3  # first try + 2 retries
    err = info.value
    assert (err.kind, err.status_code) == ("http", 500)
    assert "HTTP 500" in str(err) and "db on fire" in str(err) and "2 retries" in str(err)


@pytest.mark.parametrize("status", [408, 409])
async def test_other_retryable_statuses(server, judge_model, status):
    server.enqueue(FakeResponse(status, error_body("again"), FAST_RETRY), completion("ok"))
    async with JudgeClient(max_retries=1) as client:
        assert (await client.complete(judge_model(), MESSAGES)).content == "ok"
    assert server.request_count == 2


async def test_400_is_not_retried(server, judge_model):
    server.enqueue(FakeResponse(400, error_body("unknown parameter: foo", type_="invalid")))
    async with JudgeClient(max_retries=3) as client:
        with pytest.raises(JudgeError, match=r"HTTP 400: unknown parameter: foo") as info:
            await client.complete(judge_model(), MESSAGES)
    assert server.request_count == 1
    assert "retries" not in str(info.value)


async def test_timeout_is_a_judge_error(server, judge_model):
    server.handler = lambda request: FakeResponse(200, completion("late"), delay_s=5)
    async with JudgeClient(timeout=0.2, max_retries=1) as client:
        with pytest.raises(JudgeError, match="timed out") as info:
            await client.complete(judge_model(), MESSAGES)
    assert info.value.kind == "timeout"
    assert "(after 1 retry)" in str(info.value)
    assert server.request_count == 2  # timeouts are retried too


async def test_unreachable_endpoint_is_a_judge_error(judge_model):
    from agenteval_nb.testing import FakeOpenAIServer

    with FakeOpenAIServer() as gone:
        url = gone.base_url  # a port that was free a moment ago and is closed now
    async with JudgeClient(max_retries=0) as client:
        with pytest.raises(JudgeError, match="cannot reach judge endpoint") as info:
            await client.complete(judge_model(baseURL=url), MESSAGES)
    assert info.value.kind == "connection"


MALFORMED = [
    pytest.param(
        FakeResponse(200, b'{"id": "x", "choices": [{"mess'),
        "JSON body is truncated or corrupt (Unterminated string",
        id="trunc",
    ),
    pytest.param(
        FakeResponse(200, b'{"id": "x", "choices": ['),
        "JSON body is truncated or corrupt (Expecting value, character 24)",
        id="trunc2",
    ),
    pytest.param(
        FakeResponse(200, "<html><body>Gateway login</body></html>", content_type="text/html"),
        "not JSON (content-type 'text/html'; an HTML page or plain text?): "
        "'<html><body>Gateway login",
        id="html",
    ),
    pytest.param(
        FakeResponse(200, {"id": "x", "object": "chat.completion"}),
        "no choices in response",
        id="nochoices",
    ),
    pytest.param(FakeResponse(200, {"choices": []}), "no choices in response", id="emptychoices"),
    pytest.param(FakeResponse(200, {"choices": {"a": 1}}), "unusable choices", id="badchoices"),
    pytest.param(FakeResponse(200, {"choices": [{"index": 0}]}), "has no message", id="nomessage"),
    pytest.param(
        FakeResponse(
            200, {"choices": [{"message": {"role": "assistant"}, "finish_reason": "length"}]}
        ),
        "has no content (finish_reason 'length')",
        id="nocontent",
    ),
    pytest.param(
        FakeResponse(200, completion(None, message_extra={"refusal": "I can't grade that"})),
        "refused to answer: I can't grade that",
        id="refusal",
    ),
    pytest.param(
        FakeResponse(200, {"error": {"message": "quota exceeded"}}),
        "no choices in response: judge endpoint returned an error object: quota exceeded",
        id="errorobject",
    ),
    pytest.param(FakeResponse(200, b"[1, 2, 3]"), "list instead of a chat completion", id="list"),
]


@pytest.mark.parametrize(("response", "expected"), MALFORMED)
async def test_malformed_200_body_is_a_clear_judge_error(server, judge_model, response, expected):
    server.enqueue(response)
    async with JudgeClient(max_retries=3) as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(), MESSAGES)
    assert expected in str(info.value)
    assert info.value.kind == "malformed"
    assert server.request_count == 1


async def test_malformed_logprobs_are_rejected(server, judge_model):
    bad = completion("A")
    bad["choices"][0]["logprobs"] = {"content": "not a list"}
    server.enqueue(bad)
    async with JudgeClient() as client:
        with pytest.raises(JudgeError, match="logprobs is malformed"):
            await client.complete(judge_model(), MESSAGES)


async def test_missing_logprobs_key_is_normalised(server, judge_model):
    body = completion("fine")
    del body["choices"][0]["logprobs"]
    server.enqueue(body)
    async with JudgeClient() as client:
        call = await client.complete(judge_model(), MESSAGES)
    assert call.response["choices"][0]["logprobs"] is None
    assert call.logprobs is None
