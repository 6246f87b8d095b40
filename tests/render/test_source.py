"""render/source.py: the source spans of a turn built from traces."""

from __future__ import annotations

from agenteval_nb.render.source import MAX_SPAN_IDS, source_section
from agenteval_nb.schema import InvocationSource


def test_no_source_renders_nothing():
    assert source_section(None) == ""


def test_ids_are_escaped_and_gaps_named():
    html = source_section(
        InvocationSource(
            trace_id="<script>alert(1)</script>",
            root_span_id="r",
            span_ids=["r", "<b>x</b>"],
            gaps=["content_missing"],
        )
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<code class="ae-span-id">&lt;b&gt;x&lt;/b&gt;</code>' in html
    assert "spans (2)" in html and '<span class="ae-gap">content_missing</span>' in html


def test_long_span_lists_are_cut_and_counted():
    ids = [f"s{i}" for i in range(MAX_SPAN_IDS + 5)]
    html = source_section(InvocationSource(span_ids=ids))
    assert html.count('class="ae-span-id"') == MAX_SPAN_IDS
    assert "… 5 more" in html and "not recovered" not in html
