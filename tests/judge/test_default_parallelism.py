"""At the defaults the judge's per-endpoint limit, not the case pool, bounds judge-bound work:
``ae.evaluate`` keeps as many requests in flight as ``judge_concurrency`` allows, never more, and
an explicit ``case_parallelism`` still caps the cases."""

from __future__ import annotations

import pytest

import agenteval_nb as ae
from agenteval_nb.engine.inference import AgentSetup
from agenteval_nb.engine.run import (
    CASES_PER_JUDGE_SLOT,
    DEFAULT_CASE_PARALLELISM,
    EngineOptions,
    case_pool_size,
)
from agenteval_nb.evaluators.base import EvaluationContext
from agenteval_nb.judge import JudgeClient
from agenteval_nb.testing import FakeOpenAIServer, completion

VERDICT = "reasoning: fine\nis_the_agent_response_valid: valid"


def _inputs(n: int, base_url: str) -> tuple[dict, list[dict]]:
    cases = []
    for i in range(n):
        inv = {
            "userContent": {"role": "user", "content": f"q{i}"},
            "finalResponse": {"role": "assistant", "content": f"a{i}"},
        }
        cases.append(
            {
                "evalId": f"c{i}",
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [inv],
                "actualConversation": [inv],
            }
        )
    metric = {
        "metricName": "judged",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m", "baseURL": base_url}}},
        "evaluatorName": "llm_final_response",
    }
    return {"evalSetId": "s", "evalCases": cases}, [metric]


@pytest.mark.parametrize("judge_concurrency", [12, 32])
def test_default_case_pool_lets_the_judge_limit_bind(judge_concurrency):
    # each answer takes long enough that a loaded 2-core machine starts the whole wave first
    with FakeOpenAIServer(lambda request: completion(VERDICT), latency_s=0.3) as server:
        evalset, metrics = _inputs(4 * judge_concurrency, server.base_url)
        run = ae.evaluate(
            evalset, metrics, judge_concurrency=judge_concurrency, cache=False, progress=False
        )
        assert server.request_count == 4 * judge_concurrency
        assert server.max_in_flight == judge_concurrency  # the limiter is full, and binds
    assert {c.final_eval_status for c in run.result.eval_case_results} == {"passed"}


def test_explicit_case_parallelism_still_caps_the_cases():
    with FakeOpenAIServer(lambda request: completion(VERDICT), latency_s=0.02) as server:
        evalset, metrics = _inputs(12, server.base_url)
        ae.evaluate(evalset, metrics, case_parallelism=3, cache=False, progress=False)
        assert server.max_in_flight <= 3


def test_case_pool_size_rule():
    def size(judge, explicit=None, agent=None):
        options = EngineOptions(
            registry=ae.Registry.default(),
            context=EvaluationContext(judge=judge),
            case_parallelism=explicit,
            agents=AgentSetup(agent=agent),
        )
        return case_pool_size(options)

    assert size(None) == DEFAULT_CASE_PARALLELISM
    assert size(JudgeClient(max_concurrency=32)) == CASES_PER_JUDGE_SLOT * 32
    assert size(JudgeClient(max_concurrency=1)) == DEFAULT_CASE_PARALLELISM
    assert size(JudgeClient(max_concurrency=32), explicit=5) == 5
    # an agent's endpoint has no limiter: the case pool keeps bounding it
    assert size(JudgeClient(max_concurrency=32), agent=lambda text: "hi") == 8
