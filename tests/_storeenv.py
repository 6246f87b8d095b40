"""Shared by the store tests: the fake clock and where a MariaDB/MySQL test server comes from."""

from __future__ import annotations

NOW = 1_700_000_000.25
"""What the fake clock says; stamped values must equal it."""

MYSQL_ENV = "AGENTEVAL_TEST_MYSQL_URL"
NO_MYSQL = f"no MariaDB/MySQL server given: set {MYSQL_ENV} (.ci/run starts one)"


def fake_clock() -> float:
    return NOW
