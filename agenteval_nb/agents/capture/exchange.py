"""One recorded model call on the wire: the request the agent sent and the reply it got."""

from __future__ import annotations

from typing import Any

import orjson

from . import sse

API_KINDS = ("chat", "responses", "anthropic")
"""Which API an exchange spoke, told by the request path (``…/chat/completions``,
``…/responses``, ``…/messages``)."""


def api_kind(path: str) -> str | None:
    """The API a POST path speaks, or ``None`` for any other request (passed through)."""
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "anthropic"
    return None


_UNREAD: Any = object()
"""A body kept as bytes, not decoded yet."""


class Exchange:
    """A request and its reply, kept as the bytes that crossed the wire and decoded on first
    read (the send hook only copies references and a few fields: a call costs the agent next to
    nothing, and a body nobody reads is never parsed).

    ``request`` is the decoded request JSON (``None`` when it is not JSON). ``reply`` is the
    decoded JSON body, or for an event stream (``content_type`` ``text/event-stream``) the reply
    assembled from its events (:mod:`.sse`); ``None`` until the reply is complete, or when it
    cannot be read — then ``error`` says why. ``error`` is also the exception ``send`` raised.
    ``consumed`` is false for a stream the caller closed (or dropped) before its end.
    ``attributed``: how the case was found — ``"context"``, ``"sole_active"`` or
    ``"unattributed"``. Decoding is not locked: read an exchange once its call has ended."""

    __slots__ = (
        "_error",
        "_reply",
        "_request",
        "api",
        "attributed",
        "consumed",
        "content_type",
        "ended_ns",
        "reply_body",
        "request_body",
        "retry",
        "seq",
        "started_ns",
        "status",
        "streamed",
        "thread",
        "url",
    )

    def __init__(
        self,
        seq: int,
        api: str,
        url: str,
        request: Any = _UNREAD,
        started_ns: int = 0,
        thread: str = "",
        attributed: str = "context",
        retry: int = 0,
        streamed: bool = False,
        status: int | None = None,
        reply: Any = _UNREAD,
        error: str | None = None,
        ended_ns: int | None = None,
        consumed: bool = True,
        *,
        request_body: bytes | None = None,
        reply_body: bytes | None = None,
        content_type: str = "",
    ) -> None:
        self.seq = seq
        self.api = api
        self.url = url
        self._request = request
        self.request_body = request_body
        self.started_ns = started_ns
        self.thread = thread
        self.attributed = attributed
        self.retry = retry
        self.streamed = streamed
        self.status = status
        self._reply = reply
        self.reply_body = reply_body
        self.content_type = content_type
        self._error = error
        self.ended_ns = ended_ns
        self.consumed = consumed

    def __repr__(self) -> str:
        return (
            f"Exchange(seq={self.seq}, api={self.api!r}, url={self.url!r}, "
            f"status={self.status}, attributed={self.attributed!r})"
        )

    @property
    def request(self) -> Any:
        if self._request is _UNREAD:
            body, self.request_body = self.request_body, None
            try:
                self._request = orjson.loads(body) if body is not None else None
            except orjson.JSONDecodeError:
                self._request = None
        return self._request

    @request.setter
    def request(self, value: Any) -> None:
        self._request, self.request_body = value, None

    @property
    def reply(self) -> Any:
        if self._reply is _UNREAD:
            if self.reply_body is None:
                return None  # not complete yet
            self._decode_reply()
        return self._reply

    @reply.setter
    def reply(self, value: Any) -> None:
        self._reply, self.reply_body = value, None

    @property
    def error(self) -> str | None:
        if self._reply is _UNREAD and self.reply_body is not None:
            self._decode_reply()
        return self._error

    @error.setter
    def error(self, value: str | None) -> None:
        self._error = value

    def _decode_reply(self) -> None:
        body, self.reply_body = self.reply_body, None
        assert body is not None
        if self.content_type.startswith("text/event-stream"):
            self._reply = sse.assemble(self.api, body)
            if self._reply is None and self._error is None:
                self._error = "the event stream held no complete reply"
            return
        try:
            self._reply = orjson.loads(body)
        except orjson.JSONDecodeError:
            self._reply = None
            if self._error is None:
                kind = self.content_type or "no type"
                self._error = f"the reply is not JSON ({len(body)} bytes, {kind})"

    @property
    def ok(self) -> bool:
        """A 2xx reply that was read whole and decoded."""
        return (
            self.status is not None
            and 200 <= self.status < 300
            and self.reply is not None
            and self._error is None
            and self.consumed
        )
