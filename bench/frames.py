"""``invocations_df`` build time against a bare ``pl.DataFrame(dict_of_lists)`` of the same data.

A synthetic result with ``--rows`` invocation-metric rows (``--metrics`` per turn, 10 turns per
case, 2 runs) is built with ``model_construct``. The baseline is ``pl.DataFrame(columns)`` where
``columns`` is the finished frame's data as plain Python lists (prepared outside the timing).
Rounds alternate; the best round of each counts. The printed ratio is ours / bare (target
≤ 1.5). polars converts nested Python lists slowly, so the bare build is also timed without the
two tool-name list columns (a stricter reference). The pandas conversion time is printed too.

Usage: ``python bench/frames.py [--rows 200000] [--metrics 4] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import gc
import time

import polars as pl

from agenteval_nb.analysis.frames import invocations_frame
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    Invocation,
    Message,
    Tool,
)

METRICS = (
    "tool_trajectory_avg_score",
    "final_response_avg_score",
    "rouge_final_response",
    "length_check",
    "json_match",
    "xml_valid",
)
TURNS_PER_CASE = 10
RUNS = 2


def _invocation(case: int, turn: int, answer: str) -> Invocation:
    return Invocation.model_construct(
        invocation_id=f"c{case}-t{turn}",
        user_content=Message.model_construct(role="user", content=f"question {case}/{turn}"),
        final_response=Message.model_construct(role="assistant", content=answer),
        tools=[
            Tool.model_construct(name="search", arguments={"q": turn}),
            Tool.model_construct(name="calculator", arguments={"x": case}),
        ],
    )


def synthetic_run(rows: int, n_metrics: int) -> EvalRun:
    """A result with ``rows`` invocation-metric rows (rounded up to whole cases)."""
    names = METRICS[:n_metrics]
    turns_total = -(-rows // n_metrics)
    cases_per_run = max(1, -(-turns_total // (TURNS_PER_CASE * RUNS)))
    case_results = []
    for run_id in range(1, RUNS + 1):
        for case in range(cases_per_run):
            per_invocation = []
            for turn in range(TURNS_PER_CASE):
                ok = (case + turn + run_id) % 3 != 0
                results = [
                    EvalMetricResult.model_construct(
                        metric_name=name,
                        score=1.0 if ok else 0.25 * j,
                        eval_status="passed" if ok else "failed",
                        threshold=1.0,
                        details=EvalMetricResultDetails.model_construct(
                            reason=None if ok else f"{name} mismatch at turn {turn}",
                            score=1.0 if ok else 0.25 * j,
                        ),
                    )
                    for j, name in enumerate(names)
                ]
                per_invocation.append(
                    EvalMetricResultPerInvocation.model_construct(
                        actual_invocation=_invocation(case, turn, f"answer {case}.{turn}"),
                        expected_invocation=_invocation(case, turn, f"answer {case}.{turn}"),
                        eval_metric_results=results,
                    )
                )
            case_results.append(
                EvalCaseResult.model_construct(
                    eval_set_id="bench",
                    eval_id=f"case-{case}",
                    run_id=run_id,
                    final_eval_status="passed",
                    eval_metric_result_per_invocation=per_invocation,
                )
            )
    result = EvalSetResult.model_construct(eval_set_id="bench", eval_case_results=case_results)
    return EvalRun(result=result)


def _best(fn: object, rounds: int) -> tuple[float, object]:
    best = float("inf")
    out = None
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        out = fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--metrics", type=int, default=4, choices=range(1, len(METRICS) + 1))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    run = synthetic_run(args.rows, args.metrics)
    print(f"built synthetic run in {time.perf_counter() - start:.1f} s")

    frame = invocations_frame(run)
    columns = frame.to_dict(as_series=False)
    schema = frame.schema
    print(f"rows: {frame.height:,}  columns: {frame.width}")

    flat = {k: v for k, v in columns.items() if not isinstance(schema[k], pl.List)}
    ours = bare = bare_schema = bare_flat = float("inf")
    for _ in range(args.rounds):
        ours = min(ours, _best(lambda: invocations_frame(run), 1)[0])
        bare = min(bare, _best(lambda: pl.DataFrame(columns), 1)[0])
        bare_schema = min(bare_schema, _best(lambda: pl.DataFrame(columns, schema=schema), 1)[0])
        bare_flat = min(bare_flat, _best(lambda: pl.DataFrame(flat), 1)[0])
    first_read = _best(lambda: (run.clear_tables(), run.invocations_df(backend="polars")), 1)[0]
    via_method = _best(lambda: run.invocations_df(backend="polars"), args.rounds)[0]
    to_pandas = _best(lambda: frame.to_pandas(), args.rounds)[0]

    print(f"invocations_frame (polars)          {ours:8.3f} s   (walk of the result model)")
    print(f"run.invocations_df, first read      {first_read:8.3f} s   (builds the record table)")
    print(f"run.invocations_df, from the record {via_method:8.3f} s")
    print(f"bare pl.DataFrame(dict_of_lists)    {bare:8.3f} s")
    print(f"bare pl.DataFrame(dict, schema=...) {bare_schema:8.3f} s")
    print(f"ratio walk / bare                   {ours / bare:8.2f}   (target <= 1.5)")
    print(f"ratio invocations_df / bare         {via_method / bare:8.2f}   (record built)")
    print(f"bare, without the 2 list columns    {bare_flat:8.3f} s")
    print(f"ratio ours / bare with schema       {ours / bare_schema:8.2f}")
    print(f"ratio ours / bare without lists     {ours / bare_flat:8.2f}   (stricter reference)")
    print(f"pandas conversion (.to_pandas())    {to_pandas:8.3f} s")


if __name__ == "__main__":
    main()
