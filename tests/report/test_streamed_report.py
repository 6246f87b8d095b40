"""The report of a streamed run reads its tables: every case in the case table, and only the
detailed case results (and their eval cases) decoded."""

from __future__ import annotations

import re

import pytest
from streamed_support import Decodes, streamed_run

import agenteval_nb as ae
from agenteval_nb.report.junit import junit_xml
from agenteval_nb.views import export_html, report_html

N = 3000
DETAILED = 7


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return streamed_run(tmp_path_factory.mktemp("streamed"), N)


def _table_rows(page: str) -> int:
    return page.count('<td class="ae-error">')


def _detail_blocks(page: str) -> int:
    return len(re.findall(r'<details[^>]*id="case-\d+"', page))


def test_report_decodes_only_the_detailed_cases(run, tmp_path, monkeypatch):
    decodes = Decodes(monkeypatch)
    path = export_html(run, tmp_path / "report.html", max_cases=DETAILED)
    page = path.read_text()
    assert decodes.results == DETAILED
    assert 0 < decodes.cases <= DETAILED
    assert run.streaming
    assert _table_rows(page) == N
    assert _detail_blocks(page) == DETAILED
    assert f"Details are included for {DETAILED} of {N} case results" in page


def test_report_of_a_loaded_run_decodes_one_case_per_unknown_metric_holder(
    run, tmp_path, monkeypatch
):
    """A result file names no metric definitions: the header takes each metric from the first
    case result holding it (here the first case holds both)."""
    loaded = ae.load_run(run.save(tmp_path / "run.evalset_result.json"))
    assert loaded.streaming and not loaded.metrics
    decodes = Decodes(monkeypatch)
    page = report_html(loaded, max_cases=DETAILED)
    assert decodes.results == DETAILED + 1
    assert decodes.cases == 0  # no eval sets with a bare result file
    assert loaded.streaming
    assert _table_rows(page) == N
    assert "tool_trajectory_avg_score" in page and "final_response_avg_score" in page


def test_junit_decodes_nothing(run, monkeypatch):
    decodes = Decodes(monkeypatch)
    xml = junit_xml(run.record)
    assert decodes.results == decodes.cases == 0
    assert run.streaming
    assert xml.count("<testcase ") == N
    failed = run.case_status_counts()["failed"]
    assert f'failures="{failed}"' in xml


def test_streamed_and_model_forms_give_the_same_report(tmp_path):
    small = streamed_run(tmp_path, 120)
    streamed = report_html(small, max_cases=20)
    small.result  # noqa: B018 - decodes everything: the record becomes a model record
    assert not small.streaming
    assert report_html(small, max_cases=20) == streamed
