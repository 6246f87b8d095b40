"""Local-file stores, the layout the Go framework reads and writes (SPEC §1.7).

Files: ``<base_dir>/<app>/<evalSetId>.evalset.json``, ``<evalSetId>.metrics.json`` (the metrics
of that eval set, a JSON array) and ``<evalSetResultId>.evalset_result.json``; the
:class:`~agenteval_nb.stores.locator.Locator` can change the paths. Writes are atomic (temp file
in the same folder, then rename) and use the Go encoding of :func:`agenteval_nb.io.dumps`, so
``apiKey`` is never written. Reads parse the file anew, so every returned model is fresh.

Locking is process-local: all local stores of one process whose ``base_dir`` resolves to the same
folder share one re-entrant lock, so a read-modify-write such as ``add_case`` never loses an
update made from another thread. Other processes are not coordinated.
"""

from __future__ import annotations

import builtins
import os
import threading
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from .. import io
from ..errors import FormatError
from ..io.reviews import Mark, read_marks, review_path, write_marks
from ..schema import CaseSummary, EvalMetric, EvalSet, EvalSetResult
from . import rules
from .document import DocumentEvalSetStore, DocumentMetricStore, DocumentResultStore
from .errors import NotFoundError
from .locator import (
    EVALSET_SUFFIX,
    METRICS_SUFFIX,
    RESULT_SUFFIX,
    Locator,
    SuffixLocator,
    inside,
    safe_name,
)
from .rules import Clock

T = TypeVar("T")

_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def _folder_lock(base_dir: Path) -> threading.RLock:
    """The lock shared by every local store of this process on ``base_dir``."""
    key = base_dir.resolve()
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.RLock())


def _load(path: Path, loader: Callable[[Path], T], what: str) -> T:
    """``loader(path)``; a missing file ⇒ ``NotFoundError``, a malformed one ⇒ ``FormatError``."""
    if not path.exists():
        raise NotFoundError(f"{what} not found: {path}")
    try:
        return loader(path)
    except FormatError:
        if not path.exists():  # removed by another process meanwhile
            raise NotFoundError(f"{what} not found: {path}") from None
        raise


class _LocalFiles:
    """Base folder, locator and path building shared by the three local stores."""

    base_dir: Path
    locator: Locator

    def _setup(
        self, base_dir: str | os.PathLike[str], locator: Locator | None, suffix: str
    ) -> None:
        self.base_dir = Path(base_dir)
        self.locator = locator if locator is not None else SuffixLocator(suffix)

    def path(self, app_name: str, item_id: str) -> Path:
        """The file of ``item_id`` (an eval set id or a result id) in ``app_name``.

        ``ValueError`` when the locator builds a path outside ``base_dir`` (the default locator
        never does: names are made safe by :func:`~agenteval_nb.stores.locator.safe_name`).
        """
        built = Path(self.locator.build(self.base_dir, app_name, item_id))
        if not inside(self.base_dir, built):
            raise ValueError(f"{built} is outside the store folder {self.base_dir.resolve()}")
        return built

    def _target(self, app_name: str, item_id: str) -> Path:
        """:meth:`path` for a write; warns when a name had to be escaped to be a file name."""
        path = self.path(app_name, item_id)
        if isinstance(self.locator, SuffixLocator):
            for what, value in (("app name", app_name), ("id", item_id)):
                if safe_name(value) != value:
                    warnings.warn(
                        f"{what} {value!r} is not a safe file name; stored as "
                        f"{safe_name(value)!r} (listed back as the original)",
                        stacklevel=4,
                    )
        return path

    def _list(self, app_name: str) -> builtins.list[str]:
        return builtins.list(self.locator.list(self.base_dir, app_name))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_dir={str(self.base_dir)!r}, locator={self.locator!r})"


class LocalEvalSetStore(_LocalFiles, DocumentEvalSetStore):
    """Eval sets as ``<base_dir>/<app>/<evalSetId>.evalset.json`` files.

    ``clock`` (Unix float seconds) is used for creation timestamps; default: the system clock.
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str] = ".",
        *,
        locator: Locator | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._setup(base_dir, locator, EVALSET_SUFFIX)
        DocumentEvalSetStore.__init__(self, lock=_folder_lock(self.base_dir), clock=clock)

    def _read(self, app_name: str, eval_set_id: str) -> EvalSet:
        return _load(self.path(app_name, eval_set_id), io.load_evalset, "eval set")

    def _exists(self, app_name: str, eval_set_id: str) -> bool:
        return self.path(app_name, eval_set_id).exists()

    def _write(self, app_name: str, eval_set_id: str, eval_set: EvalSet) -> None:
        io.write_text_atomic(self._target(app_name, eval_set_id), io.dumps(eval_set))

    def _remove(self, app_name: str, eval_set_id: str) -> None:
        path = self.path(app_name, eval_set_id)
        try:
            path.unlink()
        except FileNotFoundError:
            raise NotFoundError(f"eval set not found: {path}") from None

    def _ids(self, app_name: str) -> builtins.list[str]:
        return self._list(app_name)


class LocalMetricStore(_LocalFiles, DocumentMetricStore):
    """Metrics as ``<base_dir>/<app>/<evalSetId>.metrics.json`` (a JSON array per eval set).

    ``apiKey`` is dropped on write, so metrics read back carry none; ``${VAR}`` references in
    ``judgeModel`` are expanded when the file is read.
    """

    def __init__(
        self, base_dir: str | os.PathLike[str] = ".", *, locator: Locator | None = None
    ) -> None:
        self._setup(base_dir, locator, METRICS_SUFFIX)
        DocumentMetricStore.__init__(self, lock=_folder_lock(self.base_dir))

    def _read(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        try:
            return _load(self.path(app_name, eval_set_id), io.load_metrics, "metrics file")
        except NotFoundError:
            return []

    def _write(self, app_name: str, eval_set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        io.write_text_atomic(self._target(app_name, eval_set_id), io.dumps(builtins.list(metrics)))


class LocalResultStore(_LocalFiles, DocumentResultStore):
    """Results as ``<base_dir>/<app>/<evalSetResultId>.evalset_result.json`` files; the human
    marks of a result in the review file beside it (``….evalset_result.review.json``, see
    :mod:`agenteval_nb.io.reviews`: locked across processes), where ``ae.load_run(path)`` of
    the result file finds them too.

    Also reads the legacy form whose whole content is a JSON string holding the result.
    ``clock`` (Unix float seconds) is used for the default ``creationTimestamp``.
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str] = ".",
        *,
        locator: Locator | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._setup(base_dir, locator, RESULT_SUFFIX)
        DocumentResultStore.__init__(self, lock=_folder_lock(self.base_dir), clock=clock)

    def _read(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        path = self.path(app_name, eval_set_result_id)
        return _load(path, io.load_result, "eval set result")

    def _write(self, app_name: str, result: EvalSetResult) -> None:
        result_id = result.eval_set_result_id or ""
        io.write_text_atomic(self._target(app_name, result_id), io.dumps(result))

    def save_texts(
        self,
        app_name: str,
        head: EvalSetResult,
        cases: io.CaseDetails,
        case_summaries: Iterable[CaseSummary | dict[str, Any]] | None = None,
    ) -> str:
        """Write the case texts as they are (the bytes :meth:`save` of the whole model
        writes), with the defaults of :meth:`save` applied to ``head``."""
        stored = rules.prepare_result(app_name, head, self._clock)
        result_id = rules.require(stored.eval_set_result_id, "eval set result id")
        with self._lock:
            io.save_details(stored, cases, self._target(app_name, result_id), case_summaries)
        return result_id

    def _ids(self, app_name: str) -> builtins.list[str]:
        return self._list(app_name)

    def save_marks(self, app_name: str, eval_set_result_id: str, marks: Iterable[Mark]) -> None:
        path = self.path(app_name, eval_set_result_id)
        if not path.exists():
            raise NotFoundError(f"eval set result not found: {path}")
        write_marks(review_path(path), marks)

    def load_marks(self, app_name: str, eval_set_result_id: str) -> builtins.list[Mark]:
        return read_marks(review_path(self.path(app_name, eval_set_result_id)))
