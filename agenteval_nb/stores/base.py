"""Store interfaces for eval sets, metrics and results (SPEC §1.7).

Callers depend on these classes only, so a backend (memory, local files, SQL) can be swapped
without touching them. Every method takes ``app_name`` first; ids are scoped by app. Rules that
hold for every implementation:

* reads return fresh models: mutating a returned model never changes the store;
* writes store a deep copy: mutating the argument afterwards never changes the store;
* something missing raises :class:`~agenteval_nb.stores.errors.NotFoundError` (a ``KeyError``
  and a ``FileNotFoundError``); a taken id raises
  :class:`~agenteval_nb.stores.errors.AlreadyExistsError` (a ``ValueError``); an empty required
  id raises ``ValueError``;
* stores are safe to share between threads;
* the SQL backends also enforce the Go tables' unique keys (no two cases of one ``evalId`` in a
  set, no two metrics of one name), see :mod:`agenteval_nb.stores.sql`.

Stores are context managers; :meth:`close` releases resources (a no-op for memory and files;
the SQL stores' connections).
"""

from __future__ import annotations

import builtins
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from ..io import CaseDetails
from ..io.reviews import Mark
from ..schema import CaseSummary, EvalCase, EvalMetric, EvalSet, EvalSetResult

CaseLike = EvalCase | Mapping[str, Any]
"""An eval case, or its wire-format dict (validated on the way in)."""
EvalSetLike = EvalSet | Mapping[str, Any]
MetricLike = EvalMetric | Mapping[str, Any]
ResultLike = EvalSetResult | Mapping[str, Any]


class _Closable:
    """``close()`` plus ``with`` support."""

    def close(self) -> None:
        """Release resources held by the store (nothing for memory or local files)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class EvalSetStore(_Closable, ABC):
    """Eval sets and their cases, per app (Go ``evalset.Manager``)."""

    @abstractmethod
    def create(self, app_name: str, eval_set_id: str) -> EvalSet:
        """Create and return an empty set; ``AlreadyExistsError`` if it exists.

        Stored: ``{evalSetId, name: evalSetId, evalCases: [], creationTimestamp: now}``.
        """

    @abstractmethod
    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The whole set (``NotFoundError`` if absent)."""

    @abstractmethod
    def list(self, app_name: str) -> builtins.list[str]:
        """Ids of the app's sets (an unknown app ⇒ ``[]``)."""

    @abstractmethod
    def delete(self, app_name: str, eval_set_id: str) -> None:
        """Remove a set (``NotFoundError`` if absent)."""

    @abstractmethod
    def save(self, app_name: str, eval_set: EvalSetLike) -> EvalSet:
        """Create or replace a whole set, keyed by its ``evalSetId``; returns the stored copy.

        ``creationTimestamp`` defaults to now and ``evalCases`` to ``[]``; cases are stored as
        given (no stamping).
        """

    @abstractmethod
    def get_case(self, app_name: str, eval_set_id: str, eval_id: str) -> EvalCase:
        """The first case with ``eval_id`` (``NotFoundError`` if the set or case is absent)."""

    @abstractmethod
    def add_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> EvalCase:
        """Append a copy of ``case``; returns the stored copy.

        An empty ``evalId`` ⇒ ``ValueError``; a taken one ⇒ ``AlreadyExistsError``; a missing set
        ⇒ ``NotFoundError``. ``creationTimestamp`` (now, float seconds) is set on the case and on
        every ``conversation`` / ``actualConversation`` invocation that has none.
        """

    @abstractmethod
    def update_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> None:
        """Replace the case with the same ``evalId`` in place, as given (no stamping).

        ``NotFoundError`` if the set or the case is absent.
        """

    @abstractmethod
    def delete_case(self, app_name: str, eval_set_id: str, eval_id: str) -> None:
        """Remove the case (``NotFoundError`` if the set or the case is absent)."""


class MetricStore(_Closable, ABC):
    """The metrics of each eval set, an ordered list (Go ``metric.Manager``).

    Names are unique by convention only: a list saved whole may repeat one, and lookups then
    use the first.
    """

    @abstractmethod
    def list(self, app_name: str, eval_set_id: str) -> builtins.list[str]:
        """Metric names in stored order (no metrics stored ⇒ ``[]``)."""

    @abstractmethod
    def get(self, app_name: str, eval_set_id: str, metric_name: str) -> EvalMetric:
        """The first metric named ``metric_name`` (``NotFoundError`` if none)."""

    @abstractmethod
    def get_all(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        """All metrics in stored order (none stored ⇒ ``[]``)."""

    @abstractmethod
    def add(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        """Append a metric; a name already present ⇒ ``AlreadyExistsError``."""

    @abstractmethod
    def update(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        """Replace the first metric with the same name (``NotFoundError`` if none)."""

    @abstractmethod
    def delete(self, app_name: str, eval_set_id: str, metric_name: str) -> None:
        """Remove the first metric with that name (``NotFoundError`` if none)."""

    @abstractmethod
    def save_all(self, app_name: str, eval_set_id: str, metrics: Iterable[MetricLike]) -> None:
        """Replace the whole list, order kept (duplicates are not checked)."""


class ResultStore(_Closable, ABC):
    """Eval set results, per app (Go ``evalresult.Manager``)."""

    @abstractmethod
    def save(self, app_name: str, result: ResultLike) -> str:
        """Store a copy of ``result`` and return its id.

        ``app_name`` and ``evalSetId`` are required (``ValueError``). An empty
        ``evalSetResultId`` becomes ``"<app>_<evalSetId>_<uuid4>"``; ``evalSetResultName``
        defaults to the id and ``creationTimestamp`` to now. An existing id is overwritten.
        """

    def save_texts(
        self,
        app_name: str,
        head: EvalSetResult,
        cases: CaseDetails,
        case_summaries: Iterable[CaseSummary | dict[str, Any]] | None = None,
    ) -> str:
        """:meth:`save` of a result given as its ``head`` (no case results; its summary
        without case summaries when ``case_summaries`` supplies them, as wire dicts or models)
        and its case results as file texts — how a streamed run is stored.

        This default decodes them into one model for :meth:`save`; a store that keeps file
        text (local files) writes the texts as they are.
        """
        update: dict[str, Any] = {"eval_case_results": list(cases)}
        if case_summaries is not None and head.summary is not None:
            summaries = [CaseSummary.model_validate(s) for s in case_summaries]
            update["summary"] = head.summary.model_copy(update={"eval_case_summaries": summaries})
        return self.save(app_name, head.model_copy(update=update))

    @abstractmethod
    def get(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        """The result (``NotFoundError`` if absent)."""

    @abstractmethod
    def list(self, app_name: str) -> builtins.list[str]:
        """Ids of the app's results (an unknown app ⇒ ``[]``)."""

    def list_results(self, app_name: str) -> builtins.list[str]:
        """:meth:`list` under a name that says what is listed."""
        return self.list(app_name)

    @abstractmethod
    def save_marks(self, app_name: str, eval_set_result_id: str, marks: Iterable[Mark]) -> None:
        """Keep human marks of the stored result (``NotFoundError`` if it is absent).

        One mark per key (:attr:`~agenteval_nb.io.reviews.Mark.key`): a mark replaces the
        kept one only when its timestamp is not earlier
        (:func:`~agenteval_nb.io.reviews.merge_marks`), decided per mark in one locked
        read-merge-write, so concurrent writers never lose each other's marks.
        """

    @abstractmethod
    def load_marks(self, app_name: str, eval_set_result_id: str) -> builtins.list[Mark]:
        """The marks kept for the result, sorted by key (none kept ⇒ ``[]``)."""


@dataclass(frozen=True)
class StoredResult:
    """Where a result sits in a result store: the store, the app and the result id."""

    store: ResultStore
    app_name: str
    result_id: str
