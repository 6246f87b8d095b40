"""The tolerant message decoder: every shape a producer writes → role + text + tool calls +
tool results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from agenteval_nb.steps.messages import (
    arguments,
    decode_messages,
    decode_output,
    last_user_text,
    tool_results_after,
    unflatten,
)

SEMCONV = Path(__file__).resolve().parents[1] / "corpus" / "traces" / "semconv-genai"


def _calls(message):  # type: ignore[no-untyped-def]
    return [(c.id, c.name, c.arguments) for c in message.tool_calls]


def _results(message):  # type: ignore[no-untyped-def]
    return [(r.call_id, r.result) for r in message.tool_results]


def test_semconv_round_trip_case() -> None:
    """open-telemetry/semantic-conventions-genai's tool round trip test case."""
    case = yaml.safe_load((SEMCONV / "input-messages-tool-call-round-trip.yaml").read_text())
    messages = decode_messages(case["document"])
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert last_user_text(messages) == ("What's the weather in Paris?", 0)
    call_id = "call_VSPygqKTWdrhaFErNvMV18Yl"
    assert _calls(messages[1]) == [(call_id, "get_weather", {"location": "Paris"})]
    assert [(r.call_id, r.result) for r in tool_results_after(messages, 0)] == [
        (call_id, "rainy, 57°F")
    ]


def test_semconv_reasoning_and_unknown_part_give_no_text() -> None:
    """Reasoning is not the answer; an unknown part (``redacted_thinking``) is skipped."""
    case = yaml.safe_load(
        (SEMCONV / "output-messages-reasoning-and-generic-parts.yaml").read_text()
    )
    output = decode_output(case["document"])
    assert output is not None
    assert (output.role, output.text, output.finish_reason) == ("assistant", None, "stop")
    assert output.tool_calls == [] and not output.redacted


def test_chat_completions_request_and_response() -> None:
    request = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "f", "arguments": '{"a": 1}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ],
    }  # fmt: skip
    messages = decode_messages(json.dumps(request))
    assert last_user_text(messages) == ("hi", 1)
    assert _calls(messages[2]) == [("c1", "f", {"a": 1})]
    assert _results(messages[3]) == [("c1", "42")]
    response = {"choices": [{"message": {"role": "assistant", "content": "ok"},
                             "finish_reason": "stop"}, {"message": {"content": "other"}}]}  # fmt: skip
    output = decode_output(response)
    assert output is not None and (output.text, output.finish_reason) == ("ok", "stop")


def test_responses_items() -> None:
    request = {
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "weather?"}]},
            {
                "type": "function_call",
                "id": "fc_item",
                "call_id": "fc1",
                "name": "w",
                "arguments": "{}",
            },
            {"type": "function_call_output", "call_id": "fc1", "output": "sunny"},
        ]
    }
    messages = decode_messages(request)
    assert last_user_text(messages)[0] == "weather?"
    assert _calls(messages[1]) == [("fc1", "w", {})]
    assert _results(messages[2]) == [("fc1", "sunny")]
    response = {
        "output": [
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Sunny."}]},
            {"type": "function_call", "call_id": "fc2", "name": "x", "arguments": "not json"},
        ]
    }  # fmt: skip
    output = decode_output(response)
    assert output is not None and output.text == "Sunny."
    assert _calls(output) == [("fc2", "x", "not json")]  # raw string kept when not JSON


def test_anthropic_blocks() -> None:
    messages = decode_messages(
        [
            {"role": "user", "content": "Q"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "checking"},
                {"type": "tool_use", "id": "tu1", "name": "s", "input": {"q": 1}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "tu1",
                 "content": [{"type": "text", "text": "found"}]}]},
        ]
    )  # fmt: skip
    assert last_user_text(messages) == ("Q", 0)  # the tool_result user message has no text
    assert _calls(messages[1]) == [("tu1", "s", {"q": 1})]
    assert _results(messages[2]) == [("tu1", "found")]
    output = decode_output({"role": "assistant", "content": [{"type": "text", "text": "A"}],
                            "stop_reason": "end_turn"})  # fmt: skip
    assert output is not None and (output.text, output.finish_reason) == ("A", "end_turn")


def test_gemini_parts_and_thoughts() -> None:
    request = {"contents": [
        {"role": "user", "parts": [{"text": "hello"}]},
        {"role": "model", "parts": [{"function_call": {"id": "g1", "name": "f", "args": {"x": 2}}}]},
        {"role": "user", "parts": [{"function_response": {"id": "g1", "name": "f",
                                                          "response": {"y": 3}}}]},
    ]}  # fmt: skip
    messages = decode_messages(request)
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert _calls(messages[1]) == [("g1", "f", {"x": 2})]
    assert _results(messages[2]) == [("g1", {"y": 3})]
    output = decode_output(
        {"content": {"role": "model", "parts": [{"text": "hmm", "thought": True},
                                                {"text": "answer"}]},
         "finish_reason": "STOP"}
    )  # fmt: skip
    assert output is not None and (output.text, output.finish_reason) == ("answer", "STOP")


def test_vercel_and_langchain_shapes() -> None:
    vercel = decode_messages(
        [
            {"role": "user", "content": [{"type": "text", "text": "v"}]},
            {"role": "assistant", "content": [
                {"type": "tool-call", "toolCallId": "v1", "toolName": "t", "input": {"k": 1}}]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "v1", "toolName": "t", "output": "r"}]},
        ]
    )  # fmt: skip
    assert _calls(vercel[1]) == [("v1", "t", {"k": 1})] and _results(vercel[2]) == [("v1", "r")]
    chain = {"messages": [[{"lc": 1, "type": "constructor",
                            "kwargs": {"content": "lc question", "type": "human"}}]]}  # fmt: skip
    assert last_user_text(decode_messages(chain))[0] == "lc question"
    generations = {"generations": [[{"text": "lc answer", "message": {
        "kwargs": {"content": "lc answer", "type": "ai"}}}]]}  # fmt: skip
    output = decode_output(generations)
    assert output is not None and output.text == "lc answer"


def test_redacted_placeholder() -> None:
    messages = decode_messages([{"role": "user", "content": "__REDACTED__"}])
    assert messages[0].text is None and messages[0].redacted


@pytest.mark.parametrize("garbage", [None, 3, "", "{not json", [None, 5, "x"], {"weird": True}])
def test_garbage_never_raises(garbage: object) -> None:
    decode_messages(garbage)
    decode_output(garbage)


def test_unflatten_rebuilds_lists_in_index_order() -> None:
    flat = {
        "p.10.message.role": "user",
        "p.2.message.role": "assistant",
        "p.2.message.tool_calls.0.tool_call.id": "x",
        "other": 1,
    }
    assert unflatten(flat, "p.") == [
        {"message": {"role": "assistant", "tool_calls": [{"tool_call": {"id": "x"}}]}},
        {"message": {"role": "user"}},
    ]
    assert unflatten(flat, "q.") is None


def test_arguments_decode_any_json_else_raw() -> None:
    assert arguments('{"a": [1]}') == {"a": [1]}
    assert arguments("5") == 5
    assert arguments("Paris") == "Paris"
    assert arguments({"a": 1}) == {"a": 1}


def test_a_list_of_bare_tool_calls_is_one_output() -> None:
    """Vercel AI's ``ai.response.toolCalls`` as Langfuse stores a generation's output."""
    output = decode_output(
        '[{"toolCallId":"c1","toolName":"getWeather","input":"{\\"location\\":\\"SF\\"}"},'
        '{"toolCallId":"c2","toolName":"getTime","input":"{}"}]'
    )
    assert output is not None and output.role == "assistant" and output.text is None
    assert _calls(output) == [("c1", "getWeather", {"location": "SF"}), ("c2", "getTime", {})]
