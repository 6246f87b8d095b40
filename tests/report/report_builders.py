"""Results built by hand for the render, widget and report tests.

:func:`build_run` gives a two-run result of two cases: ``weather_ok`` (passes everywhere) and
``weather_bad`` (wrong tool arguments, an extra tool, a different answer; judged by the offline
heuristic judge). Every metric kind that has its own view is present: tool trajectory, final
response, an LLM rubric metric with judge samples, and the pairwise verifier with label
distributions and swap scoring. ``payload`` is put into every untrusted field.
"""

from __future__ import annotations

from agenteval_nb.analysis.record import with_summary
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import (
    Criterion,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    Invocation,
    LLMCriterion,
    Message,
    Rubric,
    RubricContent,
    RubricScore,
    Tool,
    ToolTrajectoryCriterion,
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

LABELS = [chr(ord("A") + k) for k in range(20)]


def distribution(peak: int, sampled: str | None = None) -> LabelDistributionRecord:
    probs = [0.01] * 20
    probs[peak] = 1 - 0.01 * 19
    return LabelDistributionRecord(
        labels=LABELS,
        probs=probs,
        expected_score=round(1 - peak / 19, 4),
        sampled_label=sampled or LABELS[peak],
        valid_mass=0.97,
        entropy=0.4,
        from_logprobs=True,
    )


def _judge(ok: bool, p: str, heuristic: bool) -> JudgeRecord:
    samples = [
        JudgeSample(
            sample_index=i,
            score=1.0 if ok else 0.0,
            status="passed" if ok else "failed",
            reason=f"judge reason {i} {p}",
            chosen=i == 1,
            raw=f'{{"rubricScores": [], "note": "raw {i} {p}"}}',
            cache_hit=i == 0,
            prompt_tokens=120 + i,
            completion_tokens=30,
            latency_ms=250.0 + i,
        )
        for i in range(3)
    ]
    return JudgeRecord(
        evaluator="llm_rubric_response",
        model="judge-model-x",
        heuristic=heuristic,
        prompt=[PromptMessage(role="system", content=f"Grade the answer {p}")],
        samples=samples,
    )


def _verifier(ok: bool) -> VerifierRecord:
    a_peak, b_peak = (1, 4) if ok else (12, 2)
    return VerifierRecord(
        swap_mode="report",
        samples=[
            VerifierSample(
                sample_index=0,
                score=0.8 if ok else 0.2,
                a=distribution(a_peak),
                b=distribution(b_peak),
                swapped_score=0.75 if ok else 0.3,
                swap_gap=0.05 if ok else -0.1,
            )
        ],
    )


def _invocation(eval_id: str, answer: str, tools: list[Tool], p: str) -> Invocation:
    return Invocation(
        invocation_id=f"{eval_id}-1",
        context_messages=[Message(role="system", content=f"You are a weather bot {p}")],
        user_content=Message(role="user", content=f"weather in Paris? {p}"),
        final_response=Message(role="assistant", content=answer),
        tools=tools,
    )


def case_result(eval_id: str, run_id: int, ok: bool, p: str = "") -> EvalCaseResult:
    """One case result (see module docstring); ``ok`` chooses the passing or failing variant."""
    expected_tools = [
        Tool(
            id="c1",
            name=f"get_weather{p}",
            arguments={"city": "Paris", "unit": "C"},
            result={"temp": 21, "sky": "sunny"},
        ),
    ]
    if ok:
        actual_tools = [t.model_copy(deep=True) for t in expected_tools]
        answer = f"It is 21 C and sunny in Paris. {p}"
        tool_reason = None
    else:
        actual_tools = [
            Tool(
                id="c1",
                name=f"get_weather{p}",
                arguments={"city": f"Lyon {p}", "unit": "C"},
                result={"temp": 18, "sky": "rain", p or "x": 1},
            ),
            Tool(id="c2", name="send_email", arguments={"to": "a@b.c"}, result="sent"),
        ]
        answer = f"It is 18 C and rainy in Lyon. {p}"
        tool_reason = f"tool trajectory mismatch: number of tool calls mismatch {p}"
    expected = _invocation(eval_id, f"It is 21 C and sunny in Paris. {p}", expected_tools, p)
    actual = _invocation(eval_id, answer, actual_tools, p)
    rubric_metric = f"llm_rubric_response{p}"
    criterion = Criterion(
        llm_judge=LLMCriterion(
            rubrics=[Rubric(id="r1", content=RubricContent(text=f"Mentions the city {p}"))]
        )
    )
    judge_details = with_extras(
        EvalMetricResultDetails(
            score=1.0 if ok else 0.0,
            reason=f"rubric reason {p}",
            rubric_scores=[RubricScore(id="r1", score=1.0 if ok else 0.0, reason=f"rubric {p}")],
        ),
        judge=_judge(ok, p, heuristic=not ok),
    )
    results = [
        EvalMetricResult(
            metric_name="tool_trajectory_avg_score",
            score=1.0 if ok else 0.0,
            eval_status="passed" if ok else "failed",
            threshold=1.0,
            criterion=Criterion(tool_trajectory=ToolTrajectoryCriterion()),
            details=EvalMetricResultDetails(score=1.0 if ok else 0.0, reason=tool_reason),
        ),
        EvalMetricResult(
            metric_name=rubric_metric,
            score=1.0 if ok else 0.0,
            eval_status="passed" if ok else "failed",
            threshold=0.5,
            criterion=criterion,
            details=judge_details,
        ),
        EvalMetricResult(
            metric_name="llm_verifier_pairwise",
            score=0.8 if ok else 0.2,
            eval_status="passed" if ok else "failed",
            threshold=0.5,
            details=with_extras(
                EvalMetricResultDetails(score=0.8 if ok else 0.2), verifier=_verifier(ok)
            ),
        ),
    ]
    overall = [
        EvalMetricResult(
            metric_name=r.metric_name,
            score=r.score,
            eval_status=r.eval_status,
            threshold=r.threshold,
            details=EvalMetricResultDetails(score=r.score, reason=r.details.reason),
        )
        for r in results
    ]
    return EvalCaseResult(
        eval_set_id=f"weather_set{p}",
        eval_id=eval_id,
        run_id=run_id,
        score=1.0 if ok else 0.0,
        final_eval_status="passed" if ok else "failed",
        error_message=None if ok else f"case failed {p}",
        overall_eval_metric_results=overall,
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=actual, expected_invocation=expected, eval_metric_results=results
            )
        ],
        session_id=f"session-{eval_id}-{run_id}",
    )


def metrics(p: str = "") -> list[EvalMetric]:
    return [
        EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0),
        EvalMetric.model_validate(
            {
                "metricName": f"llm_rubric_response{p}",
                "threshold": 0.5,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": {
                            "providerName": "openai",
                            "modelName": "judge-model-x",
                            "apiKey": "sk-SECRET-DO-NOT-SHOW",
                            "numSamples": 3,
                        },
                        "rubrics": [{"id": "r1", "content": {"text": f"Mentions the city {p}"}}],
                    }
                },
            }
        ),
        EvalMetric(metric_name="llm_verifier_pairwise", threshold=0.5),
    ]


def build_result(payload: str = "", runs: int = 2) -> EvalSetResult:
    """Runs 1..``runs`` of the two cases; ``payload`` goes into every untrusted field."""
    cases = []
    for run_id in range(1, runs + 1):
        cases.append(case_result(f"weather_ok{payload}", run_id, ok=True, p=payload))
        cases.append(case_result(f"weather_bad{payload}", run_id, ok=run_id == 2, p=payload))
    return EvalSetResult(
        eval_set_result_id=f"weather_set{payload}_result",
        eval_set_id=f"weather_set{payload}",
        eval_case_results=cases,
    )


def build_run(payload: str = "", runs: int = 2) -> EvalRun:
    """:func:`build_result` wrapped in an :class:`EvalRun` with the metric definitions."""
    result, _notes = with_summary(build_result(payload, runs))
    return EvalRun(result=result, metrics=metrics(payload))


def synthetic_result(n_cases: int, fail_every: int = 4) -> EvalSetResult:
    """``n_cases`` case results of one run; every ``fail_every``-th fails."""
    cases = [case_result(f"case_{i:05d}", 1, ok=i % fail_every != 0) for i in range(n_cases)]
    return EvalSetResult(
        eval_set_result_id="synthetic", eval_set_id="synthetic", eval_case_results=cases
    )


def many_cases_run(fails_every: int, n_cases: int = 12, runs: int = 2) -> EvalRun:
    """``n_cases`` weather cases over ``runs`` runs (``case_00`` …): in run ``r`` a case ``i``
    fails when ``(i + r) % fails_every == 0``. Every case has judge samples and verifier charts."""
    cases = [
        case_result(f"case_{i:02d}", run_id, ok=(i + run_id) % fails_every != 0)
        for run_id in range(1, runs + 1)
        for i in range(n_cases)
    ]
    result, _notes = with_summary(
        EvalSetResult(
            eval_set_result_id="many_result", eval_set_id="weather_set", eval_case_results=cases
        )
    )
    return EvalRun(result=result, metrics=metrics())
