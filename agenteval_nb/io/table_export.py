"""An eval set as a table: one row per turn, as a polars or pandas frame; the table readers
(:mod:`~agenteval_nb.io.table_readers`) read it back to the same eval set.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from ..schema import EvalSet, Invocation, message_text


def evalset_to_rows(evalset: EvalSet) -> list[dict[str, Any]]:
    """One row per turn: ``id``, ``order``, ``user``, ``expected``, ``tools`` (JSON text),
    ``context`` and, for trace-mode cases, ``actual`` / ``actual_tools``; read back by
    :func:`~agenteval_nb.io.table_rows.evalset_from_rows`."""
    rows = []
    for case in evalset.eval_cases or []:
        trace = case.eval_mode == "trace"
        expected = case.conversation or []
        actual = case.actual_conversation or []
        for i in range(max(len(expected), len(actual))):
            exp = expected[i] if i < len(expected) else None
            act = actual[i] if i < len(actual) else None
            either = exp or act
            row: dict[str, Any] = {
                "id": case.eval_id,
                "order": i + 1,
                "user": message_text(either.user_content) if either else None,
                "expected": _answer(exp),
                "tools": _tools_text(exp),
                "context": _context_text(case.context_messages),
            }
            if trace:
                row["actual"] = _answer(act)
                row["actual_tools"] = _tools_text(act)
            rows.append(row)
    return rows


def _answer(inv: Invocation | None) -> str | None:
    return None if inv is None or inv.final_response is None else message_text(inv.final_response)


def _tools_text(inv: Invocation | None) -> str | None:
    if inv is None or not inv.tools:
        return None
    return json.dumps([t.to_wire() for t in inv.tools], ensure_ascii=False)


def _context_text(messages: list[Any] | None) -> str | None:
    if not messages:
        return None
    if len(messages) == 1 and messages[0].role == "system":
        return message_text(messages[0])
    return json.dumps([m.to_wire() for m in messages], ensure_ascii=False)


FRAME_SCHEMA = {
    "id": pl.String,
    "order": pl.Int64,
    "user": pl.String,
    "expected": pl.String,
    "tools": pl.String,
    "context": pl.String,
    "actual": pl.String,
    "actual_tools": pl.String,
}
"""The columns of :func:`evalset_to_df` (``actual*`` only for a trace-mode eval set)."""


def evalset_to_df(evalset: EvalSet, backend: str = "polars") -> Any:
    """The eval set as a frame, one row per turn (:func:`evalset_to_rows`); ``backend``
    ``"polars"`` or ``"pandas"``. :func:`~agenteval_nb.io.table_readers.evalset_from_df` reads
    it back to the same eval set (give it the ``eval_set_id``)."""
    rows = evalset_to_rows(evalset)
    trace = any(case.eval_mode == "trace" for case in evalset.eval_cases or [])
    schema = {k: v for k, v in FRAME_SCHEMA.items() if trace or not k.startswith("actual")}
    frame = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    if backend == "pandas":
        return frame.to_pandas()
    if backend != "polars":
        raise ValueError(f"backend must be 'polars' or 'pandas', got {backend!r}")
    return frame
