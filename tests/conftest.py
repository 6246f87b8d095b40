"""Test-suite wide setup: shared builders importable as ``_builders``; judge cache off by default."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _isolated_cache_dir(tmp_path_factory, monkeypatch):
    """Keep the judge cache of every test in a temporary folder, never in the user's cache."""
    monkeypatch.setenv("AGENTEVAL_NB_CACHE_DIR", str(tmp_path_factory.mktemp("judge-cache")))
