"""Marks of a run kept in the result store it came from: they come back with ``ae.load_run``
from another store object, in ``reviews_df()``, in the agreement numbers and in the report."""

from __future__ import annotations

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case
from _review_builders import result

import agenteval_nb as ae
from agenteval_nb.io.reviews import read_marks, review_path
from agenteval_nb.stores import InMemoryResultStore, LocalResultStore, SQLResultStore
from agenteval_nb.views import inspect, report_html

ROWS = [("a", 1, {"m1": 1.0, "m2": 0.0}), ("b", 1, {"m1": 0.0, "m2": 0.0})]


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'runs.db'}"


def _stored(store) -> str:
    return store.save("app", result(ROWS))


def test_marks_of_a_run_from_a_sql_store_come_back_from_a_new_store(sqlite_url):
    with SQLResultStore(sqlite_url) as store:
        result_id = _stored(store)
        run = ae.load_run(store, "app", result_id)
        run.mark("a", 1, "pass", note="right answer")
        run.mark("b", 1, "fail", metric="m2")
        assert run.record.marks == []  # kept in the store, not in memory
    with SQLResultStore(sqlite_url) as again:
        marks = ae.load_run(again, "app", result_id).reviews_df("polars")
        every = ae.load_run(again, "app").concat_df("reviews", "polars")
    assert marks.select("eval_id", "metric", "mark", "note").rows() == [
        ("a", None, "pass", "right answer"),
        ("b", "m2", "fail", None),
    ]
    assert every["eval_id"].to_list() == ["a", "b"]


def test_the_agreement_and_the_report_read_the_stores_marks(sqlite_url):
    with SQLResultStore(sqlite_url) as store:
        result_id = _stored(store)
        ae.load_run(store, "app", result_id).mark("a", 1, "fail", metric="m1")
    with SQLResultStore(sqlite_url) as again:
        run = ae.load_run(again, "app", result_id)
        agreement = ae.stats.agreement(run, against="human").df("polars")
        page = report_html(run)
    assert agreement.filter(agreement["metric_name"] == "m1")["n"].to_list() == [1]
    assert 'id="agreement"' in page


def test_a_run_from_the_local_store_marks_the_review_file_beside_its_result(tmp_path):
    store = LocalResultStore(tmp_path)
    result_id = _stored(store)
    ae.load_run(store, "app", result_id).mark("a", 1, "unsure")
    path = store.path("app", result_id)
    assert [m.mark for m in read_marks(review_path(path))] == ["unsure"]
    assert ae.load_run(path).reviews_df("polars")["mark"].to_list() == ["unsure"]


def test_two_runs_of_one_stored_result_lose_no_mark(sqlite_url):
    with SQLResultStore(sqlite_url) as left, SQLResultStore(sqlite_url) as right:
        result_id = _stored(left)
        one, two = ae.load_run(left, "app", result_id), ae.load_run(right, "app", result_id)
        one.mark("a", 1, "pass")
        two.mark("b", 1, "fail")
        two.mark("a", 1, "fail")  # later: wins over one's mark of "a"
        kept = one.reviews_df("polars").select("eval_id", "mark").rows()
    assert kept == [("a", "fail"), ("b", "fail")]


def test_a_run_evaluated_into_a_store_keeps_its_marks_there():
    store = InMemoryResultStore()
    run = ae.evaluate(
        evalset(trace_case("c", ["a"], ["a"])),
        [METRIC],
        registry=registry_with(ExactAnswer()),
        progress=False,
        result_store=store,
    )
    run.mark("c", 1, "pass")
    saved_id = run.info["saved_result_id"]
    assert [m.eval_id for m in store.load_marks("app", saved_id)] == ["c"]
    assert ae.load_run(store, "app", saved_id).reviews_df("polars")["mark"].to_list() == ["pass"]


def test_the_inspector_marks_into_the_store_and_shows_its_marks(sqlite_url):
    with SQLResultStore(sqlite_url) as store:
        result_id = _stored(store)
        inspect(ae.load_run(store, "app", result_id)).mark("b", 1, "pass", note="fine")
    with SQLResultStore(sqlite_url) as again:
        view = inspect(ae.load_run(again, "app", result_id))
        shown = view.filtered_df("polars").select("eval_id", "human_mark").rows()
    assert sorted(shown, key=lambda row: row[0]) == [("a", None), ("b", "pass")]


def test_a_stored_run_loaded_again_from_the_run_keeps_marking_the_store():
    store = InMemoryResultStore()
    result_id = _stored(store)
    ae.load_run(ae.load_run(store, "app", result_id)).mark("a", 1, "fail")
    assert [m.mark for m in store.load_marks("app", result_id)] == ["fail"]
