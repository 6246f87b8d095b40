"""``model.Message`` as embedded in eval sets and results (SPEC §1.1); keys are snake_case."""

from __future__ import annotations

from typing import Any

from .base import SnakeWireModel


class ContentPart(SnakeWireModel):
    """One part of a multi-part message: ``type`` is text, image, audio, video or file."""

    type: str = ""
    text: str | None = None
    image: Any = None
    audio: Any = None
    video: Any = None
    file: Any = None
    content_ref: Any = None


class FunctionCall(SnakeWireModel):
    """The function of a tool call; ``arguments`` is a JSON *string* on the wire."""

    name: str = ""
    strict: bool | None = None
    description: str | None = None
    arguments: str | None = None


class ToolCall(SnakeWireModel):
    """A tool call requested by the model."""

    type: str = ""
    function: FunctionCall = FunctionCall()
    id: str | None = None
    index: int | None = None
    extra_fields: dict[str, Any] | None = None


class Message(SnakeWireModel):
    """A chat message. Evaluators read only ``content`` ("" when the message is absent)."""

    role: str = ""
    content: str | None = None
    content_parts: list[ContentPart] | None = None
    tool_id: str | None = None
    tool_name: str | None = None
    tool_calls: list[ToolCall] | None = None
    reasoning_content: str | None = None
    reasoning_signature: str | None = None


def message_text(message: Message | None) -> str:
    """The text of a message: its ``content``, or ``""`` when the message or content is absent."""
    if message is None or message.content is None:
        return ""
    return message.content
