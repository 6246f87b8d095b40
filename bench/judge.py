"""Judge client throughput against a bare AsyncOpenAI loop, and a cached re-run.

The fake server runs in its own process with a fixed latency (default 50 ms). For each
concurrency the same calls go through (a) a bare ``AsyncOpenAI`` loop — semaphore + gather — and
(b) ``JudgeClient`` with the cache off; rounds alternate and the best round of each counts. The
printed ratio is ours / bare (target ≥ 0.9). With few cores the client is CPU-bound, so the
client-process CPU per call is printed too (the steadier number on a shared machine). Then the calls run twice through ``JudgeClient``
with a cache in a temporary directory; the server's request count of the second run is printed
(target 0).

Usage: ``python bench/judge.py [--calls 2000] [--concurrency 32,64] [--latency-ms 50]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import openai

from agenteval_nb.judge import JudgeClient
from agenteval_nb.schema.metric import JudgeModelOptions

API_KEY = "bench-key"
MODEL = "bench-judge"


def messages(i: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are a strict grader."},
        {"role": "user", "content": f"Question {i}: is the answer correct? Answer: {i * 7}"},
    ]


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "agenteval_nb.testing.fake_server", "--port", "0"]
    proc = subprocess.Popen(
        [*cmd, "--latency-ms", str(latency_ms)], stdout=subprocess.PIPE, text=True
    )
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


async def main(args: argparse.Namespace) -> None:
    proc, base_url = start_server(args.latency_ms)
    judge = JudgeModelOptions(model_name=MODEL, base_url=base_url, api_key=API_KEY)
    print(f"server: separate process, {args.latency_ms:g} ms latency; calls per run: {args.calls}")
    try:
        for concurrency in args.concurrency:
            bare, ours = (float("inf"), 0.0), (float("inf"), 0.0)
            for _ in range(args.rounds):
                bare = min(bare, await run_bare(base_url, args.calls, concurrency))
                async with JudgeClient(max_concurrency=concurrency) as client:
                    ours = min(ours, await run_ours(client, judge, args.calls, concurrency))
            bare_rate, ours_rate = args.calls / bare[0], args.calls / ours[0]
            ideal = concurrency / (args.latency_ms / 1000)
            us = 1e6 / args.calls
            print(
                f"concurrency {concurrency:>3}: bare {bare_rate:5.0f} calls/s, "
                f"JudgeClient {ours_rate:5.0f} calls/s (ideal {ideal:.0f}) -> "
                f"ratio {ours_rate / bare_rate:.3f} (target >= 0.9); client CPU per call: "
                f"bare {bare[1] * us:.0f} us, JudgeClient {ours[1] * us:.0f} us"
            )

        concurrency = max(args.concurrency)
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "judge.sqlite"
            async with JudgeClient(max_concurrency=concurrency, cache=cache) as client:
                first, _ = await run_ours(client, judge, args.calls, 0)
            server_stats(base_url, reset=True)
            async with JudgeClient(max_concurrency=concurrency, cache=cache) as client:
                second, _ = await run_ours(client, judge, args.calls, 0)
                hits = client.usage.cache_hits
            requests = server_stats(base_url)["request_count"]
            print(
                f"cache: first run {args.calls / first:7.0f} calls/s (writing the cache); "
                f"re-run {args.calls / second:7.0f} calls/s, {hits} cache hits, "
                f"server requests during re-run: {requests} (target 0)"
            )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", default="32,64", help="comma-separated list")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per setting")
    args = parser.parse_args(argv)
    args.concurrency = [int(c) for c in str(args.concurrency).split(",") if c.strip()]
    if args.calls < 1 or args.rounds < 1 or not args.concurrency:
        parser.error("--calls, --rounds and --concurrency must be positive")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
