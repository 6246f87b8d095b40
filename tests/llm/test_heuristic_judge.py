"""The offline heuristic judge answers every evaluator's format, and is marked as such."""

from __future__ import annotations

import json

import pytest
from _llm_helpers import EVALUATOR_CASES as CASES
from _llm_helpers import RUBRICS, inv, make_metric

import agenteval_nb as ae
from agenteval_nb.evaluators.llm import HEURISTIC_MODEL
from agenteval_nb.schema.extras import judge_record, verifier_record
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.heuristic_judge import (
    HeuristicJudge,
    heuristic_handler,
    heuristic_judge,
    overlap,
    words,
)

pytestmark = pytest.mark.anyio

ACTUAL = inv(
    "What is the capital of France?",
    "The capital of France is Paris. It has about two million people.",
    tools=[
        {
            "id": "k1",
            "name": "knowledge_search",
            "arguments": {"query": "capital of France"},
            "result": {"documents": [{"text": "Paris is the capital of France.", "score": 0.9}]},
        }
    ],
)
EXPECTED = inv("What is the capital of France?", "Paris is the capital of France.")


@pytest.mark.parametrize(("evaluator", "fields"), CASES, ids=[c[0] for c in CASES])
async def test_answers_every_format_through_the_server(run_eval, server, evaluator, fields):
    server.handler = heuristic_handler
    name = evaluator if evaluator.startswith("llm_") else "llm_judge_template"
    metric = make_metric("m", server.base_url, evaluator=name, **fields)
    result = await run_eval(name, metric, [ACTUAL], [EXPECTED])
    turn = result.per_invocation_results[0]
    record = judge_record(turn.details)
    assert record.heuristic is True
    assert record.model == HEURISTIC_MODEL
    for sample in [*record.samples, *(record.extra_calls or [])]:
        assert "heuristic" in sample.raw.lower()
    assert 0.0 <= turn.score <= 1.0
    if evaluator == "llm_verifier_pairwise":
        assert verifier_record(turn.details).samples[0].a.from_logprobs is True
    if evaluator == "llm_final_response":
        assert turn.score == 1.0  # every reference word is in the answer
    if evaluator == "categorical":
        assert turn.details.value.categorical == "right"


async def test_hallucination_flags_unsupported_sentences(run_eval, server):
    server.handler = heuristic_handler
    metric = make_metric("m", server.base_url)
    actual = inv(
        "What is the capital of France?",
        "Paris is the capital of France. Bananas grow on Mars.",
        tools=[{"name": "search", "result": {"text": "Paris is the capital of France"}}],
    )
    result = await run_eval("llm_hallucinations", metric, [actual])
    scores = [r.score for r in result.per_invocation_results[0].details.rubric_scores]
    assert scores == [1.0, 0.0]


def test_word_overlap_rule():
    assert words("The Capital, of FRANCE!") == {"capital", "france"}
    assert overlap("Paris is nice", "Paris and Lyon") == 0.5
    assert overlap("anything", "the of and") == 1.0


def test_callable_form_and_logprobs_switch():
    messages = [{"role": "user", "content": "<criteria>x</criteria>\n<score_A>LETTER</score_A>"}]
    answer = heuristic_judge(messages)
    assert answer["model"] == HEURISTIC_MODEL
    assert answer["choices"][0]["logprobs"]["content"]
    assert HeuristicJudge(logprobs=False)(messages)["choices"][0]["logprobs"] is None
    assert heuristic_handler({"messages": messages})["choices"][0]["logprobs"] is None
    with_lp = heuristic_handler({"messages": messages, "logprobs": True})
    assert with_lp["choices"][0]["logprobs"]["content"]


def test_structured_output_by_schema_name():
    fmt = {
        "type": "json_schema",
        "json_schema": {
            "name": "rubric_response_scores",
            "schema": {
                "properties": {
                    "rubricScores": {"items": {"properties": {"id": {"enum": ["x", "y"]}}}}
                }
            },
        },
    }
    prompt = (
        "<agent_response>\nParis\n</agent_response>\n<rubrics>\nx: Paris\ny: Lyon\n</rubrics>\n"
    )
    answer = heuristic_judge([{"role": "user", "content": prompt}], structured_output=fmt)
    payload = json.loads(answer["choices"][0]["message"]["content"])
    assert [(i["id"], i["score"]) for i in payload["rubricScores"]] == [("x", 1), ("y", 0)]


def test_usable_as_judge_of_evaluate():
    evalset = {
        "evalSetId": "h",
        "evalCases": [
            {
                "evalId": "c",
                "evalMode": "trace",
                "sessionInput": {"appName": "a", "userId": "u"},
                "conversation": [EXPECTED.to_wire()],
                "actualConversation": [ACTUAL.to_wire()],
            }
        ],
    }
    metrics = [
        {"metricName": "llm_final_response", "threshold": 1, "criterion": {"llmJudge": {}}},
        {
            "metricName": "llm_rubric_response",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"rubrics": RUBRICS}},
        },
    ]
    run = ae.evaluate(evalset, metrics, judge=heuristic_judge, progress=False)
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "passed", case.error_message
    for result in case.eval_metric_result_per_invocation[0].eval_metric_results:
        assert judge_record(result.details).heuristic is True


def test_fake_server_handler_with_evaluate():
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        metrics = [
            {
                "metricName": "llm_final_response",
                "threshold": 1,
                "criterion": {
                    "llmJudge": {"judgeModel": {"modelName": "x", "baseURL": srv.base_url}}
                },
            }
        ]
        evalset = {
            "evalSetId": "h",
            "evalCases": [
                {
                    "evalId": "c",
                    "evalMode": "trace",
                    "sessionInput": {"appName": "a", "userId": "u"},
                    "conversation": [EXPECTED.to_wire()],
                    "actualConversation": [inv("q", "Berlin").to_wire()],
                }
            ],
        }
        run = ae.evaluate(evalset, metrics, progress=False, cache=False)
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    details = case.eval_metric_result_per_invocation[0].eval_metric_results[0].details
    assert "heuristic judge (not an LLM)" in details.reason
