"""A small result with two metrics per case, for the review and agreement tests."""

from __future__ import annotations

from collections.abc import Sequence

from agenteval_nb.analysis.record import with_summary
from agenteval_nb.schema import EvalCaseResult, EvalMetricResult, EvalSetResult


def case(eval_id: str, run_id: int, scores: dict[str, float]) -> EvalCaseResult:
    """A case result whose metric ``name`` scored ``scores[name]`` (threshold 0.5)."""
    results = [
        EvalMetricResult(
            metric_name=name,
            score=score,
            threshold=0.5,
            eval_status="passed" if score >= 0.5 else "failed",
        )
        for name, score in scores.items()
    ]
    ok = all(r.eval_status == "passed" for r in results)
    return EvalCaseResult(
        eval_set_id="set",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status="passed" if ok else "failed",
        overall_eval_metric_results=results,
        eval_metric_result_per_invocation=[],
        session_id=f"s-{eval_id}-{run_id}",
    )


def result(rows: Sequence[tuple[str, int, dict[str, float]]]) -> EvalSetResult:
    built = EvalSetResult(
        eval_set_result_id="set_result",
        eval_set_id="set",
        eval_case_results=[case(*row) for row in rows],
    )
    return with_summary(built)[0]
