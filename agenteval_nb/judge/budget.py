"""A hard cap on what judge calls may spend, enforced by reservation before each call.

Rules:

* **worst case of a call** (:func:`worst_case_cost`): ``input_token_bound × input price +
  output_token_bound × output price`` (prices per 1M tokens from the price table);
* **input bound** (:func:`input_token_bound`): the UTF-8 byte length of the JSON request body.
  A byte-level BPE token (OpenAI's tokenizers) spans at least one byte, and the body's JSON
  keys and punctuation outweigh the few tokens of per-message overhead, so the count of input
  tokens billed never exceeds it. It is a bound, about four times the usual count for English:
  it costs only at the end of a budget, never spending beyond it;
* **output bound** (:func:`output_token_bound`): ``max_completion_tokens``, else
  ``max_tokens``, times ``n`` (choices per request, default 1). A request with neither cannot be
  bounded: with a budget it is a configuration error (``max_tokens`` is 2000 unless a
  ``generationConfig`` leaves it out, SPEC §1.4);
* **start**: a call starts when ``spent + reserved + its worst case <= cap``. When it does not fit
  now but would once the calls in flight settle (``spent + its worst case <= cap``), it waits for
  them; when even that fails (``spent`` only grows) it is refused with
  :class:`BudgetExhausted`, whose message is exactly ``budget exhausted ($5.00)``;
* **settle**: after an answer the reservation becomes the answer's cost from its ``usage``
  (an answer without a ``usage`` object is charged its full reservation); a call ending in an
  HTTP error status is charged nothing (providers bill completed answers only); a call ending in
  a timeout, a lost connection or a cancellation keeps its full reservation (the provider may
  have produced an answer that never arrived);
* one reservation covers one call with all its retries: the retries a 429 triggers are not
  billed; a timed-out attempt the openai client retries by itself (``max_retries``) may be
  billed by the provider but is not seen here — ``judge_max_retries=0`` makes the cap strict
  under timeouts too;
* cache hits reserve and spend nothing (they never reach the ledger);
* a budget needs every judge priced before anything runs (:func:`check_budget_setup`):
  an unpriced model or an injected judge (no model to price) is an error before any call;
* one :class:`Budget` is shared by every coroutine of every loop and thread of its client: state
  behind a ``threading.Lock``, waiters woken on their own loop (as :mod:`.limiter` does).
"""

from __future__ import annotations

import asyncio
import json
import math
import numbers
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from ..schema.metric import JudgeModelOptions
from .judge_errors import JudgeError
from .request import build_request
from .usage import PriceTable, cost_of

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class BudgetExhausted(JudgeError):
    """A judge call was not started: its worst case does not fit in what is left of the cap.

    ``str(err)`` is ``budget exhausted ($5.00)``: the reason of the judgements left
    ``not_evaluated``.
    """

    def __init__(self, cap_usd: float) -> None:
        super().__init__(f"budget exhausted ({dollars(cap_usd)})", kind="budget")
        self.cap_usd = cap_usd


def dollars(amount: float) -> str:
    """``$5.00``: two decimals, more when the amount needs them (``$0.0042``)."""
    text = f"{amount:.2f}"
    if float(text) != amount:
        text = f"{amount:.6g}"
    return f"${text}"


def budget_refusal(exc: BaseException | None) -> BudgetExhausted | None:
    """The :class:`BudgetExhausted` behind ``exc`` (itself or any cause in its chain)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, BudgetExhausted):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


# token bounds -----------------------------------------------------------------------------------


def input_token_bound(body: Mapping[str, Any]) -> int:
    """At least the input tokens the request can be billed: its JSON body's UTF-8 bytes (module
    rule). The one token-estimate rule of the package: a pre-flight cost estimate uses it too."""
    return len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def output_token_bound(body: Mapping[str, Any]) -> int | None:
    """At most the output tokens the request can be billed: ``max_completion_tokens`` (else
    ``max_tokens``) × ``n``; ``None`` when the request sets no limit."""
    limit = _count(body.get("max_completion_tokens")) or _count(body.get("max_tokens"))
    if limit is None:
        return None
    return limit * (_count(body.get("n")) or 1)


def _count(value: Any) -> int | None:
    """``value`` as an int when it is an integer > 0, else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value) if int(value) > 0 else None


def worst_case_cost(body: Mapping[str, Any], price_table: PriceTable) -> float:
    """The most the request can cost (module rule); a :class:`JudgeError` (``config``) when its
    model has no price or it sets no output limit."""
    model = str(body.get("model"))
    output = output_token_bound(body)
    if output is None:
        raise JudgeError(
            f"judge model {model!r}: a budget needs max_tokens (or max_completion_tokens) on "
            "every judge request, to bound its cost before it starts",
            kind="config",
        )
    cost = cost_of(model, input_token_bound(body), output, price_table)
    if cost is None:
        raise JudgeError(
            f"judge model {model!r} has no price: a budget needs every judge model in price_table",
            kind="config",
        )
    return cost


def charged_cost(response: Mapping[str, Any], cost: float | None, reserved: float) -> float:
    """What a finished call is charged: the cost of its usage, or its reservation when the
    answer carries no usage or its model has no price (module rule)."""
    if not isinstance(response.get("usage"), Mapping) or cost is None:
        return reserved
    return cost


# the check before anything runs -----------------------------------------------------------------


def checked_cap(value: Any) -> float:
    """``budget_usd`` as a float: a finite number > 0 (a ``ConfigError`` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(f"budget_usd must be a number of dollars > 0, got {value!r}")
    cap = float(value)
    if not (math.isfinite(cap) and cap > 0):
        raise ConfigError(f"budget_usd must be a finite number of dollars > 0, got {value!r}")
    return cap


def check_budget_setup(
    judge_models: Iterable[tuple[str, JudgeModelOptions | None]],
    price_table: PriceTable,
    *,
    injected: bool,
) -> None:
    """Raise a ``ConfigError`` unless every judge call of the run can be priced and bounded
    before it starts. ``judge_models``: ``(metric name, judgeModel)`` of each judge metric."""
    if injected:
        raise ConfigError(
            "budget_usd needs judge calls that can be priced before they start; an injected "
            "judge has no model to price (use judgeModel endpoints with a price_table)"
        )
    for metric_name, judge_model in judge_models:
        if judge_model is None:
            continue  # the metric fails on its own: "missing required fields in eval metric"
        try:
            body = build_request(judge_model, []).body
        except JudgeError:
            continue  # a configuration each call reports as its own failure
        model = body["model"]
        if model not in price_table:
            priced = ", ".join(repr(m) for m in price_table) or "none"
            raise ConfigError(
                f"metric {metric_name!r}: judge model {model!r} has no price, and budget_usd "
                f"needs one for every judge model (price_table={{model: (input $/1M, "
                f"output $/1M)}}; priced: {priced})"
            )
        if output_token_bound(body) is None:
            raise ConfigError(
                f"metric {metric_name!r}: judge model {model!r} sets no max_tokens in its "
                "generationConfig, and budget_usd needs one to bound each call's cost"
            )


# the ledger -------------------------------------------------------------------------------------


class Reservation:
    """The worst case held for one call until :meth:`settle` or :meth:`keep` (once)."""

    __slots__ = ("_budget", "_open", "amount")

    def __init__(self, budget: Budget, amount: float) -> None:
        self._budget = budget
        self.amount = amount
        self._open = True

    def settle(self, cost: float) -> None:
        """Replace the reservation by the call's actual ``cost``."""
        if self._open:
            self._open = False
            self._budget._settle(self.amount, cost)

    def keep(self) -> None:
        """Charge the whole reservation (the call's cost is unknown)."""
        self.settle(self.amount)


class Budget:
    """The spending ledger of one judge client (module rules), in dollars."""

    def __init__(self, cap_usd: float) -> None:
        self.cap_usd = checked_cap(cap_usd)
        self._lock = threading.Lock()
        self._spent = 0.0
        self._reserved = 0.0
        self._in_flight = 0
        self._refused = 0
        self._waiters: list[_Waiter] = []

    def __repr__(self) -> str:
        snap = self.as_dict()
        return (
            f"Budget(cap_usd={self.cap_usd}, spent_usd={snap['spent_usd']:.6g}, "
            f"reserved_usd={snap['reserved_usd']:.6g}, refused={snap['refused']})"
        )

    def as_dict(self) -> dict[str, Any]:
        """A snapshot: cap, spent, reserved (calls in flight) and refused calls."""
        with self._lock:
            return {
                "cap_usd": self.cap_usd,
                "spent_usd": self._spent,
                "reserved_usd": self._reserved,
                "in_flight": self._in_flight,
                "refused": self._refused,
            }

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def refused(self) -> int:
        with self._lock:
            return self._refused

    async def reserve(self, amount: float) -> Reservation:
        """Hold ``amount`` for one call, waiting for calls in flight when it may fit after
        them; :class:`BudgetExhausted` when it cannot fit whatever they cost."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if self._spent + self._reserved + amount <= self.cap_usd:
                    self._reserved += amount
                    self._in_flight += 1
                    return Reservation(self, amount)
                if self._spent + amount > self.cap_usd or self._in_flight == 0:
                    self._refused += 1
                    raise BudgetExhausted(self.cap_usd)
                future: asyncio.Future[None] = loop.create_future()
                entry = (loop, future)
                self._waiters.append(entry)
            try:
                await future
            finally:
                with self._lock:
                    if entry in self._waiters:
                        self._waiters.remove(entry)

    def _settle(self, reserved: float, cost: float) -> None:
        with self._lock:
            self._reserved = max(0.0, self._reserved - reserved)
            self._in_flight -= 1
            if self._in_flight == 0:
                self._reserved = 0.0  # no drift from float sums once nothing is in flight
            self._spent += max(0.0, cost)
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:  # each re-checks what is left
            if loop.is_closed():
                continue
            try:
                loop.call_soon_threadsafe(_wake, future)
            except RuntimeError:  # closed meanwhile
                continue


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
