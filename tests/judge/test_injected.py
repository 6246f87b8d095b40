"""Injected judges: sync/async callables and objects standing in for the endpoint."""

from __future__ import annotations

import threading

import pytest
from openai.types.chat import ChatCompletion

from agenteval_nb.judge import CallableJudge, JudgeClient, JudgeError
from agenteval_nb.testing import completion

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "user", "content": "is this right?"}]
SCHEMA = {"name": "verdict", "schema": {"type": "object"}, "strict": True}


async def test_sync_callable_returning_dict_runs_off_the_loop(server, judge_model, tmp_path):
    seen: list[tuple[list, str]] = []
    loop_thread = threading.get_ident()

    def judge(messages):
        seen.append((messages, threading.current_thread().name))
        assert threading.get_ident() != loop_thread  # a worker thread, not the event loop
        return completion("valid", usage={"prompt_tokens": 5, "completion_tokens": 1})

    async with JudgeClient(judge=judge, cache=tmp_path) as client:
        first = await client.complete(judge_model(), MESSAGES)
        second = await client.complete(judge_model(), MESSAGES)
        assert len(client.cache) == 0
    assert first.content == "valid" and first.prompt_tokens == 5
    assert not first.cache_hit and not second.cache_hit and first.cache_key == ""
    assert len(seen) == 2 and seen[0][0] == MESSAGES  # never cached: called every time
    assert server.request_count == 0  # the endpoint is not used at all


async def test_async_callable_returning_chat_completion():
    calls = []

    async def judge(messages, structured_output=None):
        calls.append(structured_output)
        return ChatCompletion.model_validate(completion('{"score": 1}', logprobs=[("A", -0.1)]))

    async with JudgeClient(judge=judge) as client:
        plain = await client.complete(None, MESSAGES)
        structured = await client.complete(None, MESSAGES, structured_output=SCHEMA)
    assert structured.content == plain.content
    assert plain.content == '{"score": 1}'
    assert plain.logprobs[0]["token"] == "A"
    assert calls == [None, {"type": "json_schema", "json_schema": SCHEMA}]
    assert isinstance(plain.response, dict)
    assert plain.response["choices"][0]["message"]["content"] == '{"score": 1}'


async def test_object_with_async_call_and_string_result():
    class Judge:
        async def __call__(self, messages, **kwargs):
            return "reasoning: fine\nis_the_agent_response_valid: valid"

    async with JudgeClient(judge=Judge()) as client:
        call = await client.complete(None, MESSAGES, structured_output=SCHEMA)
    assert call.content.endswith("valid")
    assert call.response["choices"][0]["logprobs"] is None


async def test_sync_callable_returning_awaitable():
    async def later():
        return completion("from a coroutine")

    async with JudgeClient(judge=lambda messages: later()) as client:
        assert (await client.complete(None, MESSAGES)).content == "from a coroutine"


async def test_injected_result_is_validated_like_http():
    async with JudgeClient(judge=lambda messages: {"choices": []}) as client:
        with pytest.raises(JudgeError, match=r"no choices in response \(injected judge\)"):
            await client.complete(None, MESSAGES)
    async with JudgeClient(judge=lambda messages: 42) as client:
        with pytest.raises(JudgeError, match="int instead of a chat completion"):
            await client.complete(None, MESSAGES)


async def test_injected_exception_becomes_judge_error():
    def judge(messages):
        raise RuntimeError("model offline")

    async with JudgeClient(judge=judge) as client:
        with pytest.raises(JudgeError, match="injected judge failed: RuntimeError: model offline"):
            await client.complete(None, MESSAGES)
        assert client.usage.errors == 1


async def test_structured_output_rules_for_injected_judges():
    async with JudgeClient(judge=lambda messages: "x") as client:
        with pytest.raises(JudgeError, match="unsupported structured output"):
            await client.complete(None, MESSAGES, structured_output=SCHEMA)
    async with JudgeClient(judge=lambda messages, structured_output=None: "x") as client:
        with pytest.raises(JudgeError, match="unsupported structured output for judge runner"):
            await client.complete(None, MESSAGES, structured_output={"type": "json_object"})


def test_callable_judge_checks_its_argument():
    with pytest.raises(TypeError):
        CallableJudge("not callable")
    wrapped = CallableJudge(print)
    assert CallableJudge(wrapped).judge is print
