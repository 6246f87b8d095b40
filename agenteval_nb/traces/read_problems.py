"""What an envelope reader reports instead of raising: one :class:`ReadProblem` per record or file
it could not read, collected through a :class:`Problems` sink that knows the file and line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class ReadProblem:
    """A record or file that could not be read; never an exception.

    ``where`` is the line (JSONL) and JSON path of the record,
    e.g. ``line 17: $.resourceSpans[0].scopeSpans[1].spans[3]``.
    """

    file: str | None
    """the path, or ``"<object>"`` / ``"<text>"`` for in-memory input"""
    where: str
    message: str
    """what was expected"""


@dataclass(slots=True)
class Problems:
    """The sink readers append to: it stamps every problem with the current file and line."""

    out: list[ReadProblem]
    file: str | None = None
    line: int | None = None

    def add(self, path: str, message: str) -> None:
        """Record that the value at JSON path ``path`` is not what ``message`` says was expected."""
        where = f"line {self.line}: {path}" if self.line is not None else path
        self.out.append(ReadProblem(self.file, where, message))
