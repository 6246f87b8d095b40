"""Stores built on whole-document primitives: read a document, write it back.

The memory and local-file backends keep one document per eval set (the set with its cases),
per eval set's metrics (an ordered list) and per result; they only implement ``_read`` /
``_write`` / ``_remove`` / ``_ids``. Every public operation runs under the store's lock, so a
read-modify-write (``add_case``, ``add`` …) is atomic with respect to other threads using the
same lock. ``_read`` must return a model the caller may modify; ``_write`` receives a model the
store may keep. A result store also implements ``save_marks`` / ``load_marks`` (where each
backend keeps human marks differs: a dict, a review file).
"""

from __future__ import annotations

import builtins
import threading
from abc import abstractmethod
from collections.abc import Iterable

from ..schema import EvalCase, EvalMetric, EvalSet, EvalSetResult
from . import rules
from .base import (
    CaseLike,
    EvalSetLike,
    EvalSetStore,
    MetricLike,
    MetricStore,
    ResultLike,
    ResultStore,
)
from .errors import (
    case_exists,
    case_not_found,
    evalset_exists,
    metric_exists,
    metric_not_found,
)


class _Locked:
    """Holds the lock (shared by every operation) and the clock of a store."""

    def __init__(self, lock: threading.RLock | None = None, clock: rules.Clock | None = None):
        self._lock = lock if lock is not None else threading.RLock()
        self._clock = clock if clock is not None else rules.system_clock


def _case_index(eval_set: EvalSet, eval_id: str) -> int | None:
    for i, case in enumerate(eval_set.eval_cases or ()):
        if case.eval_id == eval_id:
            return i
    return None


class DocumentEvalSetStore(_Locked, EvalSetStore):
    """:class:`EvalSetStore` over one document per eval set."""

    @abstractmethod
    def _read(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The stored set (``NotFoundError`` if absent)."""

    @abstractmethod
    def _exists(self, app_name: str, eval_set_id: str) -> bool:
        """Whether a set is stored under this id."""

    @abstractmethod
    def _write(self, app_name: str, eval_set_id: str, eval_set: EvalSet) -> None:
        """Store ``eval_set`` under ``eval_set_id``, replacing any previous one."""

    @abstractmethod
    def _remove(self, app_name: str, eval_set_id: str) -> None:
        """Drop a stored set (``NotFoundError`` if absent)."""

    @abstractmethod
    def _ids(self, app_name: str) -> builtins.list[str]:
        """Ids of the stored sets of an app."""

    def create(self, app_name: str, eval_set_id: str) -> EvalSet:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        with self._lock:
            if self._exists(app_name, eval_set_id):
                raise evalset_exists(app_name, eval_set_id)
            eval_set = rules.new_evalset(eval_set_id, self._clock)
            self._write(app_name, eval_set_id, eval_set.model_copy(deep=True))
        return eval_set

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        with self._lock:
            return self._read(app_name, eval_set_id)

    def list(self, app_name: str) -> builtins.list[str]:
        rules.require(app_name, "app name")
        with self._lock:
            return self._ids(app_name)

    def delete(self, app_name: str, eval_set_id: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        with self._lock:
            self._remove(app_name, eval_set_id)

    def save(self, app_name: str, eval_set: EvalSetLike) -> EvalSet:
        rules.require(app_name, "app name")
        stored = rules.prepare_evalset(eval_set, self._clock)
        with self._lock:
            self._write(app_name, stored.eval_set_id, stored.model_copy(deep=True))
        return stored

    def get_case(self, app_name: str, eval_set_id: str, eval_id: str) -> EvalCase:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(eval_id, "eval case id")
        with self._lock:
            eval_set = self._read(app_name, eval_set_id)
        index = _case_index(eval_set, eval_id)
        if index is None:
            raise case_not_found(app_name, eval_set_id, eval_id)
        return (eval_set.eval_cases or [])[index]

    def add_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> EvalCase:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_new_case(case, self._clock)
        with self._lock:
            eval_set = self._read(app_name, eval_set_id)
            if _case_index(eval_set, stored.eval_id) is not None:
                raise case_exists(app_name, eval_set_id, stored.eval_id)
            eval_set.eval_cases = [*(eval_set.eval_cases or []), stored.model_copy(deep=True)]
            self._write(app_name, eval_set_id, eval_set)
        return stored

    def update_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_case_update(case)
        with self._lock:
            eval_set = self._read(app_name, eval_set_id)
            index = _case_index(eval_set, stored.eval_id)
            if index is None:
                raise case_not_found(app_name, eval_set_id, stored.eval_id)
            cases = list(eval_set.eval_cases or [])
            cases[index] = stored
            eval_set.eval_cases = cases
            self._write(app_name, eval_set_id, eval_set)

    def delete_case(self, app_name: str, eval_set_id: str, eval_id: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(eval_id, "eval case id")
        with self._lock:
            eval_set = self._read(app_name, eval_set_id)
            index = _case_index(eval_set, eval_id)
            if index is None:
                raise case_not_found(app_name, eval_set_id, eval_id)
            cases = list(eval_set.eval_cases or [])
            del cases[index]
            eval_set.eval_cases = cases
            self._write(app_name, eval_set_id, eval_set)


def _metric_index(metrics: builtins.list[EvalMetric], name: str) -> int | None:
    for i, metric in enumerate(metrics):
        if metric.metric_name == name:
            return i
    return None


class DocumentMetricStore(_Locked, MetricStore):
    """:class:`MetricStore` over one ordered list per eval set."""

    @abstractmethod
    def _read(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        """The stored list (``[]`` if nothing is stored)."""

    @abstractmethod
    def _write(self, app_name: str, eval_set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        """Replace the stored list."""

    def list(self, app_name: str, eval_set_id: str) -> builtins.list[str]:
        return [metric.metric_name for metric in self.get_all(app_name, eval_set_id)]

    def get(self, app_name: str, eval_set_id: str, metric_name: str) -> EvalMetric:
        rules.require(metric_name, "metric name")
        metrics = self.get_all(app_name, eval_set_id)
        index = _metric_index(metrics, metric_name)
        if index is None:
            raise metric_not_found(app_name, eval_set_id, metric_name)
        return metrics[index]

    def get_all(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        with self._lock:
            return self._read(app_name, eval_set_id)

    def add(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_metric(metric)
        with self._lock:
            metrics = self._read(app_name, eval_set_id)
            if _metric_index(metrics, stored.metric_name) is not None:
                raise metric_exists(app_name, eval_set_id, stored.metric_name)
            self._write(app_name, eval_set_id, [*metrics, stored])

    def update(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_metric(metric)
        with self._lock:
            metrics = self._read(app_name, eval_set_id)
            index = _metric_index(metrics, stored.metric_name)
            if index is None:
                raise metric_not_found(app_name, eval_set_id, stored.metric_name)
            metrics[index] = stored
            self._write(app_name, eval_set_id, metrics)

    def delete(self, app_name: str, eval_set_id: str, metric_name: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(metric_name, "metric name")
        with self._lock:
            metrics = self._read(app_name, eval_set_id)
            index = _metric_index(metrics, metric_name)
            if index is None:
                raise metric_not_found(app_name, eval_set_id, metric_name)
            del metrics[index]
            self._write(app_name, eval_set_id, metrics)

    def save_all(self, app_name: str, eval_set_id: str, metrics: Iterable[MetricLike]) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = [rules.copy_in(metric, EvalMetric) for metric in metrics]
        with self._lock:
            self._write(app_name, eval_set_id, stored)


class DocumentResultStore(_Locked, ResultStore):
    """:class:`ResultStore` over one document per result."""

    @abstractmethod
    def _read(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        """The stored result (``NotFoundError`` if absent)."""

    @abstractmethod
    def _write(self, app_name: str, result: EvalSetResult) -> None:
        """Store ``result`` under its ``evalSetResultId``, replacing any previous one."""

    @abstractmethod
    def _ids(self, app_name: str) -> builtins.list[str]:
        """Ids of the stored results of an app."""

    def save(self, app_name: str, result: ResultLike) -> str:
        stored = rules.prepare_result(app_name, result, self._clock)
        result_id = rules.require(stored.eval_set_result_id, "eval set result id")
        with self._lock:
            self._write(app_name, stored)
        return result_id

    def get(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        rules.require(app_name, "app name")
        rules.require(eval_set_result_id, "eval set result id")
        with self._lock:
            return self._read(app_name, eval_set_result_id)

    def list(self, app_name: str) -> builtins.list[str]:
        rules.require(app_name, "app name")
        with self._lock:
            return self._ids(app_name)
