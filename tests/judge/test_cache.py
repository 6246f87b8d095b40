"""The SQLite judge cache: keys, hits, re-runs without requests, concurrent writers."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading

import pytest

import agenteval_nb as ae
from agenteval_nb.judge import (
    JudgeCache,
    JudgeCacheWarning,
    JudgeClient,
    JudgeError,
    cache_key,
    default_cache_path,
)
from agenteval_nb.judge import cache as cache_module
from agenteval_nb.judge.cache import open_cache
from agenteval_nb.testing import FakeResponse, completion

pytestmark = pytest.mark.anyio

QUESTIONS = [f"question {i}" for i in range(5)]


def msgs(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


async def ask_all(client: JudgeClient, model, samples: int = 1) -> list:
    calls = [
        client.complete(model, msgs(q), sample_index=s) for q in QUESTIONS for s in range(samples)
    ]
    return await asyncio.gather(*calls)


async def test_second_run_makes_no_requests(server, judge_model, tmp_path):
    path = tmp_path / "judge.sqlite"
    async with JudgeClient(cache=path) as first:
        calls_1 = await ask_all(first, judge_model())
    assert server.request_count == len(QUESTIONS)
    assert not any(c.cache_hit for c in calls_1)

    async with JudgeClient(cache=path) as second:
        calls_2 = await ask_all(second, judge_model())
        totals = second.usage.as_dict()
    assert server.request_count == len(QUESTIONS)  # nothing new reached the server
    assert all(c.cache_hit for c in calls_2)
    assert [c.response for c in calls_2] == [c.response for c in calls_1]
    assert [c.cache_key for c in calls_2] == [c.cache_key for c in calls_1]
    assert (totals["cache_hits"], totals["requests"]) == (len(QUESTIONS), 0)


async def test_num_samples_get_distinct_keys(server, judge_model, tmp_path):
    async with JudgeClient(cache=tmp_path) as client:
        calls = await ask_all(client, judge_model(numSamples=3), samples=3)
        assert len({c.cache_key for c in calls}) == 3 * len(QUESTIONS)
        assert [c.sample_index for c in calls[:3]] == [0, 1, 2]
        assert len(client.cache) == 3 * len(QUESTIONS)
        rerun = await ask_all(client, judge_model(numSamples=3), samples=3)
    assert server.request_count == 3 * len(QUESTIONS)
    assert all(c.cache_hit for c in rerun)


async def test_key_depends_on_request_not_on_api_key(server, judge_model, tmp_path):
    async with JudgeClient(cache=tmp_path) as client:
        base = await client.complete(judge_model(), msgs("q"))
        other_key = await client.complete(judge_model(apiKey="sk-rotated-key-000"), msgs("q"))
        hotter = await client.complete(
            judge_model(generationConfig={"temperature": 1.0}), msgs("q")
        )
        schema = {"name": "s", "schema": {"type": "object"}}
        structured = await client.complete(judge_model(), msgs("q"), structured_output=schema)
        extra = await client.complete(judge_model(extraFields={"seed": 1}), msgs("q"))
        other_model = await client.complete(judge_model(modelName="judge-2"), msgs("q"))
    assert other_key.cache_hit and other_key.cache_key == base.cache_key
    keys = {base.cache_key, hotter.cache_key, structured.cache_key, extra.cache_key}
    keys.add(other_model.cache_key)
    assert len(keys) == 5
    assert server.request_count == 5


def test_cache_key_is_canonical():
    body_a = {"model": "m", "messages": [{"role": "user", "content": "é"}], "temperature": 0.5}
    body_b = {"temperature": 0.5, "messages": [{"content": "é", "role": "user"}], "model": "m"}
    assert cache_key("http://h/v1/", body_a, 0) == cache_key("http://h/v1", body_b, 0)
    assert cache_key("http://h/v1", body_a, 0) != cache_key("http://h/v1", body_a, 1)
    assert cache_key("http://h/v1", body_a, 0) != cache_key("http://other/v1", body_a, 0)


async def test_failures_are_not_cached(server, judge_model, tmp_path):
    server.enqueue(FakeResponse(200, {"choices": []}), completion("good"))
    async with JudgeClient(cache=tmp_path) as client:
        with pytest.raises(JudgeError):
            await client.complete(judge_model(), msgs("q"))
        assert len(client.cache) == 0
        first = await client.complete(judge_model(), msgs("q"))
        again = await client.complete(judge_model(), msgs("q"))
    assert (first.cache_hit, again.cache_hit) == (False, True)
    assert again.content == "good"
    assert server.request_count == 2


async def test_cache_off_always_asks(server, judge_model):
    for spec in (False, None):
        async with JudgeClient(cache=spec) as client:
            assert client.cache is None
            await client.complete(judge_model(), msgs("q"))
            call = await client.complete(judge_model(), msgs("q"))
            assert not call.cache_hit
    assert server.request_count == 4


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTEVAL_NB_CACHE_DIR", str(tmp_path / "here"))
    assert default_cache_path() == tmp_path / "here" / "judge.sqlite"
    cache = open_cache(True)
    assert cache is not None and cache.path == tmp_path / "here" / "judge.sqlite"
    assert cache.path.exists()
    cache.close()
    monkeypatch.delenv("AGENTEVAL_NB_CACHE_DIR")
    assert default_cache_path().parts[-2:] == ("agenteval_nb", "judge.sqlite")


def test_unreadable_row_is_a_miss(tmp_path):
    cache = JudgeCache(tmp_path / "c.sqlite")
    cache.put("k", {"choices": []}, {})
    with sqlite3.connect(cache.path) as raw:
        raw.execute("UPDATE judge_responses SET response = '{broken' WHERE key = 'k'")
    assert cache.get("k") is None
    cache.close()


async def test_invalid_cached_response_is_asked_again(server, judge_model, tmp_path):
    async with JudgeClient(cache=tmp_path) as client:
        call = await client.complete(judge_model(), msgs("q"))
        client.cache.put(call.cache_key, {"choices": [{"message": {}}]})  # a damaged entry
        again = await client.complete(judge_model(), msgs("q"))
    assert not again.cache_hit
    assert server.request_count == 2


async def test_cache_hit_survives_many_threads_sharing_one_client(server, judge_model, tmp_path):
    """Two threads, each with its own event loop, share one client and one cache file."""
    client = JudgeClient(cache=tmp_path / "shared.sqlite")
    errors: list[BaseException] = []

    def run(offset: int) -> None:
        async def main():
            texts = [f"q{(offset + i) % 30}" for i in range(30)]
            await asyncio.gather(*(client.complete(judge_model(), msgs(t)) for t in texts))

        try:
            asyncio.run(main())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k * 7,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(client.cache) == 30
    assert client.usage.calls == 60
    await client.aclose()
    with sqlite3.connect(tmp_path / "shared.sqlite") as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)


WRITER = """
import sys
from agenteval_nb.judge import JudgeCache
from agenteval_nb.testing import completion
cache = JudgeCache(sys.argv[1])
name = sys.argv[2]
for i in range(300):
    cache.put(f"shared-{i}", completion(f"{name}-{i}"), {"prompt_tokens": i})
    cache.put(f"{name}-{i}", completion(f"{name}-{i}"))
    assert cache.get(f"{name}-{i}") is not None
print(len(cache))
"""


def test_two_processes_write_one_file(tmp_path):
    path = tmp_path / "multi.sqlite"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    cache = JudgeCache(path)
    assert len(cache) == 900
    for i in (0, 150, 299):
        response, usage = cache.get(f"shared-{i}")
        assert response["choices"][0]["message"]["content"] in (f"a-{i}", f"b-{i}")
        assert usage == {"prompt_tokens": i}
    cache.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_stored_value_holds_response_and_usage(tmp_path):
    cache = JudgeCache(tmp_path)
    cache.put("k", completion("x"), {"prompt_tokens": 3}, model="m")
    with sqlite3.connect(cache.path) as raw:
        model, response, usage = raw.execute(
            "SELECT model, response, usage FROM judge_responses WHERE key = 'k'"
        ).fetchone()
    assert model == "m"
    assert json.loads(response)["choices"][0]["message"]["content"] == "x"
    assert json.loads(usage) == {"prompt_tokens": 3}
    assert "k" in cache and "other" not in cache
    cache.clear()
    assert len(cache) == 0
    cache.close()


# an unusable cache file never fails a call: one warning naming the file, then no cache -------


def _unusable_garbage(path):
    path.write_bytes(b"this is not an SQLite database\x00\xff" * 200)
    return path


def _unusable_directory(path):
    (path / "judge.sqlite").mkdir(parents=True)  # a directory where the file should be
    return path


def _unusable_wal_blocked(path):
    JudgeCache(path).close()
    for suffix in ("-wal", "-shm"):  # the write-ahead log cannot be created
        (path.parent / (path.name + suffix)).unlink(missing_ok=True)
        (path.parent / (path.name + suffix)).mkdir()
    return path


def _unusable_read_only(path):
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only files")
    cache = JudgeCache(path)
    cache.close()
    for p in path.parent.iterdir():
        p.chmod(0o444)
    path.parent.chmod(0o555)
    return path


@pytest.mark.parametrize(
    "make",
    [_unusable_garbage, _unusable_directory, _unusable_wal_blocked, _unusable_read_only],
    ids=["garbage", "directory", "wal-blocked", "read-only"],
)
async def test_unusable_cache_file_warns_once_and_calls_go_on(server, judge_model, tmp_path, make):
    folder = tmp_path / "cache"
    folder.mkdir()
    spec = make(folder / "judge.sqlite") if make is not _unusable_directory else make(folder)
    try:
        with pytest.warns(JudgeCacheWarning) as caught:
            async with JudgeClient(cache=spec) as client:
                calls = await ask_all(client, judge_model())
                calls += await ask_all(client, judge_model())
        assert [c.content for c in calls] == [*QUESTIONS, *QUESTIONS]
        assert not any(c.cache_hit for c in calls)
        assert server.request_count == 2 * len(QUESTIONS)
        ours = [w for w in caught if issubclass(w.category, JudgeCacheWarning)]
        assert len(ours) == 1
        assert "judge.sqlite" in str(ours[0].message)
        assert "continues without a cache" in str(ours[0].message)
    finally:
        folder.chmod(0o755)


async def test_cache_failing_mid_run_warns_once(server, judge_model, tmp_path):
    path = tmp_path / "judge.sqlite"
    with pytest.warns(JudgeCacheWarning) as caught:
        async with JudgeClient(cache=path) as client:
            await ask_all(client, judge_model())
            with sqlite3.connect(path) as other:
                other.execute("DROP TABLE judge_responses")
            calls = await ask_all(client, judge_model())
            calls += await ask_all(client, judge_model())
            assert client.cache is None
    assert not any(c.cache_hit for c in calls)
    assert server.request_count == 3 * len(QUESTIONS)
    assert len([w for w in caught if issubclass(w.category, JudgeCacheWarning)]) == 1
    assert str(path) in str(caught[0].message)


def test_evaluation_completes_with_a_corrupt_cache_file(server, tmp_path):
    cache = _unusable_garbage(tmp_path / "judge.sqlite")
    inv = {
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": "a"},
    }
    evalset = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": f"c{i}",
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [inv],
                "actualConversation": [inv],
            }
            for i in range(3)
        ],
    }
    metric = {
        "metricName": "judged",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m", "baseURL": server.base_url}}},
        "evaluatorName": "llm_final_response",
    }
    server.handler = lambda request: completion(
        "reasoning: fine\nis_the_agent_response_valid: valid"
    )
    with pytest.warns(JudgeCacheWarning, match="judge.sqlite"):
        run = ae.evaluate(evalset, [metric], cache=cache, progress=False)
    assert [c.final_eval_status for c in run.result.eval_case_results] == ["passed"] * 3
    assert server.request_count == 3


# writes are queued and written in batches ---------------------------------------------------


def _rows_on_disk(path) -> int:
    with sqlite3.connect(path) as raw:
        return raw.execute("SELECT COUNT(*) FROM judge_responses").fetchone()[0]


async def test_client_queues_answers_and_writes_them_when_the_run_ends(
    server, judge_model, tmp_path
):
    path = tmp_path / "judge.sqlite"
    client = JudgeClient(cache=path)
    await ask_all(client, judge_model())
    assert _rows_on_disk(path) == 0  # queued: fewer than BATCH_ROWS answers, none old
    await client.close_loop_clients()  # what ae.evaluate does with a client it was given
    assert _rows_on_disk(path) == len(QUESTIONS)
    again = await ask_all(client, judge_model())
    assert all(c.cache_hit for c in again)
    await client.aclose()
    assert server.request_count == len(QUESTIONS)


def test_queue_is_written_when_full_or_old(tmp_path, monkeypatch):
    cache = JudgeCache(tmp_path / "c.sqlite")
    for i in range(cache_module.BATCH_ROWS - 1):
        cache.put(f"k{i}", completion(f"{i}"), later=True)
    assert _rows_on_disk(cache.path) == 0
    cache.put("last", completion("last"), later=True)
    assert _rows_on_disk(cache.path) == cache_module.BATCH_ROWS
    monkeypatch.setattr(cache_module, "BATCH_SECONDS", 0.0)
    cache.put("old", completion("old"), later=True)
    assert _rows_on_disk(cache.path) == cache_module.BATCH_ROWS + 1
    cache.close()


def test_queued_rows_read_back_and_later_writes_win(tmp_path):
    cache = JudgeCache(tmp_path / "c.sqlite")
    answer = completion("queued")
    cache.put("k", answer, {"prompt_tokens": 1}, model="m", later=True)
    assert "k" in cache
    assert cache.get("k") == (answer, {"prompt_tokens": 1})
    assert _rows_on_disk(cache.path) == 1  # reading a queued key wrote the queue
    cache.put("k", completion("queued again"), later=True)
    cache.put("k", completion("written now"))
    cache.flush()
    assert cache.get("k")[0]["choices"][0]["message"]["content"] == "written now"
    cache.put("gone", completion("x"), later=True)
    cache.clear()
    assert len(cache) == 0
    cache.put("on close", completion("x"), later=True)
    cache.close()
    assert _rows_on_disk(cache.path) == 1


EXITING_WRITER = """
import sys
from agenteval_nb.judge import JudgeCache
from agenteval_nb.testing import completion
cache = JudgeCache(sys.argv[1])
cache.put("left queued", completion("x"), later=True)
"""


def test_queued_rows_are_written_at_interpreter_exit(tmp_path):
    path = tmp_path / "exit.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", EXITING_WRITER, str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert _rows_on_disk(path) == 1
