"""Agents under test: the agent protocol, Python-function agents, the OpenAI tool-calling agent,
tools (recorded, mockable), tool mocks, simulated users and the recorder (live turns → eval
set).

``OpenAIAgentsSDKAgent`` (an openai-agents SDK agent under test) is imported on first use, so
this package imports without the optional SDK.
"""

from importlib import import_module
from typing import Any

from .base import Agent, AgentOutput, FunctionAgent, as_agent
from .openai_agent import AgentModelError, OpenAIAgent
from .recorder import RecordingAgent, record
from .recordings import RecorderError
from .simulator import AgentUserSimulator, CallableUserSimulator, LLMUserSimulator
from .tool_mocks import ToolMockError
from .tools import NOT_INTERCEPTED, ToolBox, ToolCallError, ToolSpec
from .turn import Turn

__all__ = [
    "NOT_INTERCEPTED",
    "Agent",
    "AgentModelError",
    "AgentOutput",
    "AgentUserSimulator",
    "CallableUserSimulator",
    "FunctionAgent",
    "LLMUserSimulator",
    "OpenAIAgent",
    "RecorderError",
    "RecordingAgent",
    "ToolBox",
    "ToolCallError",
    "ToolMockError",
    "ToolSpec",
    "Turn",
    "as_agent",
    "record",
]

_LAZY = {"OpenAIAgentsSDKAgent": ".openai_agents_adapter"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
