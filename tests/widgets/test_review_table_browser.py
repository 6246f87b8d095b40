"""The inspector's table in a real browser (voilà + the system Chromium, see
``browser_support``): sorting by a header, moving with ``j``/``k``, marking with ``p``/``f`` and
a note with ``n``, and the marks back on a fresh page of the same result file.

The notebook opens a saved result file with ``ae.inspect(path)``, so every page load is a new
kernel reading that file and its review file. The tests run in file order on one page, then
open a second page; each waits on explicit conditions (playwright's ``expect``), never on
sleeps. Screenshots (1280×900) go to ``out/browser/`` and ``/tmp/shots/``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, require_browser, serve_cells
from report_builders import many_cases_run

import agenteval_nb as ae

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

WAIT_MS = 120_000
"""Longest wait for one condition (a kernel round trip on a loaded 2-core machine)."""

VIEWPORT = {"width": 1280, "height": 900}
PAGE_SIZE = 10
VERIFIER = "llm_verifier_pairwise"
SHOTS = (SCREENSHOTS, Path("/tmp/shots"))


@pytest.fixture(scope="module")
def result_path(tmp_path_factory) -> Path:
    return many_cases_run(3).save(tmp_path_factory.mktemp("run") / "r.evalset_result.json")


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, result_path) -> Iterator[str]:
    require_browser()
    cell = (
        "import agenteval_nb as ae\n"
        f"insp = ae.inspect({str(result_path)!r}, page_size={PAGE_SIZE})\n"
        'insp.add_class("ae-test-review")\n'
        "insp"
    )
    yield from serve_cells(tmp_path_factory.mktemp("voila"), "review", [cell])


@pytest.fixture(scope="module")
def browser(base_url):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        context = chromium.new_context(viewport=VIEWPORT)
        for folder in SHOTS:
            folder.mkdir(parents=True, exist_ok=True)
        yield context
        context.close()
        chromium.close()


def open_page(context, base_url: str):
    from playwright.sync_api import expect

    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url + "/voila/render/review.ipynb", timeout=WAIT_MS)
    root = page.locator(".ae-test-review")
    expect(root.locator(".ae-table tbody tr")).to_have_count(PAGE_SIZE)
    expect(root.locator(".ae-detail .ae-case")).to_have_count(1)
    return page, root, errors


@pytest.fixture(scope="module")
def review(browser, base_url):
    page, root, errors = open_page(browser, base_url)
    yield page, root
    assert errors == []
    page.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(SHOTS[0] / name))
    shutil.copy(SHOTS[0] / name, SHOTS[1] / name)


def column(root, key: str) -> list[str]:
    """The texts of column ``key`` on the shown page."""
    return root.locator(".ae-table").evaluate(
        """(el, key) => {
            const keys = [...el.querySelectorAll('thead th')].map(th => th.dataset.key);
            const i = keys.indexOf(key);
            return [...el.querySelectorAll('tbody tr')].map(tr => tr.children[i].textContent);
        }""",
        key,
    )


def selected_id(root) -> str:
    return column_of_selected(root, "id")


def column_of_selected(root, key: str) -> str:
    return root.locator(".ae-table").evaluate(
        """(el, key) => {
            const keys = [...el.querySelectorAll('thead th')].map(th => th.dataset.key);
            const row = el.querySelector('tbody tr.ae-selected');
            return row ? row.children[keys.indexOf(key)].textContent : null;
        }""",
        key,
    )


def test_the_table_shows_a_row_per_case_result_and_a_column_per_metric(review):
    page, root = review
    headers = root.locator(".ae-table thead th").all_inner_texts()
    assert headers[:4] == ["status ▲", "run", "case id", "score"]  # failures first
    assert VERIFIER in headers and "≠ samples" in headers
    assert column(root, "status")[0] == "✗"  # failures first
    shot(page, "table-first-page.png")
    scroller = root.locator(".ae-table-scroll")
    assert scroller.evaluate("s => s.scrollWidth <= s.clientWidth + 1")  # no cut columns
    box = root.bounding_box()
    assert box is not None and box["x"] + box["width"] <= VIEWPORT["width"]


def test_a_header_click_sorts_by_a_metric_column(review):
    from playwright.sync_api import expect

    page, root = review
    header = root.locator(f'.ae-table th[data-key="metric:{VERIFIER}"]')
    header.click()
    expect(header).to_contain_text("▲")
    values = [float(v) for v in column(root, f"metric:{VERIFIER}")]
    assert values == sorted(values) and values[0] == 0.2  # the failing verifier first
    header.click()
    expect(header).to_contain_text("▼")
    values = [float(v) for v in column(root, f"metric:{VERIFIER}")]
    assert values == sorted(values, reverse=True) and values[0] == 0.8
    shot(page, "table-sorted-by-verifier.png")
    root.locator('.ae-table th[data-key="status"]').click()  # back to failures first
    expect(root.locator('.ae-table th[data-key="status"]')).to_contain_text("▲")


def test_j_and_k_move_the_selection_and_the_detail(review):
    from playwright.sync_api import expect

    page, root = review
    rows = root.locator(".ae-table tbody tr")
    rows.nth(0).click()
    expect(rows.nth(0)).to_have_class("ae-selected")
    ids = column(root, "id")
    page.keyboard.press("j")
    expect(rows.nth(1)).to_have_class("ae-selected")
    expect(root.locator(".ae-detail .ae-casehead code")).to_have_text(ids[1])
    page.keyboard.press("j")
    expect(rows.nth(2)).to_have_class("ae-selected")
    page.keyboard.press("k")
    expect(rows.nth(1)).to_have_class("ae-selected")
    expect(root.locator(".ae-detail .ae-casehead code")).to_have_text(ids[1])


def test_choosing_a_metric_scrolls_the_detail_to_its_section(review):
    page, root = review
    metric = (
        root.locator(".widget-dropdown")
        .filter(has=page.locator("label", has_text="metric"))
        .locator("select")
    )
    metric.select_option(label=VERIFIER)
    # the pane scrolls down to the verifier's charts (its h4 heading): to the top of the
    # pane, or as far as the pane scrolls
    page.wait_for_function(
        """name => {
            const d = document.querySelector('.ae-test-review .ae-detail');
            const code = d && [...d.querySelectorAll('h4 code')]
                .find(c => c.textContent === name);
            if (!code) return false;
            const gap = code.getBoundingClientRect().top - d.getBoundingClientRect().top;
            return d.scrollTop > 0 && gap >= 0 && gap < d.clientHeight / 2;
        }""",
        arg=VERIFIER,
    )
    shot(page, "table-metric-scrolls-detail.png")
    metric.select_option(label="all metrics")


def test_p_and_f_mark_rows_and_typing_in_the_search_box_does_not(review, result_path):
    from playwright.sync_api import expect

    page, root = review
    rows = root.locator(".ae-table tbody tr")
    search = root.get_by_placeholder("search ids, messages, reasons")
    search.press_sequentially("pf")  # the letters typed here are text, not marks
    expect(root.locator(".ae-table th", has_text="mark")).to_have_count(0)
    search.fill("")
    search.press("Enter")
    rows.nth(0).click()
    first = (selected_id(root), column_of_selected(root, "run"))
    page.keyboard.press("f")
    expect(root.locator('.ae-table th[data-key="human"]')).to_have_count(1)
    expect(rows.nth(0).locator("td").nth(_index(root, "human"))).to_have_text("fail")
    page.keyboard.press("j")
    expect(rows.nth(1)).to_have_class("ae-selected")
    second = (selected_id(root), column_of_selected(root, "run"))
    page.keyboard.press("p")
    expect(rows.nth(1).locator("td").nth(_index(root, "human"))).to_have_text("pass")
    page.keyboard.press("n")  # a note for the selected row, saved with its mark
    note = root.locator(".ae-table-note")
    expect(note).to_be_visible()
    note.fill("right city, pjfu")  # keys typed in the note field do nothing else
    note.press("Enter")
    expect(note).to_be_hidden()
    page.keyboard.press("?")
    expect(root.locator(".ae-table-help")).to_contain_text("mark fail")
    scroller = root.locator(".ae-table-scroll")
    assert scroller.evaluate("s => s.scrollWidth <= s.clientWidth + 1")  # mark columns fit
    shot(page, "table-marked-with-help.png")
    page.keyboard.press("?")
    marks = ae.load_run(result_path).reviews_df("polars").sort("mark")
    assert marks.select("eval_id", "run_id", "mark", "note").rows() == [
        (first[0], int(first[1]), "fail", None),
        (second[0], int(second[1]), "pass", "right city, pjfu"),
    ]


def _index(root, key: str) -> int:
    keys = root.locator(".ae-table thead th").evaluate_all("ths => ths.map(th => th.dataset.key)")
    return keys.index(key)


def test_a_new_page_on_the_same_result_file_shows_the_marks(browser, base_url, review):
    from playwright.sync_api import expect

    page, root, errors = open_page(browser, base_url)
    expect(root.locator('.ae-table th[data-key="human"]')).to_have_count(1)
    assert column(root, "human")[:2] == ["fail", "pass"]
    shot(page, "table-after-reload.png")
    assert errors == []
    page.close()
