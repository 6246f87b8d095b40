"""Agents under test: the agent protocol, Python-function agents, the OpenAI tool-calling agent,
tools (recorded, mockable) and the recorder (live turns → eval set)."""

from .base import Agent, AgentOutput, FunctionAgent, as_agent
from .openai_agent import AgentModelError, OpenAIAgent
from .tools import NOT_INTERCEPTED, ToolBox, ToolCallError, ToolSpec
from .turn import Turn

__all__ = [
    "NOT_INTERCEPTED",
    "Agent",
    "AgentModelError",
    "AgentOutput",
    "FunctionAgent",
    "OpenAIAgent",
    "ToolBox",
    "ToolCallError",
    "ToolSpec",
    "Turn",
    "as_agent",
]
