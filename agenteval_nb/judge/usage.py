"""Token usage and cost of judge calls.

Rules:

* per call: ``prompt_tokens``, ``completion_tokens``, ``cached_tokens``
  (``usage.prompt_tokens_details.cached_tokens``) and ``reasoning_tokens``
  (``usage.completion_tokens_details.reasoning_tokens``); missing or non-integer values count 0;
* cost = ``prompt_tokens × input_price + completion_tokens × output_price`` / 1,000,000, with
  prices from ``price_table[model] = (input_per_1M, output_per_1M)`` (cached and reasoning tokens
  are billed inside those two counts), times :data:`BATCH_DISCOUNT` for an answer that came
  through the provider's batch API; ``None`` when the model has no price. A price is a
  finite number ≥ 0: a table with a negative, NaN or infinite price is refused where it is
  handed in, naming the model (:func:`checked_prices`);
* totals count live requests only for tokens, cost and latency; cache hits are counted apart
  (they cost nothing this time); batch answers count as requests, and also as
  ``batch_requests`` with ``batch_saved`` (what the same calls would have cost synchronously
  minus what they cost). Totals are safe to update from several threads and loops.
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BATCH_DISCOUNT = 0.5
"""The share of the synchronous price a provider batch answer costs (OpenAI: 50 %)."""

PriceTable = Mapping[str, tuple[float, float]]
"""``{model: (input price, output price)}``, per million tokens (:func:`checked_prices`)."""


def checked_prices(table: PriceTable | None) -> dict[str, tuple[float, float]]:
    """``table`` as a plain dict once every entry is a model name with a pair of prices that
    are finite numbers ≥ 0; else a ``ValueError`` naming the model. Every door that takes a
    price table (a judge client, ``ae.evaluate``, an experiment) calls this before use."""
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise ValueError(f"price_table must be a mapping {{model: (input, output)}}, got {table!r}")
    checked = {}
    for model, prices in table.items():
        pair = tuple(prices) if isinstance(prices, (tuple, list)) else ()
        if not (isinstance(model, str) and len(pair) == 2 and all(_price(p) for p in pair)):
            raise ValueError(
                f"price_table[{model!r}] must be (input, output) prices per 1M tokens, finite"
                f" numbers >= 0; got {prices!r}"
            )
        checked[model] = (float(pair[0]), float(pair[1]))
    return checked


def _price(value: Any) -> bool:
    """Whether ``value`` is a price: a finite number ≥ 0 (NaN and infinities are not)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    price = float(value)
    return math.isfinite(price) and price >= 0


def _count(obj: Any, *path: str) -> int:
    for key in path:
        if not isinstance(obj, Mapping):
            return 0
        obj = obj.get(key)
    return obj if isinstance(obj, int) and not isinstance(obj, bool) and obj > 0 else 0


@dataclass(frozen=True, slots=True)
class JudgeUsage:
    """Token counts of one judge response and its cost (``None`` = no price known)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    batch: bool = False
    """Answered through the provider's batch API (``cost`` is the discounted price)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def from_response(
        cls,
        response: Mapping[str, Any],
        model: str | None,
        price_table: PriceTable | None,
        *,
        batch: bool = False,
    ) -> JudgeUsage:
        usage = response.get("usage")
        prompt = _count(usage, "prompt_tokens")
        completion = _count(usage, "completion_tokens")
        return cls(
            prompt_tokens=prompt,
            completion_tokens=completion,
            cached_tokens=_count(usage, "prompt_tokens_details", "cached_tokens"),
            reasoning_tokens=_count(usage, "completion_tokens_details", "reasoning_tokens"),
            cost=cost_of(model, prompt, completion, price_table, batch=batch),
            batch=batch,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost": self.cost,
            "batch": self.batch,
        }


def cost_of(
    model: str | None,
    prompt_tokens: int,
    completion_tokens: int,
    price_table: PriceTable | None,
    *,
    batch: bool = False,
) -> float | None:
    """Cost in the price table's currency (``batch``: at :data:`BATCH_DISCOUNT` of it), or
    ``None`` when ``model`` has no entry."""
    if not price_table or model is None or model not in price_table:
        return None
    input_price, output_price = price_table[model]
    full = (prompt_tokens * input_price + completion_tokens * output_price) / 1_000_000
    return full * BATCH_DISCOUNT if batch else full


class UsageTotals:
    """Running totals over every call of a client (thread- and loop-safe)."""

    _FIELDS = (
        "calls",
        "requests",
        "cache_hits",
        "errors",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "reasoning_tokens",
        "unpriced_requests",
        "batch_requests",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(self._FIELDS, 0)
        self._cost = 0.0
        self._batch_saved = 0.0
        self._latency = 0.0

    def add(self, usage: JudgeUsage, *, latency_s: float, cache_hit: bool) -> None:
        """Record one successful call (``calls`` counts hits and live requests alike)."""
        with self._lock:
            counts = self._counts
            counts["calls"] += 1
            if cache_hit:
                counts["cache_hits"] += 1
                return
            counts["requests"] += 1
            counts["prompt_tokens"] += usage.prompt_tokens
            counts["completion_tokens"] += usage.completion_tokens
            counts["cached_tokens"] += usage.cached_tokens
            counts["reasoning_tokens"] += usage.reasoning_tokens
            if usage.cost is None:
                counts["unpriced_requests"] += 1
            else:
                self._cost += usage.cost
            if usage.batch:
                counts["batch_requests"] += 1
                if usage.cost is not None:
                    self._batch_saved += usage.cost / BATCH_DISCOUNT - usage.cost
            self._latency += latency_s

    def add_error(self) -> None:
        with self._lock:
            self._counts["errors"] += 1

    def as_dict(self) -> dict[str, Any]:
        """A snapshot: the counters plus ``cost``, ``batch_saved`` and ``latency_s`` (sums over
        live requests)."""
        with self._lock:
            return {
                **self._counts,
                "cost": self._cost,
                "batch_saved": self._batch_saved,
                "latency_s": self._latency,
            }

    def merge(self, snapshot: dict[str, Any]) -> None:
        """Add another client's :meth:`as_dict` snapshot (e.g. a remote worker's totals)."""
        with self._lock:
            for name in self._FIELDS:
                self._counts[name] += int(snapshot.get(name, 0) or 0)
            self._cost += float(snapshot.get("cost", 0.0) or 0.0)
            self._batch_saved += float(snapshot.get("batch_saved", 0.0) or 0.0)
            self._latency += float(snapshot.get("latency_s", 0.0) or 0.0)

    def _get(self, name: str) -> int:
        with self._lock:
            return self._counts[name]

    @property
    def calls(self) -> int:
        return self._get("calls")

    @property
    def requests(self) -> int:
        return self._get("requests")

    @property
    def cache_hits(self) -> int:
        return self._get("cache_hits")

    @property
    def errors(self) -> int:
        return self._get("errors")

    @property
    def prompt_tokens(self) -> int:
        return self._get("prompt_tokens")

    @property
    def completion_tokens(self) -> int:
        return self._get("completion_tokens")

    @property
    def cost(self) -> float:
        with self._lock:
            return self._cost

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"UsageTotals({fields})"
