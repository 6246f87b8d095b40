"""The SQL tables of the eval-set, metric and result stores, declared once.

The layout is the trpc-agent-go MySQL managers' ``schema.sql`` (``evaluation/evalset/mysql``,
``evaluation/metric/mysql``, ``evaluation/evalresult/mysql``), so a Go service and a notebook
can share one database:

* ``evaluation_eval_sets`` (one row per set: ``name``, ``description``, ``created_at`` =
  ``creationTimestamp``) and ``evaluation_eval_cases`` (one row per case, the case as a JSON
  document in ``eval_case``; the cases of a set are returned in insertion order, ``ORDER BY id``);
* ``evaluation_metrics`` (one row per metric, the metric as JSON, in insertion order);
* ``evaluation_eval_set_results`` (``eval_case_results`` and ``summary`` as JSON);
* ``evaluation_reviews``, this package's own (the Go framework neither reads nor writes it):
  one row per human mark of a stored result, keyed by (app, result id, eval set id, eval id,
  run id, metric — ``""`` for the whole case result). That key is too long for a MySQL index,
  so ``mark_key`` holds its SHA-256 (:func:`mark_key`) under the unique key
  ``uniq_reviews_mark_key``; ``marked_at`` is the mark's timestamp as written in review files.

Every table has an auto-increment ``id``, ``created_at`` / ``updated_at`` ``TIMESTAMP(6)``
columns and the seed's unique keys: ``(app_name, eval_set_id)`` for sets, ``(app_name,
eval_set_id, eval_id)`` for cases, ``(app_name, eval_set_id, metric_name)`` for metrics,
``(app_name, eval_set_result_id)`` for results. Table names carry the prefix (``"trpc"`` and
``"trpc_"`` both give ``trpc_evaluation_…``, as in Go).

:func:`build_tables` is the one declaration; :func:`create_statements` renders it as DDL for a
dialect: the statements run when a store initialises its tables, and ``schema.sql`` (shipped
next to this module for DBAs, ``{{PREFIX}}`` in table names) is the MySQL rendering
(``python -m agenteval_nb.stores.sqlschema > schema.sql`` regenerates it; a test keeps the
two equal).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Dialect
from sqlalchemy.schema import CreateIndex, CreateTable

SCHEMA_FILE = Path(__file__).with_name("schema.sql")
"""The MySQL DDL with ``{{PREFIX}}`` in table names, for DBAs (``skip_db_init=True``)."""

PREFIX_PLACEHOLDER = "{{PREFIX}}"
ID_LENGTH = 255
"""``VARCHAR(255)``: the longest app name, eval set / case / result id or metric name."""
MARKED_AT_LENGTH = 32
"""``VARCHAR(32)``: the longest mark timestamp (``2026-01-01T00:00:00.000000Z`` is 27)."""

_PREFIX = re.compile(r"[A-Za-z0-9_]*")


def normalize_prefix(prefix: str) -> str:
    """``"trpc"`` and ``"trpc_"`` ⇒ ``"trpc_"``; ``""`` stays empty.

    Only letters, digits and ``_`` are allowed (``ValueError`` otherwise): the prefix becomes
    part of SQL identifiers.
    """
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(f"table prefix {prefix!r} may only hold letters, digits and '_'")
    return prefix if not prefix or prefix.endswith("_") else prefix + "_"


class JSONDocument(sa.types.TypeDecorator[str]):
    """A JSON document passed as text: ``JSON`` in MySQL/MariaDB DDL, ``TEXT`` elsewhere.

    The stores encode and decode the documents themselves (:func:`agenteval_nb.io.dumps` and the
    loaders), so no driver-side JSON conversion happens; a driver returning bytes is decoded as
    UTF-8.
    """

    impl = sa.Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "mysql":
            return dialect.type_descriptor(_MySQLJSONText())
        return dialect.type_descriptor(sa.Text())

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value).decode("utf-8")
        return value


class _MySQLJSONText(sa.types.UserDefinedType[str]):
    """The MySQL ``JSON`` column type without SQLAlchemy's own (de)serialisation."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "JSON"


@dataclass(frozen=True)
class Tables:
    """The tables of one prefix, bound to one :class:`sqlalchemy.MetaData`."""

    metadata: sa.MetaData
    eval_sets: sa.Table
    eval_cases: sa.Table
    metrics: sa.Table
    results: sa.Table
    reviews: sa.Table


def _timestamps(dialect_name: str) -> list[sa.Column[Any]]:
    """``created_at`` / ``updated_at``: ``TIMESTAMP(6)`` defaulting to now (MySQL also updates
    ``updated_at`` on every change); the stores always write both explicitly."""
    if dialect_name == "mysql":
        kind: sa.types.TypeEngine[Any] = mysql.TIMESTAMP(fsp=6)
        now = "CURRENT_TIMESTAMP(6)"
        on_update = f"{now} ON UPDATE {now}"
    else:
        kind, now, on_update = sa.DateTime(), "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"
    return [
        sa.Column("created_at", kind, nullable=False, server_default=sa.text(now)),
        sa.Column("updated_at", kind, nullable=False, server_default=sa.text(on_update)),
    ]


def _row_id() -> sa.Column[int]:
    # SQLite only auto-increments an INTEGER PRIMARY KEY (BIGINT would not alias the rowid).
    kind = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    return sa.Column("id", kind, primary_key=True, autoincrement=True)


def _key(name: str) -> sa.Column[str]:
    return sa.Column(name, sa.String(ID_LENGTH), nullable=False)


_TABLE_OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_unicode_ci",
}


def build_tables(prefix: str = "", dialect_name: str = "mysql") -> Tables:
    """The tables named with ``prefix`` (normalised, see :func:`normalize_prefix`).

    ``dialect_name`` only changes column defaults that other databases cannot express (MySQL's
    ``ON UPDATE CURRENT_TIMESTAMP(6)``); names, columns and keys are the same everywhere.
    """
    prefix = normalize_prefix(prefix)
    md = sa.MetaData()
    eval_sets = sa.Table(
        f"{prefix}evaluation_eval_sets",
        md,
        _row_id(),
        _key("app_name"),
        _key("eval_set_id"),
        _key("name"),
        sa.Column("description", sa.Text(), nullable=True, server_default=sa.text("NULL")),
        *_timestamps(dialect_name),
        sa.UniqueConstraint("app_name", "eval_set_id", name="uniq_eval_sets_app_eval_set"),
        sa.Index("idx_eval_sets_app_created", "app_name", "created_at"),
        **_TABLE_OPTIONS,
    )
    eval_cases = sa.Table(
        f"{prefix}evaluation_eval_cases",
        md,
        _row_id(),
        _key("app_name"),
        _key("eval_set_id"),
        _key("eval_id"),
        sa.Column("eval_mode", sa.String(32), nullable=False, server_default=""),
        sa.Column("eval_case", JSONDocument(), nullable=False),
        *_timestamps(dialect_name),
        sa.UniqueConstraint(
            "app_name", "eval_set_id", "eval_id", name="uniq_eval_cases_app_set_case"
        ),
        sa.Index("idx_eval_cases_app_set_order", "app_name", "eval_set_id", "id"),
        **_TABLE_OPTIONS,
    )
    metrics = sa.Table(
        f"{prefix}evaluation_metrics",
        md,
        _row_id(),
        _key("app_name"),
        _key("eval_set_id"),
        _key("metric_name"),
        sa.Column("metric", JSONDocument(), nullable=False),
        *_timestamps(dialect_name),
        sa.UniqueConstraint(
            "app_name", "eval_set_id", "metric_name", name="uniq_metrics_app_set_name"
        ),
        sa.Index("idx_metrics_app_set", "app_name", "eval_set_id"),
        **_TABLE_OPTIONS,
    )
    results = sa.Table(
        f"{prefix}evaluation_eval_set_results",
        md,
        _row_id(),
        _key("app_name"),
        _key("eval_set_result_id"),
        _key("eval_set_id"),
        _key("eval_set_result_name"),
        sa.Column("eval_case_results", JSONDocument(), nullable=False),
        sa.Column("summary", JSONDocument(), nullable=True, server_default=sa.text("NULL")),
        *_timestamps(dialect_name),
        sa.UniqueConstraint("app_name", "eval_set_result_id", name="uniq_results_app_result_id"),
        sa.Index("idx_results_app_set_created", "app_name", "eval_set_id", "created_at"),
        **_TABLE_OPTIONS,
    )
    reviews = sa.Table(
        f"{prefix}evaluation_reviews",
        md,
        _row_id(),
        sa.Column("mark_key", sa.String(64), nullable=False),
        _key("app_name"),
        _key("eval_set_result_id"),
        _key("eval_set_id"),
        _key("eval_id"),
        sa.Column("run_id", sa.BigInteger(), nullable=False),
        sa.Column("metric", sa.String(ID_LENGTH), nullable=False, server_default=""),
        sa.Column("mark", sa.String(16), nullable=False),
        sa.Column("note", sa.Text(), nullable=True, server_default=sa.text("NULL")),
        _key("reviewer"),
        sa.Column("marked_at", sa.String(MARKED_AT_LENGTH), nullable=False),
        *_timestamps(dialect_name),
        sa.UniqueConstraint("mark_key", name="uniq_reviews_mark_key"),
        sa.Index("idx_reviews_app_result", "app_name", "eval_set_result_id"),
        **_TABLE_OPTIONS,
    )
    return Tables(md, eval_sets, eval_cases, metrics, results, reviews)


def mark_key(app_name: str, eval_set_result_id: str, key: tuple[str, str, int, str]) -> str:
    """The ``mark_key`` of a mark with ``key`` (eval set id, eval id, run id, metric or ``""``)
    on a stored result: the SHA-256 of all six, hex."""
    text = json.dumps([app_name, eval_set_result_id, *key], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mysql_create(table: sa.Table, dialect: Dialect) -> str:
    """``CREATE TABLE IF NOT EXISTS`` with the indexes inline (``KEY name (cols)``), as the
    seed writes them: MySQL has no ``CREATE INDEX IF NOT EXISTS``, so this one statement is
    idempotent and safe when several processes initialise at once."""
    preparer = dialect.identifier_preparer
    text = str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)).strip()
    head, _, options = text.rpartition("\n)")
    keys = [
        f"\tKEY {preparer.quote(index.name or '')} "
        f"({', '.join(preparer.quote(c.name) for c in index.columns)})"
        for index in sorted(table.indexes, key=lambda i: i.name or "")
    ]
    return head + ", \n" + ", \n".join(keys) + "\n)" + options


def create_statements(tables: list[sa.Table], dialect: Dialect) -> list[str]:
    """The idempotent DDL creating ``tables`` (and their indexes) on ``dialect``."""
    if dialect.name == "mysql":
        return [_mysql_create(table, dialect) for table in tables]
    statements: list[str] = []
    for table in tables:
        statements.append(str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)))
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            statements.append(str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect)))
    return [s.strip() for s in statements]


def mysql_schema_sql() -> str:
    """The text of ``schema.sql``: the MySQL DDL of every table, ``{{PREFIX}}`` as prefix."""
    marker = "zzprefixzz_"
    tables = build_tables(marker, "mysql")
    all_tables = [
        tables.eval_sets,
        tables.eval_cases,
        tables.metrics,
        tables.results,
        tables.reviews,
    ]
    body = ";\n\n".join(create_statements(all_tables, mysql.dialect()))
    header = (
        "-- agenteval_nb SQL stores: the trpc-agent-go MySQL evaluation schema.\n"
        "-- Generated by `python -m agenteval_nb.stores.sqlschema`, do not edit by hand.\n"
        "-- The stores create these tables on first use unless skip_db_init=True.\n"
        "-- Replace {{PREFIX}} with the table prefix (e.g. trpc_), or with nothing.\n\n"
    )
    return header + body.replace(marker, PREFIX_PLACEHOLDER) + ";\n"


if __name__ == "__main__":
    sys.stdout.write(mysql_schema_sql())
