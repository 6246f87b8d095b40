"""The send hook keeps bytes; an exchange decodes them on first read (agents/capture/exchange.py):
what is read is what the old eager decoding gave, errors included."""

from __future__ import annotations

import httpx2
import orjson

from agenteval_nb.agents.capture import wire
from agenteval_nb.agents.capture.capture import capture

REPLY = {
    "id": "c",
    "object": "chat.completion",
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1},
}


def _client(content: bytes, content_type: str) -> httpx2.Client:
    def answer(_: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=content, headers={"content-type": content_type})

    return httpx2.Client(transport=httpx2.MockTransport(answer), base_url="http://model/v1")


def test_bodies_stay_bytes_until_read_then_decode_once() -> None:
    body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    client = _client(orjson.dumps(REPLY), "application/json")
    wire.install()
    with capture() as cap:
        client.post("/chat/completions", content=body)
    (exchange,) = cap.exchanges
    assert exchange.request_body is body  # the request's own bytes: no copy, no parse
    assert isinstance(exchange.reply_body, bytes)
    assert exchange.ok and exchange.reply == REPLY and exchange.error is None
    assert exchange.request == orjson.loads(body)
    assert exchange.request_body is None and exchange.reply_body is None  # decoded once
    assert exchange.request is exchange.request


def test_a_reply_that_is_not_json_is_named_when_read() -> None:
    client = _client(b"<html>busy</html>", "text/html")
    wire.install()
    with capture() as cap:
        client.post("/chat/completions", content=b"not json either")
    (exchange,) = cap.exchanges
    assert exchange.status == 200 and not exchange.ok
    assert exchange.reply is None and exchange.request is None
    assert exchange.error == "the reply is not JSON (17 bytes, text/html)"


def test_an_event_stream_without_a_reply_is_named_when_read() -> None:
    client = _client(b"data: [DONE]\n\n", "text/event-stream")
    wire.install()
    with capture() as cap:
        client.post("/chat/completions", content=b"{}")
    (exchange,) = cap.exchanges
    assert exchange.streamed and not exchange.ok
    assert exchange.error == "the event stream held no complete reply"


def test_a_request_whose_body_is_a_stream_passes_and_is_recorded_without_it() -> None:
    client = _client(orjson.dumps(REPLY), "application/json")

    def upload():
        yield b'{"model": "m"}'

    wire.install()
    with capture() as cap:
        reply = client.post("/chat/completions", content=upload())
    assert reply.json() == REPLY
    (exchange,) = cap.exchanges
    assert exchange.request is None and exchange.ok
