"""The capture report in HTML: a case's (or a turn's) capture counts, each problem with its fix
(:mod:`agenteval_nb.agents.capture.report` declares both). Shown by the report and the inspector
in a case's view; the report's header lists the cases with problems (:func:`capture_rows_table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ..agents.capture.report import COUNTS, PROBLEMS, case_counts, fixes
from ..schema import EvalCaseResult
from .text import html, join, text

MAX_ROWS = 50
"""Cases listed in the header's capture table; the rest are counted."""


def capture_counts(counts: Mapping[str, Any] | None) -> Markup:
    """The non-zero counts (problems marked), then one line per problem with its fix; empty
    without counts."""
    if not counts:
        return Markup("")
    cells = [
        html(
            '<span class="{}" data-count="{}">{} {}</span>',
            "ae-gap" if name in PROBLEMS else "ae-muted",
            name,
            name.replace("_", " "),
            counts[name],
        )
        for name in (*COUNTS, *PROBLEMS)
        if counts.get(name)
    ]
    lines = [html('<li class="ae-capture-fix">{}</li>', line) for line in fixes(counts)]
    fix_list = html("<ul>{}</ul>", join(lines)) if lines else Markup("")
    return html('<div class="ae-capture">{}{}</div>', join(cells, " · "), fix_list)


def case_capture(case: EvalCaseResult) -> Markup:
    """A case's capture report, summed over its turns; empty when no turn was captured."""
    turns = [per.actual_invocation for per in case.eval_metric_result_per_invocation or ()]
    counts = [inv.source.capture if inv and inv.source else None for inv in turns]
    if all(c is None for c in counts):
        return Markup("")
    return capture_counts(case_counts(counts))


def capture_rows_table(rows: Sequence[Mapping[str, Any]]) -> Markup:
    """The run's capture in the report's header: totals over the cases, then each case with a
    problem and its fixes (the first :data:`MAX_ROWS`); empty without rows."""
    if not rows:
        return Markup("")
    totals = {name: sum(row.get(name) or 0 for row in rows) for name in (*COUNTS, *PROBLEMS)}
    flagged = [row for row in rows if row.get("fixes")]
    body = [
        html(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            text(row.get("eval_id")),
            text(row.get("run_id") if row.get("run_id") is not None else "—"),
            capture_counts(row),
        )
        for row in flagged[:MAX_ROWS]
    ]
    more = len(flagged) - MAX_ROWS
    tail = html('<p class="ae-muted">… {} more cases with problems</p>', more) if more > 0 else ""
    table = (
        html(
            '<table class="ae-capture-cases"><tr><th>case</th><th>run</th><th>capture</th></tr>'
            "{}</table>",
            join(body),
        )
        if body
        else Markup("")
    )
    summary = html(
        '<p class="ae-capture-total">{} cases: {}</p>', len(rows), capture_counts(totals)
    )
    return html('<div id="capture-report">{}{}{}</div>', summary, table, tail)
