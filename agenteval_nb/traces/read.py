"""PLACEHOLDER (t-build branch only): the envelope readers' contract signatures, so that
``traces/load.py`` imports before the merge. t-env's real module replaces this file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .spans import Span

FORMATS = (
    "auto",
    "otlp",
    "jaeger",
    "tempo",
    "console",
    "phoenix",
    "langfuse",
    "agents_sdk",
    "dicts",
)


@dataclass(slots=True)
class ReadProblem:
    file: str | None
    where: str
    message: str


def read_spans(
    source: Any, *, format: str = "auto", problems: list[ReadProblem] | None = None
) -> Iterator[Span]:
    raise NotImplementedError("placeholder: t-env's traces/read replaces this module")
