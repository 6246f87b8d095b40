"""Recorded exchanges → model-call steps (CAPTURE.md §4), one reader per API.

* **chat**: tool uses from ``choices[0].message.tool_calls``; tool results from the request's
  ``role: "tool"`` messages (``tool_call_id``); text ``choices[0].message.content``; usage
  ``prompt_tokens`` / ``completion_tokens``.
* **responses**: tool uses from ``output[]`` ``function_call`` items (``call_id``); tool results
  from ``input[]`` ``function_call_output`` items; text the ``message`` items joined; usage
  ``input_tokens`` / ``output_tokens``.
* **anthropic**: tool uses from ``content[]`` ``tool_use`` blocks; tool results from user
  ``tool_result`` blocks (``tool_use_id``); text the ``text`` blocks joined; usage
  ``input_tokens`` / ``output_tokens``.

Arguments are decoded JSON when the model's string parses, else kept as the string. Only
:attr:`Exchange.ok` exchanges become steps; the rest are counted by the capture report.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...steps.records import ModelCall, ToolResult, ToolUse, Usage
from .exchange import Exchange


def model_call(exchange: Exchange) -> ModelCall:
    """The step of one successful exchange."""
    request = exchange.request if isinstance(exchange.request, dict) else {}
    reply = exchange.reply if isinstance(exchange.reply, dict) else {}
    reader = _READERS[exchange.api]
    call = ModelCall(
        span_id=f"wire-{exchange.seq}",
        start_ns=exchange.started_ns,
        end_ns=exchange.ended_ns,
        model=reply.get("model") or request.get("model"),
    )
    reader(request, reply, call)
    return call


def decode_arguments(raw: Any) -> Any:
    """A tool call's arguments: the decoded JSON of a string that parses, else the value."""
    if isinstance(raw, str):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw


def _text(content: Any) -> str | None:
    """Text of a message's content: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None


def _tool_result(value: Any) -> Any:
    text = _text(value)
    return decode_arguments(text) if text is not None else value


def _chat(request: dict[str, Any], reply: dict[str, Any], call: ModelCall) -> None:
    for message in request.get("messages") or ():
        if not isinstance(message, dict):
            continue
        if message.get("role") == "user":
            call.last_user_text = _text(message.get("content"))
        elif message.get("role") == "tool":
            call.tool_results.append(
                ToolResult(
                    message.get("tool_call_id"),
                    message.get("name"),
                    _tool_result(message.get("content")),
                )
            )
    choices = reply.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message") or {}
    call.output_text = _text(message.get("content"))
    call.finish_reason = choice.get("finish_reason")
    for tool_call in message.get("tool_calls") or ():
        function = tool_call.get("function") or {}
        call.tool_calls.append(
            ToolUse(
                tool_call.get("id"),
                function.get("name"),
                decode_arguments(function.get("arguments")),
            )
        )
    usage = reply.get("usage")
    if isinstance(usage, dict):
        details = usage.get("prompt_tokens_details") or {}
        call.usage = Usage(
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            total_tokens=usage.get("total_tokens"),
            cached_input_tokens=details.get("cached_tokens") if isinstance(details, dict) else None,
        )


def _responses(request: dict[str, Any], reply: dict[str, Any], call: ModelCall) -> None:
    items = request.get("input")
    if isinstance(items, str):
        call.last_user_text = items
        items = []
    for item in items or ():
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            call.last_user_text = _text(item.get("content"))
        elif kind == "function_call_output":
            call.tool_results.append(
                ToolResult(item.get("call_id"), None, _tool_result(item.get("output")))
            )
    texts = []
    for item in reply.get("output") or ():
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            text = _text(item.get("content"))
            if text:
                texts.append(text)
        elif item.get("type") == "function_call":
            call.tool_calls.append(
                ToolUse(
                    item.get("call_id"), item.get("name"), decode_arguments(item.get("arguments"))
                )
            )
    call.output_text = "".join(texts) if texts else None
    call.finish_reason = "tool_calls" if call.tool_calls else reply.get("status")
    usage = reply.get("usage")
    if isinstance(usage, dict):
        details = usage.get("input_tokens_details") or {}
        reasoning = usage.get("output_tokens_details") or {}
        call.usage = Usage(
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            total_tokens=usage.get("total_tokens"),
            cached_input_tokens=details.get("cached_tokens") if isinstance(details, dict) else None,
            reasoning_tokens=reasoning.get("reasoning_tokens")
            if isinstance(reasoning, dict)
            else None,
        )


def _anthropic(request: dict[str, Any], reply: dict[str, Any], call: ModelCall) -> None:
    for message in request.get("messages") or ():
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in results:
            call.tool_results.append(
                ToolResult(block.get("tool_use_id"), None, _tool_result(block.get("content")))
            )
        text = (
            _text([b for b in blocks if isinstance(b, dict) and b.get("type") == "text"])
            if blocks
            else _text(content)
        )
        if text is not None:
            call.last_user_text = text
    texts = []
    for block in reply.get("content") or ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            call.tool_calls.append(ToolUse(block.get("id"), block.get("name"), block.get("input")))
    call.output_text = "".join(texts) if texts else None
    call.finish_reason = reply.get("stop_reason")
    usage = reply.get("usage")
    if isinstance(usage, dict):
        cached = usage.get("cache_read_input_tokens")
        call.usage = Usage(
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            cached_input_tokens=cached if isinstance(cached, int) else None,
        )


_READERS = {"chat": _chat, "responses": _responses, "anthropic": _anthropic}
