"""Benchmark of the deterministic engine (tool trajectory + final response, trace mode).

For each size it runs one child process (so peak RSS is that size's own) that loads a synthetic
eval set (see ``_synthetic.py``), evaluates it with ``tool_trajectory_avg_score`` (unordered,
``ignoreTree``) and ``final_response_avg_score`` (contains, caseInsensitive), and writes the
result file. When ``.bench-venv`` holds trpc-agent-py (``python -m venv .bench-venv &&
.bench-venv/bin/pip install trpc-agent-py 'mcp<2' greenlet``), the 10k set is also evaluated by
its AgentEvaluator in the same command and the ratios are printed: for the file path, and for
an eval set in hand (``load_evalset`` → ``evaluate(es)`` → ``save_result(run)`` and
``save_result(run.result)``), all against the one timing of the peer.

    python bench/deterministic.py [--sizes 1000,10000,100000] [--trpc-size 10000]
        [--trpc-python .bench-venv/bin/python] [--pairs 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # this checkout, not an installed copy


def one(n: int, out_dir: Path) -> dict[str, float]:
    """Evaluate the eval set file the parent wrote (peak RSS is taken right after the save, so
    neither writing the synthetic set nor the ``json.loads`` baseline counts)."""
    from _synthetic import METRICS, evalset

    import agenteval_nb as ae

    es_path = out_dir / f"bench_{n}.evalset.json"
    metrics = ae.load_metrics(METRICS)
    # warm-up outside the timing (module imports, first-call costs), as the peer's script
    # imports before its timer starts
    warm = out_dir / f"warmup_{n}.evalset.json"
    warm.write_text(json.dumps(evalset(2)))
    ae.evaluate(warm, metrics, progress=False).save(out_dir / f"warmup_{n}.result.json")
    c0, t0 = time.process_time(), time.perf_counter()
    # the streamed path: the file is split, each case validated, evaluated, encoded, dropped
    run = ae.evaluate(es_path, metrics, progress=False, case_parallelism=1)
    t2 = time.perf_counter()
    path = run.save(out_dir / f"bench_{n}.evalset_result.json")
    t3, c3 = time.perf_counter(), time.process_time()
    passed = run.case_status_counts().get("passed", 0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    del run
    text = es_path.read_text()
    cpu_start, start = time.process_time(), time.perf_counter()
    json.loads(text)
    json_s = time.perf_counter() - start
    json_cpu_s = time.process_time() - cpu_start
    del text
    result_text = path.read_text(encoding="utf-8")
    start = time.perf_counter()
    json.loads(result_text)
    result_json_s = time.perf_counter() - start
    del result_text
    start = time.perf_counter()
    ae.load_run(path).cases_df(backend="polars")
    load_run_s = time.perf_counter() - start
    return {
        "n": n,
        "json_loads_s": json_s,
        "evaluate_s": t2 - t0,
        "save_s": t3 - t2,
        "work_cpu_s": c3 - c0,
        "json_loads_cpu_s": json_cpu_s,
        "passed": passed,
        "peak_rss_mb": peak,
        "result_json_loads_s": result_json_s,
        "load_run_cases_df_s": load_run_s,
    }


def in_hand(n: int, out_dir: Path) -> dict[str, float]:
    """The path DESIGN.md §3 shows, an eval set in hand (a child of its own, so the streamed
    run's heap does not weigh on it): ``load_evalset`` → ``evaluate(es)``, then saved as
    ``save_result(run)`` (the run's case texts) and as ``save_result(run.result)`` (the result
    model built first); wall and CPU seconds of each form."""
    from _synthetic import METRICS, evalset

    import agenteval_nb as ae

    metrics = ae.load_metrics(METRICS)
    warm = out_dir / f"warmup_in_hand_{n}.evalset.json"  # as in :func:`one`
    warm.write_text(json.dumps(evalset(2)))
    warm_run = ae.evaluate(ae.load_evalset(warm), metrics, progress=False)
    ae.save_result(warm_run.result, out_dir / f"warmup_in_hand_{n}.result.json")
    clocks = [(time.perf_counter(), time.process_time())]
    es = ae.load_evalset(out_dir / f"bench_{n}.evalset.json")
    run = ae.evaluate(es, metrics, progress=False, case_parallelism=1)
    clocks.append((time.perf_counter(), time.process_time()))
    ae.save_result(run, out_dir / "in_hand_run.evalset_result.json")
    clocks.append((time.perf_counter(), time.process_time()))
    ae.save_result(run.result, out_dir / "in_hand_result.evalset_result.json")
    clocks.append((time.perf_counter(), time.process_time()))
    out = {}
    for clock, suffix in ((0, "s"), (1, "cpu_s")):
        start, evaluated, saved_run, saved_result = (c[clock] for c in clocks)
        out[f"in_hand_run_{suffix}"] = saved_run - start
        out[f"in_hand_result_{suffix}"] = (evaluated - start) + (saved_result - saved_run)
    return out


def _child(mode: str, n: int, tmp: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, mode, str(n), "--out", tmp],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_evalset(n: int, out_dir: Path) -> None:
    """The synthetic eval set file of size ``n`` (written here, in the parent process)."""
    from _synthetic import evalset

    path = out_dir / f"bench_{n}.evalset.json"
    if not path.exists():
        path.write_text(json.dumps(evalset(n)))


def trpc(n: int, tmp: Path, python: Path) -> float | None:
    if not python.exists():
        print(f"trpc-agent-py: skipped (no {python}; see the module docstring)")
        return None
    from _synthetic import TRPC_METRICS, adk_evalset

    es_path, m_path = tmp / "adk.json", tmp / "metrics.json"
    es_path.write_text(json.dumps(adk_evalset(n)))
    m_path.write_text(json.dumps(TRPC_METRICS))
    proc = subprocess.run(
        [
            str(python),
            str(ROOT / "bench" / "trpc_baseline.py"),
            str(es_path),
            str(m_path),
            str(tmp / "trpc"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("seconds=")]
    if proc.returncode != 0 or not line:
        print("trpc-agent-py failed:", proc.stderr[-2000:])
        return None
    return float(line[-1].split("=")[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--trpc-size", type=int, default=10000)
    parser.add_argument(
        "--trpc-python",
        type=Path,
        default=ROOT / ".bench-venv" / "bin" / "python",
        help="the Python that has trpc-agent-py (default: .bench-venv of this checkout)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="peer and agenteval_nb timed in turn this many times; the median ratio is printed "
        "(the peer's own time drifts most on a shared machine)",
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--in-hand", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, Path(args.out))))
        return
    if args.in_hand:
        print(json.dumps(in_hand(args.in_hand, Path(args.out))))
        return
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            write_evalset(n, Path(tmp))
            r = {**_child("--one", n, tmp), **_child("--in-hand", n, tmp)}
            rows[n] = r
            total = r["evaluate_s"]
            work = r["evaluate_s"] + r["save_s"]
            print(
                f"{n:>8} invocations: evaluate {total:7.3f}s = {n / total:9.0f} inv/s "
                f"({1e6 * total / n:6.1f} µs/inv, load included: streamed), save {r['save_s']:.3f}s, "
                f"peak RSS {r['peak_rss_mb']:.0f} MB (end to end, in the child), "
                f"passed {r['passed']}"
            )
            print(
                f"{'':>8} load + evaluate + write / json.loads of the eval set: "
                f"{work / r['json_loads_s']:.1f}×   (goal <= 3)"
            )
            print(
                f"{'':>8} the same in CPU seconds (steadier on a shared machine): "
                f"{r['work_cpu_s']:.3f}s / {r['json_loads_cpu_s']:.3f}s = "
                f"{r['work_cpu_s'] / r['json_loads_cpu_s']:.1f}×"
            )
            print(
                f"{'':>8} an eval set in hand, load_evalset -> evaluate(es) -> "
                f"save_result(run) {r['in_hand_run_s']:.3f}s ({r['in_hand_run_cpu_s']:.3f} CPU s), "
                f"-> save_result(run.result) {r['in_hand_result_s']:.3f}s "
                f"({r['in_hand_result_cpu_s']:.3f} CPU s)"
            )
            print(
                f"{'':>8} ae.load_run(result file) + cases_df() / json.loads of it: "
                f"{r['load_run_cases_df_s'] / r['result_json_loads_s']:.1f}×   (goal <= 2)"
            )
        sizes = sorted(rows)
        if len(sizes) > 1:
            a, b = sizes[0], sizes[-1]
            per_a = rows[a]["evaluate_s"] / a
            per_b = rows[b]["evaluate_s"] / b
            print(f"scaling: µs/inv at {b} is {per_b / per_a:.2f}× that at {a} (1.00 = linear)")
            whole_a = sum(rows[a][k] for k in ("evaluate_s", "save_s")) / a
            whole_b = sum(rows[b][k] for k in ("evaluate_s", "save_s")) / b
            print(
                f"scaling, load + evaluate + write: per-invocation cost at {b} / at {a} = "
                f"{whole_b / whole_a:.2f}×   (goal <= 1.5)"
            )
        n = args.trpc_size
        baseline = trpc(n, Path(tmp), args.trpc_python) if n else None
        if baseline is not None:
            write_evalset(n, Path(tmp))
            ours = rows.get(n) or {**_child("--one", n, tmp), **_child("--in-hand", n, tmp)}
            with_load = ours["evaluate_s"] + ours["save_s"]  # the streamed path loads as it goes
            print(f"trpc-agent-py AgentEvaluator, {n} cases incl. writing results: {baseline:.2f}s")
            print(
                f"agenteval_nb, load + evaluate + write: {with_load:.2f}s -> "
                f"{baseline / with_load:.1f}× faster   (goal >= 50)"
            )
            for key, form in (
                ("in_hand_run_s", "save_result(run)"),
                ("in_hand_result_s", "save_result(run.result)"),
            ):
                print(
                    f"agenteval_nb, an eval set in hand, load_evalset -> evaluate(es) -> {form}: "
                    f"{ours[key]:.2f}s -> {baseline / ours[key]:.1f}× faster   (goal >= 50)"
                )
            ratios = [baseline / with_load]
            for _ in range(args.pairs - 1):
                peer = trpc(n, Path(tmp), args.trpc_python)
                if peer is None:
                    break
                again = _child("--one", n, tmp)
                ratios.append(peer / (again["evaluate_s"] + again["save_s"]))
            if len(ratios) > 1:
                shown = ", ".join(f"{r:.1f}×" for r in ratios)
                print(
                    f"file path vs the peer, {len(ratios)} pairs timed in turn: {shown}; "
                    f"median {statistics.median(ratios):.1f}×   (goal >= 50)"
                )


if __name__ == "__main__":
    main()
