"""Peak memory and time of the streamed paths, each variant in its own child process.

* ``file``: ``ae.evaluate(path)`` → ``run.save(path)`` (the streamed reference);
* ``evalset``: ``ae.load_evalset(path)`` → ``ae.evaluate(es)`` → ``ae.save_result(run.result)``
  (an eval set in hand, the result model built to be saved);
* ``evalset_run``: the same with ``ae.save_result(run)`` (the run's case texts written as they
  are, no result model built);
* ``results_dir``: ``ae.evaluate(path, results_dir=...)`` — its time against ``file``;
* ``load_run``: ``ae.load_run`` of a result file without a ``summary`` + ``cases_df()``, its
  time against a bare ``json.loads`` of the file; ``load_run_summary``: the same file with it.

Ratios are of CPU seconds (``time.process_time``: steadier than wall time on a shared machine).

    python bench/streaming.py [--size 100000] [--variants file,evalset,results_dir,load_run]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # this checkout, not an installed copy

VARIANTS = ("file", "evalset", "evalset_run", "results_dir", "load_run", "load_run_summary")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(variant: str, n: int, out: Path) -> dict[str, float]:
    """Run ``variant`` on the files the parent wrote; peak RSS is this child's."""
    from _synthetic import METRICS

    import agenteval_nb as ae

    es_path = out / f"bench_{n}.evalset.json"
    metrics = ae.load_metrics(METRICS)
    start = time.process_time()
    if variant == "file":
        run = ae.evaluate(es_path, metrics, progress=False, case_parallelism=1)
        run.save(out / "file.evalset_result.json")
    elif variant == "evalset":
        es = ae.load_evalset(es_path)
        run = ae.evaluate(es, metrics, progress=False, case_parallelism=1)
        ae.save_result(run.result, out / "evalset.evalset_result.json")
    elif variant == "evalset_run":
        es = ae.load_evalset(es_path)
        run = ae.evaluate(es, metrics, progress=False, case_parallelism=1)
        ae.save_result(run, out / "evalset_run.evalset_result.json")
    elif variant == "results_dir":
        ae.evaluate(
            es_path, metrics, progress=False, case_parallelism=1, results_dir=out / "results"
        )
    elif variant.startswith("load_run"):
        name = "with_summary" if variant == "load_run_summary" else "nosummary"
        path = out / f"{name}.evalset_result.json"
        run = ae.load_run(path)
        run.cases_df(backend="polars")
        seconds, peak = time.process_time() - start, _peak_mb()  # before the baseline's objects
        del run
        text = path.read_text(encoding="utf-8")
        start = time.process_time()
        json.loads(text)
        return {"seconds": seconds, "json_s": time.process_time() - start, "peak_mb": peak}
    return {"seconds": time.process_time() - start, "peak_mb": _peak_mb()}


def _child(variant: str, n: int, out: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, "--one", variant, "--size", str(n), "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _prepare(n: int, out: Path) -> None:
    """The eval set file, and a result file of it without a summary (as older Go writes)."""
    from _synthetic import METRICS, evalset

    import agenteval_nb as ae

    es_path = out / f"bench_{n}.evalset.json"
    es_path.write_text(json.dumps(evalset(n)))
    with_summary = out / "with_summary.evalset_result.json"
    ae.evaluate(es_path, ae.load_metrics(METRICS), progress=False).save(with_summary)
    data = json.loads(with_summary.read_text(encoding="utf-8"))
    del data["summary"]
    (out / "nosummary.evalset_result.json").write_text(json.dumps(data, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one == "prepare":
        _prepare(args.size, Path(args.out))
        return
    if args.one:
        print(json.dumps(one(args.one, args.size, Path(args.out))))
        return
    n, wanted = args.size, args.variants.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        # a child of its own: Linux keeps a parent's peak RSS in the children it execs
        subprocess.run(
            [sys.executable, __file__, "--one", "prepare", "--size", str(n), "--out", tmp],
            check=True,
        )
        rows = {v: _child(v, n, out) for v in VARIANTS if v in wanted}
    for variant, r in rows.items():
        print(
            f"{variant:>12}, {n} invocations: {r['seconds']:7.2f} CPU s, peak RSS {r['peak_mb']:6.0f} MB"
        )
    for variant in ("evalset", "evalset_run"):
        if "file" in rows and variant in rows:
            ratio = rows[variant]["peak_mb"] / rows["file"]["peak_mb"]
            print(f"peak RSS, {variant} / file: {ratio:.2f}×   (goal: <= 1 GB at 100k)")
    if "file" in rows and "results_dir" in rows:
        ratio = rows["results_dir"]["seconds"] / rows["file"]["seconds"]
        print(f"evaluate(results_dir=) / evaluate + run.save: {ratio:.2f}×   (goal <= 1.1)")
    for variant in ("load_run", "load_run_summary"):
        if variant in rows:
            r = rows[variant]
            print(
                f"{variant} + cases_df / json.loads: {r['seconds'] / r['json_s']:.2f}×   "
                "(goal <= 2, <= 1 GB)"
            )


if __name__ == "__main__":
    main()
