"""A judge-bound evaluation on Ray against the local executor, on this one machine.

The fake judge server runs in its own process with a fixed latency (default 50 ms). The same
``--calls`` single-turn trace cases, scored by ``llm_final_response``, are evaluated through
``ae.evaluate`` at its defaults twice per round — with the local executor and with
``ae.RayExecutor`` on a local Ray instance (``ray.init(num_cpus=2)``, started once before the
rounds, as a cluster is up before users submit work) — with the cache off so that every call
reaches the server. The best round of each counts; the ratio local wall / Ray wall is printed
(target ≥ 0.8). The wall time of a 2-case evaluation on Ray is printed too: the executor
keeps its workers between evaluations, so this is what a small evaluation pays once the
workers are up (the run's setup shipped to them, two judge calls), not their start.

Usage: ``python bench/ray.py [--calls 2000] [--latency-ms 50] [--rounds 2] [--workers 2]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# this file is named like the package it benchmarks: import the real ``ray``, not ourselves
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in ("", _HERE)]
import ray  # noqa: E402

import agenteval_nb as ae  # noqa: E402

sys.path.insert(0, _HERE)
from judge import evaluation_inputs, server_stats, start_server  # noqa: E402


def timed(evalset: dict, metrics: list[dict], **options: object) -> float:
    started = time.perf_counter()
    run = ae.evaluate(evalset, metrics, cache=False, progress=False, **options)
    wall = time.perf_counter() - started
    statuses = {r.final_eval_status for r in run.result.eval_case_results}
    if statuses != {"passed"}:
        raise SystemExit(f"unexpected statuses {statuses}: {run.result.eval_case_results[0]}")
    return wall


def main(args: argparse.Namespace) -> None:
    proc, base_url = start_server(args.latency_ms)
    try:
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        evalset, metrics = evaluation_inputs(args.calls, base_url)
        small, small_metrics = evaluation_inputs(2, base_url)
        executor = ae.RayExecutor(workers=args.workers)
        timed(small, small_metrics, executor=executor)  # warm the workers' imports
        local_s = ray_s = small_s = float("inf")
        for _ in range(args.rounds):
            local_s = min(local_s, timed(evalset, metrics))
            ray_s = min(ray_s, timed(evalset, metrics, executor=executor))
            small_s = min(small_s, timed(small, small_metrics, executor=executor))
        server_stats(base_url, reset=True)
        print(
            f"{args.calls} llm_final_response invocations, {args.latency_ms:g} ms judge, "
            f"{args.workers} Ray workers"
        )
        print(f"  local executor: {args.calls / local_s:6.0f} calls/s")
        print(f"  Ray executor:   {args.calls / ray_s:6.0f} calls/s")
        print(f"  ratio Ray / local throughput: {local_s / ray_s:.3f} (target >= 0.8)")
        print(f"  a 2-case evaluation on Ray's warm workers: {small_s:.2f} s")
    finally:
        ray.shutdown()
        proc.kill()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    return parser.parse_args(argv)


if __name__ == "__main__":
    main(parse_args())
