"""Errors raised by agenteval_nb for bad input, and the one safe description of any exception.

Rules for exceptions raised by user code (agents, tools, user simulators, judges):

* :func:`describe_exception` is the text an error message shows: ``<Type>: <message>``, or
  ``<Type>`` when the message is empty; it never raises, even when the exception's ``__str__``
  does (the message then says so);
* :func:`is_interrupt` tells what must stop the whole run — ``KeyboardInterrupt`` and the
  cancellation of the running task; anything else user code raises (``SystemExit``,
  ``GeneratorExit`` and other ``BaseException`` subclasses included) fails only the case it
  ran for.

This module imports nothing from the package, so every layer can use it.
"""

from __future__ import annotations

import asyncio


class FormatError(ValueError):
    """A file or document does not have the expected shape.

    The message names the source (a file path, or ``<text>`` / ``<object>`` for in-memory input),
    the JSON path of the offending value (``$.evalCases[1].evalId``) and what was expected.
    """

    def __init__(self, source: str, json_path: str, expected: str, *, line: int | None = None):
        self.source = source
        self.json_path = json_path
        self.expected = expected
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {json_path}: {expected}")


class ConfigError(ValueError):
    """A configuration value is invalid (bad option, unknown name)."""


def exception_type_name(exc: BaseException) -> str:
    """The exception's class name (``"BaseException"`` if even that cannot be read)."""
    try:
        return str(type(exc).__name__)
    except Exception:
        return "BaseException"


def exception_message(exc: BaseException) -> str:
    """``str(exc)`` stripped; when ``str`` itself raises, a note naming what it raised."""
    try:
        return str(exc).strip()
    except BaseException as failure:
        if isinstance(failure, KeyboardInterrupt):
            raise
        return f"<str() of the exception raised {exception_type_name(failure)}>"


def describe_exception(exc: BaseException) -> str:
    """``<Type>: <message>``, or ``<Type>`` for an empty message; never raises."""
    message = exception_message(exc)
    name = exception_type_name(exc)
    return f"{name}: {message}" if message else name


def is_interrupt(exc: BaseException) -> bool:
    """True when ``exc`` must stop the run: ``KeyboardInterrupt``, or ``CancelledError`` while
    the current task is being cancelled (a timeout, Ctrl-C). A ``CancelledError`` user code
    raises on its own is an ordinary failure."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if not isinstance(exc, asyncio.CancelledError):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return True
    return task is None or task.cancelling() > 0
