"""A live run's inspector in a real browser (voilà + the system Chromium, ``browser_support``):
the table gains rows while the run goes on, a mark made during the run is kept with the final
run, and the stop button ends it with the finished cases kept.

The kernel starts ``ae.start`` with an agent that answers question ``q<i>`` only once the test
creates the file ``go/q<i>``: the test decides when each case finishes, and waits on explicit
conditions (playwright's ``expect``), never on sleeps.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, require_browser, serve_cells

import agenteval_nb as ae
from agenteval_nb.live.journal import journal_path, read_journal
from agenteval_nb.stores.local import LocalResultStore

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

WAIT_MS = 120_000
METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def evalset(n: int) -> dict:
    return {
        "evalSetId": "live",
        "evalCases": [
            {
                "evalId": f"c{i:02d}",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": f"q{i}"},
                        "finalResponse": {"role": "assistant", "content": f"a{i}"},
                    }
                ],
            }
            for i in range(n)
        ],
    }


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("live")
    (work / "go").mkdir()
    (work / "set.json").write_text(json.dumps(evalset(10)))
    (work / "metrics.json").write_text(json.dumps(METRICS))
    return {"work": work, "go": work / "go", "out": work / "out"}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, folders) -> Iterator[str]:
    require_browser()
    work, go, out = folders["work"], folders["go"], folders["out"]
    cell = f"""import json, time
from pathlib import Path
import agenteval_nb as ae

GO = Path({str(go)!r})

def agent(text):
    while not (GO / text).exists():
        time.sleep(0.05)
    return "a" + text[1:]

live = ae.start(json.load(open({str(work / "set.json")!r})), json.load(open({str(work / "metrics.json")!r})),
                agent=agent, results_dir={str(out)!r}, case_parallelism=1)
insp = ae.inspect(live, page_size=10)
insp.add_class("ae-test-live")
insp"""
    yield from serve_cells(tmp_path_factory.mktemp("voila"), "live", [cell])


def let_finish(go: Path, *questions: int) -> None:
    for i in questions:
        (go / f"q{i}").touch()


def test_the_table_fills_a_mark_survives_and_stop_keeps_what_finished(base_url, folders):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    go = folders["go"]
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = chromium.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base_url + "/voila/render/live.ipynb", timeout=WAIT_MS)
        root = page.locator(".ae-test-live")
        rows = root.locator(".ae-table tbody tr")
        items = root.locator(".widget-label", has_text="items")
        expect(root.locator(".ae-live-stop")).to_have_text("stop")
        expect(items).to_have_text("page 1/1 · 0 items")
        let_finish(go, 0, 1)
        expect(items).to_have_text("page 1/1 · 2 items")  # rows came while the run goes on
        expect(rows).to_have_count(2)
        rows.nth(0).click()
        page.keyboard.press("f")
        expect(root.locator('.ae-table th[data-key="human"]')).to_have_count(1)
        let_finish(go, 2, 3)
        expect(items).to_have_text("page 1/1 · 4 items")
        expect(root.locator(".ae-table tbody td", has_text="fail")).to_have_count(1)
        root.locator(".ae-live-stop").click()
        expect(root.locator(".ae-live-stop")).to_have_text("stopping")
        let_finish(go, 4)  # the case-run in flight finishes; no other starts
        expect(root.locator(".ae-live-stop")).to_have_text("ended")
        expect(items).to_have_text("page 1/1 · 5 items")
        assert errors == []
        chromium.close()
    journal = read_journal(journal_path(folders["out"]))
    assert journal.end == "cancelled" and len(journal.texts) == 5
    saved = ae.load_run(LocalResultStore(folders["out"]), "app", journal.result_id)
    assert len(saved.cases_df()) == 5
    marks = saved.reviews_df()
    assert marks[["run_id", "mark"]].values.tolist() == [[1, "fail"]]
