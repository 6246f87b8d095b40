"""Judging through a provider batch, as the judge client sees it: plan the requests, then
answer them from the cache.

Rules:

* a :class:`BatchJudgeClient` is a :class:`~.client.JudgeClient` that never sends a chat
  request. Each request is built and keyed exactly as the synchronous client builds and keys it
  (:func:`~.request.build_request`, :func:`~.cache.cache_key`), so a batch run and a
  synchronous run share cache entries and read the same answers;
* **planning** (``planning=True``): a cache hit is answered as usual; a miss is recorded in
  :attr:`BatchJudgeClient.planned` (key → :class:`PlannedRequest`) and answered with a
  *placeholder* completion (``placeholder(body)``, one every scorer can read) so the evaluation
  goes on to every later turn and sample of the metric and plans their requests too. The
  evaluation's results are thrown away;
* an answer that feeds a later prompt (a call made under :func:`feeds_prompt`, e.g. the
  hallucination judge's segmentation) is planned too, and its placeholder marks the judged turn
  (:func:`judged_turn`) as *derived*: no later request of that turn is planned (it may be built
  on the made-up answer), so none is ever sent. They are planned in the next round, once the
  real answer is in the cache; outside a judged turn such a miss fails its call instead;
* **answering** (``planning=False``): every answer comes from the cache; the keys in
  ``answered`` came through this job's batches and count as live batch requests (not cache
  hits, priced at the batch discount: :mod:`.usage`); a key in ``failures`` fails its call
  with the provider's code and message; any other miss fails with ``no batch answer``;
* endpoints in ``sync_endpoints`` (no batch API, ``on_unsupported="sync"``) are not planned;
  when answering, their misses are sent at once, as the synchronous client sends them;
* the API key stays in memory (:attr:`BatchJudgeClient.endpoints`), never in a plan.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .cache import cache_key
from .call import JudgeCall
from .client import JudgeClient
from .judge_errors import JudgeError
from .request import Endpoint, JudgeRequest

_FEEDS_PROMPT: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "agenteval_judge_feeds_prompt", default=False
)


@dataclass(slots=True)
class _Turn:
    derived: bool = False
    """A placeholder answered a call whose answer feeds a later prompt of this turn."""


_TURN: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar(
    "agenteval_judged_turn", default=None
)

Placeholder = Callable[[dict[str, Any]], dict[str, Any]]
"""``placeholder(request_body) -> chat completion`` standing in for a planned answer."""


@contextlib.contextmanager
def feeds_prompt() -> Iterator[None]:
    """Mark the judge calls made inside as ones whose answer goes into a later prompt."""
    token = _FEEDS_PROMPT.set(True)
    try:
        yield
    finally:
        _FEEDS_PROMPT.reset(token)


@contextlib.contextmanager
def judged_turn() -> Iterator[None]:
    """One judged turn (its samples and extra calls): the scope of :func:`feeds_prompt`."""
    token = _TURN.set(_Turn())
    try:
        yield
    finally:
        _TURN.reset(token)


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    """One judge request to send in a batch: its cache key (the batch line's ``custom_id``),
    endpoint URL, model and exact body (no API key)."""

    key: str
    base_url: str
    model: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LineFailure:
    """Why the provider gave no usable answer to one request (its code and message)."""

    code: str
    message: str

    def text(self) -> str:
        return f"batch request failed: {self.code}: {self.message}"


class BatchJudgeClient(JudgeClient):
    """A judge client that plans requests or answers them from the cache (module rules).
    Other keywords are those of :class:`JudgeClient`; ``judge`` (an injected judge) is refused:
    it has no batch API."""

    def __init__(
        self,
        *,
        planning: bool,
        placeholder: Placeholder | None = None,
        answered: Collection[str] = (),
        failures: Mapping[str, LineFailure] | None = None,
        **settings: Any,
    ) -> None:
        if settings.get("judge") is not None:
            raise ValueError("batch judging needs judgeModel endpoints, not an injected judge")
        if planning and placeholder is None:
            raise ValueError("a planning client needs a placeholder answer")
        super().__init__(**settings)
        self.planning = planning
        self.placeholder = placeholder
        self.answered = frozenset(answered)
        self.failures = dict(failures or {})
        self.planned: dict[str, PlannedRequest] = {}
        self.endpoints: dict[str, Endpoint] = {}
        self.sync_endpoints: set[str] = set()
        self.fed_placeholders = 0
        """Planned calls whose answer feeds a later prompt: their turns need another round."""

    async def _complete_http(self, request: JudgeRequest, sample_index: int) -> JudgeCall:
        base_url = request.endpoint.base_url
        key = cache_key(base_url, request.body, sample_index)
        self.endpoints.setdefault(base_url, request.endpoint)
        cached = self._cache_get(key)
        if cached is not None:
            batch = key in self.answered
            return self._finish(cached, request.model, 0.0, not batch, key, sample_index, 0, batch)
        synchronous = base_url in self.sync_endpoints
        if synchronous and not self.planning:
            return await super()._complete_http(request, sample_index)
        failure = self.failures.get(key)
        if failure is not None:
            raise JudgeError(failure.text(), kind="batch")
        if not self.planning:
            raise JudgeError(
                f"no batch answer for this {request.model} request (it was not in the job's plan)",
                kind="batch",
            )
        turn = _TURN.get()
        derived = turn is not None and turn.derived
        if not synchronous and not derived:
            planned = PlannedRequest(key, base_url, request.model, request.body)
            self.planned.setdefault(key, planned)
        if _FEEDS_PROMPT.get():
            self.fed_placeholders += 1
            if turn is None:
                raise JudgeError(
                    "planned for the batch: a later prompt needs its answer", kind="batch"
                )
            turn.derived = True
        assert self.placeholder is not None
        return self._finish(
            self.placeholder(request.body), request.model, 0.0, False, key, sample_index
        )
