"""Thread safety: concurrent read-modify-write operations lose nothing (SPEC §1.7)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from agenteval_nb.stores import LocalEvalSetStore

THREADS = 8
PER_THREAD = 25


def _run_threads(work: Callable[[int], None]) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def worker(thread_no: int) -> None:
        try:
            start.wait()
            work(thread_no)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_concurrent_add_case_loses_nothing(backend):
    backend.evalsets.create("app", "s")

    def add_cases(thread_no: int) -> None:
        for i in range(PER_THREAD):
            case = {"evalId": f"t{thread_no}-c{i}", "conversation": [{"invocationId": "x"}]}
            backend.evalsets.add_case("app", "s", case)
            backend.evalsets.get("app", "s")  # readers interleave with writers

    _run_threads(add_cases)
    ids = [c.eval_id for c in backend.evalsets.get("app", "s").eval_cases]
    assert len(ids) == THREADS * PER_THREAD
    assert set(ids) == {f"t{t}-c{i}" for t in range(THREADS) for i in range(PER_THREAD)}
    # each thread's cases keep that thread's order
    for t in range(THREADS):
        mine = [eval_id for eval_id in ids if eval_id.startswith(f"t{t}-")]
        assert mine == [f"t{t}-c{i}" for i in range(PER_THREAD)]


def test_concurrent_add_case_through_two_local_stores_on_one_folder(tmp_path):
    stores = [LocalEvalSetStore(tmp_path), LocalEvalSetStore(tmp_path)]
    stores[0].create("app", "s")

    def add_cases(thread_no: int) -> None:
        store = stores[thread_no % 2]
        for i in range(PER_THREAD):
            store.add_case("app", "s", {"evalId": f"t{thread_no}-c{i}"})

    _run_threads(add_cases)
    assert len(stores[1].get("app", "s").eval_cases) == THREADS * PER_THREAD


def test_concurrent_metric_adds_lose_nothing(backend):
    def add_metrics(thread_no: int) -> None:
        for i in range(PER_THREAD):
            backend.metrics.add("app", "s", {"metricName": f"t{thread_no}-m{i}"})

    _run_threads(add_metrics)
    assert len(set(backend.metrics.list("app", "s"))) == THREADS * PER_THREAD


def test_concurrent_result_saves_lose_nothing(backend):
    saved: list[str] = []
    lock = threading.Lock()

    def save_results(thread_no: int) -> None:
        for _ in range(PER_THREAD):
            result_id = backend.results.save("app", {"evalSetId": "s"})
            with lock:
                saved.append(result_id)

    _run_threads(save_results)
    assert sorted(saved) == backend.results.list("app")
    assert len(set(saved)) == THREADS * PER_THREAD
