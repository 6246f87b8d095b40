"""A streamed reply assembled from its server-sent events into the form of a whole reply.

* **Chat Completions** chunks → a ``chat.completion``: content pieces concatenated per choice,
  ``tool_calls`` deltas merged by ``index`` (id, type and name arrive in the first delta, the
  arguments in pieces), the last finish reason, and the last non-null ``usage`` (sent in a
  final chunk with empty ``choices`` when the request asked for it).
* **Responses API** events → the ``response`` of the last ``response.completed`` /
  ``response.incomplete`` / ``response.failed`` event (it carries the whole output).
* **Anthropic Messages** events → a ``message``: ``message_start`` gives the message and the
  input usage; ``content_block_start`` / ``_delta`` build text and ``tool_use`` blocks
  (``input_json_delta`` pieces joined, then decoded); ``message_delta`` the stop reason and
  the output tokens.

Events are the JSON of ``data:`` lines; ``data: [DONE]`` and lines that are not JSON are
skipped. A stream with no event that makes a reply assembles to ``None``.
"""

from __future__ import annotations

from typing import Any

import orjson


def events_of(body: bytes) -> list[Any]:
    """The decoded ``data:`` payloads of an event stream, in order (multi-line data joined)."""
    events: list[Any] = []
    for block in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = [line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:")]
        if not data:
            continue
        payload = b"\n".join(data)
        if payload.strip() == b"[DONE]":
            continue
        try:
            events.append(orjson.loads(payload))
        except orjson.JSONDecodeError:
            continue
    return events


_TERMINAL = {
    "chat": (b"[DONE]",),
    "responses": (b'"response.completed"', b'"response.incomplete"', b'"response.failed"'),
    "anthropic": (b'"message_stop"',),
}


def reached_end(api: str, body: bytes) -> bool:
    """Whether the stream's terminal event is in ``body`` (clients stop reading there, so a
    stream closed after it was consumed whole)."""
    return any(marker in body for marker in _TERMINAL[api])


def assemble(api: str, body: bytes) -> Any:
    """The whole reply a stream of ``api`` (``chat``, ``responses``, ``anthropic``) amounts to."""
    events = [event for event in events_of(body) if isinstance(event, dict)]
    if api == "chat":
        return _chat(events)
    if api == "responses":
        return _responses(events)
    return _anthropic(events)


def _chat(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not events:
        return None
    choices: dict[int, dict[str, Any]] = {}
    usage = None
    for event in events:
        if event.get("usage"):
            usage = event["usage"]
        for choice in event.get("choices") or ():
            index = choice.get("index", 0)
            slot = choices.setdefault(
                index, {"index": index, "content": [], "calls": {}, "finish_reason": None}
            )
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                slot["content"].append(delta["content"])
            for part in delta.get("tool_calls") or ():
                call = slot["calls"].setdefault(
                    part.get("index", 0),
                    {"id": None, "type": "function", "function": {"name": None, "arguments": []}},
                )
                if part.get("id"):
                    call["id"] = part["id"]
                function = part.get("function") or {}
                if function.get("name"):
                    call["function"]["name"] = function["name"]
                if isinstance(function.get("arguments"), str):
                    call["function"]["arguments"].append(function["arguments"])
            if choice.get("finish_reason"):
                slot["finish_reason"] = choice["finish_reason"]
    first = events[0]
    out_choices = []
    for index in sorted(choices):
        slot = choices[index]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(slot["content"]) or None}
        calls = []
        for call_index in sorted(slot["calls"]):
            call = slot["calls"][call_index]
            function = call["function"]
            calls.append(
                {**call, "function": {**function, "arguments": "".join(function["arguments"])}}
            )
        if calls:
            message["tool_calls"] = calls
        out_choices.append(
            {"index": index, "message": message, "finish_reason": slot["finish_reason"]}
        )
    return {
        "id": first.get("id"),
        "object": "chat.completion",
        "model": first.get("model"),
        "choices": out_choices,
        "usage": usage,
    }


_FINAL_RESPONSE_EVENTS = ("response.completed", "response.incomplete", "response.failed")


def _responses(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    final = None
    for event in events:
        if event.get("type") in _FINAL_RESPONSE_EVENTS and isinstance(event.get("response"), dict):
            final = event["response"]
    return final


def _anthropic(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    pieces: dict[int, list[str]] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = dict(event["message"])
            message["usage"] = dict(message.get("usage") or {})
        elif kind == "content_block_start":
            index = event.get("index", 0)
            blocks[index] = dict(event.get("content_block") or {})
            pieces[index] = []
        elif kind == "content_block_delta":
            index = event.get("index", 0)
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta":
                pieces.setdefault(index, []).append(delta.get("text", ""))
            elif delta.get("type") == "input_json_delta":
                pieces.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "message_delta" and message is not None:
            message.update({k: v for k, v in (event.get("delta") or {}).items() if v is not None})
            message["usage"].update(event.get("usage") or {})
    if message is None:
        return None
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        joined = "".join(pieces.get(index, []))
        if block.get("type") == "text":
            block["text"] = block.get("text", "") + joined
        elif block.get("type") == "tool_use" and joined:
            try:
                block["input"] = orjson.loads(joined)
            except orjson.JSONDecodeError:
                block["input"] = joined
        content.append(block)
    message["content"] = content
    return message
