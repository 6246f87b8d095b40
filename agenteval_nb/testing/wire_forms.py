"""The other wire forms of one chat completion, so the loopback server can speak them all.

Handlers answer in one form, a Chat Completions ``dict`` (:func:`fake_server.completion`). A
request in another form is translated on the way in and the answer on the way out:

* **Responses API** (``POST …/responses``): :func:`responses_request_as_chat` turns ``input``
  items into chat messages (``function_call`` → an assistant tool call,
  ``function_call_output`` → a ``tool`` message) and function tools into chat tools;
  :func:`completion_as_response` turns the answer into a ``response`` object (a ``message``
  output item for the text, one ``function_call`` item per tool call; usage renamed
  ``input_tokens`` / ``output_tokens``).
* **Streaming** (``"stream": true``): :func:`chat_stream_events` cuts a completion into
  ``chat.completion.chunk`` events as real servers do — the role first, the content in pieces,
  each tool call's id and name in its first delta and its arguments in pieces, the finish reason
  in its own chunk, and the usage in a last chunk with empty ``choices`` when the request asked
  for ``stream_options.include_usage``; :func:`response_stream_events` emits the Responses event
  sequence (``response.created`` … ``response.output_text.delta`` /
  ``response.function_call_arguments.delta`` … ``response.completed``). :func:`sse_body` encodes
  events as ``data:`` lines (``event:`` lines too for the Responses API), ending chat streams with
  ``data: [DONE]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

PIECE = 7
"""Characters per streamed piece of content or arguments (small, so deltas really split)."""


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


# -- Responses API ---------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def responses_request_as_chat(request: dict[str, Any]) -> dict[str, Any]:
    """A Responses API request as the equivalent chat request (what handlers understand)."""
    messages: list[dict[str, Any]] = []
    if isinstance(request.get("instructions"), str):
        messages.append({"role": "system", "content": request["instructions"]})
    items = request.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    for item in items or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments", "")},
            }
            if messages and messages[-1]["role"] == "assistant" and "tool_calls" in messages[-1]:
                messages[-1]["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text})
        elif kind == "message":
            messages.append(
                {"role": item.get("role", "user"), "content": _content_text(item.get("content"))}
            )
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool.get("name"),
                "description": tool.get("description"),
                "parameters": tool.get("parameters") or {},
            },
        }
        for tool in request.get("tools") or []
        if isinstance(tool, dict) and tool.get("type") == "function"
    ]
    chat: dict[str, Any] = {"model": request.get("model"), "messages": messages}
    if tools:
        chat["tools"] = tools
    return chat


def completion_as_response(done: dict[str, Any]) -> dict[str, Any]:
    """A chat completion as a completed Responses API ``response`` object."""
    message = done["choices"][0]["message"] if done.get("choices") else {}
    output: list[dict[str, Any]] = []
    base = str(done.get("id", "resp"))
    if message.get("content"):
        output.append(
            {
                "type": "message",
                "id": f"msg_{base}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": message["content"], "annotations": []}],
            }
        )
    for n, call in enumerate(message.get("tool_calls") or []):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{base}_{n}",
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
                "status": "completed",
            }
        )
    usage = done.get("usage") or {}
    return {
        "id": f"resp_{base}",
        "object": "response",
        "created_at": done.get("created", 0),
        "status": "completed",
        "model": done.get("model"),
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": usage.get("prompt_tokens", 0),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage.get("completion_tokens", 0),
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.get("total_tokens", 0),
        },
    }


# -- streaming -------------------------------------------------------------------------------


def chat_stream_events(done: dict[str, Any], *, include_usage: bool) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events a server streams for this completion."""
    head = {
        "id": done.get("id"),
        "object": "chat.completion.chunk",
        "created": done.get("created", 0),
        "model": done.get("model"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    choice = done["choices"][0]
    message = choice["message"]
    events = [chunk({"role": "assistant", "content": ""})]
    if message.get("content"):
        events.extend(chunk({"content": piece}) for piece in _pieces(message["content"]))
    for index, call in enumerate(message.get("tool_calls") or []):
        first = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        events.append(chunk({"tool_calls": [first]}))
        events.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _pieces(call["function"]["arguments"] or "")
        )
    events.append(chunk({}, choice.get("finish_reason") or "stop"))
    if include_usage:
        events.append({**head, "choices": [], "usage": done.get("usage")})
    return events


def response_stream_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The Responses API event sequence for a completed ``response``."""
    pending = {**response, "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": pending},
        {"type": "response.in_progress", "response": pending},
    ]
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "status": "in_progress", "content": []},
                }
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append(
                {
                    "type": "response.content_part.added",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "part": part,
                }
            )
            events.extend(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": piece,
                    "logprobs": [],
                }
                for piece in _pieces(text)
            )
            events.append(
                {
                    "type": "response.output_text.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "text": text,
                    "logprobs": [],
                }
            )
        else:
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            events.extend(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": piece,
                }
                for piece in _pieces(item["arguments"] or "")
            )
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "arguments": item["arguments"],
                }
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def sse_body(events: Iterable[dict[str, Any]], *, named: bool = False, done: bool = True) -> bytes:
    """Events as a ``text/event-stream`` body: ``event: <type>`` lines when ``named`` (the
    Responses API), one ``data:`` line of JSON each, ``data: [DONE]`` last when ``done``."""
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()
