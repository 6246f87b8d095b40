"""The offline flags of a run (:mod:`agenteval_nb.offline_flags`) as the yellow badges of the
detail views."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from ..offline_flags import run_flags
from .text import html, join


def flags_badges(flags: Iterable[str]) -> Markup:
    """Each flag as a badge."""
    return join((html('<span class="ae-heuristic">{}</span>', f) for f in flags), Markup(" "))


def run_badges(run: Any) -> Markup:
    """The badges of a run (``run.result`` and ``run.info``); empty for an all-LLM run."""
    return flags_badges(run_flags(run.result, getattr(run, "info", None)))
