"""Experiment overhead: ``ae.experiment`` of V agent variants vs the V separate ``ae.evaluate``
calls it stands for (target: ≤ 1.05×).

Workload: a default-mode eval set built in memory, ``--cases`` cases × 2 turns, one metric
(``final_response_avg_score``, exact text), V async agents that sleep ``--latency-ms`` and
answer (variant i answers wrong on every i-th case, so the variants differ). Best of
``--rounds`` alternating rounds, ``progress=False``. The experiment's own work after the runs
(leaderboard and pairwise table) is timed separately.

Usage: ``python bench/experiment.py [--cases 300] [--variants 3] [--latency-ms 2] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from typing import Any

import agenteval_nb as ae

METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {}}},
    }
]


def answer(text: str) -> str:
    return f"answer to {text}"


def evalset_dict(cases: int) -> dict[str, Any]:
    return {
        "evalSetId": "bench",
        "evalCases": [
            {
                "evalId": f"case-{c:05d}",
                "sessionInput": {"appName": "bench", "userId": "u"},
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": f"case {c} turn {t}"},
                        "finalResponse": {
                            "role": "assistant",
                            "content": answer(f"case {c} turn {t}"),
                        },
                    }
                    for t in range(2)
                ],
            }
            for c in range(cases)
        ],
    }


def agent(every: int, latency_s: float) -> Callable[[str], Any]:
    async def run(text: str) -> str:
        await asyncio.sleep(latency_s)
        case = int(text.split()[1])
        return "wrong" if every and case % every == 0 else answer(text)

    return run


def main(args: argparse.Namespace) -> None:
    es = ae.load_evalset(evalset_dict(args.cases))
    latency = args.latency_ms / 1000
    variants = {f"v{i}": agent(i, latency) for i in range(args.variants)}
    separate, together = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for fn in variants.values():
            ae.evaluate(es, METRICS, agent=fn, progress=False)
        separate.append(time.perf_counter() - start)
        start = time.perf_counter()
        exp = ae.experiment(es, METRICS, variants=variants, progress=False)
        together.append(time.perf_counter() - start)
    start = time.perf_counter()
    exp.leaderboard_df(backend="polars")
    exp.pairwise_df(backend="polars")
    analysis = time.perf_counter() - start
    best_separate, best_together = min(separate), min(together)
    print(
        f"{args.variants} variants × {args.cases} cases × 2 turns, agent latency {latency * 1e3:g} ms"
    )
    print(f"  separate ae.evaluate calls: {best_separate:.3f} s (best of {args.rounds})")
    print(f"  ae.experiment:              {best_together:.3f} s")
    print(f"  ratio: {best_together / best_separate:.3f} (target <= 1.05)")
    print(f"  leaderboard + pairwise table afterwards: {analysis:.3f} s")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--variants", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args(argv)


if __name__ == "__main__":
    main(parse_args())
