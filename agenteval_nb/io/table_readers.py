"""Tables read as rows: CSV, JSONL and Parquet files, pandas / polars frames, ``datasets``
splits; and the doors that make them eval sets by the row rules of
:mod:`~agenteval_nb.io.table_rows`.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import re
import struct
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import FormatError
from ..schema import EvalSet
from .decoding import decode_text
from .documents import preview
from .table_rows import all_keys, evalset_from_rows

TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")
"""File suffixes read as tables by :func:`~agenteval_nb.io.loaders.load_evalset`."""


def rows_of(table: Any) -> tuple[Iterable[Mapping[str, Any]], list[str]]:
    """Rows and columns of a polars or pandas frame, a ``datasets`` split, or rows (mappings)."""
    if hasattr(table, "to_dicts") and hasattr(table, "columns"):  # polars
        return table.to_dicts(), list(table.columns)
    if hasattr(table, "to_dict") and hasattr(table, "columns"):  # pandas
        return table.to_dict("records"), [str(c) for c in table.columns]
    names = getattr(table, "column_names", None)  # datasets.Dataset / IterableDataset
    rows = list(table)
    if names is None:
        names = all_keys(rows)
    return rows, list(names)


def read_table(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and columns of a CSV (every cell text, an empty cell missing), JSONL (one object a
    line, blank lines skipped) or Parquet file; a file that cannot be read is a
    :class:`FormatError` naming it (and the row or line)."""
    file = Path(path)
    where = str(path)
    if not file.is_file():
        raise FormatError(where, "$", "file not found")
    if file.suffix.lower() == ".parquet":
        try:
            frame = pl.read_parquet(file)
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise FormatError(where, "$", f"a Parquet file ({exc})") from None
        return frame.to_dicts(), list(frame.columns)
    try:
        with file.open(encoding="utf-8-sig", newline="") as handle:  # line ends kept
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise FormatError(where, "$", f"UTF-8 text ({exc.reason})") from None
    if file.suffix.lower() == ".csv":
        return csv_rows(text, where)
    return jsonl_rows(text, where)


# ----------------------------------------------------------------------------------- CSV

CSV_CELL_CAP = 2 ** (8 * struct.calcsize("l") - 1) - 1
"""The longest CSV cell read, in characters: the ``csv`` module takes its field limit as a C
``long`` (2**63 - 1 on 64-bit Linux and macOS, 2**31 - 1 on Windows)."""

_CSV_LIMIT = threading.Lock()
"""Held while this module raises the ``csv`` module's process-wide field limit."""


def csv_rows(text: str, where: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and columns of CSV text (the ``excel`` dialect): records end at ``\\n``, ``\\r``
    or ``\\r\\n`` outside quotes; a quoted cell keeps its line breaks and every other
    character; blank lines are skipped.

    Any cell the text holds loads: the ``csv`` module's field limit (128 KiB by default) is
    raised to the text's length for the read and restored after (:func:`_cells_up_to`). A cell
    longer than :data:`CSV_CELL_CAP` remains too long: a :class:`FormatError` naming the row,
    the column and the cap, as is any other record the ``csv`` module refuses."""
    rows: list[dict[str, Any]] = []
    names: list[str] | None = None
    with _cells_up_to(len(text) + 1) as limit:
        reader = csv.reader(io.StringIO(text, newline=""))
        last_line = 0
        try:
            names = next(reader, [])
            last_line = reader.line_num
            for cells in reader:
                if cells:
                    rows.append(_csv_row(cells, names, where, len(rows) + 1))
                last_line = reader.line_num
        except csv.Error as exc:
            lines = (last_line, reader.line_num)
            raise _csv_error(text, where, lines, names, len(rows), limit, exc) from None
    return rows, names


def _csv_row(cells: list[str], names: list[str], where: str, number: int) -> dict[str, Any]:
    """One record as column → cell (an empty or absent cell None; a later column of a repeated
    name wins)."""
    if len(cells) > len(names):
        raise FormatError(where, f"row {number}", "no more cells than the header has")
    return {name: (cells[i] or None) if i < len(cells) else None for i, name in enumerate(names)}


@contextmanager
def _cells_up_to(size: int) -> Iterator[int]:
    """The ``csv`` field limit raised to ``size`` (at most :data:`CSV_CELL_CAP`) while the
    block runs, and put back after; yields the limit in force.

    The limit is process-wide: it is only ever raised, under a lock (two reads here never undo
    each other), and put back only if nobody changed it meanwhile."""
    with _CSV_LIMIT:
        before = csv.field_size_limit()
        limit = max(before, min(size, CSV_CELL_CAP))
        if limit != before:
            csv.field_size_limit(limit)
        try:
            yield limit
        finally:
            if limit != before and csv.field_size_limit() == limit:
                csv.field_size_limit(before)


def _csv_error(
    text: str,
    where: str,
    lines: tuple[int, int],
    names: list[str] | None,
    read: int,
    limit: int,
    exc: csv.Error,
) -> FormatError:
    """The error for a record the ``csv`` module refused (it began after line ``lines[0]``
    and was refused on line ``lines[1]``): its row, or the header, and for a cell over the
    limit the column and the limit."""
    row = "the header" if names is None else f"row {read + 1}"
    if "field limit" not in str(exc):
        return FormatError(where, row, f"a CSV record ({exc})")
    record = "".join(itertools.islice(io.StringIO(text, newline=""), *lines)).lstrip("\r\n")
    index = _long_cell(record, limit)
    column = repr(names[index]) if names and index < len(names) else f"number {index + 1}"
    expected = f"a cell of at most {limit} characters, the most the csv module reads"
    return FormatError(where, f"{row}, column {column}", expected)


_CELL = re.compile(r'(?:"([^"]*(?:""[^"]*)*)"?)?([^,\r\n]*)')
"""One cell of an ``excel``-dialect record: an optional quoted part (its inner text, doubled
quotes in it), then unquoted characters up to the next comma or line end."""


def _long_cell(record: str, limit: int) -> int:
    """The index of the first cell of ``record`` that holds more than ``limit`` characters (or
    of its last cell)."""
    index, pos = 0, 0
    while True:
        match = _CELL.match(record, pos)
        assert match is not None  # the pattern matches the empty string
        inner, rest = match.group(1) or "", match.group(2)
        end = match.end()
        if len(inner) - inner.count('""') + len(rest) > limit or record[end : end + 1] != ",":
            return index
        index, pos = index + 1, end + 1


# --------------------------------------------------------------------------------- JSONL


JSON_SPACE = " \t\r\n"
"""The characters JSON reads as white space (a line of only these is blank)."""


def jsonl_rows(text: str, where: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and columns of JSONL text: one object a line, lines ending at ``\\n``, ``\\r``
    or ``\\r\\n`` (characters JSON allows raw inside a string, such as U+2028, do not end a
    line); blank lines skipped."""
    rows = []
    for number, line in enumerate(io.StringIO(text, newline=""), start=1):
        if not line.strip(JSON_SPACE):
            continue
        row = decode_text(line, f"{where}:{number}")
        if not isinstance(row, dict):
            raise FormatError(where, f"line {number}", f"a JSON object (got {preview(row)})")
        rows.append(row)
    return rows, all_keys(rows)


# ------------------------------------------------------------------------------- the doors


def evalset_from_table_file(
    path: str | os.PathLike[str], columns: Mapping[str, str | None] | None = None
) -> EvalSet:
    """An eval set from a ``.csv`` / ``.jsonl`` / ``.parquet`` file (id: the file name's stem)."""
    rows, names = read_table(path)
    return evalset_from_rows(
        rows, names, eval_set_id=Path(path).stem, roles=columns, source=str(path)
    )


def evalset_from_df(
    df: Any,
    *,
    id: str | None = None,
    user: str | None = None,
    expected: str | None = None,
    tools: str | None = None,
    context: str | None = None,
    actual: str | None = None,
    actual_tools: str | None = None,
    turns: str | None = None,
    order: str | None = None,
    eval_set_id: str = "evalset",
) -> EvalSet:
    """An eval set from a pandas or polars frame; each keyword names the column of that role
    (default: the column named as the role, when there is one). See
    :mod:`agenteval_nb.io.table_rows`."""
    roles = {
        "id": id,
        "user": user,
        "expected": expected,
        "tools": tools,
        "context": context,
        "actual": actual,
        "actual_tools": actual_tools,
        "turns": turns,
        "order": order,
    }
    rows, names = rows_of(df)
    return evalset_from_rows(rows, names, eval_set_id=eval_set_id, roles=roles, source="<frame>")


def evalset_from_dataset(ds: Any, *, eval_set_id: str = "evalset", **roles: str | None) -> EvalSet:
    """An eval set from a ``datasets.Dataset`` / ``IterableDataset`` (or any iterable of row
    mappings); keywords as :func:`evalset_from_df`. Nothing is downloaded: the split is read as
    it is."""
    rows, names = rows_of(ds)
    return evalset_from_rows(rows, names, eval_set_id=eval_set_id, roles=roles, source="<dataset>")
