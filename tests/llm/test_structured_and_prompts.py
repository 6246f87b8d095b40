"""Structured outputs (SPEC §4.7) and messages constructors (SPEC §4.3), as sent to the server."""

from __future__ import annotations

import json

import pytest
from _llm_helpers import RUBRICS, inv, make_metric

from agenteval_nb.evaluators.base import EvaluatorError
from agenteval_nb.evaluators.llm.hallucinations_judge import grounding_context
from agenteval_nb.evaluators.llm.rubric_judges import retrieved_knowledge
from agenteval_nb.schema.extras import judge_record

pytestmark = pytest.mark.anyio

RUBRIC_OK = json.dumps(
    {
        "rubricScores": [
            {"id": "r1", "score": 1, "reason": "a"},
            {"id": "r2", "score": 0, "reason": "b"},
        ]
    }
)


@pytest.mark.parametrize(
    ("evaluator", "schema_name"),
    [
        ("llm_rubric_response", "rubric_response_scores"),
        ("llm_rubric_critic", "rubric_critic_scores"),
        ("llm_rubric_reference_critic", "rubric_reference_critic_scores"),
        ("llm_rubric_knowledge_recall", "rubric_knowledge_recall_scores"),
    ],
)
async def test_rubric_evaluator_schema(run_eval, server, evaluator, schema_name):
    rubrics = [*RUBRICS, {"id": "hidden"}]  # no content: invisible
    metric = make_metric("m", server.base_url, rubrics=rubrics)
    result = await run_eval(evaluator, metric, [inv()], answers=[RUBRIC_OK])
    assert result.overall_score == 0.5
    body = server.chat_requests[0]
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    spec = fmt["json_schema"]
    assert spec["name"] == schema_name and spec["strict"] is True
    schema = spec["schema"]
    assert schema["required"] == ["rubricScores"] and schema["additionalProperties"] is False
    array = schema["properties"]["rubricScores"]
    assert array["minItems"] == array["maxItems"] == 2
    item = array["items"]
    assert item["properties"]["id"] == {"type": "string", "enum": ["r1", "r2"]}
    assert item["properties"]["score"] == {"type": "number", "enum": [0, 1]}
    assert item["required"] == ["id", "score", "reason"] and item["additionalProperties"] is False
    prompt = body["messages"][0]["content"]
    assert "r1: mentions Paris\nr2: gives the population\n" in prompt
    assert "hidden" not in prompt


@pytest.mark.parametrize(
    ("rubrics", "error"),
    [
        ([{"id": "", "content": {"text": "x"}}], "llm judge rubric id is required for structured"),
        (
            [{"id": "a", "content": {"text": "x"}}, {"id": " a ", "content": {"text": "y"}}],
            'duplicate llm judge rubric id "a"',
        ),
    ],
)
async def test_rubric_schema_validation(run_eval, server, rubrics, error):
    metric = make_metric("m", server.base_url, rubrics=rubrics)
    with pytest.raises(EvaluatorError, match=f"^resolve structured output: {error}"):
        await run_eval("llm_rubric_response", metric, [inv()])


@pytest.mark.parametrize("evaluator", ["llm_final_response", "llm_hallucinations"])
async def test_no_structured_output(run_eval, server, evaluator):
    metric = make_metric("m", server.base_url)
    answers = ["<sentence>x</sentence>", "ID: 1\nReason: r\nLabel: supported\nVerdict: yes"]
    if evaluator == "llm_final_response":
        answers = ["reasoning: r\nis_the_agent_response_valid: valid"]
    await run_eval(evaluator, metric, [inv()], answers=answers)
    assert all("response_format" not in body for body in server.chat_requests)


async def test_final_response_prompt(run_eval, server):
    metric = make_metric("m", server.base_url)
    answer = "reasoning: r\nis_the_agent_response_valid: valid"
    await run_eval(
        "llm_final_response",
        metric,
        [inv("What is 2+2?", "four")],
        [inv("What is 2+2?", "4")],
        answers=[answer],
    )
    prompt = server.chat_requests[0]["messages"][0]["content"]
    assert server.chat_requests[0]["messages"][0]["role"] == "user"
    assert "<user_prompt>\nWhat is 2+2?\n</user_prompt>" in prompt
    assert "<agent_response>\nfour\n</agent_response>" in prompt
    assert "<reference_answer>\n4\n</reference_answer>" in prompt
    assert "is_the_agent_response_valid: <valid or invalid>" in prompt


@pytest.mark.parametrize("evaluator", ["llm_rubric_critic", "llm_rubric_reference_critic"])
async def test_critics_need_the_expected_final_response(run_eval, server, evaluator):
    metric = make_metric("m", server.base_url, rubrics=RUBRICS)
    with pytest.raises(
        EvaluatorError,
        match=f"^construct messages: expected final response is required for {evaluator}$",
    ):
        await run_eval(evaluator, metric, [inv()], [inv(answer=None)])


async def test_critic_prompt_has_the_reference(run_eval, server):
    metric = make_metric("m", server.base_url, rubrics=RUBRICS)
    await run_eval(
        "llm_rubric_critic", metric, [inv("q", "mine")], [inv("q", "golden")], answers=[RUBRIC_OK]
    )
    prompt = server.chat_requests[0]["messages"][0]["content"]
    assert "llm_rubric_critic" in prompt and "<reference_answer>\ngolden\n" in prompt


def knowledge_tool(result, name="knowledge_search"):
    return {"id": "t1", "name": name, "arguments": {"query": "x"}, "result": result}


def test_retrieved_knowledge_compact_json_in_call_order():
    actual = inv(
        tools=[
            knowledge_tool({"documents": [{"text": "A <b> & c", "score": 0.5, "Extra": 1}]}),
            {"id": "t2", "name": "other", "result": {"documents": []}},
            knowledge_tool(
                {
                    "Documents": [{"id": "d", "text": "t", "metadata": {"k": 1}, "score": 1}],
                    "message": "ok",
                },
                name="knowledge_search_with_agentic_filter",
            ),
            knowledge_tool(None),
            knowledge_tool({}),
        ]
    )
    assert retrieved_knowledge(actual) == (
        '{"documents":[{"text":"A \\u003cb\\u003e \\u0026 c","score":0.5}]}\n'
        '{"documents":[{"id":"d","text":"t","metadata":{"k":1},"score":1}],"message":"ok"}\n'
        '{"documents":null}\n'
    )
    assert retrieved_knowledge(inv()) == "No knowledge search results were found."


async def test_knowledge_recall_parse_error(run_eval, server):
    metric = make_metric("m", server.base_url, rubrics=RUBRICS)
    actual = inv(tools=[knowledge_tool("plain text result")])
    with pytest.raises(
        EvaluatorError,
        match=r"^construct messages: extract knowledge recall: parse tool knowledge_search "
        r"response: json: cannot unmarshal string",
    ):
        await run_eval("llm_rubric_knowledge_recall", metric, [actual])


async def test_knowledge_recall_prompt(run_eval, server):
    metric = make_metric("m", server.base_url, rubrics=RUBRICS)
    actual = inv("capital?", tools=[knowledge_tool({"documents": [{"text": "Paris", "score": 1}]})])
    await run_eval("llm_rubric_knowledge_recall", metric, [actual], answers=[RUBRIC_OK])
    prompt = server.chat_requests[0]["messages"][0]["content"]
    assert (
        '<retrieved_knowledge>\n{"documents":[{"text":"Paris","score":1}]}\n\n'
        "</retrieved_knowledge>" in prompt
    )


def test_grounding_context_all_prefix_turns():
    first = inv(
        "  What is the weather?  ",
        contextMessages=[
            {"role": "system", "content": " be brief "},
            {"role": "user", "content": "   "},
        ],
        tools=[
            {"id": "c1", "name": "weather", "arguments": {"city": "Paris"}, "result": {"t": 21.5}},
            {"name": "noargs"},
        ],
    )
    empty = inv("", tools=[])
    second = inv("And <tomorrow>?")
    assert grounding_context([first, empty, second]) == (
        "User prompt:\nWhat is the weather?\n\n"
        "Context messages:\n- [system] be brief\n\n"
        "tool_calls:\n"
        '[\n  {\n    "id": "c1",\n    "name": "weather",\n    "args": {\n      "city": "Paris"\n'
        '    }\n  },\n  {\n    "name": "noargs"\n  }\n]\n\n'
        "tool_outputs:\n"
        '[\n  {\n    "id": "c1",\n    "name": "weather",\n    "output": {\n      "t": 21.5\n'
        '    }\n  },\n  {\n    "name": "noargs"\n  }\n]\n\n'
        "User prompt:\nAnd <tomorrow>?"
    )
    assert grounding_context([empty]) == "No validation context was captured."


async def test_hallucination_segmentation_once_per_turn(run_eval, server):
    metric = make_metric("m", server.base_url, judge_model={"numSamples": 2})
    segmentation = (
        "<sentence> First. </sentence><sentence>  </sentence>\n<sentence>Third</sentence>"
    )
    blocks = "ID: 1\nReason: r\nLabel: supported\nVerdict: yes"
    result = await run_eval(
        "llm_hallucinations",
        metric,
        [inv("q1", "x"), inv("q2", "First. Third")],
        answers=["<sentence>x</sentence>", blocks, blocks, segmentation, blocks, blocks],
    )
    assert server.request_count == 6
    validation = server.chat_requests[4]["messages"][0]["content"]
    assert (
        '<sentence id="1">\nFirst.\n</sentence>\n<sentence id="3">\nThird\n</sentence>'
        in validation
    )
    assert "User prompt:\nq1\n\nUser prompt:\nq2" in validation
    assert "First. Third" in server.chat_requests[3]["messages"][0]["content"]
    record = judge_record(result.per_invocation_results[1].details)
    assert len(record.extra_calls) == 1
    assert record.extra_calls[0].raw == segmentation
    assert record.extra_calls[0].reason == "segmentation"
    assert len(record.samples) == 2


@pytest.mark.parametrize(
    ("segmentation", "error"),
    [
        ("no tags here", "no segmented sentences found in response"),
        ("<sentence> </sentence><sentence></sentence>", "no non-empty segmented sentences found"),
    ],
)
async def test_hallucination_segmentation_errors(run_eval, server, segmentation, error):
    metric = make_metric("m", server.base_url)
    with pytest.raises(EvaluatorError, match=f"^construct messages: {error}"):
        await run_eval("llm_hallucinations", metric, [inv()], answers=[segmentation])


async def test_hallucination_empty_answer_is_segmented(run_eval, server):
    metric = make_metric("m", server.base_url)
    blocks = "ID: 1\nReason: empty\nLabel: unsupported\nVerdict: no"
    result = await run_eval(
        "llm_hallucinations",
        metric,
        [inv(answer="")],
        answers=["<sentence>[EMPTY_RESPONSE]</sentence>", blocks],
    )
    assert result.overall_score == 0.0
    assert "[EMPTY_RESPONSE]" in server.chat_requests[1]["messages"][0]["content"]
