"""Where a turn came from: the trace and span ids of a turn built from traces, and the gaps
found (``invocation.source``). Every id is untrusted text: escaped like any agent string."""

from __future__ import annotations

from markupsafe import Markup

from ..schema import InvocationSource
from .capture import capture_counts
from .text import html, join, text

MAX_SPAN_IDS = 200
"""Span ids listed per turn; the rest are counted."""


def source_section(source: InvocationSource | None) -> Markup:
    """Trace id, turn root span, every source span id, the gaps and a captured turn's counts;
    empty without a source."""
    if source is None:
        return Markup("")
    rows = [
        html(
            '<tr><th>trace</th><td><code class="ae-trace-id">{}</code></td></tr>',
            text(source.trace_id or ""),
        ),
        html(
            '<tr><th>turn span</th><td><code class="ae-root-span">{}</code></td></tr>',
            text(source.root_span_id or ""),
        ),
    ]
    span_ids = list(source.span_ids or ())
    shown = join(
        (html('<code class="ae-span-id">{}</code>', text(s)) for s in span_ids[:MAX_SPAN_IDS]),
        Markup(" "),
    )
    more = len(span_ids) - MAX_SPAN_IDS
    if more > 0:
        shown = html('{} <span class="ae-muted">… {} more</span>', shown, more)
    rows.append(html("<tr><th>spans ({})</th><td>{}</td></tr>", len(span_ids), shown))
    if source.gaps:
        gaps = join((html('<span class="ae-gap">{}</span>', g) for g in source.gaps), Markup(" "))
        rows.append(html("<tr><th>not recovered</th><td>{}</td></tr>", gaps))
    if source.capture:
        rows.append(html("<tr><th>captured</th><td>{}</td></tr>", capture_counts(source.capture)))
    return html('<table class="ae-source">{}</table>', join(rows))
