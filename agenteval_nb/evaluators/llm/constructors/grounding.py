"""Grounding context for ``llm_hallucinations`` (SPEC §4.3): what the agent could rely on.

Per actual turn, the non-empty sections joined by a blank line:

* ``User prompt:\\n`` + the trimmed user text;
* ``Context messages:\\n`` + one line ``- [<role>] <trimmed content>`` per context message with
  non-blank content;
* ``tool_calls:\\n`` + a 2-space indented JSON array of ``{id?, name?, args?}``;
* ``tool_outputs:\\n`` + a 2-space indented JSON array of ``{id?, name?, output?}``
  (Go's ``MarshalIndent`` with HTML escaping; ``args``/``output`` omitted only when null).

A turn without sections adds nothing; the contexts of all turns of the prefix are joined by a
blank line; no context at all ⇒ ``No validation context was captured.``
"""

from __future__ import annotations

from collections.abc import Sequence

from ....schema import Invocation
from ..content import go_trim, text
from ..gojson import Struct, marshal

__all__ = ["NO_CONTEXT", "grounding_context", "turn_context"]

NO_CONTEXT = "No validation context was captured."


def _tools_json(actual: Invocation) -> tuple[str, str]:
    calls: list[Struct] = []
    outputs: list[Struct] = []
    for tool in actual.tools or ():
        if tool is None:
            continue
        call, output = Struct(), Struct()
        for obj in (call, output):
            if tool.id:
                obj["id"] = tool.id
            if tool.name:
                obj["name"] = tool.name
        if tool.arguments is not None:
            call["args"] = tool.arguments
        if tool.result is not None:
            output["output"] = tool.result
        calls.append(call)
        outputs.append(output)
    if not calls:
        return "", ""
    return (
        marshal(calls, escape_html=True, indent="  "),
        marshal(outputs, escape_html=True, indent="  "),
    )


def turn_context(actual: Invocation | None) -> str:
    """The sections of one turn joined by a blank line (``""`` when there are none)."""
    if actual is None:
        return ""
    sections: list[str] = []
    prompt = go_trim(text(actual.user_content))
    if prompt:
        sections.append("User prompt:\n" + prompt)
    lines = [
        f"- [{message.role}] {go_trim(text(message))}"
        for message in actual.context_messages or ()
        if message is not None and go_trim(text(message))
    ]
    if lines:
        sections.append("Context messages:\n" + "\n".join(lines))
    calls, outputs = _tools_json(actual)
    if calls:
        sections.append("tool_calls:\n" + calls)
        sections.append("tool_outputs:\n" + outputs)
    return "\n\n".join(sections)


def grounding_context(actuals: Sequence[Invocation | None]) -> str:
    """The context of every turn of the prefix (rules in the module doc)."""
    parts = [part for part in (turn_context(a) for a in actuals) if part]
    return "\n\n".join(parts) if parts else NO_CONTEXT
