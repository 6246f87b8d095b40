"""Callbacks at the eight points of an evaluation (SPEC §8.5).

Each point holds named callbacks run in registration order. A callback receives a
:class:`CallbackEvent`; it may be sync or async. ``event.state`` is one dict shared by every
callback of a run (the reference propagates a context the same way). The first exception stops
that point and is reported as ``<Point> callback[<idx>] (<name>): <error>``.

What a callback error does: Before/AfterInferenceCase ⇒ that case's inference fails;
every other point ⇒ the whole evaluation fails with
:class:`~agenteval_nb.engine.phases.EvaluationError` ``run <id> inference|evaluate: <error>``
(caused by the :class:`CallbackError`). AfterInferenceSet and BeforeEvaluateSet make a run
infer every case before it evaluates any (:mod:`agenteval_nb.engine.run`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class CallbackPoint(StrEnum):
    BEFORE_INFERENCE_SET = "BeforeInferenceSet"
    AFTER_INFERENCE_SET = "AfterInferenceSet"
    BEFORE_INFERENCE_CASE = "BeforeInferenceCase"
    AFTER_INFERENCE_CASE = "AfterInferenceCase"
    BEFORE_EVALUATE_SET = "BeforeEvaluateSet"
    AFTER_EVALUATE_SET = "AfterEvaluateSet"
    BEFORE_EVALUATE_CASE = "BeforeEvaluateCase"
    AFTER_EVALUATE_CASE = "AfterEvaluateCase"


@dataclass(slots=True)
class CallbackEvent:
    """What a callback sees. ``result`` is set on After* points; ``error`` when the stage failed."""

    point: CallbackPoint
    app_name: str
    eval_set_id: str
    run_id: int
    state: dict[str, Any]
    eval_case_id: str | None = None
    result: Any = None
    error: str | None = None


Callback = Callable[[CallbackEvent], Awaitable[None] | None]


class CallbackError(RuntimeError):
    """A callback raised; the message names the point, index and callback name."""


@dataclass
class Callbacks:
    """Named callbacks per point; register with :meth:`register` or the ``before_*`` helpers."""

    _points: dict[CallbackPoint, list[tuple[str, Callback]]] = field(default_factory=dict)

    def register(
        self, point: CallbackPoint | str, fn: Callback, name: str | None = None
    ) -> Callbacks:
        point = CallbackPoint(point)
        label = name or str(getattr(fn, "__name__", "callback"))
        self._points.setdefault(point, []).append((label, fn))
        return self

    def __bool__(self) -> bool:
        return any(self._points.values())

    def has(self, point: CallbackPoint | str) -> bool:
        """True when at least one callback is registered at ``point``."""
        return bool(self._points.get(CallbackPoint(point)))

    async def fire(self, event: CallbackEvent) -> None:
        """Run the callbacks of ``event.point``; the first failure raises :class:`CallbackError`."""
        for index, (name, fn) in enumerate(self._points.get(event.point, ())):
            try:
                outcome = fn(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:
                raise CallbackError(
                    f"{event.point.value} callback[{index}] ({name}): {exc}"
                ) from exc
