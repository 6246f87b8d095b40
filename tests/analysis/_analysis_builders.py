"""Hand-built results for the analysis tests: deterministic, judge and verifier metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval_nb.engine.summary import summarize
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import (
    Criterion,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSet,
    EvalSetResult,
    Invocation,
    LLMCriterion,
    Message,
    RubricScore,
    Tool,
)
from agenteval_nb.schema.extras import (
    JudgeRecord,
    JudgeSample,
    LabelDistributionRecord,
    PromptMessage,
    VerifierRecord,
    VerifierSample,
    with_extras,
)

LABELS = [chr(ord("A") + i) for i in range(20)]


def status(score: float | None, threshold: float) -> str:
    if score is None:
        return "not_evaluated"
    return "passed" if score >= threshold else "failed"


def metric_result(
    name: str,
    score: float | None,
    threshold: float = 0.5,
    *,
    eval_status: str | None = None,
    reason: str | None = None,
    rubrics: Sequence[tuple[str, float, str]] = (),
    criterion: Criterion | None = None,
    **extras: Any,
) -> EvalMetricResult:
    details = EvalMetricResultDetails(
        reason=reason,
        score=score,
        rubric_scores=[RubricScore(id=i, score=s, reason=r) for i, s, r in rubrics] or None,
    )
    with_extras(details, **extras)
    return EvalMetricResult(
        metric_name=name,
        score=score,
        eval_status=eval_status or status(score, threshold),
        threshold=threshold,
        criterion=criterion,
        details=details,
    )


def invocation(inv_id: str, user: str, answer: str | None, tools: Sequence[str] = ()) -> Invocation:
    return Invocation(
        invocation_id=inv_id,
        user_content=Message(role="user", content=user),
        final_response=None if answer is None else Message(role="assistant", content=answer),
        tools=[Tool(name=t) for t in tools] or None,
    )


def case_result(
    eval_id: str,
    run_id: int,
    turns: Sequence[tuple[Invocation | None, Invocation | None, list[EvalMetricResult]]],
    overall: list[EvalMetricResult],
    *,
    final_status: str | None = None,
    error: str | None = None,
    score: float | None = None,
) -> EvalCaseResult:
    statuses = [m.eval_status for m in overall]
    if final_status is None:
        final_status = (
            "failed"
            if "failed" in statuses
            else "passed"
            if "passed" in statuses
            else "not_evaluated"
        )
    return EvalCaseResult(
        eval_set_id="set",
        eval_id=eval_id,
        run_id=run_id,
        score=score,
        final_eval_status=final_status,
        error_message=error,
        overall_eval_metric_results=overall,
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=a, expected_invocation=e, eval_metric_results=ms
            )
            for a, e, ms in turns
        ],
        session_id=f"session-{eval_id}-{run_id}",
        user_id="user-1" if eval_id != "c3" else "user-2",
    )


def result_of(cases: list[EvalCaseResult], num_runs: int | None = None) -> EvalSetResult:
    return EvalSetResult(
        eval_set_result_id="r",
        eval_set_id="set",
        eval_case_results=cases,
        summary=summarize(cases, num_runs),
    )


# -- the rich run: 2 runs × 3 cases (2, 2, 1 turns) × 3 metrics ------------------------------------

TURNS = {"c1": 2, "c2": 2, "c3": 1}
RUBRICS = [("r1", "The answer is correct."), ("r2", "The answer is polite.")]


def judge_record(seed: int, with_extra_call: bool = False) -> JudgeRecord:
    samples = [
        JudgeSample(
            sample_index=i,
            score=1.0 if (seed + i) % 3 else 0.0,
            status="passed" if (seed + i) % 3 else "failed",
            reason=f"sample {i}",
            chosen=i == 0,
            cache_hit=i == 2,
            prompt_tokens=100 + i,
            completion_tokens=10 + i,
            latency_ms=5.0 * (i + 1),
            raw=f"raw {i}",
            error="timeout" if (seed, i) == (0, 1) else None,
        )
        for i in range(3)
    ]
    extra = (
        [JudgeSample(sample_index=0, prompt_tokens=7, completion_tokens=3, latency_ms=1.5)]
        if with_extra_call
        else None
    )
    return JudgeRecord(
        evaluator="llm_rubric_response",
        model="judge-model",
        heuristic=False,
        prompt=[PromptMessage(role="user", content="grade it")],
        extra_calls=extra,
        samples=samples,
    )


def distribution(best: int, expected: float) -> LabelDistributionRecord:
    probs = [0.0] * 20
    probs[best] = 0.7
    probs[best + 1] = 0.3
    return LabelDistributionRecord(
        labels=LABELS,
        probs=probs,
        expected_score=expected,
        sampled_label=LABELS[best],
        valid_mass=0.98,
        entropy=0.61,
        from_logprobs=True,
    )


def verifier_record() -> VerifierRecord:
    return VerifierRecord(
        samples=[
            VerifierSample(
                sample_index=i,
                score=0.6,
                a=distribution(0, 0.98),
                b=distribution(2, 0.88),
                swapped_score=0.55,
                swap_gap=0.05,
            )
            for i in range(2)
        ]
    )


def rich_result() -> EvalSetResult:
    cases = []
    seed = 0
    for run_id in (1, 2):
        for eval_id, n_turns in TURNS.items():
            turns = []
            exact_scores, judge_scores = [], []
            for t in range(n_turns):
                good = (run_id + t + int(eval_id[1])) % 2 == 0
                exact = 1.0 if good else 0.0
                judge = 0.75 if good else 0.25
                exact_scores.append(exact)
                judge_scores.append(judge)
                actual = invocation(f"{eval_id}-{t}", f"q{t}", "ok" if good else "bad", ["search"])
                expected = invocation(f"{eval_id}-{t}", f"q{t}", "ok", ["search", "calc"])
                turns.append(
                    (
                        actual,
                        expected,
                        [
                            metric_result("exact", exact, 1.0, reason=None if good else "differ"),
                            metric_result(
                                "judge",
                                judge,
                                0.5,
                                reason=f"judge says {judge}",
                                rubrics=[("r1", judge, "r1 reason"), ("r2", 1.0, "r2 reason")],
                                judge=judge_record(seed, with_extra_call=seed == 0),
                            ),
                            metric_result("verifier", 0.6, 0.5, verifier=verifier_record()),
                        ],
                    )
                )
                seed += 1
            overall = [
                metric_result("exact", sum(exact_scores) / n_turns, 1.0),
                metric_result("judge", sum(judge_scores) / n_turns, 0.5),
                metric_result("verifier", 0.6, 0.5),
            ]
            cases.append(case_result(eval_id, run_id, turns, overall))
    return result_of(cases)


def rich_metrics() -> list[EvalMetric]:
    from agenteval_nb.schema import Rubric, RubricContent

    return [
        EvalMetric(metric_name="exact", evaluator_name="final_response_avg_score", threshold=1.0),
        EvalMetric(
            metric_name="judge",
            evaluator_name="llm_rubric_response",
            threshold=0.5,
            criterion=Criterion(
                llm_judge=LLMCriterion(
                    rubrics=[Rubric(id=i, content=RubricContent(text=text)) for i, text in RUBRICS]
                )
            ),
        ),
        EvalMetric(metric_name="verifier", evaluator_name="llm_verifier_pairwise", threshold=0.5),
    ]


def rich_run(with_metrics: bool = True) -> EvalRun:
    evalset = EvalSet(eval_set_id="set", eval_cases=[])
    return EvalRun(
        result=rich_result(),
        evalsets=[evalset],
        metrics=rich_metrics() if with_metrics else [],
    )


# -- simple single-metric runs for statistics ------------------------------------------------------


def scored_run(
    scores: dict[str, Sequence[float | None]], threshold: float = 0.5, metric: str = "m"
) -> EvalRun:
    """One metric; ``scores[eval_id][r]`` is the score of run r+1 (None = not evaluated)."""
    cases = []
    num_runs = max(len(v) for v in scores.values())
    for eval_id, per_run in scores.items():
        for r, score in enumerate(per_run):
            overall = [metric_result(metric, score, threshold)]
            cases.append(case_result(eval_id, r + 1, [], overall))
    return EvalRun(result=result_of(cases, num_runs))


def status_run(statuses: dict[str, Sequence[str]], num_runs: int | None = None) -> EvalRun:
    """Case final statuses per run (``statuses[eval_id][r]`` for run r+1), no metrics."""
    cases = [
        case_result(eval_id, r + 1, [], [], final_status=s)
        for eval_id, per_run in statuses.items()
        for r, s in enumerate(per_run)
    ]
    return EvalRun(result=result_of(cases, num_runs))
