"""The inspector's table at 10k case results: time to build the view and to sort it, each
against building ``cases_df()`` from the same record (the baseline, timed in the same command).

A synthetic result of ``--cases`` case results (one turn, ``--metrics`` metrics each, every
third failing, scores spread over [0, 1]) is built with ``model_construct``. Timed, best of
``--rounds``, the record's tables forgotten before each build:

* baseline: ``run.cases_df(backend="polars")`` (builds the cases table);
* view: ``ae.inspect(run)`` (builds the cases and metrics tables, the entries, the first page
  and the first case's detail);
* sort: a header click on a metric column (all rows re-ordered, first page redrawn), then on
  the "≠ human" column (1 % of the case results marked).

The printed ratios are ours / baseline. Usage: ``python bench/inspector_table.py [--cases
10000] [--metrics 4] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import agenteval_nb as ae
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    Invocation,
    Message,
)

METRICS = ("tool_trajectory_avg_score", "final_response_avg_score", "rouge", "length", "json")


def synthetic_run(n_cases: int, n_metrics: int) -> EvalRun:
    """``n_cases`` one-turn case results of run 1 with ``n_metrics`` metrics each."""
    names = METRICS[:n_metrics]
    cases = []
    for c in range(n_cases):
        ok = c % 3 != 0
        results = [
            EvalMetricResult.model_construct(
                metric_name=name,
                score=((c * 37 + j * 11) % 100) / 100 if not ok else 1.0,
                eval_status="passed" if ok else "failed",
                threshold=1.0,
                details=EvalMetricResultDetails.model_construct(reason=None if ok else "wrong"),
            )
            for j, name in enumerate(names)
        ]
        turn = Invocation.model_construct(
            invocation_id=f"c{c}",
            user_content=Message.model_construct(role="user", content=f"question {c}"),
            final_response=Message.model_construct(role="assistant", content=f"answer {c}"),
        )
        cases.append(
            EvalCaseResult.model_construct(
                eval_set_id="bench",
                eval_id=f"case-{c:05d}",
                run_id=1,
                final_eval_status="passed" if ok else "failed",
                score=1.0 if ok else 0.0,
                overall_eval_metric_results=results,
                eval_metric_result_per_invocation=[
                    EvalMetricResultPerInvocation.model_construct(
                        actual_invocation=turn,
                        expected_invocation=turn,
                        eval_metric_results=results,
                    )
                ],
            )
        )
    result = EvalSetResult.model_construct(
        eval_set_id="bench", eval_set_result_id="bench", eval_case_results=cases
    )
    return ae.load_run(result)  # with its summary, as a loaded or fresh run has


def best_of(rounds: int, fn: Callable[[], Any], before: Callable[[], Any] = lambda: None) -> float:
    """The shortest of ``rounds`` timings of ``fn`` (``before`` runs untimed each round)."""
    best = float("inf")
    for _ in range(rounds):
        before()
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=4, choices=range(1, len(METRICS) + 1))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    run = synthetic_run(args.cases, args.metrics)
    forget = run.record.clear_tables

    baseline = best_of(args.rounds, lambda: run.cases_df(backend="polars"), forget)
    view = best_of(args.rounds, lambda: ae.inspect(run), forget)
    widget = ae.inspect(run)
    metric = f"metric:{METRICS[0]}"
    by_metric = best_of(args.rounds, lambda: widget.sort_by(metric))
    for c in range(0, args.cases, 100):  # 1 % of the case results marked
        widget.mark(f"case-{c:05d}", 1, "pass")
    by_flag = best_of(args.rounds, lambda: widget.sort_by("judge_vs_human"))
    assert len(widget.items) == args.cases and len(widget.table.rows) == widget.page_size

    print(f"case results: {args.cases:,}  metrics: {args.metrics}  rows per page: 25")
    print(f"baseline: run.cases_df() from scratch   {baseline:8.3f} s")
    print(f"ae.inspect(run) from scratch           {view:8.3f} s   ratio {view / baseline:6.2f}")
    print(
        f"sort by a metric column (click)        {by_metric:8.3f} s   ratio "
        f"{by_metric / baseline:6.2f}"
    )
    print(
        f"sort by a flag column (click)          {by_flag:8.3f} s   ratio {by_flag / baseline:6.2f}"
    )


if __name__ == "__main__":
    main()
