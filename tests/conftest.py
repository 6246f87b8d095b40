"""Test-suite wide setup: shared builders importable as ``_builders``; judge cache off by default;
the loopback fake OpenAI server fixture (``server``) and the anyio backend of the judge tests;
LiteLLM (under DSPy and ADK) reads its bundled cost map instead of downloading one."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval_nb.testing import FakeOpenAIServer

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # nothing fetched at run time


@pytest.fixture(autouse=True)
def _isolated_cache_dir(tmp_path_factory, monkeypatch):
    """Keep the judge cache of every test in a temporary folder, never in the user's cache."""
    monkeypatch.setenv("AGENTEVAL_NB_CACHE_DIR", str(tmp_path_factory.mktemp("judge-cache")))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv
