"""What the judge client sends: the request body recorded by the fake server (SPEC §1.4, §4.2)."""

from __future__ import annotations

import pytest

from agenteval_nb.judge import JudgeClient, JudgeError, build_request
from agenteval_nb.judge.request import LOCAL_PLACEHOLDER_KEY, resolve_endpoint
from agenteval_nb.schema.metric import JudgeModelOptions

pytestmark = pytest.mark.anyio

MESSAGES = [
    {"role": "system", "content": "You grade answers."},
    {"role": "user", "content": "Is 2+2=4 correct?"},
]


async def send(model: JudgeModelOptions, server, **kwargs) -> dict:
    async with JudgeClient() as client:
        await client.complete(model, MESSAGES, **kwargs)
    return server.chat_requests[-1]


async def test_defaults_when_generation_config_absent(server, judge_model):
    body = await send(judge_model(), server)
    assert body == {
        "model": "judge-1",
        "messages": MESSAGES,
        "max_tokens": 2000,
        "temperature": 0.8,
        "stream": False,
    }


async def test_partial_generation_config_is_used_as_is(server, judge_model):
    body = await send(judge_model(generationConfig={"temperature": 0.1}), server)
    assert body["temperature"] == 0.1
    assert "max_tokens" not in body
    assert body["stream"] is False


async def test_every_generation_field_is_mapped(server, judge_model):
    config = {
        "max_tokens": 64,
        "temperature": 0.0,
        "top_p": 0.5,
        "stream": True,
        "stop": ["\n\n", "END"],
        "presence_penalty": 0.25,
        "frequency_penalty": -0.5,
        "logprobs": True,
        "top_logprobs": 20,
        "reasoning_effort": "low",
        "thinking_enabled": True,
        "thinking_tokens": 512,
        "thinking_level": "high",
    }
    body = await send(judge_model(generationConfig=config, variant="deepseek"), server)
    expected = {k: v for k, v in config.items() if k != "stream"}
    assert {k: body[k] for k in expected} == expected
    assert body["stream"] is False  # forced, whatever the config says
    assert "variant" not in body
    assert set(body) == {"model", "messages", "stream", *expected}


async def test_thinking_fields_absent_unless_set(server, judge_model):
    body = await send(judge_model(generationConfig={"max_tokens": 5}), server)
    assert not {"thinking_enabled", "thinking_tokens", "thinking_level"} & set(body)


async def test_structured_output_becomes_response_format(server, judge_model):
    schema = {"name": "verdict", "strict": True, "schema": {"type": "object", "properties": {}}}
    inner = await send(judge_model(), server, structured_output=schema)
    full = await send(
        judge_model(), server, structured_output={"type": "json_schema", "json_schema": schema}
    )
    expected = {"type": "json_schema", "json_schema": schema}
    assert inner["response_format"] == expected
    assert full["response_format"] == expected


async def test_extra_fields_and_overrides_are_merged(server, judge_model):
    model = judge_model(
        extraFields={"seed": 7, "temperature": 0.3, "model": "other", "stream": True},
    )
    body = await send(model, server, request_overrides={"seed": 8, "n": 1})
    assert body["seed"] == 8  # per-call override wins over extraFields
    assert body["n"] == 1
    assert body["temperature"] == 0.3  # extraFields win over the generation config
    assert body["model"] == "judge-1"  # model, messages and stream cannot be overridden
    assert body["stream"] is False
    assert body["messages"] == MESSAGES


async def test_sent_body_equals_built_body(server, judge_model):
    model = judge_model(generationConfig={"logprobs": True, "top_logprobs": 3, "stop": ["x"]})
    built = build_request(model, MESSAGES, structured_output={"name": "s", "schema": {}})
    assert await send(model, server, structured_output={"name": "s", "schema": {}}) == built.body


async def test_api_key_is_sent_as_bearer_token(server, judge_model, secret):
    await send(judge_model(), server)
    assert server.requests[-1].headers["authorization"] == f"Bearer {secret}"
    assert server.requests[-1].path == "/v1/chat/completions"


@pytest.mark.parametrize("provider", ["openai", "", None, " OpenAI "])
def test_openai_provider_names_are_accepted(provider):
    model = JudgeModelOptions(provider_name=provider, model_name="m", base_url="http://x/v1")
    assert build_request(model, MESSAGES).body["model"] == "m"


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
async def test_unsupported_provider_names_the_supported_ones(server, judge_model, provider):
    async with JudgeClient() as client:
        with pytest.raises(JudgeError) as info:
            await client.complete(judge_model(providerName=provider), MESSAGES)
    message = str(info.value)
    assert f'"{provider}"' in message and '"openai"' in message
    assert info.value.kind == "config"
    assert server.request_count == 0


async def test_missing_model_name_is_an_error(server, judge_model):
    async with JudgeClient() as client:
        with pytest.raises(JudgeError, match="modelName is required"):
            await client.complete(judge_model(modelName=""), MESSAGES)


async def test_missing_judge_model_is_an_error():
    async with JudgeClient() as client:
        with pytest.raises(JudgeError, match="no judge configured"):
            await client.complete(None, MESSAGES)


def test_endpoint_precedence(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env-host:1/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key-123")
    explicit = JudgeModelOptions(model_name="m", base_url="http://mine:2/v1/", api_key="k-mine")
    assert resolve_endpoint(explicit).base_url == "http://mine:2/v1"
    assert resolve_endpoint(explicit).api_key == "k-mine"
    from_env = resolve_endpoint(JudgeModelOptions(model_name="m"))
    assert (from_env.base_url, from_env.api_key) == ("http://env-host:1/v1", "env-key-123")


def test_local_endpoint_without_key_gets_placeholder(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    endpoint = resolve_endpoint(JudgeModelOptions(model_name="m", base_url="http://127.0.0.1:9/v1"))
    assert endpoint.api_key == LOCAL_PLACEHOLDER_KEY


def test_default_endpoint_without_key_is_an_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(JudgeError, match="OPENAI_API_KEY"):
        resolve_endpoint(JudgeModelOptions(model_name="m"))


def test_bad_messages_are_rejected():
    model = JudgeModelOptions(model_name="m", base_url="http://x/v1")
    with pytest.raises(JudgeError, match="list of message objects"):
        build_request(model, "hello")
    with pytest.raises(JudgeError, match="message 1 must be an object"):
        build_request(model, [{"role": "user", "content": "a"}, "b"])


@pytest.mark.parametrize("index", [-1, True, 1.0])
async def test_sample_index_must_be_a_non_negative_int(server, judge_model, index):
    async with JudgeClient() as client:
        with pytest.raises(JudgeError, match="sample_index"):
            await client.complete(judge_model(), MESSAGES, sample_index=index)
        assert client.usage.errors == 1
    assert server.request_count == 0
