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
