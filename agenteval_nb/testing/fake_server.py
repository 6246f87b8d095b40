"""A loopback OpenAI-compatible chat-completions server for tests and benchmarks.

Rules:

* ``POST …/chat/completions`` and ``POST …/responses`` (handled as its chat equivalent; answers
  streamed as server-sent events when the request says ``"stream": true``:
  :mod:`~agenteval_nb.testing.wire_forms`) are answered by, in this order: the next scripted
  response (:meth:`FakeOpenAIServer.enqueue`), else ``handler(request_json)``, else an echo
  completion whose content is the last message's text.
* :func:`route_by_model` combines handlers: one per ``model`` name of the request.
* A handler or scripted item is a completion ``dict`` (sent as 200 JSON) or a
  :class:`FakeResponse` (any status, headers, raw body bytes, extra delay). A handler that
  raises makes a 500 with the exception text. Non-finite floats in a dict body go out as bare
  ``NaN`` / ``Infinity`` / ``-Infinity`` tokens, as any Python server sends them.
* Every request is recorded (thread-safe) before it is answered; ``max_in_flight`` is the
  largest number of chat requests being answered at the same moment.
* Capacity (``capacity=N``): a chat request arriving while N are being answered (until their
  answer starts to leave) gets an immediate 429 (``rate_limit_exceeded``) with ``Retry-After``
  / ``retry-after-ms`` headers of ``retry_after_s``; it is recorded and counted in
  ``rate_limited_count``, consumes no scripted answer and never counts as in flight, so
  ``max_in_flight`` stays ≤ N.
* ``GET /_fake/stats`` returns ``{"request_count", "max_in_flight", "rate_limited_count"}`` and
  ``POST /_fake/reset``
  clears the records, so a server in another process can be inspected.
* ``batches``: a :class:`~agenteval_nb.testing.fake_batches.FakeBatches` serves the files and
  batches endpoints, each line answered as a chat request would be (not counted as one);
  without it those routes answer 404, as a server without a batch API does.
* A client that drops its connection is not reported; other handler errors are printed.
* HTTP/1.1 keep-alive, ``TCP_NODELAY`` on every connection (without it keep-alive requests
  stall ~45 ms on delayed ACKs), listen backlog 1024, daemon handler threads.
* Fault modes (for hardening tests): every occurrence of :data:`ECHO_AUTHORIZATION` in a
  response body is replaced by the request's ``Authorization`` header (a server that echoes the
  key back); ``FakeResponse(trickle_s=…)`` sends the headers at once, then the body one byte
  every ``trickle_s`` seconds; :func:`leaky_responses` lists one response of every bad kind
  (HTML, truncated JSON, error object, refusal, 4xx/5xx bodies, a valid answer) that echoes the
  header; :func:`no_choices` is a 200 completion with an empty ``choices`` list.

Run stand-alone: ``python -m agenteval_nb.testing.fake_server --port 0 --latency-ms 50``
prints the base URL on its first line and serves until interrupted; ``--answer TEXT`` makes
every completion answer ``TEXT`` instead of echoing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from . import wire_forms

Handler = Callable[[dict[str, Any]], "dict[str, Any] | FakeResponse"]

ECHO_AUTHORIZATION = "<<echo:authorization>>"
"""Placeholder replaced by the request's ``Authorization`` header in any response body."""


@dataclass
class FakeResponse:
    """A scripted answer: ``body`` dict/list is sent as JSON, str/bytes are sent verbatim."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str | None = None
    trickle_s: float = 0.0

    def encode(self, authorization: str = "") -> tuple[bytes, str]:
        """Body bytes and content type (JSON unless raw bytes/str or ``content_type`` say so);
        :data:`ECHO_AUTHORIZATION` becomes ``authorization``."""
        if isinstance(self.body, bytes):
            body, kind = self.body, self.content_type or "application/json"
        elif isinstance(self.body, str):
            body, kind = self.body.encode(), self.content_type or "text/plain; charset=utf-8"
        elif self.body is None:
            body, kind = b"", self.content_type or "application/json"
        else:
            body, kind = json.dumps(self.body).encode(), self.content_type or "application/json"
        return body.replace(ECHO_AUTHORIZATION.encode(), authorization.encode()), kind


def error_body(message: str, *, type_: str = "server_error", code: str | None = None) -> dict:
    """The JSON error object OpenAI-compatible servers send with a 4xx/5xx status."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def _logprob_entry(token: str, logprob: float, top: Iterable[tuple[str, float]] | None) -> dict:
    alternatives = [(token, logprob)] if top is None else list(top)
    return {
        "token": token,
        "logprob": logprob,
        "bytes": list(token.encode()),
        "top_logprobs": [
            {"token": alt, "logprob": alt_lp, "bytes": list(alt.encode())}
            for alt, alt_lp in alternatives
        ],
    }


_ids = itertools.count(1)


def completion(
    content: str | None,
    *,
    model: str = "fake-model",
    logprobs: Iterable[Any] | None = None,
    usage: Mapping[str, Any] | None = None,
    finish_reason: str | None = None,
    message_extra: Mapping[str, Any] | None = None,
    tool_calls: Iterable[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """A well-formed ``chat.completion`` dict with one choice.

    ``tool_calls``: entries made by :func:`tool_call`; they become ``message.tool_calls`` and the
    finish reason defaults to ``"tool_calls"`` (else ``"stop"``).

    ``logprobs``: an iterable of ``(token, logprob)`` or ``(token, logprob, [(alt, lp), …])``
    tuples (or ready-made entry dicts) that becomes ``choices[0].logprobs.content``; entries
    without alternatives list the token itself as its only top logprob.
    ``usage``: the usage object; by default token counts are the number of words.
    """
    entries = None
    if logprobs is not None:
        entries = []
        for item in logprobs:
            if isinstance(item, Mapping):
                entries.append(dict(item))
            else:
                token, lp, *rest = item
                entries.append(_logprob_entry(token, lp, rest[0] if rest else None))
    if usage is None:
        words = len((content or "").split())
        usage = {"prompt_tokens": 10, "completion_tokens": words, "total_tokens": 10 + words}
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    calls = [dict(call) for call in tool_calls or ()]
    if calls:
        message["tool_calls"] = calls
    message.update(message_extra or {})
    if finish_reason is None:
        finish_reason = "tool_calls" if calls else "stop"
    return {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None if entries is None else {"content": entries, "refusal": None},
                "finish_reason": finish_reason,
            }
        ],
        "usage": dict(usage),
    }


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """One ``tool_calls[]`` entry of an assistant message: ``arguments`` (a dict or other JSON
    value) is sent as a JSON string; a ``str`` is sent as it is."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def no_choices() -> dict[str, Any]:
    """A 200 completion whose ``choices`` list is empty."""
    body = completion("unused")
    body["choices"] = []
    return body


def leaky_responses(marker: str = ECHO_AUTHORIZATION) -> dict[str, FakeResponse]:
    """One response of every bad kind, each quoting ``marker`` (by default the request's
    ``Authorization`` header), by name: what a misbehaving endpoint can send back."""
    quote = f"your credentials: {marker}"
    long_tail = "x" * 160  # a 200-character snippet would cut the key in half
    return {
        "html_200": FakeResponse(
            200, f"<html><body>Login required. {quote}</body></html>", content_type="text/html"
        ),
        "truncated_json_200": FakeResponse(200, f'{{"id": "x", "note": "{quote}", "choi'.encode()),
        "error_object_200": FakeResponse(200, error_body(quote)),
        "refusal_200": FakeResponse(200, completion(None, message_extra={"refusal": quote})),
        "no_choices_error_200": FakeResponse(200, {"choices": [], "error": {"message": quote}}),
        "status_401_json": FakeResponse(401, error_body(quote, type_="invalid_request_error")),
        "status_400_html": FakeResponse(
            400, f"<h1>Bad request</h1><p>{quote}</p>", content_type="text/html"
        ),
        "status_500_text": FakeResponse(500, f"upstream failed {long_tail} {quote}"),
        "status_403_no_json_key": FakeResponse(403, {"detail": quote}),
        "valid_answer_quoting_key": FakeResponse(
            200,
            completion(f"reasoning: the grader saw {quote}\nis_the_agent_response_valid: valid"),
        ),
    }


def echo_handler(request: dict[str, Any]) -> dict[str, Any]:
    """Default behaviour: answer with the text of the last message."""
    messages = request.get("messages") or [{}]
    last = messages[-1] if isinstance(messages[-1], dict) else {}
    text = last.get("content")
    if not isinstance(text, str):
        text = json.dumps(text)
    return completion(text, model=str(request.get("model") or "fake-model"))


def route_by_model(routes: Mapping[str, Handler], *, default: Handler | None = None) -> Handler:
    """A handler that answers each request with ``routes[request["model"]]``, so that one server
    plays several models (e.g. the scripted agent model and the heuristic judge).

    A model that is not routed goes to ``default``; without one the answer is a 404
    ``model_not_found`` error naming the model and the routed ones.
    """
    table = dict(routes)

    def route(request: dict[str, Any]) -> dict[str, Any] | FakeResponse:
        model = request.get("model")
        handler = table.get(model) if isinstance(model, str) else None
        if handler is None:
            handler = default
        if handler is None:
            known = ", ".join(repr(name) for name in table) or "none"
            message = f"the model {model!r} does not exist on this fake server (routed: {known})"
            body = error_body(message, type_="invalid_request_error", code="model_not_found")
            return FakeResponse(404, body)
        return handler(request)

    return route


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it (header names lower-cased; ``json`` is ``None`` when the
    body was not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024
    daemon_threads = True
    allow_reuse_address = True
    owner: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client drops its connection (e.g. a pool of a closed event loop);
        report anything else as the standard server does."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr log."""

    def do_GET(self) -> None:
        self.server.owner._dispatch(self, "GET")

    def do_POST(self) -> None:
        self.server.owner._dispatch(self, "POST")

    def send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: Mapping[str, str],
        trickle_s: float = 0.0,
    ) -> None:
        """Answer; with ``trickle_s`` the body goes out one byte every ``trickle_s`` seconds
        (stopping when the server closes or the client hangs up)."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if trickle_s <= 0:
                self.wfile.write(body)
                self.wfile.flush()
                return
            self.wfile.flush()
            for i in range(len(body)):
                if self.server.owner._closing.wait(trickle_s):
                    self.close_connection = True
                    return
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. a timeout test)


class BatchRoutes(Protocol):
    """The files and batches routes (:class:`~agenteval_nb.testing.fake_batches.FakeBatches`):
    ``handle`` answers a route of theirs (None: not one), ``answer`` is set to the server's
    chat answer for their lines."""

    answer: Callable[[dict[str, Any]], FakeResponse] | None

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], raw: bytes
    ) -> FakeResponse | None: ...


class FakeOpenAIServer:
    """Scripted OpenAI-compatible server on a random loopback port; use as a context manager.

    ``handler``: ``request_json -> dict | FakeResponse`` (default :func:`echo_handler`).
    ``responses``: scripted answers consumed first, one per chat request.
    ``latency_s``: added before every chat answer (on top of a response's ``delay_s``).
    ``capacity`` / ``retry_after_s``: requests answered at once before the rest get 429s.
    """

    def __init__(
        self,
        handler: Handler | None = None,
        *,
        responses: Iterable[dict[str, Any] | FakeResponse] = (),
        latency_s: float = 0.0,
        capacity: int | None = None,
        retry_after_s: float = 0.1,
        host: str = "127.0.0.1",
        port: int = 0,
        batches: BatchRoutes | None = None,
    ) -> None:
        if capacity is not None and capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.handler: Handler = handler or echo_handler
        self.batches = batches
        if batches is not None:
            batches.answer = lambda body: self._answer(None, body, responses_api=False)
        self.latency_s = latency_s
        self.capacity = capacity
        self.retry_after_s = retry_after_s
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._script: deque[dict[str, Any] | FakeResponse] = deque(responses)
        self._requests: list[RecordedRequest] = []
        self._chat_count = 0
        self._in_flight = 0
        self._admitted = 0  # chat requests holding capacity: in flight until their answer leaves
        self._max_in_flight = 0
        self._rate_limited = 0
        self._closing = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a background thread (idempotent)."""
        if self._httpd is None:
            httpd = _Server((self._host, self._port), _RequestHandler)
            httpd.owner = self
            self._httpd = httpd
            self._closing.clear()
            self._thread = threading.Thread(
                target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; handlers still sleeping on a delay are woken and answer at once."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._closing.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to give an OpenAI client as ``base_url``, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    # scripting and records -----------------------------------------------------------------

    def enqueue(self, *responses: dict[str, Any] | FakeResponse) -> None:
        """Append answers to the script; each chat request consumes one."""
        with self._lock:
            self._script.extend(responses)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the chat-completion requests received so far."""
        with self._lock:
            return [r.json for r in self._requests if r.path.endswith("/chat/completions")]

    @property
    def request_count(self) -> int:
        """Number of chat-completion requests received (retries count separately)."""
        with self._lock:
            return self._chat_count

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    @property
    def rate_limited_count(self) -> int:
        """Chat requests answered 429 because the server was at ``capacity``."""
        with self._lock:
            return self._rate_limited

    def reset(self) -> None:
        """Forget recorded requests, counters and any remaining script."""
        with self._lock:
            self._requests.clear()
            self._script.clear()
            self._chat_count = 0
            self._max_in_flight = 0
            self._rate_limited = 0

    # serving -------------------------------------------------------------------------------

    def _dispatch(self, request: _RequestHandler, method: str) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        raw = request.rfile.read(length) if length else b""
        path = request.path.split("?", 1)[0]
        if path.startswith("/_fake/"):
            self._control(request, method, path)
            return
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        headers = {name.lower(): value for name, value in request.headers.items()}
        record = RecordedRequest(method, path, headers, raw, parsed)
        is_responses = method == "POST" and path.endswith("/responses")
        is_chat = is_responses or (method == "POST" and path.endswith("/chat/completions"))
        with self._lock:
            self._requests.append(record)
            over = is_chat and self.capacity is not None and self._admitted >= self.capacity
            if is_chat:
                self._chat_count += 1
            if over:
                self._rate_limited += 1
            elif is_chat:
                self._admitted += 1
                self._in_flight += 1
                self._max_in_flight = max(self._max_in_flight, self._in_flight)
                scripted = self._script.popleft() if self._script else None
        if over:
            self._send_rate_limit(request)
            return
        batch_answer = None
        if not is_chat and self.batches is not None:
            batch_answer = self.batches.handle(method, path, headers, raw)
        if batch_answer is not None:
            body, content_type = batch_answer.encode()
            request.send(batch_answer.status, body, content_type, batch_answer.headers)
            return
        if not is_chat:
            if method == "GET" and path.endswith("/models"):
                models = {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                request.send(200, json.dumps(models).encode(), "application/json", {})
            else:
                message = json.dumps(error_body(f"no route {method} {path}", type_="not_found"))
                request.send(404, message.encode(), "application/json", {})
            return
        admitted = True
        try:
            answer = self._answer(scripted, parsed, responses_api=is_responses)
            if self.latency_s + answer.delay_s > 0:
                self._closing.wait(self.latency_s + answer.delay_s)
            body, content_type = answer.encode(headers.get("authorization", ""))
            with self._lock:  # capacity frees before the answer leaves (the client may be
                self._admitted -= 1  # quicker with its next request than this thread)
                admitted = False
            request.send(answer.status, body, content_type, answer.headers, answer.trickle_s)
        finally:
            with self._lock:
                self._in_flight -= 1
                if admitted:
                    self._admitted -= 1

    def _send_rate_limit(self, request: _RequestHandler) -> None:
        wait = self.retry_after_s
        headers = {"Retry-After": f"{wait:g}", "retry-after-ms": str(round(wait * 1000))}
        message = f"over capacity: {self.capacity} requests in flight; retry after {wait:g} s"
        body = error_body(message, type_="requests", code="rate_limit_exceeded")
        request.send(429, json.dumps(body).encode(), "application/json", headers)

    def _answer(self, scripted: Any, parsed: Any, *, responses_api: bool) -> FakeResponse:
        """The answer in the request's form: a Responses API request is handled as its chat
        equivalent; ``"stream": true`` gets the answer as server-sent events
        (:mod:`~agenteval_nb.testing.wire_forms`)."""
        item = scripted
        if item is None:
            if not isinstance(parsed, dict):
                return FakeResponse(400, error_body("request body is not a JSON object"))
            try:
                item = self.handler(
                    wire_forms.responses_request_as_chat(parsed) if responses_api else parsed
                )
            except Exception as exc:
                return FakeResponse(500, error_body(f"handler failed: {exc!r}"))
        answer = item if isinstance(item, FakeResponse) else FakeResponse(200, item)
        if (
            answer.status != 200
            or not isinstance(answer.body, dict)
            or "choices" not in answer.body
        ):
            return answer
        body: dict[str, Any] = answer.body
        stream = isinstance(parsed, dict) and parsed.get("stream") is True
        if responses_api:
            response = wire_forms.completion_as_response(body)
            if not stream:
                return replace(answer, body=response)
            events = wire_forms.response_stream_events(response)
            sse = wire_forms.sse_body(events, named=True, done=False)
        elif stream:
            options = parsed.get("stream_options") or {}
            usage = isinstance(options, dict) and options.get("include_usage") is True
            sse = wire_forms.sse_body(wire_forms.chat_stream_events(body, include_usage=usage))
        else:
            return answer
        return replace(answer, body=sse, content_type="text/event-stream")

    def _control(self, request: _RequestHandler, method: str, path: str) -> None:
        if path == "/_fake/stats":
            stats = {
                "request_count": self.request_count,
                "max_in_flight": self.max_in_flight,
                "rate_limited_count": self.rate_limited_count,
            }
            request.send(200, json.dumps(stats).encode(), "application/json", {})
        elif path == "/_fake/reset" and method == "POST":
            self.reset()
            request.send(200, b"{}", "application/json", {})
        else:
            request.send(404, b"{}", "application/json", {})


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGINT/SIGTERM; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--answer", default=None, help="fixed content of every completion")
    args = parser.parse_args(argv)
    if not math.isfinite(args.latency_ms) or args.latency_ms < 0:
        parser.error("--latency-ms must be a non-negative number")
    answer = args.answer

    def fixed(request: dict[str, Any]) -> dict[str, Any]:
        return completion(answer, model=str(request.get("model") or "fake-model"))

    server = FakeOpenAIServer(
        fixed if answer is not None else None,
        latency_s=args.latency_ms / 1000,
        host=args.host,
        port=args.port,
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with server:
        print(server.base_url, flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
