"""Non-finite verifier logprobs sent by a server fail with the reference texts (SPEC §5.2).

A Python server writes ``-Infinity`` and ``NaN`` as bare JSON tokens. The judge-response check
must let the verifier's own rule speak, with the judge cache on (the default) or off, through the
real openai client against the loopback fake server, and for an injected judge too.
"""

from __future__ import annotations

import json
import math

import pytest
from openai.types.chat import ChatCompletion

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse
from agenteval_nb.testing.fake_server import completion

NEG_INF = "score_A: score token logprobs are all negative infinity"
NAN = "score_A: score token logprob is NaN"

EVALSET = {
    "evalSetId": "geo",
    "evalCases": [
        {
            "evalId": "paris",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [
                {
                    "userContent": {"role": "user", "content": "Capital of France?"},
                    "finalResponse": {"role": "assistant", "content": "Paris"},
                }
            ],
            "actualConversation": [
                {
                    "userContent": {"role": "user", "content": "Capital of France?"},
                    "finalResponse": {"role": "assistant", "content": "Lyon"},
                }
            ],
        }
    ],
}


def verifier_metric(base_url: str | None) -> dict:
    judge_model: dict = {"modelName": "judge"}
    if base_url is not None:
        judge_model["baseURL"] = base_url
    return {
        "metricName": "verifier",
        "evaluatorName": "llm_verifier_pairwise",
        "threshold": 0.5,
        "criterion": {
            "llmJudge": {
                "judgeModel": judge_model,
                "rubrics": [{"id": "r1", "content": {"text": "names the right city"}}],
            }
        },
    }


def judged(label_logprob: float) -> dict:
    """A verifier answer whose score_A label candidates all carry ``label_logprob``."""
    return completion(
        "<score_A>A</score_A><score_B>B</score_B>",
        logprobs=[
            ("<score_A>", -0.01),
            ("A", label_logprob, [("A", label_logprob), ("T", label_logprob)]),
            ("</score_A><score_B>", -0.01),
            ("B", -0.1),
            ("</score_B>", -0.01),
        ],
    )


def raw_body(label_logprob: float) -> bytes:
    """The answer as a Python server writes it: bare ``-Infinity`` / ``NaN`` tokens."""
    body = json.dumps(judged(label_logprob)).encode()
    assert b"-Infinity" in body or b"NaN" in body
    return body


def case_error(run: ae.EvalRun) -> str:
    (case,) = run.result.eval_case_results
    texts = [case.error_message or ""]
    for metric in case.overall_eval_metric_results or ():
        texts.append(metric.details.reason if metric.details else "")
    return "\n".join(t for t in texts if t)


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize(("logprob", "error"), [(-math.inf, NEG_INF), (math.nan, NAN)])
def test_raw_non_finite_tokens_fail_with_the_reference_text(cache, logprob, error, tmp_path):
    with FakeOpenAIServer(responses=[FakeResponse(200, raw_body(logprob))]) as srv:
        run = ae.evaluate(EVALSET, [verifier_metric(srv.base_url)], progress=False, cache=cache)
        assert srv.request_count == 1
    message = case_error(run)
    assert error in message, message
    assert "JSON compliant" not in message
    run.save(tmp_path / "result.json")  # the failed case is stored like any other


def test_a_vllm_clamped_logprob_still_reads_as_negative_infinity(tmp_path):
    with FakeOpenAIServer(responses=[judged(-9999.0)]) as srv:
        run = ae.evaluate(EVALSET, [verifier_metric(srv.base_url)], progress=False)
    assert NEG_INF in case_error(run)


def test_a_non_finite_logprob_outside_the_labels_does_not_fail_the_score():
    answer = judged(math.log(0.5))
    answer["choices"][0]["logprobs"]["content"][0]["logprob"] = math.nan
    answer["choices"][0]["logprobs"]["content"][2]["logprob"] = -math.inf
    with FakeOpenAIServer(responses=[answer, answer]) as srv:
        first = ae.evaluate(EVALSET, [verifier_metric(srv.base_url)], progress=False)
        again = ae.evaluate(EVALSET, [verifier_metric(srv.base_url)], progress=False)
        assert srv.request_count == 1  # the answer was cached and read back
    for run in (first, again):
        (case,) = run.result.eval_case_results
        assert case.error_message is None
        (metric,) = case.overall_eval_metric_results
        assert metric.details.reason.startswith("Computed from score_A")


@pytest.mark.parametrize("as_model", [False, True], ids=["dict", "ChatCompletion"])
@pytest.mark.parametrize(("logprob", "error"), [(-math.inf, NEG_INF), (math.nan, NAN)])
def test_an_injected_judge_returning_non_finite_logprobs(logprob, error, as_model):
    def judge(messages, structured_output=None):
        answer = judged(logprob)
        return ChatCompletion.model_validate(answer) if as_model else answer

    run = ae.evaluate(EVALSET, [verifier_metric(None)], judge=judge, progress=False)
    message = case_error(run)
    assert error in message, message
