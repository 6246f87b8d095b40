"""The inspector in a real browser: a notebook served by voilà, driven by playwright on the
system Chromium (see ``browser_support``).

One page holds a run inspector (24 case results, 10 per page) and a comparison inspector. The
tests run in file order on that page; each waits on explicit conditions (playwright's
``expect`` with a generous timeout), never on sleeps. Screenshots go to ``out/browser/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_support import CHROMIUM, fresh_screenshots, require_browser, serve_cells
from report_builders import many_cases_run

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

WAIT_MS = 120_000
"""Longest wait for one condition (a kernel round trip on a loaded 2-core machine)."""

VIEWPORT = {"width": 1440, "height": 900}
PAGE_SIZE = 10
LOOPBACK = {"127.0.0.1", "localhost"}

SETUP = f"""import sys
sys.path.insert(0, {str(Path(__file__).parent.parent / "report")!r})
import agenteval_nb as ae
from report_builders import many_cases_run
run = many_cases_run(3)
other = many_cases_run(4)"""
RUN_CELL = f"""insp = ae.inspect(run, page_size={PAGE_SIZE})
insp.add_class("ae-test-run")
insp"""
COMPARISON_CELL = """cmp = ae.inspect(ae.compare(run, other, labels=("baseline", "new prompt")), page_size=10)
cmp.add_class("ae-test-cmp")
cmp"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    require_browser()
    yield from serve_cells(
        tmp_path_factory.mktemp("voila"), "inspector", [SETUP, RUN_CELL, COMPARISON_CELL]
    )


class Recorder:
    """Console errors, uncaught page errors and every request URL of a page."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.blocked: list[str] = []

    def off_machine(self) -> list[str]:
        return [
            u
            for u in self.requests
            if urlparse(u).scheme not in ("data", "blob", "about")
            and urlparse(u).hostname not in LOOPBACK
        ]


@pytest.fixture(scope="module")
def session(base_url):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    recorder = Recorder()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        context = browser.new_context(viewport=VIEWPORT)

        def guard(route):
            # belt and braces: nothing may leave the machine even if a test would miss it
            if urlparse(route.request.url).hostname in LOOPBACK:
                route.continue_()
            else:
                recorder.blocked.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("request", lambda r: recorder.requests.append(r.url))
        page.on("console", lambda m: recorder.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: recorder.errors.append(str(e)))
        page.goto(base_url + "/voila/render/inspector.ipynb", timeout=WAIT_MS)
        shots = fresh_screenshots()
        yield page, recorder, shots
        context.close()
        browser.close()


def _widget(page, name: str):
    return page.locator(f".ae-test-{name}")


def _dropdown(root, label: str):
    return (
        root.locator(".widget-dropdown")
        .filter(has=root.page.locator("label", has_text=re.compile(f"^{label}$")))
        .locator("select")
    )


def _table(root):
    return root.locator(".ae-table")


def _rows(root):
    return root.locator(".ae-table tbody tr")


def _item_texts(root) -> list[str]:
    """The shown rows as ``status id · run N`` lines (the run inspector's columns)."""
    return _table(root).evaluate(
        """el => [...el.querySelectorAll('tbody tr')].map(tr => {
            const [status, run, id] = [...tr.children].map(td => td.textContent);
            return `${status} ${id} · run ${run}`;
        })"""
    )


def _overflows(root) -> bool:
    """Whether the table is wider than its box (a column cut off)."""
    return root.locator(".ae-table-scroll").evaluate("s => s.scrollWidth > s.clientWidth + 1")


def test_run_inspector_renders_table_and_detail(session):
    from playwright.sync_api import expect

    page, _recorder, shots = session
    root = _widget(page, "run")
    expect(root.locator(".ae-detail .ae-case")).to_have_count(1)
    run = many_cases_run(3)
    n_failed = sum(c.final_eval_status == "failed" for c in run.result.eval_case_results)
    # one row per case result of the page: the table never scrolls inside a page
    expect(_rows(root)).to_have_count(PAGE_SIZE)
    scroller = root.locator(".ae-table-scroll")
    assert scroller.evaluate("s => s.scrollHeight <= s.clientHeight + 1")
    items = _item_texts(root)
    assert all(t.startswith("✗") for t in items[:n_failed])
    expect(root.locator(".widget-label", has_text="page 1/3 · 24 items")).to_be_visible()
    assert not _overflows(root)
    assert _table(root).evaluate("s => s.getBoundingClientRect().width") >= 440
    page.screenshot(path=str(shots / "inspector-list.png"))


def test_detail_scrolls_on_its_own(session):
    page, _recorder, _shots = session
    root = _widget(page, "run")
    detail = root.locator(".ae-detail")
    detail.scroll_into_view_if_needed()
    assert detail.evaluate("d => getComputedStyle(d).overflowY") == "auto"
    assert detail.evaluate("d => d.scrollHeight > d.clientHeight")  # long case: it scrolls
    table_box = _table(root).bounding_box()
    detail.evaluate("d => { d.scrollTop = d.scrollHeight; }")
    assert _table(root).bounding_box() == table_box  # the table and pager stayed where they were
    pager = root.locator("button", has_text="▶")
    box = pager.bounding_box()
    assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"]
    detail.evaluate("d => { d.scrollTop = 0; }")


def test_verifier_case_shows_both_label_charts_with_numbers(session):
    from playwright.sync_api import expect

    page, _recorder, shots = session
    root = _widget(page, "run")
    _rows(root).nth(1).click()
    charts = root.locator(".ae-detail .ae-charts").first
    expect(charts.locator("svg.ae-bars")).to_have_count(2)
    expect(charts).to_contain_text("candidate A — the agent's answer (actual)")
    expect(charts).to_contain_text("candidate B — the reference answer (expected)")
    numbers = charts.locator("text.ae-val")
    assert numbers.count() >= 2
    assert all(t.strip() for t in numbers.all_text_contents())
    ticks = charts.locator("svg.ae-bars").first.locator("text.ae-tick").all_text_contents()
    assert ticks == ["0", ".5", "1"]
    # readable at 100 %: the bar labels are at least 10 px high on screen
    label_height = charts.locator("svg.ae-bars text").first.bounding_box()["height"]
    assert label_height >= 10
    charts.scroll_into_view_if_needed()
    root.screenshot(path=str(shots / "inspector-verifier.png"))


def test_filters_search_sort_and_paging_change_the_table(session):
    from playwright.sync_api import expect

    page, _recorder, shots = session
    root = _widget(page, "run")
    run = many_cases_run(3)
    failed = sorted(
        (c.eval_id, c.run_id)
        for c in run.result.eval_case_results
        if c.final_eval_status == "failed"
    )
    status = _dropdown(root, "status")
    status.select_option(label="failed")
    expect(_rows(root)).to_have_count(len(failed))
    assert all(t.startswith("✗") for t in _item_texts(root))
    status.select_option(label="all statuses")
    expect(_rows(root)).to_have_count(PAGE_SIZE)

    _dropdown(root, "sort").select_option(label="case id")
    expect(_rows(root).first).to_contain_text(re.compile(r"case_00"))
    assert _item_texts(root)[0].endswith("case_00 · run 1")

    search = root.get_by_placeholder("search ids, messages, reasons")
    search.fill("id:case_07")
    search.press("Enter")
    expect(_rows(root)).to_have_count(2)
    assert [t.split(" · ")[0][2:] for t in _item_texts(root)] == ["case_07", "case_07"]
    search.fill("llm_rubric_response")  # a metric name: every case has it, none matches
    search.press("Enter")
    expect(_rows(root)).to_have_count(1)  # the "no case matches" line
    expect(_rows(root)).to_have_text("no case matches")
    expect(root.locator(".ae-detail")).to_contain_text("nothing matches")
    search.fill("weather")
    search.press("Enter")
    expect(root.locator(".ae-detail mark.ae-hit").first).to_be_visible()
    root.screenshot(path=str(shots / "inspector-search.png"))
    search.fill("")
    search.press("Enter")
    expect(_rows(root)).to_have_count(PAGE_SIZE)

    # paging: the button, then the keyboard across the page boundary
    label = root.locator(".widget-label", has_text="page ")
    root.locator("button", has_text="▶").click()
    expect(label).to_contain_text("page 2/3")
    _rows(root).first.click()
    expect(_rows(root).first).to_have_class("ae-selected")
    page.keyboard.press("k")  # up from the first row: the last row of the page before
    expect(label).to_contain_text("page 1/3")
    expect(_rows(root).nth(PAGE_SIZE - 1)).to_have_class("ae-selected")
    page.keyboard.press("j")  # and down again
    expect(label).to_contain_text("page 2/3")
    expect(_rows(root).first).to_have_class("ae-selected")
    _dropdown(root, "sort").select_option(label="failures first")
    expect(label).to_contain_text("page 1/3")


def test_comparison_view(session):
    from playwright.sync_api import expect

    page, _recorder, shots = session
    root = _widget(page, "cmp")
    root.scroll_into_view_if_needed()
    expect(root.locator(".ae-detail .ae-answers")).to_have_count(1)
    expect(root.locator(".ae-detail .ae-answers")).to_contain_text(
        "final answers: baseline (left) vs new prompt (right)"
    )
    assert root.locator(".ae-detail .ae-answers ins, .ae-detail .ae-answers del").count() > 0
    runs = [
        t.replace("\xa0", " ") for t in _dropdown(root, "run").locator("option").all_inner_texts()
    ]
    assert runs == ["all runs", "run 1", "run 2"]
    assert not _overflows(root)
    assert _table(root).evaluate("s => s.getBoundingClientRect().width") >= 440
    root.screenshot(path=str(shots / "inspector-comparison.png"))


def test_no_console_errors_and_nothing_leaves_the_machine(session):
    _page, recorder, _shots = session
    assert recorder.requests, "the recorder saw no request at all"
    assert recorder.errors == []
    assert recorder.off_machine() == []
    assert recorder.blocked == []
