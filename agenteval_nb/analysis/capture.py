"""The capture report of a run: per case result, what the toolkit captured of the agent's turns
and what it could not, each problem with its fix (issue 33).

Read from the turns themselves (``invocation.source.capture``, saved with the run), so a loaded
run has the same report as the fresh one; counts and fixes are declared in
:mod:`agenteval_nb.agents.capture.report`. A run none of whose turns was captured (trace mode,
agents that return their own invocations, runs saved before the report existed) has no report:
:func:`capture_rows` gives ``[]``.

Cost: a streamed record keeps its case results as text, so :func:`capture_rows` over it decodes
every one; an evaluation therefore collects the rows as its results pass by
(:class:`CaptureCollector`, into ``run.info["capture"]``), and the report reads those.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..agents.capture.report import case_counts, fixes
from .columns import FRAME_COLUMNS, SCHEMAS
from .frames import to_backend
from .record import RunRecord


def case_row(case: Any) -> tuple[dict[str, Any], bool]:
    """The capture row of one case result (a model or a view with its attributes), and whether
    any of its turns was captured."""
    turns = [per.actual_invocation for per in case.eval_metric_result_per_invocation or ()]
    counts = [inv.source.capture if inv and inv.source else None for inv in turns]
    totals = case_counts(counts)
    row = {
        "run_id": case.run_id,
        "eval_id": case.eval_id,
        "eval_set_id": case.eval_set_id,
        "n_turns": len(turns),
        **totals,
        "fixes": fixes(totals),
    }
    return row, any(c is not None for c in counts)


def capture_rows(record: RunRecord) -> list[dict[str, Any]]:
    """One JSON-ready row per case result (the ``capture`` frame's columns), in result order;
    ``[]`` when no turn of the run was captured (decodes a streamed record's every result)."""
    rows = [case_row(case) for case in record.case_results()]
    return [row for row, _ in rows] if any(captured for _, captured in rows) else []


class CaptureCollector:
    """A result sink in front of another: each case result's capture row is taken as it passes
    (the result is in memory then), then the result goes on to ``sink`` unchanged."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self._rows: list[tuple[int, dict[str, Any]]] = []
        self._captured = False

    def add(self, position: int, case: Any, result: Any) -> None:
        self._note(position, result)
        self.sink.add(position, case, result)

    def add_text(
        self, position: int, case: Any, result: Any, text: bytes | None, encoded: bool = False
    ) -> None:
        self._note(position, result)
        self.sink.add_text(position, case, result, text, encoded)

    def _note(self, position: int, result: Any) -> None:
        row, captured = case_row(result)
        self._rows.append((position, row))
        self._captured = self._captured or captured

    def rows(self) -> list[dict[str, Any]]:
        """The rows in result order; ``[]`` when no turn was captured."""
        return [row for _, row in sorted(self._rows, key=lambda r: r[0])] if self._captured else []


def capture_frame(record: RunRecord, backend: str | None = None) -> Any:
    """``run.capture_df()``: the capture report, one row per case result (empty when no turn
    was captured)."""
    rows = capture_rows(record)
    data = {name: [row[name] for row in rows] for name in FRAME_COLUMNS["capture"]}
    return to_backend(pl.DataFrame(data, schema=SCHEMAS["capture"]), backend)
