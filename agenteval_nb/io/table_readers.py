"""Tables read as rows: CSV, JSONL and Parquet files, pandas / polars frames, ``datasets``
splits; and the doors that make them eval sets by the row rules of
:mod:`~agenteval_nb.io.table_rows`.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
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
    line, blank lines skipped) or Parquet file."""
    file = Path(path)
    where = str(path)
    if not file.is_file():
        raise FormatError(where, "$", "file not found")
    if file.suffix.lower() == ".parquet":
        frame = pl.read_parquet(file)
        return frame.to_dicts(), list(frame.columns)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(where, "$", f"UTF-8 text ({exc.reason})") from None
    if file.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        rows = []
        for number, row in enumerate(reader, start=1):
            if None in row:
                raise FormatError(where, f"row {number}", "no more cells than the header has")
            rows.append({k: (v if v != "" else None) for k, v in row.items()})
        return rows, list(reader.fieldnames or [])
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = decode_text(line, f"{where}:{number}")
        if not isinstance(row, dict):
            raise FormatError(where, f"line {number}", f"a JSON object (got {preview(row)})")
        rows.append(row)
    return rows, all_keys(rows)


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
