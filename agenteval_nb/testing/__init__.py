"""Offline tools: a loopback OpenAI-compatible server, the heuristic judge and the scripted agent
model (neither is an LLM).

Names are imported lazily so that ``python -m agenteval_nb.testing.fake_server`` does not load
the module twice.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "FakeOpenAIServer": ".fake_server",
    "FakeResponse": ".fake_server",
    "completion": ".fake_server",
    "route_by_model": ".fake_server",
    "tool_call": ".fake_server",
    "HeuristicJudge": ".heuristic_judge",
    "heuristic_handler": ".heuristic_judge",
    "HEURISTIC_MODEL": ".heuristic_judge",
    "SCRIPTED_AGENT_MODEL": ".agent_model",
    "ScriptedAgentModel": ".agent_model",
    "ToolRule": ".agent_model",
    "SCRIPTED_USER_MODEL": ".user_model",
    "ScriptedUserModel": ".user_model",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
