"""The judge client: one chat completion per call, over the ``openai`` package.

Rules:

* request building, provider check and endpoint/key precedence: :mod:`.request`;
* one ``openai.AsyncOpenAI`` per endpoint (base URL + API key) and per event loop, reused for
  every call on that loop (an HTTP connection pool cannot move between loops, and a notebook
  run gets a fresh private loop each time);
* one :class:`EndpointLimiter` per base URL, shared by every loop and thread using the client;
  with adaptive concurrency (``concurrency="adaptive"`` or an :class:`~.adaptive.Adaptive`),
  one per base URL and API key instead, its limit driven by an
  :class:`~.adaptive.AdaptiveController` (:mod:`.adaptive`);
* TLS: httpx's default verifying context, built once per process (per ``SSL_CERT_FILE`` /
  ``SSL_CERT_DIR`` setting) and shared by every HTTP client: building one reads the CA bundle,
  ~20 ms of CPU that every run would pay again on its fresh loop;
* faults: HTTP 408, 409, 429 and 5xx, timeouts and connection errors are retried by the openai
  client itself (``max_retries``, default 4): exponential backoff from 0.5 s doubling up to 8 s
  with up to 25 % jitter, except that a ``Retry-After`` / ``retry-after-ms`` header of more than
  0 and at most 120 s is waited exactly. openai does not cap a longer ``Retry-After``: it
  refuses to retry and the call fails at once with the 429/5xx. With adaptive concurrency a
  429 is the exception: the openai client hands it back at once and this client retries it
  (waiting as the answer asks, :mod:`.adaptive`), so that every 429 reaches the controller;
  408, 409, 5xx, timeouts and connection errors are still retried as above. ``timeout``
  (default 180 s) bounds each attempt as a whole, body included (:mod:`.deadline`): a server
  trickling bytes times out like a silent one;
* every failure becomes a :class:`JudgeError` (HTTP status and the server's short message; a
  malformed 200 body — truncated JSON, an HTML page, no ``choices``, no message content — says
  what was wrong); keys are redacted from every message and every accepted completion
  (:mod:`agenteval_nb.secrets`, applied in :mod:`.errors` and :mod:`.response`);
* cache (:mod:`.cache`): looked up before the limiter, queued after a validated answer and
  written in batches (at the latest when the run ends: :meth:`JudgeClient.close_loop_clients`,
  :meth:`JudgeClient.aclose`); an injected judge (:mod:`.injected`) replaces the HTTP path and
  is never cached. A cache file that cannot be opened, read or written never fails a call: the
  client warns once (naming the file) and goes on without it;
* usage and cost of every call are added to :attr:`JudgeClient.usage` (:mod:`.usage`);
  ``latency_s`` is time spent on the request including retries, not the wait for a slot;
* budget (``budget_usd``, :mod:`.budget`): after a cache miss and before its slot, a call
  reserves its worst-case cost and is refused (:class:`~.budget.BudgetExhausted`, not counted
  as an error) when it cannot fit; once answered or failed it settles what it spent.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import ssl
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx2
import openai

from ..openai_pool import LoopClients
from ..schema.metric import JudgeModelOptions
from .adaptive import (
    Adaptive,
    AdaptiveController,
    RateLimitSignal,
    adaptive_setting,
    divided,
    retry_after_s,
    retry_delay,
)
from .budget import Budget, BudgetExhausted, Reservation, charged_cost, worst_case_cost
from .cache import CACHE_ERRORS, JudgeCache, cache_key, cache_location, open_cache
from .call import JudgeCall
from .deadline import DeadlineTransport
from .injected import CallableJudge
from .judge_errors import JudgeError, shorten
from .limiter import EndpointLimiter
from .request import Endpoint, JudgeRequest, build_request, plain_messages
from .response import completion_content, parse_body, validate_completion
from .usage import JudgeUsage, PriceTable, UsageTotals, checked_prices

log = logging.getLogger(__name__)

DEFAULT_MAX_RETRIES = 4
DEFAULT_TIMEOUT_S = 180.0
DEFAULT_MAX_CONCURRENCY = 32

_INJECTED_LIMITER_KEY = "<injected judge>"
_ORIGIN = "judge endpoint"

CacheSpec = bool | str | os.PathLike[str] | JudgeCache | None


@functools.lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's default context; ``cert_file`` / ``cert_dir`` (the ``SSL_CERT_*`` variables it
    reads) only key the cache, so a changed setting gets its own context."""
    return httpx2.create_ssl_context()


def shared_tls_context() -> ssl.SSLContext:
    """The process's TLS context for the current ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


class JudgeCacheWarning(RuntimeWarning):
    """The judge cache file is unusable; the evaluation goes on without a cache."""


def retry_count(request: Any) -> int:
    """How many retries preceded ``request``: the counter openai sends with every attempt."""
    try:
        return max(0, int(request.headers.get("x-stainless-retry-count", "0")))
    except (AttributeError, RuntimeError, ValueError):
        return 0


def _after_retries(exc: openai.APIError) -> str:
    """`` (after N retries)`` for an error of the openai client, or ``""``."""
    try:
        count = retry_count(exc.request)
    except RuntimeError:
        return ""
    if count <= 0:
        return ""
    return f" (after {count} {'retry' if count == 1 else 'retries'})"


def _settle_failure(reservation: Reservation, exc: BaseException) -> None:
    """Settle a call that ended without an answer (:mod:`.budget` rules): an HTTP error status
    costs nothing; a timeout, a lost connection or a cancellation keeps the reservation."""
    if isinstance(exc, JudgeError) and exc.kind == "http":
        reservation.settle(0.0)
    else:
        reservation.keep()


class JudgeClient:
    """Sends judge requests (rules in the module doc).

    ``judge``: a callable standing in for every endpoint (:class:`CallableJudge`).
    ``cache``: ``True`` (default location), a path, a :class:`JudgeCache`, or ``False``/``None``.
    ``max_concurrency`` / ``requests_per_minute``: settings of the limiters created per base URL.
    ``concurrency``: ``"adaptive"`` or an :class:`Adaptive` for adaptive limits per endpoint and
    key (``max_concurrency`` then becomes its ``max``); None keeps ``max_concurrency`` fixed.
    ``price_table``: ``{model_name: (input_per_1M, output_per_1M)}`` for call costs.
    ``budget_usd``: a hard cap on what the client's calls may spend (:mod:`.budget`).
    """

    def __init__(
        self,
        *,
        judge: Callable[..., Any] | CallableJudge | None = None,
        cache: CacheSpec = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        requests_per_minute: float | None = None,
        price_table: PriceTable | None = None,
        concurrency: str | Adaptive | None = None,
        budget_usd: float | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.adaptive = adaptive_setting(concurrency)
        if concurrency is not None and self.adaptive is None:
            raise ValueError(
                f"concurrency must be 'adaptive' or ae.Adaptive(...), got {concurrency!r}"
            )
        if self.adaptive is not None:
            max_concurrency = self.adaptive.max
        self.injected = None if judge is None else CallableJudge(judge)
        if budget_usd is not None and self.injected is not None:
            raise ValueError(
                "budget_usd needs judge calls with a price: an injected judge has none"
            )
        self._owns_cache = not isinstance(cache, JudgeCache)
        self.cache: JudgeCache | None = None
        try:
            self.cache = open_cache(cache)
        except CACHE_ERRORS as exc:
            self._drop_cache(exc, "open", cache_location(cache))
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_concurrency = max_concurrency
        self.requests_per_minute = requests_per_minute
        self.price_table = checked_prices(price_table)
        self.budget = None if budget_usd is None else Budget(budget_usd)
        self.usage = UsageTotals()
        self._lock = threading.Lock()
        self._limiters: dict[str, EndpointLimiter] = {}
        self._controllers: dict[str, AdaptiveController] = {}
        self._clients = LoopClients()

    def worker_settings(self, share: int = 1) -> dict[str, Any]:
        """Keyword arguments that build an equivalent client in another process (a Ray
        worker): same cache file, retries, timeout, prices and injected judge; the concurrency
        and requests-per-minute limits divided by ``share`` (concurrency rounded down), so that
        ``share`` workers together stay within the limits of this client — except a concurrency
        below ``share``: each worker still sends one request at a time. Adaptive limits are
        divided the same way (:func:`~.adaptive.divided`); each worker then adapts to the 429s
        it sees. A client with a budget cannot be shared (its ledger lives in this process)."""
        share = max(1, share)
        rpm = self.requests_per_minute
        if self.budget is not None:
            raise ValueError("a judge budget lives in one process: it cannot be shared by workers")
        return {
            "judge": self.injected.judge if self.injected is not None else None,
            "cache": self.cache.path if self.cache is not None else None,
            "max_retries": self.max_retries,
            "timeout": self.timeout,
            "max_concurrency": max(1, self.max_concurrency // share),
            "requests_per_minute": None if rpm is None else rpm / share,
            "price_table": dict(self.price_table),
            "concurrency": None if self.adaptive is None else divided(self.adaptive, share),
        }

    def __repr__(self) -> str:
        judge = f", judge={self.injected!r}" if self.injected else ""
        cache = str(self.cache.path) if self.cache else None
        adaptive = f", concurrency={self.adaptive!r}" if self.adaptive else ""
        budget = f", budget={self.budget!r}" if self.budget else ""
        return (
            f"JudgeClient(cache={cache!r}, max_concurrency={self.max_concurrency}, "
            f"requests_per_minute={self.requests_per_minute}, max_retries={self.max_retries}, "
            f"timeout={self.timeout}{adaptive}{budget}{judge})"
        )

    # shared resources ----------------------------------------------------------------------

    def limiter(self, base_url: str) -> EndpointLimiter:
        """The limiter of ``base_url``, created with the client's settings on first use."""
        key = base_url.rstrip("/")
        with self._lock:
            limiter = self._limiters.get(key)
            if limiter is None:
                limiter = EndpointLimiter(self.max_concurrency, self.requests_per_minute)
                self._limiters[key] = limiter
            return limiter

    def controller(self, endpoint: Endpoint) -> AdaptiveController:
        """The adaptive controller of ``endpoint`` (base URL and key), created on first use
        with its own limiter."""
        assert self.adaptive is not None
        digest = hashlib.sha256(endpoint.api_key.encode()).hexdigest()[:12]
        key = f"{endpoint.base_url.rstrip('/')} key:{digest}"
        with self._lock:
            controller = self._controllers.get(key)
            if controller is None:
                limiter = EndpointLimiter(self.adaptive.start, self.requests_per_minute)
                controller = AdaptiveController(self.adaptive, limiter, key=key)
                self._controllers[key] = controller
            return controller

    def concurrency_history(self) -> list[dict[str, Any]]:
        """Every adaptive limit change of every endpoint, in time order (empty when the
        concurrency is fixed)."""
        with self._lock:
            controllers = list(self._controllers.values())
        rows = [row for c in controllers for row in c.history()]
        return sorted(rows, key=lambda row: row["t"])

    def set_limiter(self, base_url: str, limiter: EndpointLimiter) -> None:
        """Use ``limiter`` for ``base_url`` (e.g. one shared with another client)."""
        with self._lock:
            self._limiters[base_url.rstrip("/")] = limiter

    def _openai(self, endpoint: Endpoint) -> openai.AsyncOpenAI:
        return self._clients.get(
            endpoint,
            lambda: openai.AsyncOpenAI(
                base_url=endpoint.base_url,
                api_key=endpoint.api_key,
                max_retries=self.max_retries,
                timeout=self.timeout,
                http_client=self._http_client(),
            ),
        )

    def _http_client(self) -> httpx2.AsyncClient | None:
        """An HTTP client whose attempts each end within ``timeout`` and, with adaptive
        concurrency, whose 429s are not retried by openai (module rules)."""
        if self.timeout is None and self.adaptive is None:
            return None
        limits = httpx2.Limits(  # openai's defaults, widened to the judge's concurrency
            max_connections=max(1000, self.max_concurrency),
            max_keepalive_connections=max(100, self.max_concurrency),
        )
        transport: httpx2.AsyncBaseTransport = httpx2.AsyncHTTPTransport(
            verify=shared_tls_context(), limits=limits
        )
        if self.timeout is not None:
            transport = DeadlineTransport(transport, self.timeout)
        if self.adaptive is not None:
            transport = RateLimitSignal(transport)
        return openai.DefaultAsyncHttpxClient(transport=transport, timeout=self.timeout)

    async def close_loop_clients(self) -> None:
        """Close the HTTP clients of the running loop only.

        Call it at the end of a run whose private loop is about to close while the client (its
        cache, limiters and usage totals) lives on for the next run. The run's queued cache rows
        are written.
        """
        self._cache_flush()
        await self._clients.close_running()

    async def aclose(self) -> None:
        """Close the HTTP clients of every loop (others are closed on their own loop when it
        still runs) and the cache, unless the cache was passed in as a :class:`JudgeCache`."""
        await self._clients.close_all()
        self._cache_flush()
        if self.cache is not None and self._owns_cache:
            self.cache.close()

    async def __aenter__(self) -> JudgeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # the call ------------------------------------------------------------------------------

    async def complete(
        self,
        judge_model: JudgeModelOptions | None,
        messages: Sequence[Any],
        *,
        structured_output: Mapping[str, Any] | None = None,
        sample_index: int = 0,
        request_overrides: Mapping[str, Any] | None = None,
    ) -> JudgeCall:
        """Ask the judge once; ``sample_index`` tells the ``numSamples`` votes apart.

        Raises :class:`JudgeError` on any failure (counted in ``usage.errors``).
        """
        try:
            if isinstance(sample_index, bool) or not isinstance(sample_index, int):
                raise JudgeError("sample_index must be a non-negative integer", kind="config")
            if sample_index < 0:
                raise JudgeError("sample_index must be a non-negative integer", kind="config")
            if self.injected is not None:
                return await self._complete_injected(messages, structured_output, sample_index)
            if judge_model is None:
                raise JudgeError(
                    "no judge configured: judgeModel is missing and no judge was injected",
                    kind="config",
                )
            request = build_request(
                judge_model,
                messages,
                structured_output=structured_output,
                request_overrides=request_overrides,
            )
            return await self._complete_http(request, sample_index)
        except BudgetExhausted:
            raise  # not started: not a judge failure
        except JudgeError:
            self.usage.add_error()
            raise

    async def _complete_injected(
        self,
        messages: Sequence[Any],
        structured_output: Mapping[str, Any] | None,
        sample_index: int,
    ) -> JudgeCall:
        assert self.injected is not None
        plain = plain_messages(messages)
        async with self.limiter(_INJECTED_LIMITER_KEY).slot():
            started = time.perf_counter()
            response = await self.injected.complete(plain, structured_output)
            latency = time.perf_counter() - started
        model = response.get("model") if isinstance(response.get("model"), str) else None
        return self._finish(response, model, latency, False, "", sample_index)

    async def _complete_http(self, request: JudgeRequest, sample_index: int) -> JudgeCall:
        key = cache_key(request.endpoint.base_url, request.body, sample_index)
        started = time.perf_counter()
        cached = self._cache_get(key)
        if cached is not None:
            latency = time.perf_counter() - started
            return self._finish(cached, request.model, latency, True, key, sample_index)
        reservation = await self._reserve(request)
        try:
            if self.adaptive is None:
                async with self.limiter(request.endpoint.base_url).slot():
                    started = time.perf_counter()
                    response, retries = await self._send(request)
                    latency = time.perf_counter() - started
            else:
                response, retries, latency = await self._send_adaptive(request)
        except BaseException as exc:
            if reservation is not None:
                _settle_failure(reservation, exc)
            raise
        call = self._finish(response, request.model, latency, False, key, sample_index, retries)
        if reservation is not None:
            reservation.settle(charged_cost(response, call.usage.cost, reservation.amount))
        self._cache_put(key, call)
        return call

    async def _reserve(self, request: JudgeRequest) -> Reservation | None:
        """The call's budget reservation (None without a budget); raises
        :class:`BudgetExhausted` when it cannot start."""
        if self.budget is None:
            return None
        return await self.budget.reserve(worst_case_cost(request.body, self.price_table))

    async def _send_adaptive(self, request: JudgeRequest) -> tuple[dict[str, Any], int, float]:
        """:meth:`_send` under the endpoint's adaptive limit, retrying 429s here (module
        rules): the answer, the retries (429s included) and the time spent holding slots."""
        assert self.adaptive is not None
        controller = self.controller(request.endpoint)
        waited, latency, rate_limits = 0.0, 0.0, 0
        while True:
            async with controller.limiter.slot():
                started, epoch = time.perf_counter(), controller.epoch
                try:
                    response, retries = await self._send(request, raw_rate_limit=True)
                except openai.RateLimitError as exc:
                    latency += time.perf_counter() - started
                    retry_after = retry_after_s(exc.response.headers)
                    controller.rate_limited(retry_after, sent_at=epoch)
                    error = exc
                except BaseException:
                    controller.neutral()
                    raise
                else:
                    latency += time.perf_counter() - started
                    controller.succeeded(clean=retries == 0 and rate_limits == 0)
                    return response, retries + rate_limits, latency
            delay = retry_delay(retry_after, rate_limits)
            if waited + delay > self.adaptive.max_wait_s:
                status = self._status_error(error)
                raise JudgeError(
                    f"judge endpoint {request.endpoint.base_url} kept answering HTTP 429 "
                    f"({rate_limits + 1} times over {waited:.1f} s of waiting; the limit is "
                    f"{self.adaptive.max_wait_s:g} s): {status}",
                    kind="http",
                    status_code=429,
                )
            rate_limits += 1
            await controller.sleep(delay)
            waited += delay

    def _finish(
        self,
        response: dict[str, Any],
        model: str | None,
        latency: float,
        cache_hit: bool,
        key: str,
        sample_index: int,
        retries: int = 0,
        batch: bool = False,
    ) -> JudgeCall:
        usage = JudgeUsage.from_response(response, model, self.price_table, batch=batch)
        self.usage.add(usage, latency_s=latency, cache_hit=cache_hit)
        return JudgeCall(
            response=response,
            content=completion_content(response),
            usage=usage,
            latency_s=latency,
            cache_hit=cache_hit,
            cache_key=key,
            sample_index=sample_index,
            model=model,
            retries=retries,
        )

    async def _send(
        self, request: JudgeRequest, *, raw_rate_limit: bool = False
    ) -> tuple[dict[str, Any], int]:
        """The validated completion and the number of retries the openai client made.

        The body built by :func:`.request.build_request` is already the exact JSON to send, so
        it goes out through the client's documented raw ``post`` (auth, retries, timeouts and
        errors as for ``chat.completions.create``, without re-transforming the parameters: that
        transform costs about as much CPU as the rest of the call). The raw response is parsed
        once, here, with clear errors, and the plain dict is exactly what the endpoint sent.
        ``raw_rate_limit``: a 429 raises openai's ``RateLimitError`` (for the adaptive loop).
        """
        client = self._openai(request.endpoint)
        try:
            raw = await client.post("/chat/completions", cast_to=httpx2.Response, body=request.body)
        except openai.APIStatusError as exc:
            if raw_rate_limit and isinstance(exc, openai.RateLimitError):
                raise
            raise self._status_error(exc) from None
        except openai.APITimeoutError as exc:
            raise JudgeError(
                f"judge request to {request.endpoint.base_url} timed out "
                f"(timeout {self.timeout} s per attempt){_after_retries(exc)}",
                kind="timeout",
            ) from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            detail = shorten(f"{type(cause).__name__}: {cause}")
            raise JudgeError(
                f"cannot reach judge endpoint {request.endpoint.base_url}"
                f"{_after_retries(exc)}: {detail}",
                kind="connection",
            ) from None
        except openai.OpenAIError as exc:
            detail = shorten(f"{type(exc).__name__}: {exc}")
            raise JudgeError(f"judge request failed: {detail}", kind="other") from None
        data = parse_body(raw.content, raw.headers.get("content-type", ""), _ORIGIN)
        return validate_completion(data, _ORIGIN), retry_count(raw.request)

    def _status_error(self, exc: openai.APIStatusError) -> JudgeError:
        status = exc.status_code
        body = exc.body
        detail: Any = None
        if isinstance(body, Mapping):
            error = body.get("error", body)
            detail = error.get("message") if isinstance(error, Mapping) else error
            if not detail:
                detail = json.dumps(body, default=str)
        elif isinstance(body, str) and body.strip():
            detail = body
        if not detail:
            detail = exc.message
        text = shorten(str(detail))
        return JudgeError(
            f"judge endpoint returned HTTP {status}{_after_retries(exc)}: {text}",
            kind="http",
            status_code=status,
        )

    # cache guards: a broken cache file must not fail the evaluation -----------------------

    def _drop_cache(self, exc: BaseException, action: str, where: str | None = None) -> None:
        """Warn once, naming the file, and go on without the cache."""
        cache, self.cache = self.cache, None
        if where is None:
            where = str(cache.path) if cache is not None else "?"
        if cache is not None and self._owns_cache:
            with contextlib.suppress(*CACHE_ERRORS):  # the rows it still queues are lost
                cache.close()
        if cache is None and action != "open":
            return  # another call already dropped it (and warned)
        warnings.warn(
            f"judge cache {where!r} is unusable ({action} failed: {type(exc).__name__}: "
            f"{shorten(str(exc), 120)}); this evaluation continues without a cache "
            "(delete or move the file to start a fresh one)",
            JudgeCacheWarning,
            stacklevel=2,
        )

    def _cache_get(self, key: str) -> dict[str, Any] | None:
        cache = self.cache
        if cache is None:
            return None
        try:
            hit = cache.get(key)
        except CACHE_ERRORS as exc:
            if self.cache is cache:
                self._drop_cache(exc, "read")
            return None
        if hit is None:
            return None
        try:
            return validate_completion(hit[0], "judge cache")
        except JudgeError:
            return None

    def _cache_put(self, key: str, call: JudgeCall) -> None:
        cache = self.cache
        if cache is None:
            return
        try:
            cache.put(key, call.response, call.usage.as_dict(), model=call.model, later=True)
        except CACHE_ERRORS as exc:
            if self.cache is cache:
                self._drop_cache(exc, "write")

    def _cache_flush(self) -> None:
        cache = self.cache
        if cache is None:
            return
        try:
            cache.flush()
        except CACHE_ERRORS as exc:
            if self.cache is cache:
                self._drop_cache(exc, "write")
