"""Connections for the SQL stores: URL handling, engines, transactions, errors.

* URLs are SQLAlchemy URLs (``sqlite:///path.db``, ``mysql+pymysql://user:pw@host:3306/db``).
  ``${NAME}`` is replaced by the environment variable ``NAME`` before the URL is parsed (an unset
  variable is a ``ValueError``; a bare ``$`` is left alone, so passwords may contain it).
* The password is registered with :mod:`agenteval_nb.secrets` and never shown: reprs use the
  URL with ``***``, and database errors become :class:`~agenteval_nb.stores.errors.
  StoreBackendError` with a redacted message and no chained driver exception.
* SQLite: WAL journal, a 30 s busy timeout, and write transactions started with
  ``BEGIN IMMEDIATE``, so concurrent writers (threads or processes) queue instead of failing.
  The folder of a database file is created. ``sqlite://`` (in memory) is one connection shared
  by the store's threads, one transaction at a time.
* MySQL / MariaDB: sessions use ``time_zone = '+00:00'`` (``TIMESTAMP`` columns hold UTC) and
  ``utf8mb4``; a transaction that hits a deadlock or a lock wait timeout is retried.
* Timestamps: Unix float seconds ⇄ naive UTC ``datetime`` with microseconds, the precision of
  ``TIMESTAMP(6)``; values outside MySQL's ``TIMESTAMP`` range are a ``ValueError`` on every
  backend, so SQLite accepts exactly what MySQL accepts.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from .. import io
from ..secrets import redact, register_secret
from . import rules
from .errors import StoreBackendError
from .sqlschema import ID_LENGTH, Tables, build_tables, create_statements

T = TypeVar("T")

_ENV_REF = re.compile(r"\$\{([^}]*)\}")
_EPOCH = datetime(1970, 1, 1)
_US = timedelta(microseconds=1)
MIN_TIMESTAMP = 1.0
"""MySQL ``TIMESTAMP``: from 1970-01-01 00:00:01 UTC …"""
MAX_TIMESTAMP = 2**31 - 1 + 0.999999
"""… to 2038-01-19 03:14:07.999999 UTC."""
_RETRIES = 8
_MYSQL_TRANSIENT = frozenset({1205, 1213})  # lock wait timeout, deadlock


def expand_url(url: str) -> str:
    """``url`` with every ``${NAME}`` replaced by the environment value."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if found is None:
            raise ValueError(f"the database URL refers to ${{{name}}}, which is not set")
        return found

    return _ENV_REF.sub(value, url)


def parse_url(url: str | URL) -> URL:
    """The SQLAlchemy URL of ``url`` (``${NAME}`` expanded); its password is registered as a
    secret. A malformed URL is a ``ValueError`` that does not quote it."""
    if isinstance(url, URL):
        parsed = url
    else:
        try:
            parsed = sa.make_url(expand_url(url))
        except ArgumentError:
            raise ValueError(
                "not a database URL (expected e.g. sqlite:///evals.db or "
                "mysql+pymysql://user:password@host:3306/dbname)"
            ) from None
    register_secret(parsed.password if isinstance(parsed.password, str) else None)
    return parsed


def shown_url(url: URL) -> str:
    """``url`` as text with the password masked."""
    return url.render_as_string(hide_password=True)


def to_datetime(seconds: float) -> datetime:
    """Unix float seconds ⇒ naive UTC datetime, rounded to microseconds."""
    if not MIN_TIMESTAMP <= seconds <= MAX_TIMESTAMP:
        raise ValueError(
            f"creationTimestamp {seconds!r} is outside what the SQL stores hold "
            "(TIMESTAMP: 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC)"
        )
    return _EPOCH + timedelta(microseconds=round(seconds * 1e6))


def from_datetime(value: datetime) -> float:
    """A stored timestamp (naive UTC, or aware) ⇒ Unix float seconds."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return ((value - _EPOCH) // _US) / 1e6


def check_key(value: str, what: str) -> str:
    """``value`` if it fits a ``VARCHAR(255)`` key column; else ``ValueError``.

    Empty, longer than 255 characters, or not encodable as UTF-8 (a lone surrogate) are
    refused on every backend, as MySQL would refuse them.
    """
    rules.require(value, what)
    if len(value) > ID_LENGTH:
        raise ValueError(f"{what} is longer than {ID_LENGTH} characters ({len(value)})")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} {value!r} is not valid Unicode text") from None
    return value


_DATABASES: weakref.WeakSet[Database] = weakref.WeakSet()


def _forget_pools_after_fork() -> None:
    # A forked child must not reuse the parent's connections (SQLAlchemy's pooling advice).
    for database in list(_DATABASES):
        database.engine.dispose(close=False)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_after_fork)


class Database:
    """One engine and the tables of one prefix; runs transactions with retries."""

    def __init__(self, url: str | URL, table_prefix: str, skip_db_init: bool) -> None:
        self.url = parse_url(url)
        self.shown = shown_url(self.url)
        self.engine = _make_engine(self.url, self.shown)
        self.dialect = self.engine.dialect.name
        self.tables: Tables = build_tables(table_prefix, self.dialect)
        self.skip_db_init = skip_db_init
        self._initialised: set[str] = set()
        self._init_lock = threading.Lock()
        memory = self.dialect == "sqlite" and self.url.database in (None, "", ":memory:")
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if memory else contextlib.nullcontext()
        )
        _DATABASES.add(self)

    def ensure(self, tables: list[sa.Table]) -> None:
        """Create ``tables`` if missing (once per store; nothing when ``skip_db_init``)."""
        if self.skip_db_init:
            return
        names = [t.name for t in tables]
        with self._init_lock:
            if all(name in self._initialised for name in names):
                return
            with self._errors("creating tables"), self._serial, self.engine.begin() as conn:
                for statement in create_statements(tables, self.engine.dialect):
                    conn.exec_driver_sql(statement)
            self._initialised.update(names)

    def document(self, model: Any) -> str:
        """The JSON text stored for ``model``: :func:`agenteval_nb.io.dumps` (Go encoding, no
        ``apiKey``). MySQL JSON columns only hold valid Unicode, so there a lone surrogate
        (half an emoji) becomes U+FFFD, as Go's encoder writes invalid UTF-8, with a warning."""
        text = io.dumps(model)
        if self.dialect != "mysql" or "\\ud" not in text.lower():
            return text
        data = json.loads(text)
        cleaned = _replace_surrogates(data)
        if cleaned == data:
            return text
        warnings.warn(
            "lone surrogates replaced by U+FFFD: MySQL JSON columns hold valid Unicode only",
            stacklevel=4,
        )
        return json.dumps(cleaned, ensure_ascii=False)

    def eq(self, column: sa.ColumnElement[str], value: str) -> sa.ColumnElement[bool]:
        """``column = value`` compared exactly.

        MySQL compares the seed's ``utf8mb4_unicode_ci`` columns ignoring case and trailing
        spaces; the binary comparison added here keeps ``"Math"`` from matching ``"math"``
        while the index still serves the first condition.
        """
        if self.dialect == "mysql":
            return sa.and_(column == value, column == sa.literal(value).collate("utf8mb4_bin"))
        return column == value

    def run(
        self,
        operation: str,
        work: Callable[[Connection], T],
        *,
        write: bool = True,
        conflict: Callable[[], Exception] | None = None,
    ) -> T:
        """``work(conn)`` in one transaction: committed when it returns, rolled back when it
        raises. Deadlocks and busy databases are retried; a unique-key violation raises
        ``conflict()`` (an ``AlreadyExistsError``); other driver errors become
        :class:`StoreBackendError`."""
        for attempt in range(_RETRIES):
            try:
                with (
                    self._errors(operation, conflict),
                    self._serial,
                    self.engine.connect() as plain,
                ):
                    conn = plain.execution_options(agenteval_write=write)
                    with conn.begin():
                        return work(conn)
            except _Transient:
                time.sleep(min(0.02 * 2**attempt, 0.5))
        raise StoreBackendError(f"{operation} on {self.shown}: gave up after {_RETRIES} retries")

    @contextlib.contextmanager
    def _errors(
        self, operation: str, conflict: Callable[[], Exception] | None = None
    ) -> Iterator[None]:
        try:
            yield
        except IntegrityError as exc:
            if conflict is None:
                raise StoreBackendError(self._message(operation, exc)) from None
            raise conflict() from None
        except DBAPIError as exc:
            if self._transient(exc):
                raise _Transient from None
            raise StoreBackendError(self._message(operation, exc)) from None
        except NoSuchModuleError:
            raise StoreBackendError(
                f"{operation} on {self.shown}: no SQLAlchemy dialect for this URL"
            ) from None

    def _transient(self, exc: DBAPIError) -> bool:
        orig = exc.orig
        if self.dialect == "mysql":
            code = orig.args[0] if orig is not None and orig.args else None
            return code in _MYSQL_TRANSIENT
        text = str(orig).lower()
        return "database is locked" in text or "database is busy" in text

    def _message(self, operation: str, exc: DBAPIError) -> str:
        orig = exc.orig if exc.orig is not None else exc
        detail = f"{type(orig).__name__}: {orig}"
        hint = ""
        if self.skip_db_init and re.search(r"doesn't exist|no such table", detail, re.I):
            hint = " (skip_db_init=True: create the tables from agenteval_nb/stores/schema.sql)"
        return redact(f"{operation} on {self.shown}: {detail}{hint}", self.url.password)

    def close(self) -> None:
        self.engine.dispose()


def _replace_surrogates(value: Any) -> Any:
    """``value`` (plain JSON data) with every lone surrogate in a string replaced by U+FFFD."""
    if isinstance(value, str):
        return io.utf8_safe(value)
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


class _Transient(Exception):
    """A deadlock / busy database: the transaction is retried."""


def _make_engine(url: URL, shown: str) -> Engine:
    backend = url.get_backend_name()
    options: dict[str, Any] = {}
    try:
        if backend == "sqlite":
            memory = url.database in (None, "", ":memory:")
            if memory:
                options = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
            else:
                Path(url.database or "").expanduser().parent.mkdir(parents=True, exist_ok=True)
                options = {"connect_args": {"timeout": 30, "check_same_thread": False}}
            engine = sa.create_engine(url, **options)
            _sqlite_events(engine, memory)
        elif backend in ("mysql", "mariadb"):
            if "charset" not in url.query:
                url = url.update_query_dict({"charset": "utf8mb4"})
            engine = sa.create_engine(url, pool_pre_ping=True, pool_recycle=3600)
            event.listen(engine, "connect", _mysql_session)
        else:
            engine = sa.create_engine(url)
    except NoSuchModuleError:
        raise ValueError(f"no SQLAlchemy dialect for {shown}") from None
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"{shown} needs the {exc.name!r} driver: pip install 'agenteval_nb[mysql]' "
            "(PyMySQL) for mysql+pymysql:// URLs"
        ) from None
    except ArgumentError as exc:
        raise ValueError(redact(f"invalid database URL {shown}: {exc}", url.password)) from None
    return engine


def _sqlite_events(engine: Engine, memory: bool) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi_conn.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("agenteval_write", True)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _mysql_session(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("SET time_zone = '+00:00'")
    cursor.close()
