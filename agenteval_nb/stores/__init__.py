"""Eval-set, metric and result stores (SPEC §1.7): interfaces; memory, local-file, SQL backends.

Callers type against :class:`EvalSetStore`, :class:`MetricStore` and :class:`ResultStore`; pick a
backend with ``InMemory*Store()``, ``Local*Store(base_dir)`` or ``SQL*Store(url)``
(``sqlite:///evals.db``, ``mysql+pymysql://user:pw@host/db``: the trpc-agent-go MySQL tables).
"""

from .base import EvalSetStore, MetricStore, ResultStore, StoredResult
from .document import DocumentEvalSetStore, DocumentMetricStore, DocumentResultStore
from .errors import AlreadyExistsError, NotFoundError, StoreBackendError
from .local import LocalEvalSetStore, LocalMetricStore, LocalResultStore
from .locator import EVALSET_SUFFIX, METRICS_SUFFIX, RESULT_SUFFIX, Locator, SuffixLocator
from .memory import InMemoryEvalSetStore, InMemoryMetricStore, InMemoryResultStore
from .rules import new_result_id
from .sql import SQLEvalSetStore, SQLMetricStore, SQLResultStore

__all__ = [
    "EVALSET_SUFFIX",
    "METRICS_SUFFIX",
    "RESULT_SUFFIX",
    "AlreadyExistsError",
    "DocumentEvalSetStore",
    "DocumentMetricStore",
    "DocumentResultStore",
    "EvalSetStore",
    "InMemoryEvalSetStore",
    "InMemoryMetricStore",
    "InMemoryResultStore",
    "LocalEvalSetStore",
    "LocalMetricStore",
    "LocalResultStore",
    "Locator",
    "MetricStore",
    "NotFoundError",
    "ResultStore",
    "SQLEvalSetStore",
    "SQLMetricStore",
    "SQLResultStore",
    "StoreBackendError",
    "StoredResult",
    "SuffixLocator",
    "new_result_id",
]
