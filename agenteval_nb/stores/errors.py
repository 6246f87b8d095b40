"""Errors raised by the eval-set, metric and result stores.

The Go managers wrap ``os.ErrNotExist`` for anything missing; here :class:`NotFoundError` is both
a :class:`KeyError` and a :class:`FileNotFoundError`, so ``except KeyError`` and
``except FileNotFoundError`` both catch it, whatever the backend. A duplicate id is an
:class:`AlreadyExistsError` (a :class:`ValueError`). Empty required ids are plain ``ValueError``.
"""

from __future__ import annotations

import errno


class NotFoundError(KeyError, FileNotFoundError):
    """An eval set, case, metric or result that does not exist (``errno`` is ``ENOENT``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.errno = errno.ENOENT
        self.strerror = message

    def __str__(self) -> str:
        # KeyError would quote the message; show it as written.
        return str(self.args[0]) if self.args else ""


class AlreadyExistsError(ValueError):
    """Creating something whose id is already taken (eval set, case, metric)."""


class StoreBackendError(RuntimeError):
    """The storage backend failed (a database that cannot be reached, a missing table …).

    The message names the operation and the store's location with any password masked; the
    driver's exception is not chained, as its text may quote the connection string.
    """


def evalset_not_found(app_name: str, eval_set_id: str) -> NotFoundError:
    return NotFoundError(f"eval set {app_name}.{eval_set_id} not found")


def evalset_exists(app_name: str, eval_set_id: str) -> AlreadyExistsError:
    return AlreadyExistsError(f"eval set {app_name}.{eval_set_id} already exists")


def case_not_found(app_name: str, eval_set_id: str, eval_id: str) -> NotFoundError:
    return NotFoundError(f"eval case {app_name}.{eval_set_id}.{eval_id} not found")


def case_exists(app_name: str, eval_set_id: str, eval_id: str) -> AlreadyExistsError:
    return AlreadyExistsError(f"eval case {app_name}.{eval_set_id}.{eval_id} already exists")


def metric_not_found(app_name: str, eval_set_id: str, name: str) -> NotFoundError:
    return NotFoundError(f"metric {app_name}.{eval_set_id}.{name} not found")


def metric_exists(app_name: str, eval_set_id: str, name: str) -> AlreadyExistsError:
    return AlreadyExistsError(f"metric {app_name}.{eval_set_id}.{name} already exists")


def result_not_found(app_name: str, eval_set_result_id: str) -> NotFoundError:
    return NotFoundError(f"eval set result {app_name}.{eval_set_result_id} not found")
