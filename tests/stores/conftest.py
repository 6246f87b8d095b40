"""Fixtures: every store test runs against each backend — memory, local files, SQLite, MariaDB.

The MariaDB/MySQL backend needs a server: set ``AGENTEVAL_TEST_MYSQL_URL`` (e.g.
``mysql+pymysql://user:pw@127.0.0.1:3306/agenteval_test``; ``.ci/run`` starts one and sets it).
Without it those tests skip, saying so. All of a session's tables there carry one random prefix;
each test starts from empty tables, and the tables are dropped at the end.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from _storeenv import MYSQL_ENV, NOW, fake_clock, mysql_url

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
    SQLEvalSetStore,
    SQLMetricStore,
    SQLResultStore,
)
from agenteval_nb.stores.sqlschema import build_tables

BACKENDS = ["memory", "local", "sqlite", "mysql"]
SQL_BACKENDS = ["sqlite", "mysql"]


@dataclass
class Backend:
    kind: str
    evalsets: EvalSetStore
    metrics: MetricStore
    results: ResultStore
    base_dir: Path

    @property
    def unique_keys(self) -> bool:
        """SQL backends enforce the Go tables' unique keys (no duplicate case ids/metric names)."""
        return self.kind in SQL_BACKENDS


def sql_url(kind: str, base_dir: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{base_dir / 'store.db'}"
    return mysql_url()


def make_backend(kind: str, base_dir: Path, table_prefix: str = "") -> Backend:
    if kind == "memory":
        return Backend(
            kind,
            InMemoryEvalSetStore(clock=fake_clock),
            InMemoryMetricStore(),
            InMemoryResultStore(clock=fake_clock),
            base_dir,
        )
    if kind in SQL_BACKENDS:
        url = sql_url(kind, base_dir)
        return Backend(
            kind,
            SQLEvalSetStore(url, table_prefix=table_prefix, clock=fake_clock),
            SQLMetricStore(url, table_prefix=table_prefix),
            SQLResultStore(url, table_prefix=table_prefix, clock=fake_clock),
            base_dir,
        )
    return Backend(
        kind,
        LocalEvalSetStore(base_dir, clock=fake_clock),
        LocalMetricStore(base_dir),
        LocalResultStore(base_dir, clock=fake_clock),
        base_dir,
    )


@pytest.fixture(scope="session")
def mysql_prefix() -> Iterator[str]:
    """A table prefix private to this test session on the shared server; tables dropped after."""
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield prefix
    url = os.environ.get(MYSQL_ENV)
    if url:
        engine = sa.create_engine(url)
        tables = build_tables(prefix)
        tables.metadata.drop_all(engine, checkfirst=True)
        engine.dispose()


def _empty_mysql_tables(prefix: str) -> None:
    engine = sa.create_engine(os.environ[MYSQL_ENV])
    try:
        with engine.begin() as conn:
            existing = set(sa.inspect(conn).get_table_names())
            for table in build_tables(prefix).metadata.sorted_tables:
                if table.name in existing:
                    conn.execute(table.delete())
    finally:
        engine.dispose()


@pytest.fixture
def sql_prefix(request: pytest.FixtureRequest) -> str:
    """The table prefix for a MySQL backend (emptied before the test); ``""`` elsewhere."""
    if not os.environ.get(MYSQL_ENV):
        return ""
    prefix = request.getfixturevalue("mysql_prefix")
    _empty_mysql_tables(prefix)
    return prefix


def open_backend(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Backend]:
    prefix = request.getfixturevalue("sql_prefix") if kind == "mysql" else ""
    backend = make_backend(kind, tmp_path / "store", prefix)
    yield backend
    for store in (backend.evalsets, backend.metrics, backend.results):
        store.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from open_backend(request.param, tmp_path, request)


@pytest.fixture(params=SQL_BACKENDS)
def sql_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from open_backend(request.param, tmp_path, request)


@pytest.fixture
def local(tmp_path: Path) -> Backend:
    return make_backend("local", tmp_path / "store")


@pytest.fixture
def now() -> float:
    """The fake clock's value."""
    return NOW
