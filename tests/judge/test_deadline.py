"""The judge timeout bounds a whole attempt, body included: a server that sends its headers and
then trickles the body times out like a silent one (httpx's read timeout alone restarts with
every byte). Bounds asserted below are hang guards only."""

from __future__ import annotations

import anyio
import pytest

import agenteval_nb as ae
from agenteval_nb.judge import JudgeClient, JudgeError
from agenteval_nb.testing import FakeResponse, completion

MESSAGES = [{"role": "user", "content": "grade this"}]
HANG_GUARD_S = 60
VALID = "reasoning: fine\nis_the_agent_response_valid: valid"


def trickling(request):
    """Headers at once, then one body byte every 0.2 s (a ~300-byte body takes a minute)."""
    return FakeResponse(200, completion(VALID), trickle_s=0.2)


@pytest.mark.anyio
@pytest.mark.parametrize("retries", [0, 1])
async def test_trickling_body_times_out_each_attempt(server, judge_model, retries):
    server.handler = trickling
    with anyio.fail_after(HANG_GUARD_S):
        async with JudgeClient(timeout=0.5, max_retries=retries) as client:
            with pytest.raises(JudgeError, match="timed out") as info:
                await client.complete(judge_model(), MESSAGES)
    assert info.value.kind == "timeout"
    assert server.request_count == retries + 1  # each attempt ended, and was retried
    assert ("(after 1 retry)" in str(info.value)) == (retries == 1)


@pytest.mark.anyio
async def test_slow_but_timely_body_still_arrives(server, judge_model):
    server.handler = lambda request: FakeResponse(200, completion("ok"), trickle_s=0.001)
    with anyio.fail_after(HANG_GUARD_S):
        async with JudgeClient(timeout=30, max_retries=0) as client:
            call = await client.complete(judge_model(), MESSAGES)
    assert call.content == "ok"


@pytest.mark.anyio
async def test_no_timeout_means_no_deadline(server, judge_model):
    server.enqueue(completion("ok"))
    async with JudgeClient(timeout=None, max_retries=0) as client:
        assert (await client.complete(judge_model(), MESSAGES)).content == "ok"


@pytest.mark.timeout(HANG_GUARD_S)
def test_trickling_judge_fails_the_invocation_not_the_run(server):
    server.handler = trickling
    inv = {
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": "a"},
    }
    evalset = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "slow",
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [inv],
                "actualConversation": [inv],
            }
        ],
    }
    metric = {
        "metricName": "judged",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m", "baseURL": server.base_url}}},
        "evaluatorName": "llm_final_response",
    }
    run = ae.evaluate(
        evalset, [metric], judge_timeout=0.5, judge_max_retries=0, cache=False, progress=False
    )
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    assert "judge response:" in case.error_message and "timed out" in case.error_message
