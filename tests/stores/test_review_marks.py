"""Human marks kept in a result store (every backend): one mark per key, the later timestamp
wins per mark, and a writer never loses another writer's marks."""

from __future__ import annotations

import multiprocessing

import pytest

from agenteval_nb.io.reviews import Mark, read_marks, review_path
from agenteval_nb.stores import LocalResultStore, NotFoundError, ResultStore, SQLResultStore
from agenteval_nb.stores.sqlschema import mysql_schema_sql

RESULT = {"evalSetId": "math", "evalSetResultId": "r1"}


def _mark(eval_id: str, mark: str, second: int, reviewer: str = "ana", metric=None) -> Mark:
    stamp = f"2026-01-01T00:00:{second:02d}.000000Z"
    return Mark("math", eval_id, 1, metric, mark, "why" if metric else None, reviewer, stamp)


def _reopened(backend) -> ResultStore:
    """A second store object on the same data (the same object for memory)."""
    store = backend.results
    if isinstance(store, SQLResultStore):
        return SQLResultStore(store._db.url, table_prefix=store.table_prefix)  # type: ignore[attr-defined]
    if isinstance(store, LocalResultStore):
        return LocalResultStore(store.base_dir)
    return store


def test_marks_come_back_from_another_store_object(backend):
    backend.results.save("app", RESULT)
    marks = [_mark("c1", "pass", 1), _mark("c1", "fail", 2, metric="m1")]
    backend.results.save_marks("app", "r1", marks)
    again = _reopened(backend)
    assert again.load_marks("app", "r1") == sorted(marks, key=lambda m: m.key)
    assert again.load_marks("app", "other") == []


def test_two_writers_lose_no_mark_and_the_later_timestamp_wins(backend):
    backend.results.save("app", RESULT)
    first, second = backend.results, _reopened(backend)
    first.save_marks("app", "r1", [_mark("a", "pass", 1), _mark("same", "pass", 5, "ana")])
    second.save_marks("app", "r1", [_mark("b", "fail", 2, "bo"), _mark("same", "fail", 3, "bo")])
    first.save_marks("app", "r1", [_mark("same", "unsure", 4, "ana")])  # older than 5: kept 5
    kept = {m.eval_id: (m.mark, m.reviewer) for m in second.load_marks("app", "r1")}
    assert kept == {"a": ("pass", "ana"), "b": ("fail", "bo"), "same": ("pass", "ana")}
    second.save_marks("app", "r1", [_mark("same", "fail", 6, "bo")])
    assert {m.eval_id: m.mark for m in first.load_marks("app", "r1")}["same"] == "fail"


def test_marks_of_a_result_that_is_not_stored_are_refused(backend):
    with pytest.raises(NotFoundError):
        backend.results.save_marks("app", "missing", [_mark("a", "pass", 1)])


def test_marks_are_kept_per_result(backend):
    backend.results.save("app", RESULT)
    backend.results.save("app", {**RESULT, "evalSetResultId": "r2"})
    backend.results.save_marks("app", "r1", [_mark("a", "pass", 1)])
    assert backend.results.load_marks("app", "r2") == []


def test_the_local_store_keeps_marks_in_the_review_file_beside_the_result(local):
    local.results.save("app", RESULT)
    local.results.save_marks("app", "r1", [_mark("a", "pass", 1)])
    sidecar = review_path(local.results.path("app", "r1"))
    assert [m.eval_id for m in read_marks(sidecar)] == ["a"]
    assert local.results.list("app") == ["r1"]


def test_schema_sql_declares_the_reviews_table():
    text = mysql_schema_sql()
    assert "CREATE TABLE IF NOT EXISTS {{PREFIX}}evaluation_reviews (" in text
    assert "uniq_reviews_mark_key" in text


def _mark_in_a_process(args: tuple[str, str, str, int]) -> int:
    url, prefix, who, count = args
    with SQLResultStore(url, table_prefix=prefix) as store:
        for i in range(count):
            store.save_marks("app", "r1", [_mark(f"{who}-{i}", "pass", 1, who)])
            store.save_marks("app", "r1", [_mark("shared", "pass", 10 + i, who)])
    return count


@pytest.mark.slow
def test_processes_marking_one_result_lose_no_mark(sql_backend, sql_prefix):
    store = sql_backend.results
    store.save("app", RESULT)
    url = store._db.engine.url.render_as_string(hide_password=False)  # type: ignore[attr-defined]
    prefix = sql_prefix if sql_backend.kind == "mysql" else ""
    writers, per_writer = ["p", "q", "r"], 10
    context = multiprocessing.get_context("spawn")
    with context.Pool(len(writers)) as pool:
        done = pool.map(_mark_in_a_process, [(url, prefix, w, per_writer) for w in writers])
    assert done == [per_writer] * len(writers)
    marks = store.load_marks("app", "r1")
    assert {m.eval_id for m in marks} == {
        "shared",
        *(f"{w}-{i}" for w in writers for i in range(per_writer)),
    }
    shared = next(m for m in marks if m.eval_id == "shared")
    assert shared.timestamp == f"2026-01-01T00:00:{10 + per_writer - 1:02d}.000000Z"
