"""Shared by the store tests: the fake clock and where a MariaDB/MySQL test server comes from."""

from __future__ import annotations

import os

import pytest

NOW = 1_700_000_000.25
"""What the fake clock says; stamped values must equal it."""

MYSQL_ENV = "AGENTEVAL_TEST_MYSQL_URL"
NO_MYSQL = f"no MariaDB/MySQL server given: set {MYSQL_ENV} (.ci/run starts one)"
REQUIRE_MYSQL_ENV = "AGENTEVAL_REQUIRE_MYSQL"
"""Set by .ci/run: a missing server fails the MySQL tests instead of skipping them."""


def mysql_url() -> str:
    """The test server's URL; skips the test (fails it under .ci/run) when none is given."""
    url = os.environ.get(MYSQL_ENV)
    if not url:
        if os.environ.get(REQUIRE_MYSQL_ENV):
            pytest.fail(f"{REQUIRE_MYSQL_ENV} is set but {MYSQL_ENV} is not (.ci/run)")
        pytest.skip(NO_MYSQL)
    return url


def fake_clock() -> float:
    return NOW
