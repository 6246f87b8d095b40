"""The loopback fake server: scripting, records, keep-alive, helpers, stand-alone process."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.request

import openai
import pytest
from openai.types.chat import ChatCompletion

from agenteval_nb.testing import FakeOpenAIServer, FakeResponse, completion

pytestmark = pytest.mark.anyio


def post(conn: http.client.HTTPConnection, body: dict) -> tuple[int, dict, bytes]:
    conn.request(
        "POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"}
    )
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def test_completion_helper_is_a_valid_chat_completion():
    body = completion(
        "<score_A>A</score_A>",
        logprobs=[("<score_A>", -0.01), ("A", -0.36, [("A", -0.36), ("T", -1.2)])],
        usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    )
    parsed = ChatCompletion.model_validate(body)  # strict parse by the openai types
    assert parsed.choices[0].message.content == "<score_A>A</score_A>"
    entries = body["choices"][0]["logprobs"]["content"]
    assert entries[0] == {
        "token": "<score_A>",
        "logprob": -0.01,
        "bytes": list(b"<score_A>"),
        "top_logprobs": [{"token": "<score_A>", "logprob": -0.01, "bytes": list(b"<score_A>")}],
    }
    assert [t["token"] for t in entries[1]["top_logprobs"]] == ["A", "T"]
    assert body["usage"]["total_tokens"] == 5


async def test_real_openai_client_reads_default_echo(server):
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    async with client:
        result = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "ping"}]
        )
    assert result.choices[0].message.content == "ping"
    assert result.model == "m"


def test_script_then_handler_then_records(server):
    server.handler = lambda request: completion(f"handled {request['model']}")
    server.enqueue(FakeResponse(418, {"error": {"message": "teapot"}}, {"X-Test": "1"}))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    status, headers, body = post(conn, {"model": "a", "messages": []})
    assert (status, headers["X-Test"], json.loads(body)) == (
        418,
        "1",
        {"error": {"message": "teapot"}},
    )
    status, _, body = post(conn, {"model": "b", "messages": []})
    assert (status, json.loads(body)["choices"][0]["message"]["content"]) == (200, "handled b")
    assert server.request_count == 2
    assert [r["model"] for r in server.chat_requests] == ["a", "b"]
    server.reset()
    assert server.request_count == 0 and server.requests == []
    conn.close()


def test_raw_bytes_and_handler_errors(server):
    server.enqueue(FakeResponse(200, b'{"trunc', content_type="application/json"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    status, headers, body = post(conn, {"model": "a", "messages": []})
    assert (status, body, headers["Content-Type"]) == (200, b'{"trunc', "application/json")

    def broken(request):
        raise ValueError("nope")

    server.handler = broken
    status, _, body = post(conn, {"model": "a", "messages": []})
    assert status == 500 and "nope" in json.loads(body)["error"]["message"]
    conn.close()


def test_keep_alive_reuses_one_connection(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    post(conn, {"model": "a", "messages": [{"role": "user", "content": "1"}]})
    sock = conn.sock
    for _ in range(5):
        status, headers, _body = post(conn, {"model": "a", "messages": []})
        assert status == 200 and headers.get("Connection") != "close"
    assert conn.sock is sock  # http.client reconnects (new socket) if the server had closed it
    conn.close()


def test_requests_are_recorded_from_many_threads(server):
    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        for _ in range(20):
            post(conn, {"model": "m", "messages": []})
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert server.request_count == 160 == len(server.requests)


def test_stats_and_unknown_routes(server):
    with urllib.request.urlopen(f"{server.base_url}/models") as r:
        assert json.load(r)["data"][0]["id"] == "fake-model"
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    post(conn, {"model": "m", "messages": []})
    conn.request("GET", "/_fake/stats")
    stats = json.loads(conn.getresponse().read())
    assert stats == {"request_count": 1, "max_in_flight": 1, "rate_limited_count": 0}
    conn.request("POST", "/_fake/reset", b"")
    conn.getresponse().read()
    conn.request("GET", "/v1/nothing")
    assert conn.getresponse().status == 404
    conn.close()
    assert server.request_count == 0


def test_runs_as_its_own_process():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agenteval_nb.testing.fake_server",
            "--port",
            "0",
            "--latency-ms",
            "5",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        client = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
        result = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hello"}]
        )
        assert result.choices[0].message.content == "hello"
        with urllib.request.urlopen(url.removesuffix("/v1") + "/_fake/stats") as r:
            assert json.load(r)["request_count"] == 1
        client.close()
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_capacity_answers_429_with_retry_after_beyond_n_in_flight():
    with FakeOpenAIServer(latency_s=0.3, capacity=2, retry_after_s=0.25) as srv:
        conns = [http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5) for _ in range(4)]
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]})
        for conn in conns[:2]:  # two slow requests fill the capacity
            conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        deadline = time.monotonic() + 5
        while srv.request_count < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        conns[2].request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        refused = conns[2].getresponse()
        payload = json.loads(refused.read())
        assert refused.status == 429
        assert refused.getheader("Retry-After") == "0.25"
        assert refused.getheader("retry-after-ms") == "250"
        assert payload["error"]["code"] == "rate_limit_exceeded"
        assert [c.getresponse().status for c in conns[:2]] == [200, 200]
        conns[3].request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        assert conns[3].getresponse().status == 200  # capacity free again
        assert (srv.request_count, srv.rate_limited_count, srv.max_in_flight) == (4, 1, 2)
        for conn in conns:
            conn.close()
