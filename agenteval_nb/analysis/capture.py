"""The capture report of a run: per case result, what the toolkit captured of the agent's turns
and what it could not, each problem with its fix (issue 33).

Read from the turns themselves (``invocation.source.capture``, saved with the run), so a loaded
run has the same report as the fresh one; counts and fixes are declared in
:mod:`agenteval_nb.agents.capture.report`. A run none of whose turns was captured (trace mode,
agents that return their own invocations, runs saved before the report existed) has no report:
:func:`capture_rows` gives ``[]``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..agents.capture.report import case_counts, fixes
from .columns import FRAME_COLUMNS, SCHEMAS
from .frames import to_backend
from .record import RunRecord


def capture_rows(record: RunRecord) -> list[dict[str, Any]]:
    """One JSON-ready row per case result (the ``capture`` frame's columns), in result order;
    ``[]`` when no turn of the run was captured."""
    rows: list[dict[str, Any]] = []
    captured = False
    for case in record.case_results():
        turns = [per.actual_invocation for per in case.eval_metric_result_per_invocation or ()]
        counts = [inv.source.capture if inv and inv.source else None for inv in turns]
        captured = captured or any(c is not None for c in counts)
        totals = case_counts(counts)
        rows.append(
            {
                "run_id": case.run_id,
                "eval_id": case.eval_id,
                "eval_set_id": case.eval_set_id,
                "n_turns": len(turns),
                **totals,
                "fixes": fixes(totals),
            }
        )
    return rows if captured else []


def capture_frame(record: RunRecord, backend: str | None = None) -> Any:
    """``run.capture_df()``: the capture report, one row per case result (empty when no turn
    was captured)."""
    rows = capture_rows(record)
    data = {name: [row[name] for row in rows] for name in FRAME_COLUMNS["capture"]}
    return to_backend(pl.DataFrame(data, schema=SCHEMAS["capture"]), backend)
