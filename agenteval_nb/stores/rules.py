"""Id, timestamp and validation rules shared by every store backend (SPEC §1.7).

Each helper takes the caller's model (or wire dict) and returns a new model the store may keep:
the caller's object is never modified and never stored.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from ..schema import EvalCase, EvalMetric, EvalSet, EvalSetResult

Clock = Callable[[], float]
"""Returns the current Unix time in float seconds."""

M = TypeVar("M", bound=BaseModel)


def system_clock() -> float:
    """Now as Unix float seconds (``UnixNano / 1e9``, like the Go EpochTime)."""
    return time.time_ns() / 1e9


def require(value: str | None, what: str) -> str:
    """``value`` if non-empty, else ``ValueError("<what> is empty")``."""
    if not value:
        raise ValueError(f"{what} is empty")
    return value


def copy_in(value: M | Mapping[str, Any], model: type[M]) -> M:
    """A private deep copy of ``value``; a dict is validated as the wire format of ``model``."""
    if isinstance(value, model):
        return value.model_copy(deep=True)
    if isinstance(value, Mapping):
        return model.model_validate(dict(value))
    raise TypeError(f"expected {model.__name__} or a dict, got {type(value).__name__}")


def new_evalset(eval_set_id: str, clock: Clock) -> EvalSet:
    """The set written by ``create``: name = id, no cases, created now."""
    return EvalSet.model_validate(
        {
            "evalSetId": eval_set_id,
            "name": eval_set_id,
            "evalCases": [],
            "creationTimestamp": clock(),
        }
    )


def prepare_evalset(eval_set: EvalSet | Mapping[str, Any], clock: Clock) -> EvalSet:
    """Copy for ``save``: ``evalSetId`` required, ``evalCases`` ⇒ ``[]``, timestamp ⇒ now."""
    stored = copy_in(eval_set, EvalSet)
    require(stored.eval_set_id, "eval set id")
    if stored.eval_cases is None:
        stored.eval_cases = []
    if stored.creation_timestamp is None:
        stored.creation_timestamp = clock()
    return stored


def prepare_new_case(case: EvalCase | Mapping[str, Any], clock: Clock) -> EvalCase:
    """Copy for ``add_case``: ``evalId`` required; missing timestamps stamped.

    The case and every invocation of ``conversation`` and ``actualConversation`` whose
    ``creationTimestamp`` is absent get the same "now". A present value (even ``0``) is kept.
    """
    stored = copy_in(case, EvalCase)
    require(stored.eval_id, "eval case id")
    now = clock()
    if stored.creation_timestamp is None:
        stored.creation_timestamp = now
    for turns in (stored.conversation, stored.actual_conversation):
        for invocation in turns or ():
            if invocation.creation_timestamp is None:
                invocation.creation_timestamp = now
    return stored


def prepare_case_update(case: EvalCase | Mapping[str, Any]) -> EvalCase:
    """Copy for ``update_case``: ``evalId`` required, nothing stamped."""
    stored = copy_in(case, EvalCase)
    require(stored.eval_id, "eval case id")
    return stored


def prepare_metric(metric: EvalMetric | Mapping[str, Any]) -> EvalMetric:
    """Copy for ``add`` / ``update``: ``metricName`` required."""
    stored = copy_in(metric, EvalMetric)
    require(stored.metric_name, "metric name")
    return stored


def new_result_id(app_name: str, eval_set_id: str) -> str:
    """``"<app>_<evalSetId>_<uuid4>"``."""
    return f"{app_name}_{eval_set_id}_{uuid.uuid4()}"


def prepare_result(
    app_name: str, result: EvalSetResult | Mapping[str, Any], clock: Clock
) -> EvalSetResult:
    """Copy for ``save`` with the id, name and timestamp defaults applied.

    ``app_name`` and ``evalSetId`` are required. Empty ``evalSetResultId`` ⇒ a new id (see
    :func:`new_result_id`); empty ``evalSetResultName`` ⇒ the id; absent ``creationTimestamp``
    ⇒ now.
    """
    require(app_name, "app name")
    stored = copy_in(result, EvalSetResult)
    eval_set_id = require(stored.eval_set_id, "eval set id")
    if not stored.eval_set_result_id:
        stored.eval_set_result_id = new_result_id(app_name, eval_set_id)
    if not stored.eval_set_result_name:
        stored.eval_set_result_name = stored.eval_set_result_id
    if stored.creation_timestamp is None:
        stored.creation_timestamp = clock()
    return stored
