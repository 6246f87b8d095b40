"""PLACEHOLDER (t-build branch only): the dialect layer's contract signatures, so that
``traces/load.py`` imports before the merge. t-dia's real package replaces this file."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...steps.records import Step
from ..spans import Span

DIALECTS: tuple[str, ...] = ()
CONTENT_SWITCH: dict[str, str] = {}


@dataclass(slots=True)
class Classified:
    dialect: str
    step: Step
    conversation_id: str | None
    flags: set[str] = field(default_factory=set)


def classify(span: Span, *, group_by: str | None = None) -> Classified:
    raise NotImplementedError("placeholder: t-dia's traces/dialects replaces this module")
