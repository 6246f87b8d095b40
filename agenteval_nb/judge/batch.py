"""The provider batch API for judge requests (OpenAI's files and batches, through ``openai``).

Rules (JUDGES.md §5, §6):

* **lines**: one JSONL line per request, ``{"custom_id": <cache key>, "method": "POST", "url":
  "/v1/chat/completions", "body": <the synchronous body>}`` (compact JSON); the cache key is
  the request id, so duplicates collapse and an answer maps back by lookup;
* **shards** (:func:`shards`): one model (and endpoint) per file, at most
  :attr:`BatchConfig.max_requests` lines and :attr:`BatchConfig.max_bytes` bytes per file; a
  single line above the byte limit is an error naming its model and key;
* **capability**: ``GET /batches`` is probed once per endpoint; 404 or 405 means the server has
  no batch API (:class:`BatchUnsupportedError`);
* **polling** (:func:`poll`): capped backoff from ``poll_every`` (×1.5 per poll, at most
  ``max_poll_every``); every terminal status (``completed``, ``failed``, ``expired``,
  ``cancelled``) ends it, with or without file ids; ``max_poll_failures`` failed polls in a
  row raise :class:`BatchPollError` (the job can be resumed); past ``deadline_s`` after the
  batch's creation the batch is cancelled (best effort) and its lines fail with code
  ``deadline``;
* **outcome** (:func:`outcome`): both the output and the error file are read; a line counts
  only with ``error`` null, ``status_code`` 200 and a valid completion body; other lines fail
  with the provider's code and message (an HTTP failure: ``http_<status>`` and the body's error
  message); a planned id with no line fails as ``missing``; a ``failed`` batch (validation)
  fails every line with ``errors.data`` (per line when the entry names one, 1-based).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from .cache import canonical_json
from .judge_errors import JudgeError, shorten
from .planning import LineFailure, PlannedRequest
from .request import Endpoint
from .response import validate_completion

BATCH_ENDPOINT = "/v1/chat/completions"
OPENAI_MAX_REQUESTS = 50_000
OPENAI_MAX_BYTES = 200 * 1024 * 1024
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses that end polling; any other status keeps it going."""
SHARD_TAG = "agenteval_shard"
"""The batch metadata key naming the shard a batch was created for (found again on resume)."""


class BatchUnsupportedError(RuntimeError):
    """The judge endpoint has no batch API (``/batches`` answered 404 or 405)."""


class BatchPollError(RuntimeError):
    """Polling a batch failed too many times in a row; the job can be resumed later."""


@dataclass(frozen=True, slots=True)
class BatchConfig:
    """How a batch job runs (``ae.BatchConfig``).

    ``poll_every`` first wait between polls (seconds, grows ×1.5 up to ``max_poll_every``);
    ``max_requests`` / ``max_bytes`` per provider file; ``retry_failed`` times a failed,
    expired or missing line is sent again; ``on_unsupported``: ``"error"`` or ``"sync"`` (judge
    synchronously when the endpoint has no batch API); ``max_poll_failures`` failed polls in a
    row before giving up; ``deadline_s`` after a batch's creation before it is cancelled;
    ``max_rounds`` planning rounds (a round follows when a prompt needs an earlier answer).
    """

    poll_every: float = 30.0
    max_requests: int = OPENAI_MAX_REQUESTS
    max_bytes: int = int(OPENAI_MAX_BYTES * 0.95)
    retry_failed: int = 1
    on_unsupported: Literal["error", "sync"] = "error"
    max_poll_every: float = 300.0
    max_poll_failures: int = 5
    deadline_s: float = 26 * 3600.0
    max_rounds: int = 4

    def __post_init__(self) -> None:
        for name in ("poll_every", "max_poll_every", "deadline_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"BatchConfig.{name} must be a number >= 0, got {value!r}")
        for name in ("max_requests", "max_bytes", "max_poll_failures", "max_rounds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"BatchConfig.{name} must be an int >= 1, got {value!r}")
        if isinstance(self.retry_failed, bool) or not isinstance(self.retry_failed, int):
            raise ValueError(
                f"BatchConfig.retry_failed must be an int >= 0, got {self.retry_failed!r}"
            )
        if self.retry_failed < 0:
            raise ValueError(
                f"BatchConfig.retry_failed must be an int >= 0, got {self.retry_failed}"
            )
        if self.max_requests > OPENAI_MAX_REQUESTS or self.max_bytes > OPENAI_MAX_BYTES:
            raise ValueError(
                f"BatchConfig: the provider takes at most {OPENAI_MAX_REQUESTS} requests and "
                f"{OPENAI_MAX_BYTES} bytes per file"
            )
        if self.on_unsupported not in ("error", "sync"):
            raise ValueError(
                f'BatchConfig.on_unsupported must be "error" or "sync", got {self.on_unsupported!r}'
            )

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def request_line(request: PlannedRequest) -> bytes:
    """The JSONL line of one request (module rules)."""
    line = {"custom_id": request.key, "method": "POST", "url": BATCH_ENDPOINT}
    return (canonical_json({**line, "body": request.body}) + "\n").encode()


def shards(requests: Iterable[PlannedRequest], config: BatchConfig) -> list[list[PlannedRequest]]:
    """The requests cut into provider files: per (endpoint, model) in first-seen order, each
    file within the line and byte limits (module rules)."""
    groups: dict[tuple[str, str], list[PlannedRequest]] = {}
    for request in requests:
        groups.setdefault((request.base_url, request.model), []).append(request)
    out: list[list[PlannedRequest]] = []
    for group in groups.values():
        current: list[PlannedRequest] = []
        size = 0
        for request in group:
            length = len(request_line(request))
            if length > config.max_bytes:
                raise ValueError(
                    f"judge request {request.key[:12]}… to {request.model} is {length} bytes, "
                    f"above the batch file limit of {config.max_bytes} bytes"
                )
            if current and (
                len(current) >= config.max_requests or size + length > config.max_bytes
            ):
                out.append(current)
                current, size = [], 0
            current.append(request)
            size += length
        if current:
            out.append(current)
    return out


# the outcome of a finished batch -------------------------------------------------------------


@dataclass(slots=True)
class BatchOutcome:
    """What a terminal batch gave: validated completions and failures, by request key."""

    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: dict[str, LineFailure] = field(default_factory=dict)


def jsonl(text: str | None) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL text; blank and unreadable lines are skipped (their ids then
    count as missing)."""
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            yield item


def _line_result(item: Mapping[str, Any]) -> dict[str, Any] | LineFailure:
    """A completion, or the failure a result line reports (module rules)."""
    error = item.get("error")
    response = item.get("response")
    response = response if isinstance(response, Mapping) else {}
    status = response.get("status_code")
    body = response.get("body")
    if error:
        if isinstance(error, Mapping):
            code = str(error.get("code") or "error")
            return LineFailure(code, shorten(str(error.get("message") or code)))
        return LineFailure("error", shorten(str(error)))
    if status != 200:
        detail: Any = body
        if isinstance(body, Mapping):
            inner = body.get("error", body)
            detail = inner.get("message") if isinstance(inner, Mapping) else inner
        return LineFailure(f"http_{status}", shorten(str(detail or "no body")))
    try:
        return validate_completion(body if isinstance(body, dict) else {}, "judge batch")
    except JudgeError as exc:
        return LineFailure("invalid_response", str(exc))


def outcome(
    batch: Mapping[str, Any],
    planned: Sequence[str],
    output_text: str | None,
    error_text: str | None,
) -> BatchOutcome:
    """Successes and failures of the ``planned`` ids (in file order) from a terminal batch
    and the texts of its output and error files (module rules)."""
    wanted = set(planned)
    result = BatchOutcome()
    status = str(batch.get("status"))
    if status == "failed":
        _validation_failures(batch, planned, result)
        return result
    for item in [*jsonl(error_text), *jsonl(output_text)]:  # an answer beats a failure
        key = item.get("custom_id")
        if key not in wanted:
            continue
        line = _line_result(item)
        if isinstance(line, LineFailure):
            if key not in result.answers:
                result.failures[key] = line
        else:
            result.answers[key] = line
            result.failures.pop(key, None)
    for key in planned:
        if key not in result.answers and key not in result.failures:
            result.failures[key] = LineFailure(
                "missing", f"no result line for this request (batch {status})"
            )
    return result


def _validation_failures(
    batch: Mapping[str, Any], planned: Sequence[str], result: BatchOutcome
) -> None:
    """A ``failed`` batch: each line named by ``errors.data`` gets its entry, the others the
    first entry (or a plain ``batch_failed``)."""
    errors = batch.get("errors")
    data = errors.get("data") if isinstance(errors, Mapping) else None
    entries = [e for e in data or () if isinstance(e, Mapping)]
    general = LineFailure("batch_failed", "the provider rejected the batch file")
    for entry in entries:
        code = str(entry.get("code") or "batch_failed")
        line = entry.get("line")
        where = f" (line {line})" if isinstance(line, int) else ""
        failure = LineFailure(code, shorten(f"{entry.get('message') or code}{where}"))
        if isinstance(line, int) and 1 <= line <= len(planned):
            result.failures[planned[line - 1]] = failure
        elif general.code == "batch_failed" and general.message.startswith("the provider"):
            general = failure
    for key in planned:
        result.failures.setdefault(key, general)


# the provider --------------------------------------------------------------------------------


def _batch_dict(batch: Any) -> dict[str, Any]:
    """A batch object as a plain dict (parsed tolerantly: compatible servers differ)."""
    if isinstance(batch, Mapping):
        return dict(batch)
    dump = getattr(batch, "model_dump", None)
    return dict(dump()) if dump is not None else dict(vars(batch))


class OpenAIBatches:
    """The batch endpoints of one judge endpoint, over an ``openai.AsyncOpenAI`` client."""

    def __init__(self, endpoint: Endpoint, *, max_retries: int = 4, timeout: float = 180.0):
        self.endpoint = endpoint
        self.client = openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            max_retries=max_retries,
            timeout=timeout,
        )

    async def aclose(self) -> None:
        await self.client.close()

    async def probe(self) -> None:
        """Raise :class:`BatchUnsupportedError` unless the endpoint lists batches."""
        try:
            await self.client.batches.list(limit=1)
        except openai.APIStatusError as exc:
            if exc.status_code in (404, 405):
                raise BatchUnsupportedError(
                    f"the judge endpoint {self.endpoint.base_url} has no batch API "
                    f"(GET /batches answered HTTP {exc.status_code}); use "
                    'ae.BatchConfig(on_unsupported="sync") to judge synchronously there'
                ) from None
            raise

    async def find(self, tag: str) -> str | None:
        """The id of a batch created earlier for shard ``tag`` (metadata), or None."""
        async for batch in self.client.batches.list(limit=100):
            metadata = _batch_dict(batch).get("metadata") or {}
            if isinstance(metadata, Mapping) and metadata.get(SHARD_TAG) == tag:
                return str(batch.id)
        return None

    async def submit(self, lines: bytes, tag: str) -> tuple[str, str]:
        """Upload the file and create the batch; ``(file id, batch id)``."""
        uploaded = await self.client.files.create(
            file=(f"{tag}.jsonl", lines, "application/jsonl"), purpose="batch"
        )
        batch = await self.client.batches.create(
            input_file_id=uploaded.id,
            endpoint="/v1/chat/completions",
            completion_window="24h",
            metadata={SHARD_TAG: tag},
        )
        return uploaded.id, batch.id

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        return _batch_dict(await self.client.batches.retrieve(batch_id))

    async def cancel(self, batch_id: str) -> None:
        await self.client.batches.cancel(batch_id)

    async def content(self, file_id: str | None) -> str | None:
        """The text of a result file (None without an id)."""
        if not file_id:
            return None
        return (await self.client.files.content(file_id)).text


POLL_ERRORS: tuple[type[Exception], ...] = (openai.APIError, OSError)
"""What a failed poll raises (HTTP errors, timeouts, connection errors)."""


async def poll(
    retrieve: Callable[[], Awaitable[dict[str, Any]]],
    config: BatchConfig,
    *,
    on_status: Callable[[dict[str, Any]], None] | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    clock: Callable[[], float] = time.time,
) -> dict[str, Any] | None:
    """Poll until a terminal status (returned); None when the deadline (``deadline_s`` after
    the batch's ``created_at``, else after the first poll) passed first (module rules)."""
    delay = config.poll_every
    failures = 0
    started = clock()
    while True:
        try:
            batch = await retrieve()
        except POLL_ERRORS as exc:
            failures += 1
            if failures >= config.max_poll_failures:
                last = shorten(f"{type(exc).__name__}: {exc}")
                raise BatchPollError(
                    f"{failures} polls in a row failed; last: {last} "
                    "(resume later with ae.BatchJob.load)"
                ) from None
        else:
            failures = 0
            if on_status is not None:
                on_status(batch)
            if str(batch.get("status")) in TERMINAL:
                return batch
            created = batch.get("created_at")
            if isinstance(created, int | float) and math.isfinite(created) and created > 0:
                started = min(started, float(created))
        if clock() - started > config.deadline_s:
            return None
        await sleep(delay)
        delay = min(max(delay * 1.5, delay), config.max_poll_every)
