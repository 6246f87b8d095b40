"""The live path against ``ae.evaluate`` for the same work (goal: ≤ 1.05×).

Workload: ``--cases`` default-mode cases (``bench/_synthetic.evalset``: tool trajectories and
final responses), an async agent that answers the expected text at once, the deterministic
metrics; each round runs ``ae.evaluate(...)`` and ``ae.start(..., results_dir=tmp).result()``
(journal written, result saved — ``evaluate`` saves to its own ``results_dir`` too), in
alternating order. Printed per round: wall and process CPU of both; then the median ratio
live / evaluate of each. Usage: ``python bench/live.py [--cases 2000] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import Any

from _synthetic import evalset

import agenteval_nb as ae

METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {}}},
    }
]


def expected_answers(data: dict[str, Any]) -> dict[str, str]:
    answers = {}
    for case in data["evalCases"]:
        for turn in case["conversation"]:
            answers[turn["userContent"]["content"]] = (turn.get("finalResponse") or {}).get(
                "content", ""
            )
    return answers


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    data = evalset(args.cases)
    answers = expected_answers(data)

    async def agent(text: str) -> str:
        return answers[text]

    def evaluate() -> None:
        with tempfile.TemporaryDirectory() as out:
            ae.evaluate(data, METRICS, agent=agent, progress=False, results_dir=out)

    def live() -> None:
        with tempfile.TemporaryDirectory() as out:
            ae.start(data, METRICS, agent=agent, results_dir=out).result()

    evaluate()  # warm-up: imports, first-call caches
    ratios_wall, ratios_cpu = [], []
    for round_ in range(args.rounds):
        pair = {}
        for name, fn in (("evaluate", evaluate), ("live", live))[:: 1 if round_ % 2 else -1]:
            pair[name] = timed(fn)
        (ew, ec), (lw, lc) = pair["evaluate"], pair["live"]
        ratios_wall.append(lw / ew)
        ratios_cpu.append(lc / ec)
        print(
            f"round {round_ + 1}: evaluate {ew:.2f} s wall / {ec:.2f} s CPU · "
            f"live {lw:.2f} s wall / {lc:.2f} s CPU"
        )
    print(
        f"{args.cases} cases: live / evaluate, median of {args.rounds} rounds: "
        f"wall {statistics.median(ratios_wall):.3f}×, CPU {statistics.median(ratios_cpu):.3f}× "
        "(goal ≤ 1.05×)"
    )


if __name__ == "__main__":
    main()
