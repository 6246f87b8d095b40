"""The scripted agent model (not an LLM) through the real openai client and the loopback server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from agenteval_nb.testing import (
    HEURISTIC_MODEL,
    SCRIPTED_AGENT_MODEL,
    FakeOpenAIServer,
    ScriptedAgentModel,
    ToolRule,
    heuristic_handler,
    route_by_model,
)


def tool_param(name: str, *props: str) -> dict[str, Any]:
    properties = {p: {"type": "string"} for p in props}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


WEATHER = tool_param("get_weather", "city")
TIME = tool_param("get_time", "zone")
SEARCH = tool_param("search", "query")

WEATHER_RULE = ToolRule(
    "get_weather",
    ["weather", "forecast"],
    arguments=r"in (?P<city>[A-Z][a-z]+)",
    say="Let me check the weather.",
    answer="It is {result[condition]} and {result[temp_c]} °C in {arguments[city]}.",
    guess="It is probably sunny.",
)
TIME_RULE = ToolRule(
    "get_time", "time", arguments=lambda text: {"zone": text.split()[-1].strip("?")}
)


def weather(city: str) -> Any:
    table = {
        "Paris": {"condition": "sunny", "temp_c": 21},
        "Oslo": {"condition": "rainy", "temp_c": 4},
    }
    if city not in table:
        return f"error: LookupError: unknown city {city!r}"
    return table[city]


TOOLS = {
    "get_weather": lambda args: weather(**args),
    "get_time": lambda args: (
        {"time": "12:00", "zone": args["zone"]} if "zone" in args else "error: KeyError: zone"
    ),
    "search": lambda args: ["a", "b"],
}


@pytest.fixture
def model() -> ScriptedAgentModel:
    return ScriptedAgentModel(
        [WEATHER_RULE, TIME_RULE], answers={"hello": "Hello! Ask me about the weather."}
    )


@pytest.fixture
def client(model) -> Iterator[tuple[openai.OpenAI, FakeOpenAIServer]]:
    with FakeOpenAIServer(handler=model) as srv:
        yield openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0), srv


def ask(client: openai.OpenAI, messages: list[dict], tools=(WEATHER, TIME), **extra):
    kwargs: dict[str, Any] = dict(extra)
    if tools:
        kwargs["tools"] = list(tools)
    return client.chat.completions.create(model=SCRIPTED_AGENT_MODEL, messages=messages, **kwargs)


def run_loop(client: openai.OpenAI, text: str, tools=(WEATHER, TIME), max_steps=6, **extra):
    """A minimal tool-calling agent: the transcript and the completions it received."""
    messages: list[dict] = [{"role": "user", "content": text}]
    responses = []
    for _ in range(max_steps):
        response = ask(client, messages, tools, **extra)
        responses.append(response)
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return messages, responses
        for call in message.tool_calls:
            result = TOOLS[call.function.name](json.loads(call.function.arguments))
            content = result if isinstance(result, str) else json.dumps(result)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError("the scripted model did not finish")


def test_matching_rule_emits_a_tool_call_with_json_arguments(client):
    c, srv = client
    response = ask(c, [{"role": "user", "content": "What's the Weather in Paris today?"}])
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me check the weather."
    [call] = choice.message.tool_calls
    assert (call.id, call.type, call.function.name) == ("call_1", "function", "get_weather")
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert response.model == SCRIPTED_AGENT_MODEL and "not an LLM" in response.model
    assert response.system_fingerprint == "scripted-agent"
    assert response.usage.prompt_tokens == 6
    assert response.usage.completion_tokens == 5 + 2  # "Let me check…" + '{"city": "Paris"}'
    assert srv.chat_requests[0]["tools"][0]["function"]["name"] == "get_weather"


def test_keywords_match_at_word_starts_only(client):
    c, _ = client
    [call] = (
        ask(c, [{"role": "user", "content": "any forecasts for Oslo? in Oslo"}])
        .choices[0]
        .message.tool_calls
    )
    assert json.loads(call.function.arguments) == {"city": "Oslo"}
    answer = ask(c, [{"role": "user", "content": "a bellwether stock"}]).choices[0]
    assert answer.message.tool_calls is None and answer.finish_reason == "stop"


def test_callable_and_dict_arguments_and_content_parts():
    rules = [TIME_RULE, ToolRule("search", ["find"], arguments={"query": "fixed"})]
    with FakeOpenAIServer(handler=ScriptedAgentModel(rules)) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        parts = [{"type": "text", "text": "find the time in"}, {"type": "text", "text": "UTC?"}]
        message = ask(c, [{"role": "user", "content": parts}], (TIME, SEARCH)).choices[0].message
    assert [(t.function.name, json.loads(t.function.arguments)) for t in message.tool_calls] == [
        ("get_time", {"zone": "UTC"}),
        ("search", {"query": "fixed"}),
    ]
    assert [t.id for t in message.tool_calls] == ["call_1", "call_2"]
    assert message.content is None  # neither rule has a `say` text


def test_only_offered_tools_are_called(client):
    c, _ = client
    no_tools = ask(c, [{"role": "user", "content": "weather in Paris"}], tools=()).choices[0]
    assert no_tools.message.tool_calls is None
    assert no_tools.message.content.startswith("I am a scripted agent model (not an LLM)")
    only_time = ask(c, [{"role": "user", "content": "weather in Paris"}], tools=(TIME,)).choices[0]
    assert only_time.message.tool_calls is None
    none_choice = ask(c, [{"role": "user", "content": "weather in Paris"}], tool_choice="none")
    assert none_choice.choices[0].message.tool_calls is None


def test_final_answer_from_tool_results(client):
    c, _ = client
    messages, responses = run_loop(c, "weather in Paris, please")
    assert len(responses) == 2
    final = responses[-1].choices[0]
    assert final.finish_reason == "stop" and final.message.tool_calls is None
    assert final.message.content == "It is sunny and 21 °C in Paris."
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]


def test_generic_result_form_and_python_literal_results():
    rule = ToolRule("search", "find", arguments={"query": "q"}, answer="First: {result[missing]}")
    with FakeOpenAIServer(handler=ScriptedAgentModel([rule])) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        call = ask(c, [{"role": "user", "content": "find it"}], (SEARCH,)).choices[0].message
        messages = [
            {"role": "user", "content": "find it"},
            call.model_dump(exclude_none=True),
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": "{'hits': 2, 'top': \"b's\", 'ok': True, 'next': None}",
            },
        ]
        final = ask(c, messages, (SEARCH,)).choices[0].message.content
    assert final == 'Result of search: {"hits": 2, "next": null, "ok": true, "top": "b\'s"}.'


def test_error_results_give_an_apology(client):
    c, _ = client
    _, responses = run_loop(c, "weather in Atlantis")
    assert (
        responses[0].choices[0].message.tool_calls[0].function.arguments == '{"city": "Atlantis"}'
    )
    final = responses[-1].choices[0].message.content
    assert (
        final
        == "Sorry, I could not complete get_weather: error: LookupError: unknown city 'Atlantis'."
    )
    sdk_error = "An error occurred while running the tool. Please try again. Error: boom"
    messages = [
        {"role": "user", "content": "what time is it in UTC"},
        responses[0].choices[0].message.model_dump(exclude_none=True)
        | {
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": "{}"},
                }
            ]
        },
        {"role": "tool", "tool_call_id": "call_1", "content": sdk_error},
    ]
    assert (
        ask(c, messages)
        .choices[0]
        .message.content.startswith("Sorry, I could not complete get_time: An error")
    )


def test_no_match_uses_answers_then_fallback():
    model = ScriptedAgentModel([WEATHER_RULE], answers={"hello": "Hi there."}, fallback="No idea.")
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        assert (
            ask(c, [{"role": "user", "content": "Hello!"}]).choices[0].message.content
            == "Hi there."
        )
        other = ask(c, [{"role": "user", "content": "tell me a joke"}])
        assert other.choices[0].message.content == "No idea."
        assert other.usage.completion_tokens == 2


def test_parallel_false_calls_one_tool_per_step_and_ids_keep_counting():
    model = ScriptedAgentModel([WEATHER_RULE, TIME_RULE], parallel=False)
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        messages, responses = run_loop(c, "weather in Oslo and the time in CET")
        # a second turn in the same conversation: ids go on from the earlier calls
        messages.append({"role": "user", "content": "and the weather in Paris?"})
        again = ask(c, messages)
    calls = [r.choices[0].message.tool_calls for r in responses]
    assert [[(t.id, t.function.name) for t in cs or ()] for cs in calls] == [
        [("call_1", "get_weather")],
        [("call_2", "get_time")],
        [],
    ]
    assert responses[-1].choices[0].message.content == (
        'It is rainy and 4 °C in Oslo. Result of get_time: {"time": "12:00", "zone": "CET"}.'
    )
    assert [t.id for t in again.choices[0].message.tool_calls] == ["call_3"]


def test_equal_requests_get_equal_answers():
    model = ScriptedAgentModel([WEATHER_RULE, TIME_RULE], error_rate=0.5)
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        for user in ("u1", "u2", "u3", "u4"):
            first = run_loop(c, "weather in Paris and the time in UTC", user=user)[0]
            second = run_loop(c, "weather in Paris and the time in UTC", user=user)[0]
            assert first == second


def outcome(c: openai.OpenAI, **extra) -> tuple[str, Any]:
    response = ask(
        c, [{"role": "user", "content": "weather in Paris"}], (WEATHER, TIME, SEARCH), **extra
    )
    message = response.choices[0].message
    calls = [(t.function.name, json.loads(t.function.arguments)) for t in message.tool_calls or ()]
    return response.system_fingerprint, calls or message.content


@pytest.mark.parametrize(
    ("mistakes", "expected"),
    [
        (("skip_tool",), ("scripted-agent+skip_tool", "It is probably sunny.")),
        (
            ("wrong_arguments",),
            ("scripted-agent+wrong_arguments", [("get_weather", {"city": "Pari"})]),
        ),
    ],
)
def test_error_rate_one_always_makes_the_configured_mistake(mistakes, expected):
    model = ScriptedAgentModel([WEATHER_RULE], error_rate=1.0, mistakes=mistakes)
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        for user in ("a", "b", "c"):
            assert outcome(c, user=user) == expected


def test_wrong_tool_calls_another_offered_tool_then_recovers_step_by_step():
    model = ScriptedAgentModel(
        [WEATHER_RULE], error_rate=1.0, mistakes=["wrong_tool"], parallel=False
    )
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        seen = set()
        for user in map(str, range(12)):
            fingerprint, calls = outcome(c, user=user)
            assert fingerprint == "scripted-agent+wrong_tool"
            [(name, args)] = calls
            assert name in {"get_time", "search"} and args == {"city": "Paris"}
            seen.add(name)
        assert seen == {"get_time", "search"}  # the wrong tool is drawn too
        _, responses = run_loop(c, "weather in Paris", tools=(WEATHER, TIME), user="z")
    names = [[t.function.name for t in r.choices[0].message.tool_calls or ()] for r in responses]
    assert names == [["get_time"], ["get_weather"], []]  # later steps make no mistakes
    assert [r.system_fingerprint for r in responses][1:] == ["scripted-agent"] * 2
    assert "It is sunny and 21 °C in Paris." in responses[-1].choices[0].message.content


def test_a_mistake_that_cannot_apply_falls_back_to_one_that_can():
    model = ScriptedAgentModel([WEATHER_RULE], error_rate=1.0, mistakes=["wrong_tool"])
    with FakeOpenAIServer(handler=model) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        response = ask(c, [{"role": "user", "content": "weather in Paris"}], (WEATHER,))
    # only one tool is offered: no wrong tool to call, so no mistake is possible
    assert response.system_fingerprint == "scripted-agent"
    assert response.choices[0].message.tool_calls[0].function.name == "get_weather"


def test_error_rate_zero_never_errs_and_a_rate_between_varies_with_user_and_seed():
    never = ScriptedAgentModel([WEATHER_RULE], error_rate=0.0)
    half = ScriptedAgentModel([WEATHER_RULE], error_rate=0.5)
    correct = ("scripted-agent", [("get_weather", {"city": "Paris"})])
    with FakeOpenAIServer(
        handler=route_by_model({"never": never, SCRIPTED_AGENT_MODEL: half})
    ) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        by_user = {}
        for i in range(40):
            response = c.chat.completions.create(
                model="never",
                messages=[{"role": "user", "content": "weather in Paris"}],
                tools=[WEATHER, TIME],
                user=f"s{i}",
            )
            assert response.system_fingerprint == "scripted-agent"
            by_user[i] = outcome(c, user=f"s{i}")
            assert outcome(c, user=f"s{i}") == by_user[i]  # deterministic per user
        by_seed = {outcome(c, seed=i) == correct for i in range(40)}
    right = sum(o == correct for o in by_user.values())
    assert 8 <= right <= 32, right  # about half of the sessions err
    assert {o[0] for o in by_user.values()} > {"scripted-agent"}
    assert by_seed == {True, False}


def test_router_serves_the_agent_model_and_the_heuristic_judge_on_one_server(model):
    handler = route_by_model({SCRIPTED_AGENT_MODEL: model, HEURISTIC_MODEL: heuristic_handler})
    with FakeOpenAIServer(handler=handler) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        agent = ask(c, [{"role": "user", "content": "weather in Paris"}])
        judge = c.chat.completions.create(
            model=HEURISTIC_MODEL,
            messages=[
                {
                    "role": "user",
                    "content": "<agent_response>sunny</agent_response>\n"
                    "<reference_answer>sunny</reference_answer>\nis_the_agent_response_valid",
                }
            ],
        )
        with pytest.raises(openai.NotFoundError, match="'gpt-x' does not exist"):
            c.chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "hi"}])
    assert agent.model == SCRIPTED_AGENT_MODEL and agent.choices[0].message.tool_calls
    assert judge.model == HEURISTIC_MODEL
    assert "is_the_agent_response_valid: valid" in judge.choices[0].message.content


def test_rule_and_model_validation():
    with pytest.raises(ValueError, match="keyword"):
        ToolRule("t", [])
    with pytest.raises(ValueError, match="keyword"):
        ToolRule("t", [" "])
    with pytest.raises(TypeError, match="dict, a regex or a callable"):
        ToolRule("t", "k", arguments=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="error_rate"):
        ScriptedAgentModel(error_rate=1.5)
    with pytest.raises(ValueError, match="mistakes"):
        ScriptedAgentModel(mistakes=["typo"])
    assert ToolRule("t", "k").keywords == ("k",)
    assert "not an LLM" in repr(ScriptedAgentModel([WEATHER_RULE]))


def test_a_callable_returning_a_non_dict_is_a_server_error():
    rule = ToolRule("search", "find", arguments=lambda text: [text])  # type: ignore[arg-type,return-value]
    with FakeOpenAIServer(handler=ScriptedAgentModel([rule])) as srv:
        c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        with pytest.raises(openai.InternalServerError, match="not a dict"):
            ask(c, [{"role": "user", "content": "find x"}], (SEARCH,))


# -- memory, and agents that write calls and results as text (smolagents) ---------------------

PACK = tool_param("pack_for", "city")
PACK_RULE = ToolRule(
    "pack_for", "pack", arguments=r"in (?P<city>[A-Z][a-z]+)", answer="Take {result}.", recall=True
)


def calls_of(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    calls = body["choices"][0]["message"].get("tool_calls") or ()
    return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]


def test_recall_takes_missing_arguments_from_earlier_user_messages_only():
    model = ScriptedAgentModel([PACK_RULE])
    remembered = [
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "content": "Rainy."},
        {"role": "user", "content": "what should I pack?"},
    ]
    assert calls_of(model({"messages": remembered, "tools": [PACK]})) == [
        ("call_1", "pack_for", {"city": "Oslo"})
    ]
    forgotten = remembered[-1:]
    assert calls_of(model({"messages": forgotten, "tools": [PACK]})) == [("call_1", "pack_for", {})]
    no_recall = ScriptedAgentModel([ToolRule("pack_for", "pack", arguments=r"in (?P<city>\w+)")])
    assert calls_of(no_recall({"messages": remembered, "tools": [PACK]})) == [
        ("call_1", "pack_for", {})
    ]


FINAL = {
    "type": "function",
    "function": {
        "name": "final_answer",
        "parameters": {"type": "object", "properties": {"answer": {}}, "required": ["answer"]},
    },
}


def test_text_protocol_calls_and_observations_and_the_finish_tool():
    model = ScriptedAgentModel(
        [WEATHER_RULE], observations="Observation:", finish_tool="final_answer"
    )
    task = {"role": "user", "content": [{"type": "text", "text": "New task:\nweather in Oslo?"}]}
    tools = [WEATHER, FINAL]
    assert calls_of(model({"messages": [task], "tools": tools})) == [
        ("call_1", "get_weather", {"city": "Oslo"})
    ]
    called = {
        "role": "assistant",
        "content": "Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': "
        "{'name': 'get_weather', 'arguments': {'city': 'Oslo'}}}]",
    }
    seen = {"role": "user", "content": "Observation:\n{'condition': 'rainy', 'temp_c': 4}"}
    finish = model({"messages": [task, called, seen], "tools": tools})
    assert calls_of(finish) == [
        ("call_2", "final_answer", {"answer": "It is rainy and 4 °C in Oslo."})
    ]
    assert finish["choices"][0]["message"]["content"] is None
    # without the finish tool on offer the answer is plain text
    plain = model({"messages": [task, called, seen], "tools": [WEATHER]})
    assert plain["choices"][0]["message"]["content"] == "It is rainy and 4 °C in Oslo."
    # without the text protocol the observation is new user text: no results, no answer
    literal = ScriptedAgentModel([WEATHER_RULE], finish_tool="final_answer")
    answer = literal({"messages": [task, called, seen], "tools": [WEATHER]})
    assert answer["choices"][0]["message"]["content"].startswith("I am a scripted agent model")
    # usage counts the words as sent
    assert finish["usage"]["prompt_tokens"] == 5 + 12 + 5


def test_an_observation_after_the_finish_tool_is_the_next_task():
    model = ScriptedAgentModel(
        [WEATHER_RULE, PACK_RULE], observations="Observation:", finish_tool="final_answer"
    )
    history = [
        {"role": "user", "content": "New task:\nweather in Oslo?"},
        {
            "role": "assistant",
            "content": "Calling tools:\n"
            + json.dumps(
                [
                    {
                        "id": "call_1",
                        "function": {"name": "get_weather", "arguments": {"city": "Oslo"}},
                    }
                ]
            ),
        },
        {"role": "user", "content": "Observation:\n{'condition': 'rainy', 'temp_c': 4}"},
        {
            "role": "assistant",
            "content": "Calling tools:\n"
            + json.dumps(
                [
                    {
                        "id": "call_2",
                        "function": {"name": "final_answer", "arguments": {"answer": "R"}},
                    }
                ]
            ),
        },
        {"role": "user", "content": "Observation:\nR\nNew task:\nwhat should I pack?"},
    ]
    assert calls_of(model({"messages": history, "tools": [WEATHER, PACK, FINAL]})) == [
        ("call_3", "pack_for", {"city": "Oslo"})
    ]


def test_recall_reads_the_arguments_from_an_earlier_user_message():
    follow_up = [
        {"role": "user", "content": "What is the weather in Oslo?"},
        {"role": "assistant", "content": "It is rainy and 4 °C in Oslo."},
        {"role": "user", "content": "And the forecast there?"},
    ]
    request = {"messages": follow_up, "tools": [WEATHER]}

    def arguments(rule: ToolRule) -> Any:
        (call,) = ScriptedAgentModel([rule]).handler(request)["choices"][0]["message"]["tool_calls"]
        return json.loads(call["function"]["arguments"])

    assert arguments(WEATHER_RULE) == {}  # the default: the last user message alone
    recalling = ToolRule(
        "get_weather", ["forecast"], arguments=r"in (?P<city>[A-Z]\w+)", recall=True
    )
    assert arguments(recalling) == {"city": "Oslo"}


def dspy_request(fields: dict[str, str], wanted: list[str], tools: tuple[str, ...] = ()) -> Any:
    """A request as DSPy's ChatAdapter writes it (field markers, the 'Respond with' sentence)."""
    body = "\n\n".join(f"[[ ## {name} ## ]]\n{value}" for name, value in fields.items())
    steps = [f"`[[ ## {name} ## ]]`" for name in wanted]
    if tools:
        literal = ", ".join(repr(t) for t in tools)
        steps = [
            s
            + (
                f" (must be formatted as a valid Python Literal[{literal}])"
                if "next_tool_name" in s
                else ""
            )
            for s in steps
        ]
    sentence = (
        f"Respond with the corresponding output fields, starting with the field {', then '.join(steps)}, "
        "and then ending with the marker for `[[ ## completed ## ]]`."
    )
    return {
        "messages": [
            {"role": "system", "content": "fields"},
            {"role": "user", "content": f"{body}\n\n{sentence}"},
        ]
    }


def dspy_reply(model: ScriptedAgentModel, request: Any) -> dict[str, str]:
    from agenteval_nb.testing.field_text import fields_of

    content = model.handler(request)["choices"][0]["message"]["content"]
    assert content.endswith("[[ ## completed ## ]]")
    return fields_of(content.removesuffix("[[ ## completed ## ]]"))


def test_dspy_react_steps_call_the_tool_then_finish_then_answer_from_the_trajectory():
    model = ScriptedAgentModel([WEATHER_RULE])
    step = ["next_thought", "next_tool_name", "next_tool_args"]
    react = ("get_weather", "finish")
    first = dspy_reply(
        model, dspy_request({"question": "Weather in Paris?", "trajectory": ""}, step, react)
    )
    assert first == {
        "next_thought": "Let me check the weather.",
        "next_tool_name": "get_weather",
        "next_tool_args": '{"city": "Paris"}',
    }
    observed = {
        "question": "Weather in Paris?",
        "trajectory": "",
        "thought_0": "Let me check the weather.",
        "tool_name_0": "get_weather",
        "tool_args_0": '{"city": "Paris"}',
        "observation_0": json.dumps(weather("Paris")),
    }
    second = dspy_reply(model, dspy_request(observed, step, react))
    assert (second["next_tool_name"], second["next_tool_args"]) == ("finish", "{}")
    finished = {**observed, "thought_1": "Done.", "tool_name_1": "finish", "tool_args_1": "{}"}
    final = dspy_reply(
        model, dspy_request({**finished, "observation_1": "Completed."}, ["reasoning", "answer"])
    )
    assert final == {
        "reasoning": "Scripted, not an LLM.",
        "answer": "It is sunny and 21 °C in Paris.",
    }


def test_dspy_steps_offer_only_the_literal_tools_and_apologise_for_errors():
    model = ScriptedAgentModel([WEATHER_RULE], answers={"hello": "Hi there."})
    step = ["next_thought", "next_tool_name", "next_tool_args"]
    other = dspy_reply(
        model, dspy_request({"question": "Weather in Paris?"}, step, ("search", "finish"))
    )
    assert other["next_tool_name"] == "finish"
    failed = {
        "question": "Weather in Paris?",
        "tool_name_0": "get_weather",
        "tool_args_0": "{}",
        "observation_0": "Execution error in get_weather: TypeError: missing city",
    }
    apology = dspy_reply(model, dspy_request(failed, ["answer"]))["answer"]
    assert apology.startswith("Sorry, I could not complete get_weather: Execution error")
    assert dspy_reply(model, dspy_request({"question": "hello"}, ["answer"])) == {
        "answer": "Hi there."
    }
