"""Judge throughput against a bare AsyncOpenAI loop: the client alone, and ``ae.evaluate``.

The fake server runs in its own process with a fixed latency (default 50 ms) and answers every
call with a valid ``llm_final_response`` verdict. Rounds alternate and the best round of each
measurement counts; every figure is printed as a ratio to the bare loop measured in the same
command (target ≥ 0.9):

* client: for each concurrency the same calls go through (a) a bare ``AsyncOpenAI`` loop —
  semaphore + gather — and (b) ``JudgeClient`` with the cache off. With few cores the client is
  CPU-bound, so the client-process CPU per call is printed too;
* end to end: ``--calls`` trace-mode cases of one turn each, scored by ``llm_final_response``
  through ``ae.evaluate`` with its default options (a fresh cache directory per round, so every
  call reaches the server), against the bare loop at the judge's default concurrency (32).
  Both sides are warmed up once (imports, connections), then ``--rounds`` pairs alternate;
  printed: the median and best throughput ratio over the pairs and the median process CPU per
  call of each side (both share the CPU with the server, so with few cores the CPU spent per
  call decides the throughput; wall-clock is noisy on a shared machine, CPU time less so);
* cache: the calls run twice through ``JudgeClient`` with a cache in a temporary directory; the
  server's request count of the second run is printed (target 0).

Usage: ``python bench/judge.py [--calls 1000] [--concurrency 32,64] [--latency-ms 50] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy

import openai  # noqa: E402

import agenteval_nb as ae  # noqa: E402
from agenteval_nb.judge import JudgeClient  # noqa: E402
from agenteval_nb.judge.cache import CACHE_ENV  # noqa: E402
from agenteval_nb.judge.client import DEFAULT_MAX_CONCURRENCY  # noqa: E402
from agenteval_nb.schema.metric import JudgeModelOptions  # noqa: E402

API_KEY = "bench-key"
MODEL = "bench-judge"
VERDICT = "reasoning: the answer matches the reference\nis_the_agent_response_valid: valid"


def messages(i: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are a strict grader."},
        {"role": "user", "content": f"Question {i}: is the answer correct? Answer: {i * 7}"},
    ]


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "agenteval_nb.testing.fake_server", "--port", "0"]
    cmd += ["--latency-ms", str(latency_ms), "--answer", VERDICT]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit(f"fake server did not start (got {url!r})")
    return proc, url


def server_stats(base_url: str, reset: bool = False) -> dict[str, int]:
    root = base_url.removesuffix("/v1")
    if reset:
        urllib.request.urlopen(urllib.request.Request(f"{root}/_fake/reset", b"", method="POST"))
    with urllib.request.urlopen(f"{root}/_fake/stats") as response:
        return json.load(response)


async def run_bare(base_url: str, calls: int, concurrency: int) -> tuple[float, float]:
    """Wall and client-CPU seconds for ``calls`` completions through a bare AsyncOpenAI loop."""
    async with openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY) as client:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> str | None:
            async with gate:
                result = await client.chat.completions.create(
                    model=MODEL, messages=messages(i), max_tokens=2000, temperature=0.8
                )
                return result.choices[0].message.content

        await asyncio.gather(*(one(i) for i in range(concurrency)))  # warm the pool
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return time.perf_counter() - started, time.process_time() - cpu


async def run_ours(
    client: JudgeClient, judge: JudgeModelOptions, calls: int, warm: int
) -> tuple[float, float]:
    """Wall and client-CPU seconds for ``calls`` judge calls (after ``warm`` warm-up calls)."""
    await asyncio.gather(*(client.complete(judge, messages(-1 - i)) for i in range(warm)))
    started, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(client.complete(judge, messages(i)) for i in range(calls)))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert all(r.content for r in results)
    return elapsed, cpu


def evaluation_inputs(calls: int, base_url: str) -> tuple[dict, list[dict]]:
    """``calls`` one-turn trace cases and an ``llm_final_response`` metric on the server."""
    cases = []
    for i in range(calls):
        user = {"role": "user", "content": f"Question {i}: what is {i} times 7?"}
        actual = {
            "userContent": user,
            "finalResponse": {"role": "assistant", "content": f"{i * 7}"},
        }
        expected = {
            "userContent": user,
            "finalResponse": {"role": "assistant", "content": f"It is {i * 7}."},
        }
        cases.append(
            {
                "evalId": f"case-{i}",
                "evalMode": "trace",
                "sessionInput": {"appName": "bench", "userId": "u"},
                "conversation": [expected],
                "actualConversation": [actual],
            }
        )
    judge = {"providerName": "openai", "modelName": MODEL, "baseURL": base_url, "apiKey": API_KEY}
    metric = {
        "metricName": "final_response_judge",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": judge}},
        "evaluatorName": "llm_final_response",
    }
    return {"evalSetId": "bench", "evalCases": cases}, [metric]


def run_evaluate(evalset: dict, metrics: list[dict]) -> tuple[float, float]:
    """Wall and process-CPU seconds of ``ae.evaluate`` at its defaults, with a fresh (empty)
    cache directory."""
    with tempfile.TemporaryDirectory() as tmp:
        previous = os.environ.get(CACHE_ENV)
        os.environ[CACHE_ENV] = tmp
        try:
            started, cpu = time.perf_counter(), time.process_time()
            run = ae.evaluate(evalset, metrics)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        finally:
            if previous is None:
                os.environ.pop(CACHE_ENV, None)
            else:
                os.environ[CACHE_ENV] = previous
    statuses = {c.final_eval_status for c in run.result.eval_case_results}
    assert statuses == {"passed"}, statuses
    assert run.info["judge_usage"]["cache_hits"] == 0
    return elapsed, cpu


async def client_round(
    base_url: str, judge: JudgeModelOptions, calls: int, concurrency: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    bare = await run_bare(base_url, calls, concurrency)
    async with JudgeClient(max_concurrency=concurrency) as client:
        ours = await run_ours(client, judge, calls, concurrency)
    return bare, ours


async def cache_check(
    base_url: str, judge: JudgeModelOptions, calls: int, concurrency: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "judge.sqlite"
        async with JudgeClient(max_concurrency=concurrency, cache=cache) as client:
            first, _ = await run_ours(client, judge, calls, 0)
        server_stats(base_url, reset=True)
        async with JudgeClient(max_concurrency=concurrency, cache=cache) as client:
            second, _ = await run_ours(client, judge, calls, 0)
            hits = client.usage.cache_hits
        requests = server_stats(base_url)["request_count"]
        print(
            f"cache: first run {calls / first:7.0f} calls/s (writing the cache); "
            f"re-run {calls / second:7.0f} calls/s, {hits} cache hits, "
            f"server requests during re-run: {requests} (target 0)"
        )


def main(args: argparse.Namespace) -> None:
    proc, base_url = start_server(args.latency_ms)
    judge = JudgeModelOptions(model_name=MODEL, base_url=base_url, api_key=API_KEY)
    print(f"server: separate process, {args.latency_ms:g} ms latency; calls per run: {args.calls}")
    try:
        for concurrency in args.concurrency:
            bare, ours = (float("inf"), 0.0), (float("inf"), 0.0)
            for _ in range(args.rounds):
                b, o = asyncio.run(client_round(base_url, judge, args.calls, concurrency))
                bare, ours = min(bare, b), min(ours, o)
            bare_rate, ours_rate = args.calls / bare[0], args.calls / ours[0]
            ideal = concurrency / (args.latency_ms / 1000)
            us = 1e6 / args.calls
            print(
                f"client, concurrency {concurrency:>3}: bare {bare_rate:5.0f} calls/s, "
                f"JudgeClient {ours_rate:5.0f} calls/s (ideal {ideal:.0f}) -> "
                f"ratio {ours_rate / bare_rate:.3f} (target >= 0.9); client CPU per call: "
                f"bare {bare[1] * us:.0f} us, JudgeClient {ours[1] * us:.0f} us"
            )

        end_to_end(base_url, args.calls, args.rounds)

        asyncio.run(cache_check(base_url, judge, args.calls, max(args.concurrency)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def end_to_end(base_url: str, calls: int, rounds: int) -> None:
    """``ae.evaluate`` against the bare loop: warm-up, then ``rounds`` alternating pairs."""
    warm_set, warm_metrics = evaluation_inputs(min(calls, 100), base_url)
    run_evaluate(warm_set, warm_metrics)
    evalset, metrics = evaluation_inputs(calls, base_url)
    pairs = []
    for _ in range(rounds):
        bare = asyncio.run(run_bare(base_url, calls, DEFAULT_MAX_CONCURRENCY))
        ours = run_evaluate(evalset, metrics)
        pairs.append((bare, ours))
    ratios = [bare[0] / ours[0] for bare, ours in pairs]
    bare_cpu = statistics.median(bare[1] for bare, _ in pairs) * 1e6 / calls
    ours_cpu = statistics.median(ours[1] for _, ours in pairs) * 1e6 / calls
    bare_rate = calls / statistics.median(bare[0] for bare, _ in pairs)
    ours_rate = calls / statistics.median(ours[0] for _, ours in pairs)
    print(
        f"end to end, ae.evaluate defaults ({calls} llm_final_response invocations, "
        f"{rounds} pairs): bare loop at concurrency {DEFAULT_MAX_CONCURRENCY} "
        f"{bare_rate:5.0f} calls/s, ae.evaluate {ours_rate:5.0f} calls/s (medians) -> ratio "
        f"median {statistics.median(ratios):.3f}, best {max(ratios):.3f} (target >= 0.9); "
        f"process CPU per call (median): bare {bare_cpu:.0f} us, ae.evaluate {ours_cpu:.0f} us "
        f"-> {ours_cpu / bare_cpu:.3f}"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", default="32,64", help="comma-separated list")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per setting")
    args = parser.parse_args(argv)
    args.concurrency = [int(c) for c in str(args.concurrency).split(",") if c.strip()]
    if args.calls < 1 or args.rounds < 1 or not args.concurrency:
        parser.error("--calls, --rounds and --concurrency must be positive")
    return args


if __name__ == "__main__":
    main(parse_args())
