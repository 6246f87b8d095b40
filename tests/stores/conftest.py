"""Fixtures: every store test runs against the in-memory and the local-file backend."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from agenteval_nb.stores import (
    EvalSetStore,
    InMemoryEvalSetStore,
    InMemoryMetricStore,
    InMemoryResultStore,
    LocalEvalSetStore,
    LocalMetricStore,
    LocalResultStore,
    MetricStore,
    ResultStore,
)

NOW = 1_700_000_000.25
"""What the fake clock says; stamped values must equal it."""


def fake_clock() -> float:
    return NOW


@dataclass
class Backend:
    kind: str
    evalsets: EvalSetStore
    metrics: MetricStore
    results: ResultStore
    base_dir: Path


def make_backend(kind: str, base_dir: Path) -> Backend:
    if kind == "memory":
        return Backend(
            kind,
            InMemoryEvalSetStore(clock=fake_clock),
            InMemoryMetricStore(),
            InMemoryResultStore(clock=fake_clock),
            base_dir,
        )
    return Backend(
        kind,
        LocalEvalSetStore(base_dir, clock=fake_clock),
        LocalMetricStore(base_dir),
        LocalResultStore(base_dir, clock=fake_clock),
        base_dir,
    )


@pytest.fixture(params=["memory", "local"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return make_backend(request.param, tmp_path / "store")


@pytest.fixture
def local(tmp_path: Path) -> Backend:
    return make_backend("local", tmp_path / "store")


@pytest.fixture
def now() -> float:
    """The fake clock's value."""
    return NOW
