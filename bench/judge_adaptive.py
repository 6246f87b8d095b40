"""Adaptive judge concurrency against a fixed limit of twice the server's capacity.

The loopback server (in this process) answers at most ``C`` chat requests at once and every
request beyond with an immediate 429 and ``Retry-After`` (``--retry-after-ms``). The same
``--calls`` judge calls go through two ``JudgeClient``\\ s, alternating, ``--rounds`` pairs:

* fixed: ``max_concurrency = 2·C``, 429s retried by the openai client (``max_retries`` 50, so
  that it loses nothing either);
* adaptive: ``concurrency="adaptive"`` with the default settings (start 10, cooldown 10 s).

Printed per capacity: the server's 429 count of each side (median over the pairs), lost calls,
the median wall-time ratio adaptive / fixed over the pairs and the adaptive limit at the end.
Target: fewer 429s than fixed, 0 lost, wall time about the same or better.

Usage: ``python bench/judge_adaptive.py [--capacity 4,8,16] [--calls 300] [--latency-ms 40]
[--retry-after-ms 100] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy

from agenteval_nb.judge import JudgeClient  # noqa: E402
from agenteval_nb.schema.metric import JudgeModelOptions  # noqa: E402
from agenteval_nb.testing import FakeOpenAIServer  # noqa: E402


async def run(client: JudgeClient, base_url: str, calls: int) -> tuple[float, int]:
    """Wall time and lost calls of ``calls`` judge calls through ``client``."""
    model = JudgeModelOptions.model_validate({"modelName": "bench-judge", "baseURL": base_url})
    started = time.perf_counter()
    async with client:
        outcomes = await asyncio.gather(
            *(client.complete(model, [{"role": "user", "content": f"q{i}"}]) for i in range(calls)),
            return_exceptions=True,
        )
    return time.perf_counter() - started, sum(isinstance(o, BaseException) for o in outcomes)


def measure(server: FakeOpenAIServer, client: JudgeClient, calls: int) -> dict:
    server.reset()
    wall, lost = asyncio.run(run(client, server.base_url, calls))
    return {"wall": wall, "lost": lost, "429": server.rate_limited_count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacity", default="4,8,16")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=40.0)
    parser.add_argument("--retry-after-ms", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(
        f"calls {args.calls}, latency {args.latency_ms:g} ms, Retry-After "
        f"{args.retry_after_ms:g} ms, {args.rounds} pairs (median)"
    )
    print("capacity  fixed 2C: 429s lost | adaptive: 429s lost final-limit | wall adaptive/fixed")
    for capacity in (int(c) for c in args.capacity.split(",")):
        with FakeOpenAIServer(
            latency_s=args.latency_ms / 1000,
            capacity=capacity,
            retry_after_s=args.retry_after_ms / 1000,
        ) as server:
            fixed_rows, adaptive_rows, ratios, limits = [], [], [], []
            for _ in range(args.rounds):
                fixed = measure(
                    server, JudgeClient(max_concurrency=2 * capacity, max_retries=50), args.calls
                )
                client = JudgeClient(concurrency="adaptive", max_retries=0)
                adaptive = measure(server, client, args.calls)
                limits.extend(c.limit for c in client._controllers.values())
                fixed_rows.append(fixed)
                adaptive_rows.append(adaptive)
                ratios.append(adaptive["wall"] / fixed["wall"])

        def med(rows: list[dict], key: str) -> float:
            return statistics.median(row[key] for row in rows)

        print(
            f"{capacity:>8}  {med(fixed_rows, '429'):>14g} {max(r['lost'] for r in fixed_rows):>4}"
            f" | {med(adaptive_rows, '429'):>14g} {max(r['lost'] for r in adaptive_rows):>4}"
            f" {statistics.median(limits):>11g} | {statistics.median(ratios):>18.2f}"
        )


if __name__ == "__main__":
    main()
