"""Agents under test: the agent protocol, Python-function agents, the OpenAI tool-calling agent,
tools (recorded, mockable), tool mocks, simulated users and the recorder (live turns → eval
set)."""

from .base import Agent, AgentOutput, FunctionAgent, as_agent
from .openai_agent import AgentModelError, OpenAIAgent
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
    "ToolBox",
    "ToolCallError",
    "ToolMockError",
    "ToolSpec",
    "Turn",
    "as_agent",
]
