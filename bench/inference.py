"""Inference phase throughput: an agent under test through ``ae.evaluate`` vs the ideal and a
bare asyncio loop.

Workload: a default-mode eval set built in memory, ``--cases`` cases × ``--turns`` turns, one
metric (``final_response_avg_score``, exact text), an async agent that returns the expected
answer. Everything runs through ``ae.evaluate`` with ``progress=False``.

1. **Latency-bound** (the agent ``await asyncio.sleep(latency)``): at the default
   ``case_parallelism`` (8), at ``--parallelism`` values, and at the largest of them with the
   agent wrapped by ``ae.record`` into an in-memory store (one eval set per session). Turns of a case are sequential and
   cases run ``P`` at a time, so the ideal wall time is ``ceil(cases / P) × turns × latency``;
   printed: ideal / wall (target ≥ 0.9).
2. **Toolkit overhead per turn** (the agent does not sleep), best of ``--rounds`` alternating
   rounds, at ``case_parallelism = 64``:

   * ``bare``: a plain asyncio loop that awaits the agent function for every turn of every case
     (the floor: what calling the agent costs);
   * ``evaluate only``: the same turns evaluated as a trace-mode eval set (the agent's answers
     recorded as the actual turns, no agent): the evaluate phase, summary and result building;
   * ``with agent``: the default-mode set with the zero-latency agent (the engine freezes the
     objects that exist before an agent run for the cyclic GC, so its collections do not rescan
     the loaded eval set).

   Printed per turn: wall / turns for each, and the **inference overhead** =
   (with agent − evaluate only − bare) / turns in µs (target ≤ 200 µs), i.e. what running an
   agent adds beyond calling it and beyond evaluating its answers. Process CPU time per turn is
   printed alongside (steadier on a shared machine).

Latency-bound runs: best of ``--latency-rounds`` rounds. Overhead runs: best of ``--rounds``.

Usage: ``python bench/inference.py [--cases 1000] [--turns 2] [--latency-ms 50]
[--parallelism 8,32,64] [--rounds 3] [--latency-rounds 2] [--profile]``
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import math
import pstats
import time
from collections.abc import Callable
from typing import Any

import agenteval_nb as ae
from agenteval_nb.stores import InMemoryEvalSetStore

DEFAULT_PARALLELISM = 8  # ae.evaluate's case_parallelism default

METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {}}},
    }
]


def answer(text: str) -> str:
    return f"answer to {text}"


def evalset_dict(cases: int, turns: int, trace: bool) -> dict[str, Any]:
    def conversation(c: int) -> list[dict[str, Any]]:
        return [
            {
                "invocationId": f"c{c}-t{t}",
                "userContent": {"role": "user", "content": f"case {c} turn {t}"},
                "finalResponse": {"role": "assistant", "content": answer(f"case {c} turn {t}")},
            }
            for t in range(turns)
        ]

    out_cases = []
    for c in range(cases):
        case: dict[str, Any] = {
            "evalId": f"case-{c:05d}",
            "sessionInput": {"appName": "bench", "userId": "u", "state": {"n": c}},
        }
        case["conversation"] = conversation(c)
        if trace:  # the answers as recorded actual turns
            case["evalMode"] = "trace"
            case["actualConversation"] = conversation(c)
        out_cases.append(case)
    return {"evalSetId": "bench", "evalCases": out_cases}


def sleeping_agent(latency_s: float) -> Callable[[str], Any]:
    async def agent(text: str) -> str:
        await asyncio.sleep(latency_s)
        return answer(text)

    return agent


async def instant_agent(text: str) -> str:
    return answer(text)


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall s, process CPU s, result) of ``fn()``."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def bare_loop(es: ae.EvalSet) -> None:
    """Await the agent for every turn, cases ``64`` at a time: the cost of calling the agent."""

    async def one_case(case: ae.EvalCase) -> None:
        for turn in case.conversation or ():
            await instant_agent(turn.user_content.content)

    async def main() -> None:
        sem = asyncio.Semaphore(64)

        async def bounded(case: ae.EvalCase) -> None:
            async with sem:
                await one_case(case)

        await asyncio.gather(*(bounded(c) for c in es.eval_cases or ()))

    asyncio.run(main())


def check(run: ae.EvalRun, cases: int) -> None:
    counts = run.case_status_counts()
    if counts.get("passed", 0) != cases:
        raise SystemExit(f"unexpected case statuses {dict(counts)}")


def latency_bound(args: argparse.Namespace, es: ae.EvalSet, turns_total: int) -> None:
    latency = args.latency_ms / 1000
    agent = sleeping_agent(latency)
    print(
        f"latency-bound: {args.cases} cases × {args.turns} turns, agent sleeps "
        f"{args.latency_ms:g} ms"
    )
    top = max(args.parallelism)
    recorded = ae.record(agent, InMemoryEvalSetStore())
    settings: list[tuple[str, Any, int]] = [("defaults (8)", agent, DEFAULT_PARALLELISM)]
    settings += [
        (f"case_parallelism={p}", agent, p) for p in args.parallelism if p != DEFAULT_PARALLELISM
    ]
    settings.append((f"{top} + ae.record(memory)", recorded, top))
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.latency_rounds):
        for label, each, p in settings:
            wall, cpu, run = timed(
                lambda a=each, p=p: ae.evaluate(
                    es, METRICS, agent=a, progress=False, case_parallelism=p
                )
            )
            check(run, args.cases)
            best[label] = min(best.get(label, (wall, cpu)), (wall, cpu))
    for label, _agent, p in settings:
        wall, cpu = best[label]
        ideal = math.ceil(args.cases / p) * args.turns * latency
        print(
            f"  {label:<22} wall {wall:7.2f} s  ideal {ideal:7.2f} s  ratio {ideal / wall:5.3f} "
            f"(target ≥ 0.9)  CPU {cpu / turns_total * 1e6:6.0f} µs/turn"
        )


def overhead(args: argparse.Namespace, es: ae.EvalSet, traced: ae.EvalSet, n: int) -> None:
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, wall: float, cpu: float) -> None:
        old = best.get(name)
        best[name] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)

    for _ in range(args.rounds):
        wall, cpu, _ = timed(lambda: bare_loop(es))
        keep("bare", wall, cpu)
        wall, cpu, run = timed(
            lambda: ae.evaluate(traced, METRICS, progress=False, case_parallelism=64)
        )
        check(run, args.cases)
        keep("evaluate only", wall, cpu)
        wall, cpu, run = timed(
            lambda: ae.evaluate(
                es, METRICS, agent=instant_agent, progress=False, case_parallelism=64
            )
        )
        check(run, args.cases)
        keep("with agent", wall, cpu)
    print(f"overhead: zero-latency agent, {n} turns, case_parallelism=64, best of {args.rounds}")
    for name, (wall, cpu) in best.items():
        print(f"  {name:<14} {wall * 1e6 / n:7.1f} µs/turn wall  {cpu * 1e6 / n:7.1f} µs/turn CPU")
    extra = best["with agent"][0] - best["evaluate only"][0] - best["bare"][0]
    extra_cpu = best["with agent"][1] - best["evaluate only"][1] - best["bare"][1]
    print(
        f"  inference overhead {extra * 1e6 / n:7.1f} µs/turn wall  "
        f"{extra_cpu * 1e6 / n:7.1f} µs/turn CPU (target ≤ 200)"
    )


def profile(es: ae.EvalSet, top: int = 25) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    ae.evaluate(es, METRICS, agent=instant_agent, progress=False, case_parallelism=64)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)


def main(args: argparse.Namespace) -> None:
    es = ae.load_evalset(evalset_dict(args.cases, args.turns, trace=False))
    traced = ae.load_evalset(evalset_dict(args.cases, args.turns, trace=True))
    n = args.cases * args.turns
    ae.evaluate(es, METRICS, agent=instant_agent, progress=False)  # warm-up (imports)
    if args.profile:
        profile(es)
        return
    overhead(args, es, traced, n)
    if args.latency_ms > 0:
        latency_bound(args, es, n)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--parallelism", default="8,32,64", help="comma-separated list")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the overhead runs")
    parser.add_argument("--latency-rounds", type=int, default=2, help="rounds of the latency runs")
    parser.add_argument("--profile", action="store_true", help="cProfile the zero-latency run")
    args = parser.parse_args(argv)
    args.parallelism = [int(p) for p in str(args.parallelism).split(",") if p.strip()]
    if min(args.cases, args.turns, args.rounds, args.latency_rounds) < 1 or not args.parallelism:
        parser.error("--cases, --turns, --rounds and --parallelism must be positive")
    return args


if __name__ == "__main__":
    main(parse_args())
