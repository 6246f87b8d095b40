"""Errors raised by agenteval_nb for bad input."""

from __future__ import annotations


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
