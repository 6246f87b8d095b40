"""What a judge panel costs beyond its judges' calls, and what its agreement statistics cost.

* panel vs lone judges: ``--cases`` trace-mode cases of one turn scored by
  ``llm_final_response`` with instant injected judges, (a) three separate ``ae.evaluate`` runs,
  one lone judge each, and (b) one run with a ``JudgePanel`` of the same three judges: the same
  judge calls, so the ratio (b)/(a) of process CPU time weighs the panel's own work (votes,
  records, the extra details) against the per-case work it shares (one case evaluation instead
  of three). ``--rounds`` pairs alternate; the median ratio is printed (target ≤ 1.0; measured
  0.64 at 2000 cases);
* agreement: ``ae.stats.agreement(run, among="judges")`` on the panel run, with
  ``--resamples`` bootstrap resamples against the point estimates alone (``n_resamples=0``);
  printed: both CPU times and their ratio.

Usage: ``python bench/panel.py [--cases 300] [--rounds 3] [--resamples 1000]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy
sys.path.insert(0, str(ROOT / "bench"))

from _synthetic import make_cases  # noqa: E402

import agenteval_nb as ae  # noqa: E402

METRICS = [
    {
        "metricName": "fr",
        "evaluatorName": "llm_final_response",
        "threshold": 1.0,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}}},
    }
]


def judge(verdict_every: int):
    """An instant judge: ``valid`` except every ``verdict_every``-th call."""
    state = {"n": 0}

    def answer(messages):
        state["n"] += 1
        verdict = "invalid" if state["n"] % verdict_every == 0 else "valid"
        return f"reasoning: r\nis_the_agent_response_valid: {verdict}"

    return answer


def cpu(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    es = {"evalSetId": "bench", "evalCases": make_cases(args.cases)}
    periods = (3, 4, 5)
    evaluate = ae.evaluate
    evaluate(es, METRICS, judge=judge(3), progress=False)  # warm up
    ratios = []
    run = None
    for _ in range(args.rounds):
        lone, _ = cpu(
            lambda: [evaluate(es, METRICS, judge=judge(p), progress=False) for p in periods]
        )
        panel = ae.JudgePanel({f"j{p}": judge(p) for p in periods})
        together, run = cpu(lambda p=panel: evaluate(es, METRICS, judge=p, progress=False))
        ratios.append(together / lone)
        print(f"lone judges {lone:.2f} s CPU, panel {together:.2f} s CPU: {together / lone:.3f}")
    print(f"panel / lone judges, median of {args.rounds}: {statistics.median(ratios):.3f}")
    point, _ = cpu(lambda: ae.stats.agreement(run, among="judges", n_resamples=0))
    boot, _ = cpu(lambda: ae.stats.agreement(run, among="judges", n_resamples=args.resamples))
    print(
        f"agreement among judges over {args.cases} units: point estimates {point:.3f} s CPU, "
        f"with {args.resamples} resamples {boot:.3f} s CPU (x{boot / max(point, 1e-9):.1f})"
    )


if __name__ == "__main__":
    main()
