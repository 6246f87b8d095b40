"""The load report: per conversation, what was read from the traces and what could not be
recovered (``report.df()``: one row per conversation, columns declared once in
:data:`REPORT_COLUMNS`), plus the problems of the readers and how each producer switches
content capture on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..settings import config
from ..steps.builder import BuiltInvocation
from .grouping import Conversation

TURN_GAPS = (
    "content_missing",
    "content_redacted",
    "content_external",
    "content_truncated",
    "no_user_content",
    "no_final_response",
    "tool_without_result",
    "no_model_call",
    "open_span",
    "orphan",
    "dropped_attributes",
)
"""Gaps the builder and grouping put on turns; each is a report column counting turns."""

SPAN_FLAGS = ("orphan", "open_span", "dropped_attributes", "truncated", "garbled")
"""Span flags each counted in a ``<flag>_spans`` column."""


@dataclass(frozen=True, slots=True)
class ReportColumn:
    name: str
    dtype: Any
    doc: str


REPORT_COLUMNS: list[ReportColumn] = [
    ReportColumn("case_id", pl.String, "the case's evalId: the conversation id, else the trace id"),
    ReportColumn(
        "conversation_id", pl.String, "the conversation id found; null: none, one case per trace"
    ),
    ReportColumn(
        "dialects", pl.String, "dialects of the spans, most spans first (comma-separated)"
    ),
    ReportColumn("traces", pl.Int64, "trace ids in the conversation"),
    ReportColumn("spans", pl.Int64, "spans read"),
    ReportColumn("unclaimed_spans", pl.Int64, "spans no dialect claimed (kept as steps)"),
    ReportColumn("turns", pl.Int64, "invocations built"),
    ReportColumn("model_calls", pl.Int64, "model calls after nested duplicate layers were merged"),
    ReportColumn("tool_calls", pl.Int64, "tool calls in the invocations"),
    ReportColumn(
        "input_tokens", pl.Int64, "input tokens summed over model calls; null: none reported"
    ),
    ReportColumn(
        "output_tokens", pl.Int64, "output tokens summed over model calls; null: none reported"
    ),
    *[ReportColumn(g, pl.Int64, f"turns with the gap {g}") for g in TURN_GAPS],
    *[ReportColumn(f"{f}_spans", pl.Int64, f"spans flagged {f}") for f in SPAN_FLAGS],
    ReportColumn("gaps", pl.String, "every gap of the conversation's turns (comma-separated)"),
    ReportColumn(
        "content_switch",
        pl.String,
        "how the producer switches content capture on, when content is missing",
    ),
]
"""The report frame's columns, in order (docs/traces.md lists them)."""


@dataclass(slots=True)
class TraceReport:
    """What :func:`~agenteval_nb.traces.load.load_traces` read and could not recover.

    ``rows``: one dict per conversation (keys = :data:`REPORT_COLUMNS`); ``problems``: records
    or files that could not be read (each with file, JSON path / line and what was expected).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Any] = field(default_factory=list)

    def df(self, backend: str | None = None) -> Any:
        """One row per conversation; ``backend`` "pandas" (default: ``ae.config.backend``) or
        "polars"."""
        frame = pl.DataFrame(
            {c.name: [row.get(c.name) for row in self.rows] for c in REPORT_COLUMNS},
            schema={c.name: c.dtype for c in REPORT_COLUMNS},
        )
        return frame.to_pandas() if (backend or config.backend) == "pandas" else frame

    def problems_df(self, backend: str | None = None) -> Any:
        """One row per read problem: ``file``, ``where``, ``message``."""
        frame = pl.DataFrame(
            {
                "file": [p.file for p in self.problems],
                "where": [p.where for p in self.problems],
                "message": [p.message for p in self.problems],
            },
            schema={"file": pl.String, "where": pl.String, "message": pl.String},
        )
        return frame.to_pandas() if (backend or config.backend) == "pandas" else frame

    def summary(self) -> str:
        """A few lines for a terminal: totals, the gaps, the switches, the problems."""
        turns = sum(r["turns"] for r in self.rows)
        tools = sum(r["tool_calls"] for r in self.rows)
        lines = [
            f"{len(self.rows)} conversation(s), {turns} turn(s), {tools} tool call(s)"
            f"; {len(self.problems)} problem(s)"
        ]
        for gap in TURN_GAPS:
            count = sum(r[gap] for r in self.rows)
            if count:
                lines.append(f"  {gap}: {count} turn(s)")
        switches = sorted({r["content_switch"] for r in self.rows if r["content_switch"]})
        lines.extend(f"  content capture: {s}" for s in switches)
        lines.extend(f"  problem: {p.file}: {p.where}: {p.message}" for p in self.problems[:20])
        if len(self.problems) > 20:
            lines.append(f"  … {len(self.problems) - 20} more problem(s)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"TraceReport({len(self.rows)} conversations, {len(self.problems)} problems)"


def report_row(
    conv: Conversation, built: list[BuiltInvocation], switches: dict[str, str]
) -> dict[str, Any]:
    """The report row of one conversation; ``switches``: dialect → its content switch, named
    when a turn misses content."""
    usages = [b.usage for b in built if b.usage is not None]
    gaps = sorted({g for b in built for g in b.gaps})
    dialects = sorted(conv.dialects, key=lambda d: (-conv.dialects[d], d))
    missing = any(g.startswith("content_") and g != "content_truncated" for g in gaps)
    switch = (
        "; ".join(f"{d}: {switches[d]}" for d in dialects if switches.get(d)) if missing else None
    )
    row: dict[str, Any] = {
        "case_id": conv.case_id,
        "conversation_id": conv.conversation_id,
        "dialects": ", ".join(dialects),
        "traces": len(conv.trace_ids),
        "spans": conv.spans,
        "unclaimed_spans": conv.dialects.get("unclaimed", 0),
        "turns": len(built),
        "model_calls": sum(b.model_calls for b in built),
        "tool_calls": sum(len(b.invocation.tools or ()) for b in built),
        "input_tokens": _total(u.input_tokens for u in usages),
        "output_tokens": _total(u.output_tokens for u in usages),
        "gaps": ", ".join(gaps),
        "content_switch": switch or None,
    }
    for gap in TURN_GAPS:
        row[gap] = sum(gap in b.gaps for b in built)
    for flag in SPAN_FLAGS:
        row[f"{flag}_spans"] = conv.flags.get(flag, 0)
    return row


def _total(values: Any) -> int | None:
    found = [v for v in values if v is not None]
    return sum(found) if found else None
