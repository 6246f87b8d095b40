"""Untrusted strings (agent text, tool names/arguments/results, judge reasons and raw answers,
rubric texts, case ids, metric names) never reach the report or the widget unescaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from report_builders import build_run, case_result

from agenteval_nb.evalrun import EvalRun
from agenteval_nb.render import render_case
from agenteval_nb.schema import EvalSetResult
from agenteval_nb.views import export_html, report_html

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'><svg/onload=alert(1)>",
    "javascript:alert(1)",
    '<a href="javascript:alert(1)">click</a>',
    "</details></section><script>alert(2)</script>",
    "</textarea></pre></code><script>alert(3)</script>",
    "{{7*7}}{% raw %}{{ config }}{% endraw %}",
    "<svg onload=alert(1)><circle r=9 /></svg>",
    "<iframe src=https://evil.example/></iframe>",
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    "<style>*{display:none}</style>",
    "<!-- unterminated comment",
    "]]><![CDATA[<script>alert(4)</script>]]>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(5)>",
    "&lt;script&gt;alert(6)&lt;/script&gt;",
    "\u202eevil\u202c right-to-left override",
    "nul\x00byte and bell\x07",
    "line\u2028separator",
    "$\\frac{1}{0}$ mathtext",
]
"""Each payload; the two needing care beyond escaping: RLO and NUL (shown as U+XXXX markers)."""

DANGEROUS_CHARS = set("<>\"'&\x00\u202e\u202c\x07")
ALLOWED_TAGS = {
    # the report's own markup
    "html", "head", "meta", "title", "style", "body", "div", "header", "section", "footer",
    "h1", "h2", "h3", "h4", "p", "table", "tr", "th", "td", "code", "pre", "span", "b", "br",
    "ul", "li", "details", "summary", "a", "figure", "figcaption", "del", "ins", "colgroup", "col",
    # inline SVG (hand-written bars and matplotlib output)
    "svg", "g", "path", "rect", "line", "text", "defs", "clippath", "use", "image",
    "polyline", "circle",
}  # fmt: skip


class Walker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.start: list[tuple[str, dict[str, str | None]]] = []
        self.end: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.start.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.start.append((tag, dict(attrs)))
        self.end.append(tag)

    def handle_endtag(self, tag):
        self.end.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def assert_safe(html: str, payloads: list[str]) -> None:
    """No payload verbatim, only known tags, no handlers, no script URLs, balanced details."""
    for payload in payloads:
        if DANGEROUS_CHARS & set(payload):
            assert payload not in html, payload
    assert "\x00" not in html and "\u202e" not in html
    walker = Walker()
    walker.feed(html)
    walker.close()
    for tag, attrs in walker.start:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (value or "").lower(), (tag, name, value)
            assert name not in {"src", "srcdoc", "formaction", "http-equiv"}, (tag, name)
            if name in {"href", "xlink:href"}:
                assert value.startswith(("#", "data:image/png;base64,")), value
    for tag in ("details", "section", "table", "div"):
        opened = sum(1 for t, _ in walker.start if t == tag)
        assert opened == walker.end.count(tag), tag
    # the payload's visible text survives escaping (it was displayed, not executed)
    page_text = "".join(walker.text)
    assert "{{7*7}}" in page_text or not any("{{7*7}}" in p for p in payloads)


def many_payload_run() -> EvalRun:
    """One case per payload; the payload is in every untrusted field of its case."""
    cases = []
    for i, payload in enumerate(PAYLOADS):
        cases.append(case_result(f"case{i}{payload}", 1, ok=i % 2 == 0, p=payload))
    result = EvalSetResult(
        eval_set_result_id="xss", eval_set_id=f"set{PAYLOADS[0]}", eval_case_results=cases
    )
    from agenteval_nb.analysis.record import with_summary

    return EvalRun(result=with_summary(result)[0])


def test_corpus_size():
    assert len(PAYLOADS) >= 15


@pytest.mark.filterwarnings("ignore:Glyph:UserWarning", "ignore:constrained_layout:UserWarning")
def test_report_with_every_payload_including_charts(tmp_path):
    """One report holding all payloads, with the real charts (metric names become labels) and
    human marks whose notes are the payloads (the marks column and the agreement section)."""
    run = many_payload_run()
    for i, payload in enumerate(PAYLOADS):
        run.mark(f"case{i}{payload}", 1, "fail" if i % 3 else "pass", note=payload)
    path = export_html(run, tmp_path / "xss.html", title=PAYLOADS[1])
    html = path.read_text(encoding="utf-8")
    assert 'id="agreement"' in html
    assert_safe(html, PAYLOADS)
    assert html.count('<details class="ae-case-block"') == len(PAYLOADS)
    assert not re.search(r"<script", html, re.IGNORECASE)


@pytest.fixture
def no_charts(monkeypatch):
    import agenteval_nb.report.export as export

    monkeypatch.setattr(export, "report_plots", lambda run: [])


@pytest.mark.parametrize("payload", PAYLOADS)
def test_report_escapes_payload(payload, no_charts):
    html = report_html(build_run(payload), title=payload)
    assert_safe(html, [payload])


@pytest.mark.parametrize("payload", PAYLOADS)
def test_widget_detail_escapes_payload(payload):
    from agenteval_nb.views import inspect

    w = inspect(build_run(payload))
    seen = [w.detail.value]
    for eval_id in (f"weather_ok{payload}", f"weather_bad{payload}"):
        for run_id in (1, 2):
            w.select(eval_id, run_id)
            seen.append(w.detail.value)
    for value in seen:
        assert_safe(value, [payload])
    cells = [text for row in w.table.rows for text, _css in row]
    labels = " ".join(cells + [c["label"] for c in w.table.columns])
    assert "\x00" not in labels and "\u202e" not in labels


@pytest.mark.parametrize("payload", PAYLOADS)
def test_render_case_escapes_payload(payload):
    html = str(render_case(case_result(f"id{payload}", 1, ok=False, p=payload)))
    assert_safe(html, [payload])


def test_lone_surrogate_in_agent_text_is_written_as_a_marker(tmp_path, no_charts):
    """JSON may hold "\\ud800"; UTF-8 cannot: the report shows a marker instead of failing."""
    run = build_run()
    per = run.result.eval_case_results[1].eval_metric_result_per_invocation[0]
    per.actual_invocation.final_response.content = "broken \ud800 text"
    per.actual_invocation.tools[0].arguments = {"city": "Ly\udc00on"}
    html = export_html(run, tmp_path / "s.html").read_text(encoding="utf-8")
    assert '<span class="ae-ctl">U+D800</span>' in html
    assert "U+DC00" in html
