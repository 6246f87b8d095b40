"""What the detector says about one span: its dialect, its step, its conversation key, its flags."""

from __future__ import annotations

from dataclasses import dataclass, field

from agenteval_nb.steps.records import Content, Step

CONTENT_FLAGS: dict[Content, str] = {
    Content.MISSING: "content_missing",
    Content.REDACTED: "redacted",
    Content.EXTERNAL: "ref_unresolved",
    Content.TRUNCATED: "truncated",
}
"""The report flag each content state raises (``PRESENT`` raises none)."""


@dataclass(slots=True)
class Classified:
    """One span classified. ``conversation_id`` is the span's OWN conversation key (grouping
    inherits it down the tree); ``flags`` name what could not be recovered
    (``content_missing``, ``redacted``, ``ref_unresolved``, ``truncated``,
    ``dropped_attributes``, ``garbled``)."""

    dialect: str
    step: Step
    conversation_id: str | None = None
    flags: set[str] = field(default_factory=set)


def classified(dialect: str, step: Step, conversation_id: str | None) -> Classified:
    """A ``Classified`` whose content flag follows the step's ``content`` (when it has one)."""
    flags: set[str] = set()
    content = getattr(step, "content", Content.PRESENT)
    flag = CONTENT_FLAGS.get(content)
    if flag is not None:
        flags.add(flag)
    return Classified(dialect, step, conversation_id, flags)
