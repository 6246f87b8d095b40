"""Batch judging end to end against the loopback server's batch endpoints (JUDGES.md §6, §9)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from _batch_helpers import EVALSET, agent, metrics, session_ids

import agenteval_nb as ae
from agenteval_nb.errors import ConfigError
from agenteval_nb.judge.batch import BatchPollError, BatchUnsupportedError
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_batches import FakeBatches
from agenteval_nb.testing.heuristic_judge import heuristic_handler

FRAMES = ("cases_df", "metrics_df", "invocations_df", "rubrics_df", "samples_df", "logprobs_df")
ROOT = Path(__file__).resolve().parents[2]


def fast(**kw):
    return ae.BatchConfig(poll_every=0.0, **kw)


def no_halluc(base_url, **kw):
    """The metrics without the two-stage judge: one planning round, one batch per model."""
    return [m for m in metrics(base_url, **kw) if m["metricName"] != "halluc"]


def sync_run(srv, tmp_path, name, metric_list=None):
    return ae.evaluate(
        EVALSET,
        metric_list or metrics(srv.base_url),
        agent=agent,
        cache=tmp_path / f"{name}.sqlite",
        progress=False,
        session_id_factory=session_ids(),
    )


def batch_run(srv, tmp_path, name, config=None, metric_list=None, **kw):
    return ae.evaluate(
        EVALSET,
        metric_list or metrics(srv.base_url),
        agent=agent,
        cache=tmp_path / f"{name}.sqlite",
        progress=False,
        session_id_factory=session_ids(),
        batch=config or fast(),
        results_dir=tmp_path / name,
        **kw,
    )


def differing(a, b):
    """Frame name → columns whose values differ between two runs."""
    out = {}
    for name in FRAMES:
        left, right = getattr(a, name)(), getattr(b, name)()
        assert list(left.columns) == list(right.columns) and left.shape == right.shape, name
        out[name] = {c for c in left.columns if not left[c].equals(right[c])}
    return out


def reasons(run):
    """eval id → the error message of each failed case (a judge error fails its case)."""
    return {
        case.eval_id: case.error_message
        for case in run.result.eval_case_results
        if case.error_message is not None
    }


@pytest.fixture
def batches():
    return FakeBatches()


@pytest.fixture
def server(batches):
    with FakeOpenAIServer(heuristic_handler, batches=batches) as srv:
        yield srv


def test_batch_run_equals_sync_run_and_costs_half(server, batches, tmp_path):
    prices = {"judge-a": (2.0, 8.0)}
    first = sync_run(server, tmp_path, "s1")
    sync_bodies = Counter(json.dumps(b, sort_keys=True) for b in server.chat_requests)
    again = sync_run(server, tmp_path, "s2")
    server.reset()
    run = batch_run(server, tmp_path, "b", price_table=prices)
    assert server.request_count == 0  # nothing judged synchronously
    noise = differing(first, again)  # random invocation ids and timings of the agent
    assert noise["metrics_df"] == set() and noise["cases_df"] == set()
    batch_columns = {"batch", "cost_usd"}  # a batch answer says so, priced at the batch rate
    for name, columns in differing(first, run).items():
        allowed = noise[name] | (batch_columns if name == "samples_df" else set())
        assert columns <= allowed, (name, columns - allowed)
    assert run.samples_df()["batch"].all() and not first.samples_df()["batch"].any()
    lines = [json.loads(line) for f in batches.files.values() for line in f.splitlines()]
    sent = Counter(json.dumps(x["body"], sort_keys=True) for x in lines if "body" in x)
    assert sent == sync_bodies  # the same requests, none made up, none twice
    usage = run.info["judge_usage"]
    assert usage["batch_requests"] == usage["requests"] == sum(sync_bodies.values())
    priced = ae.evaluate(
        EVALSET,
        metrics(server.base_url),
        agent=agent,
        cache=tmp_path / "s3.sqlite",
        progress=False,
        price_table=prices,
    )
    full = priced.info["judge_usage"]["cost"]
    assert full > 0 and usage["cost"] == pytest.approx(full / 2)
    assert usage["batch_saved"] == pytest.approx(full / 2)
    costs = run.cost_df().iloc[0]
    assert costs["batch_calls"] == costs["requests"] == usage["requests"]
    assert costs["cost_usd"] == pytest.approx(full / 2)
    assert costs["saved_usd"] == pytest.approx(full / 2)
    assert run.info["batch"]["rounds"] == 2  # the hallucination judge's validation prompts


def test_cached_rerun_uploads_nothing(server, batches, tmp_path):
    first = batch_run(server, tmp_path, "b")
    uploads, creates = batches.uploads, batches.creates
    rerun = ae.evaluate(
        EVALSET,
        metrics(server.base_url),
        agent=agent,
        cache=tmp_path / "b.sqlite",
        progress=False,
        session_id_factory=session_ids(),
        batch=fast(),
        results_dir=tmp_path / "again",
    )
    assert (batches.uploads, batches.creates) == (uploads, creates)
    assert rerun.info["judge_usage"]["cache_hits"] == rerun.info["judge_usage"]["calls"]
    assert rerun.info["batch"]["batches"] == 0
    assert differing(first, rerun)["metrics_df"] == set()


def test_max_requests_shards_and_one_batch_per_model(server, batches, tmp_path):
    both = no_halluc(server.base_url) + [
        {**m, "metricName": f"{m['metricName']}-b"}
        for m in no_halluc(server.base_url, model="judge-b")
    ]
    run = batch_run(server, tmp_path, "b", config=fast(max_requests=4), metric_list=both)
    status = run.info["batch"]
    per_model = Counter(b.data["input_file_id"] for b in batches.batches.values())
    assert len(per_model) == batches.creates == status["batches"]
    models = []
    for batch in batches.batches.values():
        lines = batches.files[batch.data["input_file_id"]].splitlines()
        assert 1 <= len(lines) <= 4
        models.append({json.loads(line)["body"]["model"] for line in lines})
    assert all(len(m) == 1 for m in models)  # one model per file
    requests = run.info["judge_usage"]["batch_requests"]
    half = requests // 2
    assert batches.creates == 2 * -(-half // 4)  # ⌈n/4⌉ per model


def test_shuffled_output_maps_by_id(tmp_path):
    with FakeOpenAIServer(heuristic_handler, batches=FakeBatches(shuffle=True)) as srv:
        sync = sync_run(srv, tmp_path, "s")
        run = batch_run(srv, tmp_path, "b")
    assert differing(sync, run)["metrics_df"] == set()
    assert differing(sync, run)["rubrics_df"] <= {"invocation_id"}


def test_dropped_line_is_resent_once_and_answered(tmp_path):
    faults = FakeBatches(
        line_fault=lambda batch, line, _: "drop" if (batch, line) == (0, 1) else None
    )
    with FakeOpenAIServer(heuristic_handler, batches=faults) as srv:
        sync = sync_run(srv, tmp_path, "s", no_halluc(srv.base_url))
        run = batch_run(srv, tmp_path, "b", metric_list=no_halluc(srv.base_url))
    assert faults.creates == 2
    resent = faults.batches["batch-" + str(_second_batch_id(faults))]
    assert len(faults.files[resent.data["input_file_id"]].splitlines()) == 1  # only the lost one
    assert differing(sync, run)["metrics_df"] == set()


def _second_batch_id(faults):
    return sorted(int(i.split("-")[1]) for i in faults.batches)[1]


def test_failing_line_fails_only_its_invocation_after_one_resend(tmp_path):
    sent = Counter()

    def fault(batch, line, item):
        text = json.dumps(item["body"])
        if "Barcelona" in text and "final response" not in text.lower():
            sent[item["custom_id"]] += 1
            return 400
        return None

    faults = FakeBatches(line_fault=fault)
    with FakeOpenAIServer(heuristic_handler, batches=faults) as srv:
        sync = sync_run(srv, tmp_path, "s", no_halluc(srv.base_url))
        run = batch_run(srv, tmp_path, "b", metric_list=no_halluc(srv.base_url))
    assert sent and set(sent.values()) == {2}  # each failing line: sent, resent once
    assert reasons(run) == {
        "two-turns": "run evaluation for metric final: judge response: batch request failed: "
        "http_400: injected HTTP 400"
    }
    sync_m, batch_m = sync.metrics_df(), run.metrics_df()
    kept = sync_m[sync_m["eval_id"] != "two-turns"].reset_index(drop=True)
    assert batch_m.reset_index(drop=True).equals(kept)


def test_expired_batch_keeps_partial_output_and_resends_the_rest(tmp_path):
    faults = FakeBatches(batch_fault=lambda n: "expire" if n == 0 else None)
    with FakeOpenAIServer(heuristic_handler, batches=faults) as srv:
        sync = sync_run(srv, tmp_path, "s", no_halluc(srv.base_url))
        run = batch_run(srv, tmp_path, "b", metric_list=no_halluc(srv.base_url))
    first, second = (faults.batches[f"batch-{i}"] for i in sorted(_ids(faults))[:2])
    assert first.data["status"] == "expired"
    total = len(faults.files[first.data["input_file_id"]].splitlines())
    resent = len(faults.files[second.data["input_file_id"]].splitlines())
    assert resent == total - (total + 1) // 2  # only the unanswered half
    assert differing(sync, run)["metrics_df"] == set()


def _ids(faults):
    return [int(i.split("-")[1]) for i in faults.batches]


def test_validation_failure_fails_lines_with_code_without_hanging(tmp_path):
    faults = FakeBatches(max_lines=1)  # every file of 2+ lines fails validation
    with FakeOpenAIServer(heuristic_handler, batches=faults) as srv:
        run = batch_run(srv, tmp_path, "b", metric_list=no_halluc(srv.base_url))
    assert all(b.data["status"] == "failed" for b in faults.batches.values())
    assert faults.creates == 2  # sent, resent once
    texts = reasons(run)
    assert len(texts) == 3 and all(
        "too_many_requests: more than 1 lines" in t for t in texts.values()
    )
    manifest = json.loads((tmp_path / "b" / "batch_job" / "manifest.json").read_text())
    assert run.info["batch"]["failed"] == len(manifest["failures"]) > 0


def test_stalled_batch_hits_the_deadline_and_is_cancelled(tmp_path):
    faults = FakeBatches(batch_fault=lambda n: "stall")
    config = ae.BatchConfig(poll_every=0.01, max_poll_every=0.02, deadline_s=0.3)
    with FakeOpenAIServer(heuristic_handler, batches=faults) as srv:
        run = batch_run(srv, tmp_path, "b", config=config, metric_list=no_halluc(srv.base_url))
    assert faults.creates == 1 and faults.cancels == 1  # never resent after a deadline
    texts = reasons(run)
    assert len(texts) == 3 and all(
        "deadline: batch batch-1 still in_progress" in t for t in texts.values()
    )


def test_consecutive_poll_failures_stop_then_the_job_resumes(server, batches, tmp_path):
    job = ae.evaluate(
        EVALSET,
        no_halluc(server.base_url),
        agent=agent,
        cache=tmp_path / "c.sqlite",
        progress=False,
        batch=fast(max_poll_failures=3),
        results_dir=tmp_path / "b",
        judge_max_retries=0,  # each poll is one HTTP request
        wait=False,
    )
    batches.retrieve_errors = 10**6
    with pytest.raises(BatchPollError, match="3 polls in a row failed"):
        job.wait()
    assert batches.retrieves == 3
    batches.retrieve_errors = 0
    run = ae.BatchJob.load(tmp_path / "b").result()
    assert batches.creates == 1
    assert run.info["batch"]["answered"] == run.info["judge_usage"]["batch_requests"]


def test_cancel_is_a_terminal_state_handled_like_the_others(server, batches, tmp_path):
    job = ae.evaluate(
        EVALSET,
        no_halluc(server.base_url),
        agent=agent,
        cache=tmp_path / "c.sqlite",
        progress=False,
        batch=fast(retry_failed=0),
        results_dir=tmp_path / "b",
        wait=False,
    )
    job.cancel()
    run = job.result()
    assert batches.cancels == 1 and batches.creates == 1
    assert list(job.status_df()["status"]) == ["cancelled"]
    texts = reasons(run)
    assert len(texts) == 3 and all("missing: no result line" in t for t in texts.values())


def test_resume_in_a_new_process_creates_exactly_one_batch(server, batches, tmp_path):
    job = ae.evaluate(
        EVALSET,
        no_halluc(server.base_url),
        agent=agent,
        cache=tmp_path / "c.sqlite",
        progress=False,
        session_id_factory=session_ids(),
        batch=fast(),
        results_dir=tmp_path / "b",
        wait=False,
    )
    assert batches.creates == 1
    assert list(job.status_df()["status"]) == ["validating"]
    script = textwrap.dedent(
        f"""
        import json, agenteval_nb as ae
        run = ae.BatchJob.load({str(tmp_path / "b")!r}).result()
        print(json.dumps({{"batch": run.info["batch"], "agent": run.info.get("agent"),
                          "metrics": run.metrics_df().to_dict("list")}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert batches.creates == 1 and out["batch"]["batches"] == 1
    assert out["agent"] == "agent"  # the first pass's agent, never called again
    sync = sync_run(server, tmp_path, "s", no_halluc(server.base_url))
    assert out["metrics"] == json.loads(json.dumps(sync.metrics_df().to_dict("list")))


def test_no_batch_api_is_a_clear_error_before_any_agent_call(tmp_path):
    def no_agent(text):
        raise AssertionError("the agent must not run")

    with FakeOpenAIServer(heuristic_handler) as srv:  # no files / batches routes: 404
        with pytest.raises(BatchUnsupportedError, match=r"has no batch API.*HTTP 404"):
            ae.evaluate(
                EVALSET,
                metrics(srv.base_url),
                agent=no_agent,
                cache=tmp_path / "c.sqlite",
                progress=False,
                batch=fast(),
                results_dir=tmp_path / "b",
            )
        assert srv.request_count == 0


def test_no_batch_api_falls_back_to_sync_calls_when_asked(tmp_path):
    with FakeOpenAIServer(heuristic_handler, batches=FakeBatches(enabled=False)) as srv:
        sync = sync_run(srv, tmp_path, "s")
        calls = srv.request_count
        srv.reset()
        run = batch_run(srv, tmp_path, "b", config=fast(on_unsupported="sync"))
        assert srv.request_count == calls
    assert differing(sync, run)["metrics_df"] == set()
    assert run.info["batch"]["batches"] == 0 and run.info["judge_usage"]["batch_requests"] == 0


def test_bad_batch_arguments_are_refused(server, tmp_path):
    with pytest.raises(ConfigError, match="needs results_dir"):
        ae.evaluate(EVALSET, metrics(server.base_url), agent=agent, batch=True, progress=False)
    with pytest.raises(ConfigError, match="injected judge"):
        ae.evaluate(
            EVALSET,
            metrics(server.base_url),
            agent=agent,
            judge=heuristic_handler,
            batch=True,
            results_dir=tmp_path,
            progress=False,
        )
    with pytest.raises(ConfigError, match="cache=False"):
        ae.evaluate(
            EVALSET,
            metrics(server.base_url),
            agent=agent,
            cache=False,
            batch=True,
            results_dir=tmp_path,
            progress=False,
        )
    batch_run(server, tmp_path, "b", metric_list=no_halluc(server.base_url))
    with pytest.raises(ConfigError, match="already holds a batch job"):
        batch_run(server, tmp_path, "b", metric_list=no_halluc(server.base_url))
    with pytest.raises(ValueError, match="retry_failed"):
        ae.BatchConfig(retry_failed=-1)


class _WatchedBatches(FakeBatches):
    """Records, at each create, which batch tags the job's manifest already lists."""

    def __init__(self, manifest, **kw):
        super().__init__(**kw)
        self.manifest = manifest
        self.listed_at_create = []

    def _create(self, raw):
        tags = [s["tag"] for s in json.loads(self.manifest.read_text())["shards"]]
        self.listed_at_create.append((json.loads(raw)["metadata"]["agenteval_shard"], tags))
        return super()._create(raw)


def test_manifest_lists_a_shard_before_its_batch_is_created(tmp_path):
    watched = _WatchedBatches(tmp_path / "b" / "batch_job" / "manifest.json")
    with FakeOpenAIServer(heuristic_handler, batches=watched) as srv:
        batch_run(srv, tmp_path, "b")
    assert len(watched.listed_at_create) == 2  # two rounds
    for tag, listed in watched.listed_at_create:
        assert tag in listed


def test_a_batch_created_before_a_crash_is_found_not_created_again(server, batches, tmp_path):
    ae.evaluate(
        EVALSET,
        no_halluc(server.base_url),
        agent=agent,
        cache=tmp_path / "c.sqlite",
        progress=False,
        batch=fast(),
        results_dir=tmp_path / "b",
        wait=False,
    )
    path = tmp_path / "b" / "batch_job" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["shards"][0].update(batch_id=None, file_id=None, status="creating")  # the crash
    path.write_text(json.dumps(manifest))
    run = ae.BatchJob.load(tmp_path / "b").result()
    assert batches.creates == 1
    assert run.info["batch"]["batch_ids"] == ["batch-1"]


def test_no_api_key_reaches_the_job_directory(server, tmp_path):
    secret = "sk-batch-SECRET-9d1e"
    metric_list = no_halluc(server.base_url)
    for metric in metric_list:
        metric["criterion"]["llmJudge"]["judgeModel"]["apiKey"] = secret
    run = batch_run(server, tmp_path, "b", metric_list=metric_list)
    assert run.info["batch"]["answered"] > 0
    assert all(r.headers.get("authorization") == f"Bearer {secret}" for r in server.requests)
    for path in (tmp_path / "b").rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path


@pytest.mark.parametrize(("with_halluc", "passes"), [(False, 2), (True, 3)])
def test_a_planning_pass_is_repeated_only_when_a_prompt_waits_for_an_answer(
    server, tmp_path, with_halluc, passes
):
    seen = []
    callbacks = ae.Callbacks().register("AfterEvaluateSet", lambda event: seen.append(event.run_id))
    metric_list = metrics(server.base_url) if with_halluc else no_halluc(server.base_url)
    run = batch_run(server, tmp_path, "b", metric_list=metric_list, callbacks=callbacks)
    assert len(seen) == passes  # plan (+ re-plan) + score
    assert run.info["batch"]["rounds"] == passes - 1
