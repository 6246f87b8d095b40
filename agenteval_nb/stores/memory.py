"""In-memory stores: the file stores' rules, nothing persisted (SPEC §1.7).

Thread-safe (one re-entrant lock per store). Models go in and out as deep copies, so a caller
never shares an object with the store. Ids are listed sorted.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from ..io.reviews import Mark, merge_marks
from ..schema import EvalMetric, EvalSet, EvalSetResult
from .document import DocumentEvalSetStore, DocumentMetricStore, DocumentResultStore
from .errors import evalset_not_found, result_not_found
from .rules import Clock


class InMemoryEvalSetStore(DocumentEvalSetStore):
    """Eval sets held in a dict ``app -> eval set id -> EvalSet``.

    ``clock`` (Unix float seconds) is used for creation timestamps; default: the system clock.
    """

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self._sets: dict[str, dict[str, EvalSet]] = {}

    def _read(self, app_name: str, eval_set_id: str) -> EvalSet:
        try:
            return self._sets[app_name][eval_set_id].model_copy(deep=True)
        except KeyError:
            raise evalset_not_found(app_name, eval_set_id) from None

    def _exists(self, app_name: str, eval_set_id: str) -> bool:
        return eval_set_id in self._sets.get(app_name, {})

    def _write(self, app_name: str, eval_set_id: str, eval_set: EvalSet) -> None:
        self._sets.setdefault(app_name, {})[eval_set_id] = eval_set

    def _remove(self, app_name: str, eval_set_id: str) -> None:
        if not self._exists(app_name, eval_set_id):
            raise evalset_not_found(app_name, eval_set_id)
        del self._sets[app_name][eval_set_id]

    def _ids(self, app_name: str) -> builtins.list[str]:
        return sorted(self._sets.get(app_name, {}))


class InMemoryMetricStore(DocumentMetricStore):
    """Metric lists held in a dict ``app -> eval set id -> [EvalMetric]``.

    ``apiKey`` is kept (in memory only), so a judge can use metrics read back from here.
    """

    def __init__(self) -> None:
        super().__init__()
        self._metrics: dict[str, dict[str, list[EvalMetric]]] = {}

    def _read(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        stored = self._metrics.get(app_name, {}).get(eval_set_id, [])
        return [metric.model_copy(deep=True) for metric in stored]

    def _write(self, app_name: str, eval_set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        self._metrics.setdefault(app_name, {})[eval_set_id] = metrics


class InMemoryResultStore(DocumentResultStore):
    """Results held in a dict ``app -> result id -> EvalSetResult``; their human marks in a
    dict ``(app, result id) -> [Mark]``.

    ``clock`` (Unix float seconds) is used for the default ``creationTimestamp``.
    """

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self._results: dict[str, dict[str, EvalSetResult]] = {}
        self._marks: dict[tuple[str, str], builtins.list[Mark]] = {}

    def _read(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        try:
            return self._results[app_name][eval_set_result_id].model_copy(deep=True)
        except KeyError:
            raise result_not_found(app_name, eval_set_result_id) from None

    def _write(self, app_name: str, result: EvalSetResult) -> None:
        key = result.eval_set_result_id or ""
        self._results.setdefault(app_name, {})[key] = result

    def _ids(self, app_name: str) -> builtins.list[str]:
        return sorted(self._results.get(app_name, {}))

    def save_marks(self, app_name: str, eval_set_result_id: str, marks: Iterable[Mark]) -> None:
        key = (app_name, eval_set_result_id)
        with self._lock:
            if eval_set_result_id not in self._results.get(app_name, {}):
                raise result_not_found(app_name, eval_set_result_id)
            self._marks[key] = merge_marks(self._marks.get(key, []), marks)

    def load_marks(self, app_name: str, eval_set_result_id: str) -> builtins.list[Mark]:
        with self._lock:
            return builtins.list(self._marks.get((app_name, eval_set_result_id), []))
