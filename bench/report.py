"""Report size and write time for 1k and 10k case results.

Cases come from the test builders (each with tool calls, a judge record with three samples,
rubric scores and verifier distributions; every fourth fails). Prints, per size: the report's
size and write time with the default detail limit, the same with every case detailed, and the
time ratio against writing the result JSON file (the baseline, measured in the same run).

    .venv/bin/python bench/report.py [SIZES...]
"""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "report"))

from report_builders import case_result

from agenteval_nb.io import save_result
from agenteval_nb.report import DEFAULT_MAX_CASES
from agenteval_nb.runs import load_run
from agenteval_nb.schema import EvalSetResult
from agenteval_nb.views import export_html


def synthetic(n: int) -> EvalSetResult:
    cases = [case_result(f"case_{i:05d}", 1 + i % 2, ok=i % 4 != 0) for i in range(n)]
    return EvalSetResult(eval_set_result_id="bench", eval_set_id="bench", eval_case_results=cases)


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main(sizes: list[int]) -> None:
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in sizes:
            run = load_run(synthetic(n))
            base_s, base_path = timed(lambda r=run: save_result(r.result, folder / "r.json"))
            base_mb = base_path.stat().st_size / 1e6
            print(f"{n} case results: result JSON {base_mb:.1f} MB in {base_s:.2f} s (baseline)")
            for label, limit in (
                (f"default ({DEFAULT_MAX_CASES} detailed)", None),
                ("all detailed", n),
            ):
                seconds, path = timed(
                    lambda r=run, k=limit: export_html(r, folder / "r.html", max_cases=k)
                )
                size = path.stat().st_size / 1e6
                print(
                    f"  report, {label:<22} {size:6.1f} MB  {seconds:6.2f} s"
                    f"  ({seconds / base_s:.1f}x baseline time)"
                )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
