"""Agents under test: the agent protocol, Python-function agents, the OpenAI tool-calling agent,
tools (recorded, mockable) and the recorder (live turns → eval set)."""

from .base import Agent, AgentOutput, FunctionAgent, as_agent
from .recorder import RecordingAgent, record
from .recordings import RecorderError
from .tools import NOT_INTERCEPTED, ToolBox, ToolCallError, ToolSpec
from .turn import Turn

__all__ = [
    "NOT_INTERCEPTED",
    "Agent",
    "AgentOutput",
    "FunctionAgent",
    "RecorderError",
    "RecordingAgent",
    "ToolBox",
    "ToolCallError",
    "ToolSpec",
    "Turn",
    "as_agent",
    "record",
]
