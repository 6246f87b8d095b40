"""The step builders every dialect shares: decoded messages → ``ModelCall``, tool fields →
``ToolRun``, agent texts → ``AgentRun``; usage, errors and conversation keys read from
attributes.

Content rule (one place): a step whose content attributes are all absent is ``MISSING``; a
placeholder anywhere (``__REDACTED__``) makes it ``REDACTED``; a ``…_ref`` attribute without the
content makes it ``EXTERNAL``. Tool names and call ids are kept whatever the content state.
"""

from __future__ import annotations

from typing import Any

import orjson

from agenteval_nb.steps.messages import (
    REDACTED,
    Message,
    arguments,
    decode_messages,
    decode_output,
    decode_recent,
    last_user_text,
    loads,
    tool_results_after,
)
from agenteval_nb.steps.records import AgentRun, Content, ModelCall, ToolRun, ToolUse, Usage
from agenteval_nb.traces.spans import Span

USAGE_FIELDS = ("input_tokens", "output_tokens", "total_tokens", "cached_input_tokens",
                "reasoning_tokens")  # fmt: skip


def model_call(
    span: Span,
    inputs: list[Message] | None,
    output: Message | None,
    *,
    model: Any = None,
    usage: Usage | None = None,
    finish_reason: Any = None,
    external: bool = False,
) -> ModelCall:
    """A model call from its decoded input messages and output (choice 0)."""
    user_text, user_index = last_user_text(inputs or [])
    results = tool_results_after(inputs or [], user_index)
    reason = first_text(finish_reason)
    if reason is None and output is not None:
        reason = output.finish_reason
    call = ModelCall(
        span_id=span.span_id,
        start_ns=span.start_ns,
        end_ns=span.end_ns,
        model=text_of(model),
        last_user_text=user_text,
        tool_results=results,
        output_text=output.text if output is not None else None,
        tool_calls=list(output.tool_calls) if output is not None else [],
        finish_reason=reason,
        usage=usage,
        error=span_error(span),
        parent_span_id=span.parent_id,
    )
    call.content = messages_content(inputs, output, external=external)
    return call


def messages_content(
    inputs: list[Message] | None, output: Message | None, *, external: bool = False
) -> Content:
    """The content state of a model call's messages (see the module rule)."""
    messages = [*(inputs or []), *([output] if output is not None else [])]
    if any(message.redacted for message in messages):
        return Content.REDACTED
    for message in messages:
        if message.text is not None or any(r.result is not None for r in message.tool_results):
            return Content.PRESENT
        if any(call.arguments is not None for call in message.tool_calls):
            return Content.PRESENT
    return Content.EXTERNAL if external else Content.MISSING


def tool_run(
    span: Span,
    *,
    name: Any,
    call_id: Any,
    args: Any = None,
    has_args: bool = False,
    result: Any = None,
    has_result: bool = False,
    error: str | None = None,
) -> ToolRun:
    """A tool run; ``has_args`` / ``has_result`` say whether the source carried them at all."""
    redacted = args == REDACTED or result == REDACTED
    tool = ToolUse(
        id=text_of(call_id),
        name=text_of(name),
        arguments=arguments(args) if has_args and args != REDACTED else None,
        result=loads_result(result) if has_result and result != REDACTED else None,
        has_result=has_result and result != REDACTED,
        error=error or span_error(span),
    )
    if redacted:
        content = Content.REDACTED
    elif has_args or has_result:
        content = Content.PRESENT
    else:
        content = Content.MISSING
    return ToolRun(
        span_id=span.span_id,
        tool=tool,
        start_ns=span.start_ns,
        end_ns=span.end_ns,
        content=content,
        parent_span_id=span.parent_id,
    )


def agent_run(
    span: Span,
    name: Any,
    input_text: Any = None,
    output_text: Any = None,
    *,
    redacted: bool = False,
) -> AgentRun:
    """An agent run; agents never raise ``content_missing`` (their texts are optional)."""
    if input_text == REDACTED or output_text == REDACTED:
        redacted = True
    return AgentRun(
        span_id=span.span_id,
        name=text_of(name),
        start_ns=span.start_ns,
        end_ns=span.end_ns,
        input_text=None if input_text == REDACTED else text_of(input_text),
        output_text=None if output_text == REDACTED else text_of(output_text),
        content=Content.REDACTED if redacted else Content.PRESENT,
        error=span_error(span),
        parent_span_id=span.parent_id,
    )


def usage_of(attributes: dict[str, Any], keys: dict[str, tuple[str, ...]]) -> Usage | None:
    """Token counts under the first present key per field (``keys``: field → keys);
    ``None`` when no count is there."""
    counts = {name: count_of(attributes, keys.get(name, ())) for name in USAGE_FIELDS}
    if all(value is None for value in counts.values()):
        return None
    return Usage(**counts)


def count_of(mapping: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    """The first key's value that is an integer (numeric strings accepted)."""
    for key in keys:
        value = mapping.get(key)
        if value is None:
            continue
        if value.__class__ is int:
            return value  # type: ignore[no-any-return]
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
    return None


def span_error(span: Span) -> str | None:
    """The span's error: its status message (or ``error.type``) when the status is ``error``;
    ``error.type`` alone also counts."""
    error_type = span.attributes.get("error.type")
    if span.status == "error":
        return span.status_message or text_of(error_type) or "error"
    return text_of(error_type)


def conversation_key(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first non-empty value among ``keys``, as a string."""
    for key in keys:
        value = attributes.get(key)
        if value is not None and value != "":
            return value if isinstance(value, str) else str(value)
    return None


def first_present(attributes: dict[str, Any], keys: tuple[str, ...]) -> tuple[bool, Any]:
    """Whether any of ``keys`` is present, and the first present value."""
    for key in keys:
        if key in attributes:
            return True, attributes[key]
    return False, None


def text_of(value: Any) -> str | None:
    """A text value: strings as they are, other JSON values serialised, ``None`` kept."""
    if value is None or isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def first_text(value: Any) -> str | None:
    """A string, or the first string of a list (``gen_ai.response.finish_reasons``; a JSON
    array string as Jaeger and Tempo keep arrays)."""
    if isinstance(value, str) and value[:1] == "[":
        value = loads(value)
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) else None


def loads_result(value: Any) -> Any:
    """A tool result: decoded when it is a JSON object or array string, else as given."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def agent_input_text(value: Any) -> Any:
    """An agent's input: the last user text when the value is messages (or a request holding
    them), the decoded text of a JSON string literal, else the value."""
    decoded = loads(value)
    if isinstance(decoded, dict | list):
        text, _ = last_user_text(decode_recent(decoded))
        return text if text is not None else value
    return decoded


def agent_output_text(value: Any) -> Any:
    """An agent's output: the last assistant text when the value is messages (the run's new
    messages: tool calls first, the answer last), the text of a response object, the decoded
    text of a JSON string literal, else the value."""
    decoded = loads(value)
    if isinstance(decoded, list):
        for message in reversed(decode_messages(decoded)):
            if message.role == "assistant" and message.text is not None:
                return message.text
    if isinstance(decoded, dict | list):
        output = decode_output(decoded)
        if output is not None and output.text is not None:
            return output.text
        return value
    return decoded
