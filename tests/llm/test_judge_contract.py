"""The base loop of every llm_* evaluator (SPEC §4.1) through the real client and fake server."""

from __future__ import annotations

import pytest
from _llm_helpers import RUBRICS, inv, make_metric

from agenteval_nb.evaluators.base import EvaluationContext, EvaluatorError
from agenteval_nb.evaluators.llm import LLMFinalResponseEvaluator
from agenteval_nb.evaluators.registry import Registry
from agenteval_nb.judge import JudgeClient
from agenteval_nb.schema import EvalMetric
from agenteval_nb.schema.extras import judge_record
from agenteval_nb.testing import FakeResponse
from agenteval_nb.testing.fake_server import completion, error_body

pytestmark = pytest.mark.anyio

VALID = "reasoning: same answer\nis_the_agent_response_valid: valid"
INVALID = "reasoning: wrong city\nis_the_agent_response_valid: invalid"


async def test_missing_llm_judge_criterion(run_eval, server):
    metric = EvalMetric.model_validate({"metricName": "llm_final_response", "threshold": 1})
    with pytest.raises(EvaluatorError, match=r"^missing required fields in eval metric$"):
        await run_eval("llm_final_response", metric, [inv()])


async def test_no_judge_configured_is_a_clear_error(server):
    metric = make_metric("llm_final_response", server.base_url)
    evaluator = Registry.default().get("llm_final_response")
    with pytest.raises(EvaluatorError, match="no judge configured"):
        await evaluator.evaluate([inv()], [inv()], metric, context=EvaluationContext())


async def test_judge_model_required_without_injected_judge(run_eval, server):
    metric = EvalMetric.model_validate(
        {"metricName": "m", "criterion": {"llmJudge": {"rubrics": RUBRICS}}}
    )
    with pytest.raises(EvaluatorError, match=r"^missing required fields in eval metric$"):
        await run_eval("llm_final_response", metric, [inv()])


@pytest.mark.parametrize("count", [0, -2])
async def test_num_samples_must_be_positive(run_eval, server, count):
    metric = make_metric("m", server.base_url, judge_model={"numSamples": count})
    with pytest.raises(EvaluatorError, match="num samples must be greater than 0"):
        await run_eval("llm_final_response", metric, [inv()])


async def test_sample_parallelism_must_be_non_negative(run_eval, server):
    metric = make_metric("m", server.base_url, sampleParallelism=-1)
    with pytest.raises(EvaluatorError, match="sample parallelism must be non-negative"):
        await run_eval("llm_final_response", metric, [inv()])


async def test_count_mismatch(run_eval, server):
    metric = make_metric("m", server.base_url)
    with pytest.raises(
        EvaluatorError, match=r"actual invocations \(2\) and expected invocations \(1\) count"
    ):
        await run_eval("llm_final_response", metric, [inv(), inv()], [inv()])


async def test_num_samples_from_judge_model_and_majority_vote_marks_chosen(run_eval, server):
    metric = make_metric("m", server.base_url, judge_model={"numSamples": 3})
    result = await run_eval(
        "llm_final_response", metric, [inv()], answers=[VALID, INVALID, INVALID]
    )
    assert server.request_count == 3
    turn = result.per_invocation_results[0]
    assert turn.score == 0.0 and turn.status == "failed"
    record = judge_record(turn.details)
    assert [s.sample_index for s in record.samples] == [0, 1, 2]
    assert [s.chosen for s in record.samples] == [False, True, False]
    assert [s.score for s in record.samples] == [1.0, 0.0, 0.0]
    assert [s.status for s in record.samples] == ["passed", "failed", "failed"]
    assert record.samples[1].reason == "wrong city" == turn.details.reason
    assert record.samples[0].raw == VALID


async def test_injected_judge_uses_its_own_num_samples(server):
    """With an injected judge, judgeModel.numSamples is ignored (extras, attribute, else 1)."""
    calls: list[int] = []

    def judge(messages, structured_output=None):
        calls.append(1)
        return VALID

    metric = make_metric("m", server.base_url, judge_model={"numSamples": 5})
    evaluator = LLMFinalResponseEvaluator()
    async with JudgeClient(judge=judge) as client:
        await evaluator.evaluate([inv()], [inv()], metric, context=EvaluationContext(judge=client))
        assert len(calls) == 1
        ctx = EvaluationContext(judge=client, extras={"judge_num_samples": 2})
        await evaluator.evaluate([inv()], [inv()], metric, context=ctx)
        assert len(calls) == 3
        judge.num_samples = 4  # type: ignore[attr-defined]
        await evaluator.evaluate([inv()], [inv()], metric, context=EvaluationContext(judge=client))
        assert len(calls) == 7
    assert server.request_count == 0


async def test_injected_judge_without_judge_model_is_enough(server):
    metric = EvalMetric.model_validate({"metricName": "m", "criterion": {"llmJudge": {}}})
    async with JudgeClient(judge=lambda messages: VALID) as client:
        result = await LLMFinalResponseEvaluator().evaluate(
            [inv()], [inv()], metric, context=EvaluationContext(judge=client)
        )
    assert result.overall_score == 1.0


async def test_judge_error_aborts_the_metric(run_eval, server):
    metric = make_metric("m", server.base_url, judge_model={"numSamples": 2})
    server.enqueue(completion(VALID), FakeResponse(400, error_body("bad request")))
    with pytest.raises(EvaluatorError, match=r"^judge response: .*HTTP 400.*bad request"):
        await run_eval("llm_final_response", metric, [inv()])


async def test_scoring_error_aborts_the_metric(run_eval, server):
    metric = make_metric("m", server.base_url)
    with pytest.raises(
        EvaluatorError,
        match=r"^score based on response: no final response blocks found in response$",
    ):
        await run_eval("llm_final_response", metric, [inv()], answers=["just text"])


async def test_construct_messages_error_prefix(run_eval, server):
    metric = make_metric("m", server.base_url)
    with pytest.raises(
        EvaluatorError, match=r"^construct messages: llm judge rubrics are required$"
    ):
        await run_eval("llm_rubric_response", metric, [inv()])
    assert server.request_count == 0


async def test_resolve_structured_output_error_prefix(run_eval, server):
    rubrics = [{"id": " ", "content": {"text": "x"}}]
    metric = make_metric("m", server.base_url, rubrics=rubrics)
    with pytest.raises(
        EvaluatorError,
        match=r"^resolve structured output: llm judge rubric id is required for structured",
    ):
        await run_eval("llm_rubric_response", metric, [inv()])


async def test_turns_are_judged_in_order_with_prefixes(run_eval, server):
    metric = make_metric("m", server.base_url)
    actuals = [inv("first question", "a1"), inv("second question", "a2")]
    expecteds = [inv("first question", "e1"), inv("second question", "e2")]
    result = await run_eval(
        "llm_final_response", metric, actuals, expecteds, answers=[VALID, INVALID]
    )
    assert [t.score for t in result.per_invocation_results] == [1.0, 0.0]
    assert result.overall_score == 0.5 and result.overall_status == "passed"
    prompts = [r["messages"][0]["content"] for r in server.chat_requests]
    assert "first question" in prompts[0] and "e1" in prompts[0]
    assert "second question" in prompts[1] and "e2" in prompts[1]
    assert result.per_invocation_results[1].actual_invocation is actuals[1]


async def test_serial_samples_by_default(run_eval, server):
    server.latency_s = 0.05
    metric = make_metric("m", server.base_url, judge_model={"numSamples": 3})
    await run_eval("llm_final_response", metric, [inv()], answers=[VALID] * 3)
    assert server.max_in_flight == 1


async def test_sample_parallelism_is_bounded_and_keeps_sample_order(run_eval, server):
    server.latency_s = 0.1
    metric = make_metric(
        "m",
        server.base_url,
        judge_model={"numSamples": 4},
        sampleParallelismEnabled=True,
        sampleParallelism=2,
    )
    server.handler = lambda request: completion(VALID)
    result = await run_eval("llm_final_response", metric, [inv()])
    assert server.max_in_flight == 2
    record = judge_record(result.per_invocation_results[0].details)
    assert [s.sample_index for s in record.samples] == [0, 1, 2, 3]
    assert [s.chosen for s in record.samples] == [True, False, False, False]


async def test_parallel_sample_error_aborts(run_eval, server):
    metric = make_metric(
        "m", server.base_url, judge_model={"numSamples": 3}, sampleParallelismEnabled=True
    )
    server.handler = lambda request: completion("garbage")
    with pytest.raises(EvaluatorError, match=r"^score based on response: no final response"):
        await run_eval("llm_final_response", metric, [inv()])


async def test_judge_record_keeps_prompt_usage_and_latency(run_eval, server):
    metric = make_metric("m", server.base_url)
    answer = completion(
        VALID,
        usage={
            "prompt_tokens": 120,
            "completion_tokens": 9,
            "total_tokens": 129,
            "prompt_tokens_details": {"cached_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 4},
        },
    )
    result = await run_eval("llm_final_response", metric, [inv("Q?", "A.")], answers=[answer])
    record = judge_record(result.per_invocation_results[0].details)
    assert record.evaluator == "llm_final_response"
    assert record.model == "fake-model" and record.heuristic is False
    sent = server.chat_requests[0]["messages"]
    assert [(m.role, m.content) for m in record.prompt] == [(m["role"], m["content"]) for m in sent]
    sample = record.samples[0]
    assert (sample.prompt_tokens, sample.completion_tokens) == (120, 9)
    assert (sample.cached_tokens, sample.reasoning_tokens) == (100, 4)
    assert sample.latency_ms is not None and sample.latency_ms >= 0
    assert sample.cache_hit is False


async def test_cache_hit_on_rerun(run_eval, server, tmp_path):
    metric = make_metric("m", server.base_url, judge_model={"numSamples": 2})
    server.handler = lambda request: completion(VALID)
    cache = tmp_path / "judge.sqlite"
    first = await run_eval("llm_final_response", metric, [inv()], cache=cache)
    assert server.request_count == 2
    second = await run_eval("llm_final_response", metric, [inv()], cache=cache)
    assert server.request_count == 2
    hits = [s.cache_hit for s in judge_record(second.per_invocation_results[0].details).samples]
    assert hits == [True, True]
    misses = [s.cache_hit for s in judge_record(first.per_invocation_results[0].details).samples]
    assert misses == [False, False]


async def test_extension_swaps_a_stage_by_name(run_eval, server):
    metric = make_metric(
        "m",
        server.base_url,
        judge_model={"numSamples": 3},
        extension={"operators": {"samplesAggregator": "min"}},
    )
    result = await run_eval("llm_final_response", metric, [inv()], answers=[VALID, VALID, INVALID])
    assert result.overall_score == 0.0
    assert [s.chosen for s in judge_record(result.per_invocation_results[0].details).samples] == [
        False,
        False,
        True,
    ]


async def test_unknown_operator_name_fails(run_eval, server):
    metric = make_metric(
        "m", server.base_url, extension={"operators": {"invocationsAggregator": "median"}}
    )
    with pytest.raises(EvaluatorError, match='unsupported invocations aggregator "median"'):
        await run_eval("llm_final_response", metric, [inv()])


async def test_evaluator_constructor_swaps_a_stage_and_custom_scorer(run_eval, server):
    from agenteval_nb.evaluators.llm import OperatorRegistry, ScoreResult

    ops = OperatorRegistry.default()
    ops.register_scorer("length", lambda response, metric: ScoreResult(score=0.25, reason="len"))
    evaluator = LLMFinalResponseEvaluator(operators=ops, scorer="length")
    metric = make_metric("m", server.base_url)
    result = await run_eval("x", metric, [inv()], answers=["anything"], evaluator=evaluator)
    assert result.overall_score == 0.25
    assert result.per_invocation_results[0].details.value.numeric == 0.25
