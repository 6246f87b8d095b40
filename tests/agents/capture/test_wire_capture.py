"""The wire recorder: real ``openai`` clients (``httpx2``) and a raw ``httpx`` client against the
loopback server, in every form (chat, Responses; plain and streamed; sync and async), and the
attribution of calls to cases under concurrency.

What is pinned: a tool loop's model calls (tool uses with ids and decoded arguments, the tool
results the next request carries, the final text, usage) are the same whether the replies were
streamed or not and whichever API was spoken; a stream is never read ahead of its caller and a
stream closed early is marked; calls are attributed by context, by the sole-active rule, or
left unattributed — never to the wrong case.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import random
import threading
from typing import Any

import httpx
import openai
import pytest
from openai import AsyncOpenAI, OpenAI

from agenteval_nb.agents.capture import attribution, wire
from agenteval_nb.agents.capture.capture import capture
from agenteval_nb.agents.capture.model_calls import model_call
from agenteval_nb.steps.records import ModelCall
from agenteval_nb.testing import wire_forms
from agenteval_nb.testing.fake_server import FakeOpenAIServer, FakeResponse, completion, tool_call

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "weather of a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def weather_model(request: dict[str, Any]) -> dict[str, Any]:
    """Asks for the weather of the city named last in the user text, then answers from the
    tool result; usage = 7 in, 3 out per call (known, so totals can be checked)."""
    messages = request["messages"]
    user = next(m for m in reversed(messages) if m["role"] == "user")["content"]
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    if messages[-1]["role"] == "tool":
        result = json.loads(messages[-1]["content"])
        return completion(f"It is {result['sky']} in {result['city']}.", usage=usage)
    city = user.split()[-1].strip("?")
    call = tool_call(f"call_{city}", "get_weather", {"city": city})
    return completion("Let me check.", tool_calls=[call], usage=usage)


def get_weather(city: str) -> dict[str, str]:
    return {"city": city, "sky": "sunny"}


@pytest.fixture
def server():
    with FakeOpenAIServer(weather_model) as srv:
        yield srv


@pytest.fixture(autouse=True)
def hooks():
    wire.install()
    yield
    wire.uninstall()


# -- one tool loop in each form -------------------------------------------------------------


def chat_loop(client: OpenAI, text: str, *, stream: bool) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    while True:
        if stream:
            chunks = client.chat.completions.create(
                model="m",
                messages=messages,
                tools=TOOLS,
                stream=True,
                stream_options={"include_usage": True},
            )
            content, calls = "", {}
            for chunk in chunks:
                for choice in chunk.choices:
                    content += choice.delta.content or ""
                    for part in choice.delta.tool_calls or ():
                        slot = calls.setdefault(part.index, {"id": None, "name": None, "args": ""})
                        slot["id"] = part.id or slot["id"]
                        slot["name"] = (part.function and part.function.name) or slot["name"]
                        slot["args"] += (part.function and part.function.arguments) or ""
            tool_calls = [(c["id"], c["name"], c["args"]) for c in calls.values()]
        else:
            reply = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
            message = reply.choices[0].message
            content = message.content or ""
            tool_calls = [
                (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()
            ]
        if not tool_calls:
            return content
        messages.append(
            {
                "role": "assistant",
                "content": content,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                    for i, n, a in tool_calls
                ],
            }
        )
        for call_id, _, args in tool_calls:
            result = get_weather(**json.loads(args))
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
            )


def responses_loop(client: OpenAI, text: str, *, stream: bool) -> str:
    tools = [{"type": "function", **TOOLS[0]["function"]}]
    items: list[dict[str, Any]] = [{"role": "user", "content": text}]
    while True:
        if stream:
            with client.responses.stream(model="m", input=items, tools=tools) as events:
                for _ in events:
                    pass
                reply = events.get_final_response()
        else:
            reply = client.responses.create(model="m", input=items, tools=tools)
        calls = [item for item in reply.output if item.type == "function_call"]
        if not calls:
            return reply.output_text
        for call in calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
            result = get_weather(**json.loads(call.arguments))
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": json.dumps(result),
                }
            )


def essentials(calls: list[ModelCall]) -> list[tuple[Any, ...]]:
    """What a step says about the agent's turn (not ids of the wire or times)."""
    return [
        (
            c.last_user_text,
            [(r.call_id, r.result) for r in c.tool_results],
            c.output_text,
            [(t.id, t.name, t.arguments) for t in c.tool_calls],
            (c.usage.input_tokens, c.usage.output_tokens) if c.usage else None,
        )
        for c in calls
    ]


EXPECTED = [
    (
        "Weather in Paris?",
        [],
        "Let me check.",
        [("call_Paris", "get_weather", {"city": "Paris"})],
        (7, 3),
    ),
    (
        "Weather in Paris?",
        [("call_Paris", {"city": "Paris", "sky": "sunny"})],
        "It is sunny in Paris.",
        [],
        (7, 3),
    ),
]


@pytest.mark.parametrize("loop", [chat_loop, responses_loop], ids=["chat", "responses"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_tool_loop_is_captured_the_same_in_every_form(server, loop, stream):
    client = OpenAI(base_url=server.base_url, api_key="k")
    with capture() as cap:
        answer = loop(client, "Weather in Paris?", stream=stream)
    assert answer == "It is sunny in Paris."
    assert [e.streamed for e in cap.exchanges] == [stream, stream]
    assert all(e.ok and e.attributed == "context" for e in cap.exchanges)
    assert essentials(cap.model_calls()) == EXPECTED


@pytest.mark.anyio
async def test_async_client_streams_are_captured(server):
    client = AsyncOpenAI(base_url=server.base_url, api_key="k")
    with capture() as cap:
        stream = await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Weather in Rome?"}],
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        async for _ in stream:
            pass
    (call,) = cap.model_calls()
    assert [(t.id, t.name, t.arguments) for t in call.tool_calls] == [
        ("call_Rome", "get_weather", {"city": "Rome"})
    ]
    assert (call.usage.input_tokens, call.usage.output_tokens) == (7, 3)


def test_a_raw_httpx_client_is_captured_too(server):
    body = {"model": "m", "messages": [{"role": "user", "content": "Weather in Oslo?"}]}
    with capture() as cap, httpx.Client() as client:
        reply = client.post(f"{server.base_url}/chat/completions", json=body)
    assert reply.json()["choices"][0]["message"]["tool_calls"][0]["id"] == "call_Oslo"
    (call,) = cap.model_calls()
    assert call.tool_calls[0].arguments == {"city": "Oslo"}


def test_a_stream_closed_early_is_marked_and_not_a_step(server):
    events = wire_forms.chat_stream_events(completion("one two three"), include_usage=False)
    body = wire_forms.sse_body(events)
    server.enqueue(FakeResponse(200, body, content_type="text/event-stream", trickle_s=0.002))
    cut = body[: body.index(b"data: [DONE]")]
    server.enqueue(FakeResponse(200, cut, content_type="text/event-stream"))
    client = OpenAI(base_url=server.base_url, api_key="k")
    with capture() as cap:
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Weather in Lima?"}], stream=True
        )
        next(iter(stream))
        stream.close()
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}], stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "one two three"
    closed, cut_off = cap.exchanges
    assert closed.consumed is False and not closed.ok
    assert cut_off.consumed is False and not cut_off.ok
    assert cap.model_calls() == []
    assert cap.calls_df()["consumed"].tolist() == [False, False]


def test_failed_calls_are_recorded_and_the_error_still_raised(server):
    server.enqueue(FakeResponse(500, {"error": {"message": "boom"}}))
    client = OpenAI(base_url=server.base_url, api_key="k", max_retries=1)
    with capture() as cap:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "in Bern"}])
    statuses = [(e.status, e.retry, e.ok) for e in cap.exchanges]
    assert statuses == [(500, 0, False), (200, 1, True)]
    dead = OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    with capture() as cap, pytest.raises(openai.APIConnectionError):
        dead.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    (exchange,) = cap.exchanges
    assert exchange.status is None and "Connect" in (exchange.error or "")


def test_other_requests_and_calls_outside_a_case_are_not_recorded(server):
    client = OpenAI(base_url=server.base_url, api_key="k")
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "in Kyiv"}])
    with capture() as cap:
        client.models.list()
        with attribution.outside():
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert cap.exchanges == []


def test_uninstall_restores_the_clients():
    import httpx2

    wire.uninstall()
    assert not hasattr(httpx2.Client.send, "__wrapped__")
    assert not hasattr(httpx.AsyncClient.send, "__wrapped__")
    wire.install()
    wire.install()
    assert httpx2.Client.send.__wrapped__ is not None
    assert not hasattr(httpx2.Client.send.__wrapped__, "__wrapped__")


# -- attribution under concurrency ----------------------------------------------------------


@pytest.fixture
def slow_server():
    rng = random.Random(7)
    lock = threading.Lock()

    def jittered(request: dict[str, Any]) -> Any:
        with lock:
            delay = rng.uniform(0.0, 0.03)
        return FakeResponse(200, weather_model(request), delay_s=delay)

    with FakeOpenAIServer(jittered) as srv:
        yield srv


def test_sixteen_threads_and_sixteen_tasks_never_cross_talk(slow_server):
    cities = [f"City{i}" for i in range(32)]
    results: dict[str, Any] = {}

    def thread_case(city: str) -> None:
        client = OpenAI(base_url=slow_server.base_url, api_key="k")
        with capture(city) as cap:
            chat_loop(client, f"Weather in {city}?", stream=city.endswith(("1", "5")))
        results[city] = cap

    async def task_case(client: AsyncOpenAI, city: str) -> None:
        with capture(city) as cap:
            messages = [{"role": "user", "content": f"Weather in {city}?"}]
            reply = await client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
            await asyncio.sleep(0)
            assert reply.choices[0].message.tool_calls
        results[city] = cap

    async def tasks() -> None:
        client = AsyncOpenAI(base_url=slow_server.base_url, api_key="k")
        await asyncio.gather(*(task_case(client, c) for c in cities[16:]))

    before = len(attribution.unattributed)
    threads = [threading.Thread(target=thread_case, args=(c,)) for c in cities[:16]]
    for t in threads:
        t.start()
    asyncio.run(tasks())
    for t in threads:
        t.join()
    assert len(attribution.unattributed) == before
    for city, cap in results.items():
        calls = cap.model_calls()
        assert calls and all(c.last_user_text == f"Weather in {city}?" for c in calls), city
        assert all(t.id == f"call_{city}" for c in calls for t in c.tool_calls)
        assert sum(c.usage.input_tokens for c in calls) == 7 * len(calls)
    issued = slow_server.request_count
    assert issued == sum(len(cap.exchanges) for cap in results.values()) == 16 * 2 + 16


def test_a_bare_thread_is_attributed_only_while_its_case_is_alone(server):
    client = OpenAI(base_url=server.base_url, api_key="k")

    def call(text: str) -> None:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])

    with capture("alone") as cap:
        worker = threading.Thread(target=call, args=("in Rome",))
        worker.start()
        worker.join()
    assert [e.attributed for e in cap.exchanges] == ["sole_active"]

    before = len(attribution.unattributed)
    gate = threading.Barrier(2)

    def case(name: str, out: dict[str, Any]) -> None:
        with capture(name) as cap:
            gate.wait()
            worker = threading.Thread(target=call, args=(f"in {name}",))
            worker.start()
            worker.join()
            gate.wait()
        out[name] = cap

    out: dict[str, Any] = {}
    cases = [threading.Thread(target=case, args=(n, out)) for n in ("A", "B")]
    for t in cases:
        t.start()
    for t in cases:
        t.join()
    assert out["A"].exchanges == [] and out["B"].exchanges == []
    assert len(attribution.unattributed) == before + 2
    # a copied context carries the case into a bare thread
    with capture("copied") as cap:
        ctx = contextvars.copy_context()
        worker = threading.Thread(target=ctx.run, args=(call, "in Nice"))
        worker.start()
        worker.join()
    assert [e.attributed for e in cap.exchanges] == ["context"]


def test_steps_keep_the_anthropic_shape():
    from agenteval_nb.agents.capture.exchange import Exchange

    exchange = Exchange(
        seq=1,
        api="anthropic",
        url="http://x/v1/messages",
        request={
            "model": "claude",
            "messages": [
                {"role": "user", "content": "Weather in Bonn?"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "tu_1",
                            "name": "get_weather",
                            "input": {"city": "Bonn"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "tu_1", "content": '{"sky": "rain"}'}
                    ],
                },
            ],
        },
        started_ns=0,
        thread="t",
        attributed="context",
        status=200,
        reply={
            "model": "claude",
            "content": [{"type": "text", "text": "Rain in Bonn."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 20, "output_tokens": 4},
        },
        ended_ns=1,
    )
    call = model_call(exchange)
    assert call.last_user_text == "Weather in Bonn?"
    assert [(r.call_id, r.result) for r in call.tool_results] == [("tu_1", {"sky": "rain"})]
    assert (call.output_text, call.finish_reason) == ("Rain in Bonn.", "end_turn")
    assert (call.usage.input_tokens, call.usage.output_tokens) == (20, 4)
