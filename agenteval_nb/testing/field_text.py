"""The field-marker text protocol of DSPy's ``ChatAdapter``, read and written by the scripted
agent model (:mod:`.agent_model`) so that a DSPy program (``dspy.ReAct`` included) runs
against the loopback server.

The protocol, as DSPy sends it: each user message holds the input fields as
``[[ ## name ## ]]`` followed by the value, and ends with the sentence ``Respond with the
corresponding output fields, starting with the field `[[ ## a ## ]]`, then … and then ending
with the marker for `[[ ## completed ## ]]`.`` naming the wanted output fields in order. A
ReAct step asks for ``next_thought``, ``next_tool_name`` (its allowed values written as
``Literal['tool', …, 'finish']``) and ``next_tool_args`` (JSON); its trajectory field holds the
steps so far as ``thought_<i>``, ``tool_name_<i>``, ``tool_args_<i>`` and ``observation_<i>``
fields (tool results as plain text). The reply holds each output field the same way, then
``[[ ## completed ## ]]``.

Rules of :func:`read`: a message is a field message when it holds the ``Respond with``
sentence; the fields are read flat (the trajectory's steps become fields of the message); the
*question* is the value of the message's first field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_MARK = re.compile(r"\[\[ ## (\w+) ## \]\]")
_RESPOND = "Respond with the corresponding output fields"
_LITERAL = re.compile(
    r"`\[\[ ## next_tool_name ## \]\]` \(must be formatted as a valid Python "
    r"Literal\[(?P<names>[^\]]*)\]"
)
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")
COMPLETED = "completed"
FINISH = "finish"


@dataclass(frozen=True, slots=True)
class FieldMessage:
    """One user message of the protocol: its fields in order and the wanted output fields."""

    fields: dict[str, str]
    wanted: list[str]
    tool_names: list[str]

    @property
    def question(self) -> str:
        return next(iter(self.fields.values()), "")

    def steps(self) -> Iterator[tuple[str, str, str]]:
        """``(tool name, arguments text, observation text)`` of the trajectory, in order."""
        index = 0
        while f"tool_name_{index}" in self.fields:
            yield (
                self.fields[f"tool_name_{index}"],
                self.fields.get(f"tool_args_{index}", ""),
                self.fields.get(f"observation_{index}", ""),
            )
            index += 1


def fields_of(text: str) -> dict[str, str]:
    """The ``[[ ## name ## ]]`` fields of ``text``, flat, in order (the first of a name wins)."""
    marks = list(_MARK.finditer(text))
    out: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(mark.group(1), text[mark.end() : end].strip())
    return out


def read(text: str) -> FieldMessage | None:
    """The field message in ``text``, or ``None`` when it is not one (rules in the module doc)."""
    at = text.rfind(_RESPOND)
    if at < 0:
        return None
    sentence = text[at:]
    wanted = [name for name in _MARK.findall(sentence) if name != COMPLETED]
    literal = _LITERAL.search(sentence)
    names = _QUOTED.findall(literal.group("names")) if literal else []
    return FieldMessage(fields_of(text[:at]), wanted, names)


def reply(values: Mapping[str, Any]) -> str:
    """The reply text holding ``values`` as output fields, then the completed marker."""
    parts = [f"[[ ## {name} ## ]]\n{value}" for name, value in values.items()]
    return "\n\n".join([*parts, f"[[ ## {COMPLETED} ## ]]"])
