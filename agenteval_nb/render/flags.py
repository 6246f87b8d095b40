"""The offline flags of a run (:mod:`agenteval_nb.offline_flags`) as the yellow badges of the
detail views."""

from __future__ import annotations

from collections.abc import Iterable

from markupsafe import Markup

from .text import html, join


def flags_badges(flags: Iterable[str]) -> Markup:
    """Each flag as a badge."""
    return join((html('<span class="ae-heuristic">{}</span>', f) for f in flags), Markup(" "))
