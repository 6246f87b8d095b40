"""One tolerant decoder for chat messages, whatever shape a producer wrote them in.

Trace dialects and live capture both meet messages in many shapes; they all become
:class:`Message` (role + text + tool calls + tool results) here. Shapes read:

* OTel GenAI parts: ``{role, parts: [{type: text|tool_call|tool_call_response|reasoning|…}]}``
  (``response`` or ``result`` in a tool response; unknown part types are skipped);
* Chat Completions: ``{role, content: str | [{type: text, text}], tool_calls: [{id, function:
  {name, arguments}}], tool_call_id}``; a response ``{choices: [{message}]}``;
* OpenInference flattened keys, once :func:`unflatten` made them objects (``message`` /
  ``message_content`` / ``tool_call`` wrappers, ``contents``);
* Responses items: ``message`` (``input_text`` / ``output_text`` parts), ``function_call``,
  ``function_call_output``; a response ``{output: [...]}``; a request ``{input: ...}``;
* Anthropic blocks: ``text``, ``tool_use``, ``tool_result``; Gemini / ADK parts: ``text``,
  ``function_call``, ``function_response``; Vercel AI parts: ``tool-call``, ``tool-result``;
* LangChain dumps (``{kwargs: {content, type: human|ai|tool}}``) and legacy GenAI bodies
  (``{message: {...}, finish_reason}``, ``{text, finish_reason}``).

Rules: roles are normalised (``model``/``ai`` → ``assistant``, ``human`` → ``user``,
``developer`` → ``system``); tool arguments are decoded JSON when the string parses, else the raw
string; the placeholder ``__REDACTED__`` becomes ``None`` text with ``redacted`` set; anything
unreadable is skipped, never raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from agenteval_nb.steps.records import ToolResult, ToolUse

REDACTED = "__REDACTED__"
"""OpenInference's (and others') placeholder for hidden content."""

_ROLES = {
    "model": "assistant",
    "ai": "assistant",
    "assistant": "assistant",
    "human": "user",
    "user": "user",
    "developer": "system",
    "system": "system",
    "tool": "tool",
    "function": "tool",
}
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_EARLIER_OUTPUT_ROLES = frozenset({"assistant", "model", "ai", "system", "developer"})


@dataclass(slots=True)
class Message:
    """One message: who spoke, its text (text parts joined by newlines), the tool calls it
    made and the tool results it carried. ``redacted``: some content was a placeholder."""

    role: str | None = None
    text: str | None = None
    tool_calls: list[ToolUse] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    finish_reason: str | None = None
    redacted: bool = False


def loads(value: Any) -> Any:
    """A JSON object, array or string literal (``"\"text\""``) decoded; anything else (or a
    string that is not JSON) returned as is."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return value
        first = text[0]
        if first != "{" and first != "[" and not (first == '"' == text[-1] and len(text) > 1):
            return value
    elif isinstance(value, bytes):
        text = value  # type: ignore[assignment]
        if text[:1] not in (b"{", b"[") and not (
            len(text) > 1 and text[:1] == b'"' and text[-1:] == b'"'
        ):
            return value
    else:
        return value
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return value


def arguments(value: Any) -> Any:
    """Tool arguments: a JSON string decoded when it parses (any JSON value), else as given."""
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def unflatten(attributes: dict[str, Any], prefix: str) -> Any:
    """Flattened keys under ``prefix`` (``llm.input_messages.0.message.role``) rebuilt into
    objects; objects whose keys are all indices become lists in index order. ``None`` when no
    key has the prefix."""
    root: dict[str, Any] = {}
    for key, value in attributes.items():
        if not key.startswith(prefix):
            continue
        node = root
        *path, last = key[len(prefix) :].split(".")
        for segment in path:
            child = node.get(segment)
            if not isinstance(child, dict):
                child = node[segment] = {}
            node = child
        node[last] = value
    return _lists(root) if root else None


def _lists(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {key: _lists(value) for key, value in node.items()}
    if items and all(key.isdigit() for key in items):
        return [items[key] for key in sorted(items, key=int)]
    return items


def role_of(value: Any) -> str | None:
    """A role normalised (see the module rule); unknown roles kept lower-cased."""
    if not isinstance(value, str):
        return None
    low = value.lower()
    return _ROLES.get(low, low)


def decode_messages(value: Any) -> list[Message]:
    """A list of messages (an input or a history) in any shape above; a JSON string is decoded
    first; a request object (``messages`` / ``input`` / ``contents``) gives its messages; a plain
    string is one user message; ADK's runner input ``{new_message}`` its message."""
    out = []
    for item in _message_items(value):
        message = decode_message(item)
        if message is not None:
            out.append(message)
    return out


def decode_recent(value: Any) -> list[Message]:
    """What a model call's input says about the current turn: its messages from the last user
    message that has text on (all of them when none has), without the assistant and system
    messages (their tool calls and text were an earlier call's output). Decodes from the end
    and stops there, so a long resent history costs little."""
    out = []
    for item in reversed(_message_items(value)):
        if type(item) is dict and item.get("role") in _EARLIER_OUTPUT_ROLES:
            continue
        message = decode_message(item)
        if message is None or message.role in _EARLIER_OUTPUT_ROLES:
            continue
        out.append(message)
        if message.role == "user" and message.text is not None:
            break
    out.reverse()
    return out


def _message_items(value: Any) -> list[Any]:
    value = loads(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        for key in ("messages", "input", "contents", "prompt", "new_message"):
            if key in value:
                return _message_items(value[key])
        return [value]
    if not isinstance(value, list):
        return []
    if len(value) == 1 and isinstance(value[0], list):
        return value[0]  # LangChain batches: [[messages]]
    return value


def decode_output(value: Any) -> Message | None:
    """What a model returned, as one message (choice 0): a list of output messages (the first),
    a Chat Completions response (``choices[0]``), a Responses response or a list of its items
    (all merged), an Anthropic / Gemini / ADK response, ``{text}``, or a plain string."""
    value = loads(value)
    if isinstance(value, str):
        return _text_message("assistant", value)
    if isinstance(value, dict):
        if isinstance(value.get("choices"), list):
            return decode_output(value["choices"][:1])
        if isinstance(value.get("candidates"), list):
            return decode_output(value["candidates"][:1])
        if isinstance(value.get("generations"), list):
            first = value["generations"][:1]
            return decode_output(first[0] if first and isinstance(first[0], list) else first)
        if isinstance(value.get("output"), list):
            return _merged(value["output"])
        if "messages" in value:
            messages = decode_messages(value["messages"])
            return _last_assistant(messages)
        return decode_message(value, default_role="assistant")
    if isinstance(value, list) and value:
        if all(isinstance(item, dict) and _is_response_item(item) for item in value):
            return _merged(value)
        return decode_message(value[0], default_role="assistant")
    return None


def decode_message(item: Any, *, default_role: str | None = None) -> Message | None:
    """One message in any shape above; ``None`` when it is not a message at all."""
    if type(item) is dict and type(item.get("parts")) is list and type(item.get("role")) is str:
        # the common case first: an OTel GenAI / Gemini message of parts
        role = item["role"]
        message = Message(role=_ROLES.get(role) or role.lower())
        reason = item.get("finish_reason")
        message.finish_reason = reason if isinstance(reason, str) else None
        for part in item["parts"]:
            _add_part(message, part)
        return message
    if isinstance(item, str):
        return _text_message(default_role or "user", item)
    if not isinstance(item, dict):
        return None
    content = item.get("content")
    inner = item.get("message") or item.get("kwargs")
    if not isinstance(inner, dict) and isinstance(content, dict) and "parts" in content:
        inner = content
    if isinstance(inner, dict):
        unwrapped = decode_message(inner, default_role=default_role)
        if unwrapped is not None and unwrapped.finish_reason is None:
            unwrapped.finish_reason = _reason(item)
        return unwrapped
    kind = item.get("type")
    if kind in ("function_call", "function_call_output") and "role" not in item:
        message = Message(role="assistant" if kind == "function_call" else "tool")
        _add_part(message, item)
        return message
    if _is_bare_call(item):
        message = Message(role="assistant")
        _add_call(message, item, server=False)
        return message
    role = role_of(item.get("role") or item.get("type")) or default_role
    message = Message(role=role)
    message.finish_reason = _reason(item)
    for key in ("parts", "contents", "content", "text"):
        if key in item:
            _add_content(message, item[key])
            break
    for call in _as_list(item.get("tool_calls")):
        _add_part(message, {"type": "function", **call} if isinstance(call, dict) else call)
    call_id = item.get("tool_call_id") or (item.get("id") if role == "tool" else None)
    if role == "tool" and not message.tool_results:
        message.tool_results.append(
            ToolResult(call_id=_str(call_id), name=_str(item.get("name")), result=message.text)
        )
    elif call_id is not None and message.tool_results and message.tool_results[0].call_id is None:
        message.tool_results[0].call_id = _str(call_id)
    return message


def last_user_text(messages: list[Message]) -> tuple[str | None, int]:
    """The text of the last user message that has text, and its index (-1 when none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and message.text is not None:
            return message.text, index
    return None, -1


def tool_results_after(messages: list[Message], index: int) -> list[ToolResult]:
    """Tool results carried by the messages after ``index`` (this turn's, not the history's)."""
    return [result for message in messages[index + 1 :] for result in message.tool_results]


def _text_message(role: str, text: str) -> Message:
    message = Message(role=role)
    _add_text(message, text)
    return message


def _last_assistant(messages: list[Message]) -> Message | None:
    for message in reversed(messages):
        if message.role == "assistant":
            return message
    return None


def _is_response_item(item: dict[str, Any]) -> bool:
    """A Responses output item, or a bare tool call (a list of them is one model output)."""
    if _is_bare_call(item):
        return True
    return item.get("type") in ("message", "function_call", "reasoning") and "parts" not in item


def _is_bare_call(item: dict[str, Any]) -> bool:
    """A tool call standing alone (Vercel ``{toolCallId, toolName, input}``, a typed call part)."""
    if "role" in item:
        return False
    return (
        "toolCallId" in item
        or "toolName" in item
        or item.get("type") in ("tool_call", "tool-call", "tool_use")
    )


def _merged(items: list[Any]) -> Message:
    merged = Message(role="assistant")
    for item in items:
        message = decode_message(item, default_role="assistant")
        if message is None or message.role not in ("assistant", None):
            continue
        if message.text is not None:
            merged.text = message.text if merged.text is None else merged.text + "\n" + message.text
        merged.tool_calls.extend(message.tool_calls)
        merged.redacted = merged.redacted or message.redacted
    return merged


def _add_content(message: Message, content: Any) -> None:
    if isinstance(content, str):
        _add_text(message, content)
    elif isinstance(content, list):
        for part in content:
            _add_part(message, part)
    elif isinstance(content, dict):
        _add_part(message, content)


def _add_text(message: Message, text: str) -> None:
    if text == REDACTED:
        message.redacted = True
        return
    message.text = text if message.text is None else message.text + "\n" + text


def _add_part(message: Message, part: Any) -> None:
    """One content part of any family appended to the message."""
    if isinstance(part, str):
        _add_text(message, part)
        return
    if not isinstance(part, dict):
        return
    if part.get("type") == "text":  # the common case first
        text = part.get("content")
        if text is None:
            text = part.get("text")
        if isinstance(text, str):
            _add_text(message, text)
        return
    for wrapper in ("message_content", "tool_call"):
        if isinstance(part.get(wrapper), dict):
            part = part[wrapper]
    kind = part.get("type")
    if part.get("thought") is True:
        return
    if kind in _TEXT_PARTS or (kind is None and isinstance(part.get("text"), str)):
        text = part.get("content", part.get("text"))
        if isinstance(text, str):
            _add_text(message, text)
    elif kind in ("tool_call", "tool_use", "function_call", "tool-call", "function"):
        _add_call(message, part, server=False)
    elif kind == "server_tool_call":
        _add_call(message, part, server=True)
    elif kind in ("tool_call_response", "tool_result", "function_call_output", "tool-result",
                  "server_tool_call_response"):  # fmt: skip
        _add_result(message, part)
    elif kind is None and isinstance(part.get("function_call"), dict):
        _add_call(message, part["function_call"], server=False)
    elif kind is None and isinstance(part.get("function_response"), dict):
        _add_result(message, part["function_response"])
    elif kind is None and isinstance(part.get("function"), dict):
        _add_call(message, part, server=False)


def _add_call(message: Message, part: dict[str, Any], *, server: bool) -> None:
    inner = part.get("function")
    function: dict[str, Any] = inner if isinstance(inner, dict) else part
    raw = _first(function, ("arguments", "args", "input"))
    if raw == REDACTED:
        message.redacted = True
        raw = None
    # a Responses function_call: ``call_id`` is what its output answers (``id`` is the item's)
    call_id = _first(part, ("call_id", "id", "toolCallId", "tool_call_id"))
    name = _first(function, ("name", "toolName"))
    message.tool_calls.append(
        ToolUse(id=_str(call_id), name=_str(name), arguments=arguments(raw), server=server)
    )


def _add_result(message: Message, part: dict[str, Any]) -> None:
    result = _first(part, ("response", "result", "output", "content"))
    if isinstance(result, list) and all(isinstance(block, dict) for block in result):
        texts = [block.get("text") for block in result if isinstance(block.get("text"), str)]
        result = "\n".join(texts) if texts and len(texts) == len(result) else result
    if result == REDACTED:
        message.redacted = True
        result = None
    call_id = _first(part, ("id", "call_id", "tool_use_id", "toolCallId", "tool_call_id"))
    name = _first(part, ("name", "toolName"))
    message.tool_results.append(ToolResult(call_id=_str(call_id), name=_str(name), result=result))


def _reason(item: dict[str, Any]) -> str | None:
    reason = _first(item, ("finish_reason", "finishReason", "stop_reason"))
    return reason if isinstance(reason, str) else None


def _first(mapping: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = mapping.get(key)
        if value is not None:
            return value
    return None


def _as_list(value: Any) -> list[Any]:
    value = loads(value)
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)
