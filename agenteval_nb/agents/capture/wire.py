"""The hooks on the HTTP clients: every model call an agent makes passes through ``send``.

:func:`install` wraps ``Client.send`` and ``AsyncClient.send`` of whichever of ``httpx`` and
``httpx2`` is importable (``openai`` ≥ 3 sits on ``httpx2``; LiteLLM, LlamaIndex and older
``openai`` on ``httpx``). It is idempotent and :func:`uninstall` puts the originals back.

Rules of a hooked ``send``:

* with no case active (:mod:`.attribution`) it calls the original at once;
* only POSTs to ``…/chat/completions``, ``…/responses`` and ``…/messages`` are recorded; any
  other request passes untouched;
* the exchange is added to its case when the request starts (so a case's exchanges are in start
  order), with the request's JSON, the thread's name and ``x-stainless-retry-count``;
* an exception from the original is recorded on the exchange and raised again;
* the hook keeps the request's and the reply's bytes as they are (no copy) and a few fields;
  bodies are decoded when first read (:class:`.Exchange`);
* a streamed reply is never read ahead of the caller: its byte stream is replaced by a copy
  that passes each chunk on as the caller reads it and keeps the bytes when the stream ends
  (the reply is assembled from them on first read, :mod:`.sse`); a stream closed before its
  end is marked not consumed.
"""

from __future__ import annotations

import importlib
import itertools
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ...errors import describe_exception
from . import attribution, sse
from .exchange import Exchange, api_kind

_LIBRARIES = ("httpx", "httpx2")
_originals: dict[tuple[type, str], Callable[..., Any]] = {}
_install_lock = threading.Lock()
_seq = itertools.count(1)


def install() -> None:
    """Hook ``send`` on the sync and async clients of ``httpx`` and ``httpx2`` (idempotent)."""
    with _install_lock:
        for name in _LIBRARIES:
            try:
                library = importlib.import_module(name)
            except ImportError:
                continue
            for cls, hook in ((library.Client, _sync_hook), (library.AsyncClient, _async_hook)):
                if (cls, "send") not in _originals:
                    original = cls.send
                    _originals[(cls, "send")] = original
                    cls.send = hook(original, library)


def uninstall() -> None:
    """Put the original ``send`` methods back."""
    with _install_lock:
        for (cls, attr), original in _originals.items():
            setattr(cls, attr, original)
        _originals.clear()


def installed() -> bool:
    return bool(_originals)


# -- one exchange ----------------------------------------------------------------------------


def _begin(
    request: Any, api: str, how: str, rec: attribution.Recording | None, streamed: bool
) -> Exchange:
    """The exchange of a call that starts: references and a few fields only (its bodies are
    decoded when first read, :class:`.Exchange`)."""
    try:
        retry = int(request.headers.get("x-stainless-retry-count") or 0)
    except ValueError:
        retry = 0
    try:
        body = request.content
    except Exception:  # a streamed upload (not read yet): recorded without its body
        body = None
    exchange = Exchange(
        next(_seq),
        api,
        str(request.url),
        started_ns=time.time_ns(),
        thread=threading.current_thread().name,
        attributed=how,
        retry=retry,
        streamed=streamed,
        request_body=body,
    )
    if rec is None:
        attribution.keep_unattributed(exchange)
    else:
        attribution.append(rec, exchange)
    return exchange


def _finish(exchange: Exchange, body: bytes, content_type: str) -> None:
    exchange.ended_ns = time.time_ns()
    exchange.content_type = content_type
    if content_type.startswith("text/event-stream"):
        exchange.streamed = True
    exchange.reply_body = body


def _end_stream(exchange: Exchange, body: bytes, content_type: str, exhausted: bool) -> None:
    """A streamed reply ends. An event stream was read whole when its terminal event was read
    (clients stop reading there; a stream that ends without it was cut off); any other body
    when the caller exhausted it."""
    if content_type.startswith("text/event-stream"):
        exchange.consumed = sse.reached_end(exchange.api, body)
    else:
        exchange.consumed = exhausted
    _finish(exchange, body, content_type)


def _received(exchange: Exchange, response: Any, streamed: bool, tee: type) -> None:
    """The reply arrived: kept at once when ``send`` read it, else copied as the caller reads
    it (the stream replaced by a ``tee`` of it)."""
    exchange.status = response.status_code
    content_type = response.headers.get("content-type", "")
    if response.is_stream_consumed or not streamed:
        _finish(exchange, response.content, content_type)
    else:
        response.stream = tee(response.stream, exchange, content_type)


def _fail(exchange: Exchange, exc: BaseException) -> None:
    exchange.ended_ns = time.time_ns()
    exchange.error = describe_exception(exc)


def _recordable(request: Any) -> str | None:
    if request.method != "POST":
        return None
    return api_kind(request.url.path)


# -- the hooks -------------------------------------------------------------------------------


class _Copy:
    """What the sync and async stream copies share: the chunks read so far, and the end of the
    stream handled once (read whole, or closed early)."""

    def __init__(self, inner: Any, exchange: Exchange, content_type: str) -> None:
        self._inner = inner
        self._exchange = exchange
        self._type = content_type
        self._chunks: list[bytes] = []
        self._done = False

    def _end(self, *, consumed: bool) -> None:
        if self._done:
            return
        self._done = True
        _end_stream(self._exchange, b"".join(self._chunks), self._type, consumed)


def _sync_hook(original: Callable[..., Any], library: Any) -> Callable[..., Any]:
    base = library.SyncByteStream

    class TeeStream(_Copy, base):  # type: ignore[misc,valid-type]
        """The caller's byte stream, copied as it is read."""

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
            self._end(consumed=True)

        def close(self) -> None:
            self._end(consumed=False)
            self._inner.close()

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        rec, how = attribution.resolve()
        api = _recordable(request) if how else None
        if api is None:
            return original(self, request, *args, **kwargs)
        streamed = kwargs.get("stream", False)
        exchange = _begin(request, api, how, rec, streamed)
        try:
            response = original(self, request, *args, **kwargs)
        except BaseException as exc:
            _fail(exchange, exc)
            raise
        _received(exchange, response, streamed, TeeStream)
        return response

    send.__wrapped__ = original  # type: ignore[attr-defined]
    return send


def _async_hook(original: Callable[..., Any], library: Any) -> Callable[..., Any]:
    base = library.AsyncByteStream

    class AsyncTeeStream(_Copy, base):  # type: ignore[misc,valid-type]
        """The caller's async byte stream, copied as it is read."""

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
            self._end(consumed=True)

        async def aclose(self) -> None:
            self._end(consumed=False)
            await self._inner.aclose()

    async def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        rec, how = attribution.resolve()
        api = _recordable(request) if how else None
        if api is None:
            return await original(self, request, *args, **kwargs)
        streamed = kwargs.get("stream", False)
        exchange = _begin(request, api, how, rec, streamed)
        try:
            response = await original(self, request, *args, **kwargs)
        except BaseException as exc:
            _fail(exchange, exc)
            raise
        _received(exchange, response, streamed, AsyncTeeStream)
        return response

    send.__wrapped__ = original  # type: ignore[attr-defined]
    return send
