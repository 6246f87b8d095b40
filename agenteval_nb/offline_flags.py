"""Flags of a run whose numbers did not come from LLMs: the offline heuristic judge scored some
judgements, or the agent ran on the offline scripted agent model.

One rule for every place numbers are shown — the run's repr and ``summary_text()``, the
inspector's header, the report's banner (frames carry a ``heuristic`` column per judgement):
:func:`run_flags` lists the flags of a run and its run info.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCRIPTED_AGENT_MODEL = "scripted-agent (offline, not an LLM)"
"""The ``model`` of every completion of the offline scripted agent model
(:class:`~agenteval_nb.testing.agent_model.ScriptedAgentModel`) and its routing name."""

HEURISTIC_LABEL = "OFFLINE HEURISTIC JUDGE — not an LLM"
"""Shown next to every judgement whose scores came from the offline heuristic judge."""

SCRIPTED_AGENT_LABEL = "OFFLINE SCRIPTED AGENT MODEL — not an LLM"
"""Shown for a run whose agent answered with the offline scripted agent model."""


def agent_is_scripted(info: Mapping[str, Any] | None) -> bool:
    """True when the run info's ``agent`` names the offline scripted agent model."""
    return SCRIPTED_AGENT_MODEL in str((info or {}).get("agent", ""))


def run_flags(heuristic: bool, info: Mapping[str, Any] | None = None) -> list[str]:
    """The flag texts of a run (``heuristic``: a judgement came from the offline heuristic
    judge) and its run info; empty when LLMs produced everything."""
    flags = []
    if heuristic:
        flags.append(HEURISTIC_LABEL)
    if agent_is_scripted(info):
        flags.append(SCRIPTED_AGENT_LABEL)
    return flags
