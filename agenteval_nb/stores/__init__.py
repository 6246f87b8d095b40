"""Eval-set, metric and result stores (SPEC §1.7): interfaces, in-memory and local-file backends.

Callers type against :class:`EvalSetStore`, :class:`MetricStore` and :class:`ResultStore`; pick a
backend with ``InMemory*Store()`` or ``Local*Store(base_dir)``.
"""

from .base import EvalSetStore, MetricStore, ResultStore
from .document import DocumentEvalSetStore, DocumentMetricStore, DocumentResultStore
from .errors import AlreadyExistsError, NotFoundError
from .local import LocalEvalSetStore, LocalMetricStore, LocalResultStore
from .locator import EVALSET_SUFFIX, METRICS_SUFFIX, RESULT_SUFFIX, Locator, SuffixLocator
from .memory import InMemoryEvalSetStore, InMemoryMetricStore, InMemoryResultStore
from .rules import new_result_id

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
    "SuffixLocator",
    "new_result_id",
]
