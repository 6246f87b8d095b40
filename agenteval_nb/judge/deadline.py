"""One deadline per HTTP attempt, for the whole response.

Rule: an attempt (connect, send, status line and headers, then every byte of the body) must end
within ``timeout`` seconds of leaving; past that it fails with ``httpx2.ReadTimeout``, which the
openai client treats like any timeout (retried up to ``max_retries``, then ``APITimeoutError``).
httpx's own read timeout restarts with every chunk, so without this a server that trickles one
byte a second would hold a judge call forever.

The deadline is an ``asyncio.timeout_at`` on the loop's clock: the judge client runs on asyncio
only (:mod:`agenteval_nb.openai_pool`), and anyio's cancel scope costs about four times as much
CPU, three times per call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import cast

import httpx2


def _expired(request: httpx2.Request, timeout: float) -> httpx2.ReadTimeout:
    return httpx2.ReadTimeout(
        f"the response did not complete within {timeout:g} s", request=request
    )


class _DeadlineStream(httpx2.AsyncByteStream):
    """The body of one response, read under the attempt's deadline."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        deadline: float,
        request: httpx2.Request,
        timeout: float,
    ) -> None:
        self._inner = inner
        self._deadline = deadline
        self._request = request
        self._timeout = timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._inner.__aiter__()
        while True:
            try:
                async with asyncio.timeout_at(self._deadline):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise _expired(self._request, self._timeout) from None
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class DeadlineTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport so each request/response exchange ends within ``timeout`` seconds."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, timeout: float) -> None:
        self._inner = inner
        self.timeout = timeout

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = asyncio.get_running_loop().time() + self.timeout
        try:
            async with asyncio.timeout_at(deadline):
                response = await self._inner.handle_async_request(request)
        except TimeoutError:
            raise _expired(request, self.timeout) from None
        stream = cast(httpx2.AsyncByteStream, response.stream)  # an async transport's body
        response.stream = _DeadlineStream(stream, deadline, request, self.timeout)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
