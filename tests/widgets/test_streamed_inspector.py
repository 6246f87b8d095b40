"""The inspectors of streamed runs list cases from the tables and decode only what they show."""

from __future__ import annotations

import pytest
from streamed_support import Decodes, streamed_run

import agenteval_nb as ae

N = 3000


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return streamed_run(tmp_path_factory.mktemp("streamed"), N)


def test_inspector_decodes_only_the_shown_case(run, monkeypatch):
    decodes = Decodes(monkeypatch)
    w = ae.inspect(run)  # shows its first item: one case result and its eval case
    assert len(w.items) == N
    assert (decodes.results, decodes.cases) == (1, 1)
    assert w.selected.status == "failed"
    shown = w.selected.eval_id
    other = next(item for item in w.items if item.eval_id != shown)
    w.select(other.eval_id, other.run_id)
    assert (decodes.results, decodes.cases) == (2, 2)
    assert other.eval_id in w.detail.value
    w.filters.status.value = "passed"  # another list, its first item shown
    assert (decodes.results, decodes.cases) == (3, 3)
    assert run.streaming


def test_entries_come_from_the_tables(run, monkeypatch):
    decodes = Decodes(monkeypatch)
    w = ae.inspect(run)
    w.filters.metric.value = "final_response_avg_score"
    w.filters.status.value = "failed"
    cases = run.table("cases")
    metrics = run.table("metrics")
    failed = metrics.filter(
        (metrics["metric_name"] == "final_response_avg_score") & (metrics["status"] == "failed")
    )
    assert len(w.items) == failed.height
    assert decodes.results <= 3  # one shown case per list shown
    assert sum(1 for e in w.source.entries if e.status == "failed") == int(
        (cases["status"] == "failed").sum()
    )
    assert run.streaming


def test_comparison_decodes_only_the_selected_case(run, tmp_path, monkeypatch):
    other = ae.load_run(run.save(tmp_path / "b.evalset_result.json"))
    decodes = Decodes(monkeypatch)
    w = ae.inspect(ae.compare(run, other))
    assert (decodes.results, decodes.cases) == (2, 1)  # the first case of each run
    w.select(w.items[5].eval_id)
    assert (decodes.results, decodes.cases) == (4, 2)
    assert run.streaming and other.streaming
