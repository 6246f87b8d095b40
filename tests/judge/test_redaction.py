"""The judge key never leaves memory: whatever a judge endpoint sends back (bad bodies, error
statuses, refusals, answers quoting the key) is redacted before it becomes an error, a reason,
a file, a frame, a report or a log line."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

import agenteval_nb as ae
from agenteval_nb.judge import JudgeClient, JudgeError
from agenteval_nb.judge.judge_errors import shorten
from agenteval_nb.secrets import REDACTED, redact, redact_json, register_secret
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse
from agenteval_nb.testing.fake_server import ECHO_AUTHORIZATION, error_body, leaky_responses

KEY = "Zq7-judgeKey_93f0c1d2e3b4a5f6"
"""A configured key that matches no generic pattern: only its registration can hide it."""

MESSAGES = [{"role": "user", "content": "grade this"}]
KINDS = sorted(leaky_responses())


def _scripts() -> dict[str, FakeResponse]:
    """Every bad kind twice: quoting the Authorization header, and quoting the bare key."""
    out = {f"{name}-header": r for name, r in leaky_responses(ECHO_AUTHORIZATION).items()}
    out.update({f"{name}-bare": r for name, r in leaky_responses(KEY).items()})
    return out


# the redaction rule ---------------------------------------------------------------------------


def test_registered_key_is_redacted_anywhere_in_text():
    register_secret(KEY)
    text = f"a{KEY}b and again {KEY}"
    assert redact(text) == f"a{REDACTED}b and again {REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer abc.def-ghi",
        "authorization=Bearer abc.def-ghi",
        '{"api_key": "zz-top-secret-value"}',
        "x-api-key: zz-top-secret-value",
        "token Bearer abcdefghij1234",
        "key sk-proj-AbCdEf0123456789 leaked",
        "key sk-ant-api03-AbCdEf0123456789",
    ],
)
def test_key_looking_strings_are_redacted(text):
    out = redact(text)
    assert REDACTED in out
    for secret in ("abc.def-ghi", "zz-top-secret-value", "abcdefghij1234", "AbCdEf0123456789"):
        assert secret not in out


def test_plain_text_is_untouched():
    text = "max_tokens=20, the bearer of good news, a sk- prefix, skew"
    assert redact(text) == text


def test_redaction_happens_before_truncation():
    register_secret(KEY)
    text = "x" * 190 + KEY  # a cut at 200 characters would keep half of the key
    short = shorten(text, 200)
    assert KEY[:8] not in short and REDACTED in short


def test_redact_json_walks_keys_and_values_and_keeps_clean_values():
    register_secret(KEY)
    clean = {"a": ["b", 1, None], "c": {"d": "e"}}
    assert redact_json(clean) is clean
    dirty = {"a": [f"x {KEY}"], KEY: "v"}
    assert KEY not in json.dumps(redact_json(dirty))


# every kind of bad body, at the client -------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(_scripts()))
async def test_client_errors_and_answers_never_carry_the_key(server, judge_model, name):
    response = _scripts()[name]
    server.enqueue(response)
    model = judge_model(apiKey=KEY)
    async with JudgeClient(max_retries=0) as client:
        try:
            call = await client.complete(model, MESSAGES)
        except JudgeError as exc:
            shown = [str(exc), repr(exc), *map(str, exc.args)]
        else:
            shown = [json.dumps(call.response), call.content or "", repr(call)]
    assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"  # the key was used
    joined = "\n".join(shown)
    assert KEY[:4] not in joined  # not even the part a cut would keep
    if not name.startswith("status_500_text"):  # there the key lies beyond the quoted part
        assert REDACTED in joined  # the echo did arrive, and was redacted


# end to end through ae.evaluate -------------------------------------------------------------


def _handler(scripts: dict[str, FakeResponse]):
    def answer(request):
        text = json.dumps(request.get("messages"))
        for name, response in scripts.items():
            if f"case={name};" in text:
                return response
        raise AssertionError("unknown case")

    return answer


def _evalset(names: list[str]) -> dict:
    cases = []
    for name in names:
        inv = {
            "userContent": {"role": "user", "content": f"case={name}; what is 2+2?"},
            "finalResponse": {"role": "assistant", "content": "4"},
        }
        cases.append(
            {
                "evalId": name,
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [inv],
                "actualConversation": [inv],
            }
        )
    return {"evalSetId": "leaks", "evalCases": cases}


def test_key_reaches_no_output_of_an_evaluation(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    scripts = _scripts()
    with FakeOpenAIServer(_handler(scripts)) as server:
        metrics = [
            {
                "metricName": "judged",
                "threshold": 0.5,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": {
                            "providerName": "openai",
                            "modelName": "judge-1",
                            "baseURL": server.base_url,
                            "apiKey": KEY,
                        }
                    }
                },
                "evaluatorName": "llm_final_response",
            }
        ]
        metrics_path = tmp_path / "judge.metrics.json"
        metrics_path.write_text(json.dumps(metrics))
        results = tmp_path / "results"
        run = ae.evaluate(
            _evalset(sorted(scripts)),
            metrics_path,
            judge_max_retries=0,
            results_dir=results,
            progress=False,
        )
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}
    report = tmp_path / "report.html"
    ae.export_html(run, report)

    texts = {
        "result": run.result.model_dump_json(by_alias=True),
        "report": report.read_text(),
        "logs": "\n".join(r.getMessage() for r in caplog.records),
    }
    for frame in ("cases_df", "metrics_df", "invocations_df", "samples_df"):
        texts[frame] = getattr(run, frame)().to_csv()
        texts[f"{frame}-polars"] = str(getattr(run, frame)(backend="polars").to_dicts())
    files = [p for p in results.rglob("*") if p.is_file()]
    cache_dir = Path(os.environ["AGENTEVAL_NB_CACHE_DIR"])
    files += [p for p in cache_dir.rglob("*") if p.is_file()]
    assert files
    for path in files:
        texts[str(path)] = path.read_bytes().decode("utf-8", errors="replace")

    for where, text in texts.items():
        assert KEY[:4] not in text, f"the judge key leaked into {where}"
    # the endpoints did echo the key into every case's error or reason, redacted
    by_case = {c.eval_id: c for c in run.result.eval_case_results}
    for name in scripts:
        case = by_case[name]
        shown = case.error_message or json.dumps(
            [m.model_dump(by_alias=True, mode="json") for m in case.overall_eval_metric_results]
        )
        assert REDACTED in shown or name.startswith("status_500_text"), name


@pytest.mark.anyio
async def test_a_key_configured_for_another_endpoint_is_redacted_too(server, judge_model):
    other_key = "Qx9-otherEndpointKey_5e6f7a8b9c"
    judge_model(apiKey=other_key, baseURL="http://127.0.0.1:9/v1")  # configured, never called
    server.enqueue(FakeResponse(401, error_body(f"keys seen: {other_key}")))
    async with JudgeClient(max_retries=0) as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(apiKey=KEY), MESSAGES)
    assert other_key[:4] not in str(info.value) and REDACTED in str(info.value)
