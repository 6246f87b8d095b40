"""``ae.evaluate`` with LLM metrics: saved results keep every judge record and distribution."""

from __future__ import annotations

import json

import pytest
from _llm_helpers import RUBRICS

import agenteval_nb as ae
from agenteval_nb.io import dumps
from agenteval_nb.schema.extras import judge_record, verifier_record
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse
from agenteval_nb.testing.fake_server import completion
from agenteval_nb.testing.heuristic_judge import HeuristicJudge, heuristic_handler


def turn(user, answer):
    return {
        "userContent": {"role": "user", "content": user},
        "finalResponse": {"role": "assistant", "content": answer},
    }


EVALSET = {
    "evalSetId": "geo",
    "evalCases": [
        {
            "evalId": "paris",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of France?", "Paris is the capital of France.")],
            "actualConversation": [turn("Capital of France?", "The capital of France is Paris.")],
            "rubrics": [
                {"metricName": "verifier", "content": {"text": "answers with a city"}},
            ],
        },
        {
            "evalId": "two-turns",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of Italy?", "Rome"), turn("And Spain?", "Madrid")],
            "actualConversation": [
                turn("Capital of Italy?", "Rome"),
                turn("And Spain?", "Barcelona"),
            ],
        },
    ],
}


def metrics(base_url, num_samples=2, **verifier):
    judge_model = {"modelName": "judge", "baseURL": base_url, "numSamples": num_samples}
    llm = {"judgeModel": judge_model, "rubrics": RUBRICS}
    out = [
        {
            "metricName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": judge_model}},
        },
        {
            "metricName": "verifier",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {"llmJudge": llm},
        },
    ]
    if verifier:
        out[1]["extension"] = {"verifier": verifier}
    return out


def test_saved_result_keeps_every_distribution(tmp_path):
    with FakeOpenAIServer(handler=HeuristicJudge(position_bias=0.1).handler) as srv:
        run = ae.evaluate(
            EVALSET, metrics(srv.base_url, swap="report"), progress=False, cache=False
        )
    result = run.result
    for case in result.eval_case_results:
        assert case.error_message is None, case.error_message
    text = dumps(result)
    loaded = ae.load_result(text)
    n_turns = 0
    for case in loaded.eval_case_results:
        for per_turn in case.eval_metric_result_per_invocation:
            by_name = {m.metric_name: m for m in per_turn.eval_metric_results}
            record = judge_record(by_name["llm_final_response"].details)
            assert record.heuristic and len(record.samples) == 2
            assert sum(s.chosen for s in record.samples) == 1
            verifier = verifier_record(by_name["verifier"].details)
            assert verifier.swap_mode == "report"
            assert len(verifier.samples) == 2
            for sample in verifier.samples:
                for dist in (sample.a, sample.b):
                    assert len(dist.labels) == len(dist.probs) == 20
                    assert sum(dist.probs) == pytest.approx(1.0)
                    assert dist.from_logprobs is True
                assert sample.swap_gap == pytest.approx(sample.score - sample.swapped_score)
            n_turns += 1
    assert n_turns == 3
    # the overall metric result repeats nothing
    overall = loaded.eval_case_results[0].overall_eval_metric_results[1]
    assert verifier_record(overall.details) is None
    # case rubrics reach the verifier prompt
    paris = loaded.eval_case_results[0]
    prompt = judge_record(paris.eval_metric_result_per_invocation[0].eval_metric_results[1].details)
    assert "case_rubric_1: answers with a city" in prompt.prompt[0].content
    # Go readers see plain extra keys
    raw = json.loads(text)
    details = raw["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["evalMetricResults"][1][
        "details"
    ]
    assert set(details) >= {"reason", "score", "value", "judge", "verifier"}
    assert "sampleIndex" in details["verifier"]["samples"][0]


def test_rerun_is_served_from_the_cache(tmp_path):
    cache = tmp_path / "judge.sqlite"
    with FakeOpenAIServer(handler=heuristic_handler) as srv:
        first = ae.evaluate(EVALSET, metrics(srv.base_url), progress=False, cache=cache)
        calls = srv.request_count
        second = ae.evaluate(EVALSET, metrics(srv.base_url), progress=False, cache=cache)
        assert srv.request_count == calls
    for run, hit in ((first, False), (second, True)):
        for case in run.result.eval_case_results:
            for per_turn in case.eval_metric_result_per_invocation:
                for metric in per_turn.eval_metric_results:
                    samples = judge_record(metric.details).samples
                    assert all(s.cache_hit is hit for s in samples)
    assert [c.score for c in first.result.eval_case_results] == [
        c.score for c in second.result.eval_case_results
    ]


def test_missing_logprobs_fails_the_case_with_the_reason():
    def handler(request):
        return completion("<score_A>A</score_A><score_B>B</score_B>")

    with FakeOpenAIServer(handler=handler) as srv:
        run = ae.evaluate(
            EVALSET, metrics(srv.base_url, num_samples=1)[1:], progress=False, cache=False
        )
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    assert case.error_message.startswith(
        "run evaluation for metric verifier: score based on response: logprobs are missing"
    )


def test_no_judge_for_llm_metric_without_endpoint_or_judge():
    evalset = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "c",
                "evalMode": "trace",
                "sessionInput": {"appName": "a", "userId": "u"},
                "conversation": [turn("q", "a")],
            }
        ],
    }
    metric = [{"metricName": "llm_final_response", "threshold": 1, "criterion": {"llmJudge": {}}}]
    run = ae.evaluate(evalset, metric, progress=False, cache=False)
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    assert "missing required fields in eval metric" in case.error_message


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (lambda: FakeResponse(status=500, body={"error": {"message": "boom"}}), "500"),
        (lambda: FakeResponse(body='{"id": "x", "choices": [{"mess'), "judge response"),
        (
            lambda: FakeResponse(
                body="<html><body>Bad gateway</body></html>", content_type="text/html"
            ),
            "judge response",
        ),
        (
            lambda: {"id": "x", "object": "chat.completion", "model": "judge", "choices": []},
            "choices",
        ),
    ],
    ids=["http-500", "truncated-json", "html-body", "no-choices"],
)
def test_a_judge_fault_fails_only_the_affected_case_and_the_run_completes(fault, reason):
    """The judge answers normally except for prompts about Spain, which get a fault."""

    def handler(request):
        prompt = json.dumps(request.get("messages"))
        return fault() if "Spain" in prompt else heuristic_handler(request)

    evalset = json.loads(json.dumps(EVALSET))
    del evalset["evalCases"][0]["rubrics"]  # they target the verifier metric, not used here
    with FakeOpenAIServer(handler=handler) as srv:
        run = ae.evaluate(
            evalset,
            metrics(srv.base_url, num_samples=1)[:1],
            progress=False,
            cache=False,
            judge_max_retries=0,
        )
    by_id = {c.eval_id: c for c in run.result.eval_case_results}
    assert by_id["paris"].final_eval_status == "passed"
    broken = by_id["two-turns"]
    assert broken.final_eval_status == "failed"
    assert broken.error_message.startswith("run evaluation for metric llm_final_response: ")
    assert reason in broken.error_message
    assert run.result.summary.run_status_counts.failed == 1
