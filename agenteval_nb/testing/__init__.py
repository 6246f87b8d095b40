"""Test helpers: a loopback OpenAI-compatible server (and, later, an offline judge)."""

from .fake_server import FakeOpenAIServer, FakeResponse, completion

__all__ = ["FakeOpenAIServer", "FakeResponse", "completion"]
