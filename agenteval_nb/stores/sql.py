"""SQL stores on SQLAlchemy 2: SQLite embedded, MySQL / MariaDB shared with trpc-agent-go.

``SQLEvalSetStore(url, *, table_prefix="", skip_db_init=False)`` (likewise
``SQLMetricStore`` / ``SQLResultStore``) keeps the store contract of
:mod:`agenteval_nb.stores.base` in the tables of :mod:`agenteval_nb.stores.sqlschema`, the
layout of the Go MySQL managers, with their column semantics:

* an eval set row holds ``name`` (``""`` when the set has none), ``description`` and
  ``created_at`` = ``creationTimestamp``; other top-level keys of an eval set or a result are
  not stored (the Go tables have no column for them). Each case, metric, ``evalCaseResults``
  and ``summary`` is a JSON document written like the Go files (:func:`agenteval_nb.io.dumps`:
  ``apiKey`` is never stored) and read back with the file loaders (``${VAR}`` expansion of
  judge models included);
* cases and metrics come back in insertion order; ids are listed sorted;
* the seed's unique keys hold: a set cannot be saved with two cases of one ``evalId``, nor a
  metric list with two metrics of one name (``AlreadyExistsError``, nothing written), where the
  memory and file stores keep duplicates and look up the first; on MySQL the
  ``utf8mb4_unicode_ci`` collation also makes ids that differ only in letter case or trailing
  spaces collide (``AlreadyExistsError``), while lookups stay exact;
* ids and names are at most 255 characters of valid Unicode; ``creationTimestamp`` lies within
  MySQL ``TIMESTAMP`` (1970-01-01 00:00:01 … 2038-01-19 UTC) and is kept to the microsecond.

Every operation is one transaction: a failing write leaves nothing behind (no half-saved set),
and concurrent writers, threads or processes, lose nothing (row locks on MySQL, ``BEGIN
IMMEDIATE`` on SQLite, deadlocks retried). Tables are created on first use unless
``skip_db_init`` (then create them from ``schema.sql``). See :mod:`agenteval_nb.stores.sqldb`
for URLs (``${ENV}`` references) and how the password is kept out of reprs and errors.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Row

from .. import io
from ..io.reviews import Mark, merge_marks
from ..schema import EvalCase, EvalMetric, EvalSet, EvalSetResult
from . import rules
from .base import (
    CaseLike,
    EvalSetLike,
    EvalSetStore,
    MetricLike,
    MetricStore,
    ResultLike,
    ResultStore,
)
from .errors import (
    AlreadyExistsError,
    case_exists,
    case_not_found,
    evalset_exists,
    evalset_not_found,
    metric_exists,
    metric_not_found,
    result_not_found,
)
from .sqldb import Database, check_key, from_datetime, to_datetime
from .sqlschema import MARKED_AT_LENGTH, mark_key


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _decoded(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without ``None`` values (absent keys, as in the files)."""
    return {key: value for key, value in data.items() if value is not None}


class _SQLStore:
    """Database handle, clock, ``repr`` and ``close`` shared by the three SQL stores."""

    def __init__(
        self,
        url: str | URL,
        *,
        table_prefix: str = "",
        skip_db_init: bool = False,
        clock: rules.Clock | None = None,
    ) -> None:
        self._db = Database(url, table_prefix, skip_db_init)
        self._clock = clock if clock is not None else rules.system_clock
        self.table_prefix = table_prefix

    @property
    def url(self) -> str:
        """The database URL with the password masked."""
        return self._db.shown

    def _own_tables(self) -> builtins.list[sa.Table]:
        raise NotImplementedError

    def _run(self, operation: str, work: Any, *, write: bool = True, conflict: Any = None) -> Any:
        self._db.ensure(self._own_tables())
        return self._db.run(operation, work, write=write, conflict=conflict)

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.url!r}, table_prefix={self.table_prefix!r})"


class SQLEvalSetStore(_SQLStore, EvalSetStore):
    """Eval sets in ``evaluation_eval_sets`` and their cases in ``evaluation_eval_cases``.

    ``clock`` (Unix float seconds) is used for creation timestamps; default: the system clock.
    """

    def _own_tables(self) -> builtins.list[sa.Table]:
        return [self._db.tables.eval_sets, self._db.tables.eval_cases]

    # -- statements

    def _set_row(self, conn: Connection, app_name: str, eval_set_id: str, lock: bool) -> Row[Any]:
        sets = self._db.tables.eval_sets
        query = sa.select(sets).where(
            self._db.eq(sets.c.app_name, app_name), self._db.eq(sets.c.eval_set_id, eval_set_id)
        )
        row = conn.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise evalset_not_found(app_name, eval_set_id)
        return row

    def _case_filter(self, app_name: str, eval_set_id: str) -> list[sa.ColumnElement[bool]]:
        cases = self._db.tables.eval_cases
        return [
            self._db.eq(cases.c.app_name, app_name),
            self._db.eq(cases.c.eval_set_id, eval_set_id),
        ]

    def _read(self, conn: Connection, app_name: str, eval_set_id: str) -> EvalSet:
        row = self._set_row(conn, app_name, eval_set_id, lock=False)
        cases = self._db.tables.eval_cases
        texts = conn.execute(
            sa.select(cases.c.eval_case)
            .where(*self._case_filter(app_name, eval_set_id))
            .order_by(cases.c.id)
        ).scalars()
        data = {
            "evalSetId": row.eval_set_id,
            "name": row.name or None,
            "description": row.description or None,
            "evalCases": [_decoded(text) for text in texts],
            "creationTimestamp": from_datetime(row.created_at),
        }
        return io.load_evalset(_compact(data))

    def _case_values(self, app_name: str, eval_set_id: str, case: EvalCase) -> dict[str, Any]:
        now = _now()
        return {
            "app_name": app_name,
            "eval_set_id": eval_set_id,
            "eval_id": check_key(case.eval_id, "eval case id"),
            "eval_mode": case.eval_mode or "",
            "eval_case": self._db.document(case),
            "created_at": now,
            "updated_at": now,
        }

    # -- the interface

    def create(self, app_name: str, eval_set_id: str) -> EvalSet:
        check_key(app_name, "app name")
        check_key(eval_set_id, "eval set id")
        eval_set = rules.new_evalset(eval_set_id, self._clock)
        created = to_datetime(eval_set.creation_timestamp or 0.0)
        values = {
            "app_name": app_name,
            "eval_set_id": eval_set_id,
            "name": eval_set_id,
            "description": None,
            "created_at": created,
            "updated_at": _now(),
        }

        def work(conn: Connection) -> None:
            conn.execute(sa.insert(self._db.tables.eval_sets).values(values))

        self._run("create eval set", work, conflict=lambda: evalset_exists(app_name, eval_set_id))
        eval_set.creation_timestamp = from_datetime(created)
        return eval_set

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        return self._run(  # type: ignore[no-any-return]
            "get eval set", lambda conn: self._read(conn, app_name, eval_set_id), write=False
        )

    def list(self, app_name: str) -> builtins.list[str]:
        rules.require(app_name, "app name")
        sets = self._db.tables.eval_sets
        query = sa.select(sets.c.eval_set_id).where(self._db.eq(sets.c.app_name, app_name))
        ids = self._run("list eval sets", lambda c: c.execute(query).scalars().all(), write=False)
        return sorted(ids)

    def delete(self, app_name: str, eval_set_id: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        sets = self._db.tables.eval_sets

        def work(conn: Connection) -> None:
            conn.execute(
                sa.delete(self._db.tables.eval_cases).where(
                    *self._case_filter(app_name, eval_set_id)
                )
            )
            gone = conn.execute(
                sa.delete(sets).where(
                    self._db.eq(sets.c.app_name, app_name),
                    self._db.eq(sets.c.eval_set_id, eval_set_id),
                )
            )
            if gone.rowcount == 0:
                raise evalset_not_found(app_name, eval_set_id)

        self._run("delete eval set", work)

    def save(self, app_name: str, eval_set: EvalSetLike) -> EvalSet:
        check_key(app_name, "app name")
        stored = rules.prepare_evalset(eval_set, self._clock)
        set_id = check_key(stored.eval_set_id, "eval set id")
        name = check_key(stored.name, "eval set name") if stored.name else ""
        _unique([c.eval_id for c in stored.eval_cases or ()], f"eval set {set_id}", "evalId")
        rows = [self._case_values(app_name, set_id, case) for case in stored.eval_cases or ()]
        set_values = {
            "app_name": app_name,
            "eval_set_id": set_id,
            "name": name,
            "description": stored.description,
            "created_at": to_datetime(stored.creation_timestamp or 0.0),
            "updated_at": _now(),
        }
        sets = self._db.tables.eval_sets

        def work(conn: Connection) -> EvalSet:
            conn.execute(
                sa.delete(self._db.tables.eval_cases).where(*self._case_filter(app_name, set_id))
            )
            conn.execute(
                sa.delete(sets).where(
                    self._db.eq(sets.c.app_name, app_name), self._db.eq(sets.c.eval_set_id, set_id)
                )
            )
            conn.execute(sa.insert(sets).values(set_values))
            if rows:
                conn.execute(sa.insert(self._db.tables.eval_cases), rows)
            return self._read(conn, app_name, set_id)

        return self._run(  # type: ignore[no-any-return]
            "save eval set", work, conflict=lambda: _collides(f"eval set {app_name}.{set_id}")
        )

    def get_case(self, app_name: str, eval_set_id: str, eval_id: str) -> EvalCase:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(eval_id, "eval case id")
        cases = self._db.tables.eval_cases

        def work(conn: Connection) -> EvalCase:
            self._set_row(conn, app_name, eval_set_id, lock=False)
            text = conn.execute(
                sa.select(cases.c.eval_case).where(
                    *self._case_filter(app_name, eval_set_id),
                    self._db.eq(cases.c.eval_id, eval_id),
                )
            ).scalar()
            if text is None:
                raise case_not_found(app_name, eval_set_id, eval_id)
            return io.load_case(_decoded(text))

        return self._run("get eval case", work, write=False)  # type: ignore[no-any-return]

    def add_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> EvalCase:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_new_case(case, self._clock)
        values = self._case_values(app_name, eval_set_id, stored)

        def work(conn: Connection) -> None:
            self._set_row(conn, app_name, eval_set_id, lock=True)
            conn.execute(sa.insert(self._db.tables.eval_cases).values(values))

        self._run(
            "add eval case",
            work,
            conflict=lambda: case_exists(app_name, eval_set_id, stored.eval_id),
        )
        return io.load_case(_decoded(values["eval_case"]))

    def update_case(self, app_name: str, eval_set_id: str, case: CaseLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_case_update(case)
        values = self._case_values(app_name, eval_set_id, stored)
        cases = self._db.tables.eval_cases

        def work(conn: Connection) -> None:
            self._set_row(conn, app_name, eval_set_id, lock=True)
            changed = conn.execute(
                sa.update(cases)
                .where(
                    *self._case_filter(app_name, eval_set_id),
                    self._db.eq(cases.c.eval_id, stored.eval_id),
                )
                .values(
                    eval_mode=values["eval_mode"],
                    eval_case=values["eval_case"],
                    updated_at=values["updated_at"],
                )
            )
            if changed.rowcount == 0:
                raise case_not_found(app_name, eval_set_id, stored.eval_id)

        self._run("update eval case", work)

    def delete_case(self, app_name: str, eval_set_id: str, eval_id: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(eval_id, "eval case id")
        cases = self._db.tables.eval_cases

        def work(conn: Connection) -> None:
            self._set_row(conn, app_name, eval_set_id, lock=True)
            gone = conn.execute(
                sa.delete(cases).where(
                    *self._case_filter(app_name, eval_set_id),
                    self._db.eq(cases.c.eval_id, eval_id),
                )
            )
            if gone.rowcount == 0:
                raise case_not_found(app_name, eval_set_id, eval_id)

        self._run("delete eval case", work)


def _unique(ids: Sequence[str], where: str, key: str) -> None:
    """``AlreadyExistsError`` when ``ids`` repeats one (the seed's unique key)."""
    seen: set[str] = set()
    for item in ids:
        if item in seen:
            raise AlreadyExistsError(
                f"{where} has two entries with {key} {item!r}; the SQL stores keep them unique"
            )
        seen.add(item)


def _collides(what: str) -> AlreadyExistsError:
    return AlreadyExistsError(
        f"{what}: an id collides with a stored one (on MySQL ids that differ only in letter case "
        "or trailing spaces are the same key)"
    )


class SQLMetricStore(_SQLStore, MetricStore):
    """The metrics of each eval set in ``evaluation_metrics``, in insertion order.

    ``apiKey`` is not stored (metrics read back carry none); ``${VAR}`` references in
    ``judgeModel`` are expanded when metrics are read, as for metrics files.
    """

    def _own_tables(self) -> builtins.list[sa.Table]:
        return [self._db.tables.metrics]

    def _filter(self, app_name: str, eval_set_id: str) -> list[sa.ColumnElement[bool]]:
        metrics = self._db.tables.metrics
        return [
            self._db.eq(metrics.c.app_name, app_name),
            self._db.eq(metrics.c.eval_set_id, eval_set_id),
        ]

    def _values(self, app_name: str, eval_set_id: str, metric: EvalMetric) -> dict[str, Any]:
        now = _now()
        return {
            "app_name": check_key(app_name, "app name"),
            "eval_set_id": check_key(eval_set_id, "eval set id"),
            "metric_name": check_key(metric.metric_name, "metric name"),
            "metric": self._db.document(metric),
            "created_at": now,
            "updated_at": now,
        }

    def list(self, app_name: str, eval_set_id: str) -> builtins.list[str]:
        return [metric.metric_name for metric in self.get_all(app_name, eval_set_id)]

    def get(self, app_name: str, eval_set_id: str, metric_name: str) -> EvalMetric:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(metric_name, "metric name")
        metrics = self._db.tables.metrics
        query = sa.select(metrics.c.metric).where(
            *self._filter(app_name, eval_set_id), self._db.eq(metrics.c.metric_name, metric_name)
        )
        text = self._run("get metric", lambda c: c.execute(query).scalar(), write=False)
        if text is None:
            raise metric_not_found(app_name, eval_set_id, metric_name)
        return io.load_metrics([_decoded(text)])[0]

    def get_all(self, app_name: str, eval_set_id: str) -> builtins.list[EvalMetric]:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        metrics = self._db.tables.metrics
        query = (
            sa.select(metrics.c.metric)
            .where(*self._filter(app_name, eval_set_id))
            .order_by(metrics.c.id)
        )
        texts = self._run("list metrics", lambda c: c.execute(query).scalars().all(), write=False)
        return io.load_metrics([_decoded(text) for text in texts]) if texts else []

    def add(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_metric(metric)
        values = self._values(app_name, eval_set_id, stored)
        self._run(
            "add metric",
            lambda c: c.execute(sa.insert(self._db.tables.metrics).values(values)),
            conflict=lambda: metric_exists(app_name, eval_set_id, stored.metric_name),
        )

    def update(self, app_name: str, eval_set_id: str, metric: MetricLike) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = rules.prepare_metric(metric)
        values = self._values(app_name, eval_set_id, stored)
        metrics = self._db.tables.metrics
        statement = (
            sa.update(metrics)
            .where(
                *self._filter(app_name, eval_set_id),
                self._db.eq(metrics.c.metric_name, stored.metric_name),
            )
            .values(metric=values["metric"], updated_at=values["updated_at"])
        )

        def work(conn: Connection) -> None:
            if conn.execute(statement).rowcount == 0:
                raise metric_not_found(app_name, eval_set_id, stored.metric_name)

        self._run("update metric", work)

    def delete(self, app_name: str, eval_set_id: str, metric_name: str) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        rules.require(metric_name, "metric name")
        metrics = self._db.tables.metrics
        statement = sa.delete(metrics).where(
            *self._filter(app_name, eval_set_id), self._db.eq(metrics.c.metric_name, metric_name)
        )

        def work(conn: Connection) -> None:
            if conn.execute(statement).rowcount == 0:
                raise metric_not_found(app_name, eval_set_id, metric_name)

        self._run("delete metric", work)

    def save_all(self, app_name: str, eval_set_id: str, metrics: Iterable[MetricLike]) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_id, "eval set id")
        stored = [rules.copy_in(metric, EvalMetric) for metric in metrics]
        _unique([m.metric_name for m in stored], f"metrics of {app_name}.{eval_set_id}", "name")
        rows = [self._values(app_name, eval_set_id, metric) for metric in stored]
        table = self._db.tables.metrics

        def work(conn: Connection) -> None:
            conn.execute(sa.delete(table).where(*self._filter(app_name, eval_set_id)))
            if rows:
                conn.execute(sa.insert(table), rows)

        self._run(
            "save metrics", work, conflict=lambda: _collides(f"metrics of {app_name}.{eval_set_id}")
        )


class SQLResultStore(_SQLStore, ResultStore):
    """Results in ``evaluation_eval_set_results`` (case results and summary as JSON), their
    human marks in ``evaluation_reviews`` (one row per mark).

    ``save_marks`` locks the result's row, reads its marks, merges (the later timestamp wins
    per mark) and writes the marks that changed, in one transaction.
    ``clock`` (Unix float seconds) is used for the default ``creationTimestamp``.
    """

    def _own_tables(self) -> builtins.list[sa.Table]:
        return [self._db.tables.results, self._db.tables.reviews]

    def _filter(self, app_name: str, result_id: str) -> list[sa.ColumnElement[bool]]:
        results = self._db.tables.results
        return [
            self._db.eq(results.c.app_name, app_name),
            self._db.eq(results.c.eval_set_result_id, result_id),
        ]

    def save(self, app_name: str, result: ResultLike) -> str:
        check_key(app_name, "app name")
        stored = rules.prepare_result(app_name, result, self._clock)
        result_id = check_key(stored.eval_set_result_id or "", "eval set result id")
        values = {
            "app_name": app_name,
            "eval_set_result_id": result_id,
            "eval_set_id": check_key(stored.eval_set_id or "", "eval set id"),
            "eval_set_result_name": check_key(
                stored.eval_set_result_name or "", "eval set result name"
            ),
            "eval_case_results": (
                "null"
                if stored.eval_case_results is None
                else self._db.document(stored.eval_case_results)
            ),
            "summary": None if stored.summary is None else self._db.document(stored.summary),
            "created_at": to_datetime(stored.creation_timestamp or 0.0),
            "updated_at": _now(),
        }
        table = self._db.tables.results

        def work(conn: Connection) -> None:
            conn.execute(sa.delete(table).where(*self._filter(app_name, result_id)))
            conn.execute(sa.insert(table).values(values))

        self._run("save result", work, conflict=lambda: _collides(f"eval set result {result_id}"))
        return result_id

    def get(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        rules.require(app_name, "app name")
        rules.require(eval_set_result_id, "eval set result id")
        table = self._db.tables.results
        query = sa.select(table).where(*self._filter(app_name, eval_set_result_id))
        row = self._run("get result", lambda c: c.execute(query).first(), write=False)
        if row is None:
            raise result_not_found(app_name, eval_set_result_id)
        data = {
            "evalSetResultId": row.eval_set_result_id,
            "evalSetResultName": row.eval_set_result_name,
            "evalSetId": row.eval_set_id,
            "evalCaseResults": _decoded(row.eval_case_results),
            "summary": _decoded(row.summary),
            "creationTimestamp": from_datetime(row.created_at),
        }
        return io.load_result(_compact(data))

    def list(self, app_name: str) -> builtins.list[str]:
        rules.require(app_name, "app name")
        table = self._db.tables.results
        query = sa.select(table.c.eval_set_result_id).where(self._db.eq(table.c.app_name, app_name))
        ids = self._run("list results", lambda c: c.execute(query).scalars().all(), write=False)
        return sorted(ids)

    def _marks(
        self, conn: Connection, app_name: str, result_id: str, *, lock: bool
    ) -> builtins.list[Mark]:
        reviews = self._db.tables.reviews
        query = sa.select(reviews).where(
            self._db.eq(reviews.c.app_name, app_name),
            self._db.eq(reviews.c.eval_set_result_id, result_id),
        )
        rows = conn.execute(query.with_for_update() if lock else query)
        return sorted((_mark_of(row) for row in rows), key=lambda m: m.key)

    def save_marks(self, app_name: str, eval_set_result_id: str, marks: Iterable[Mark]) -> None:
        rules.require(app_name, "app name")
        rules.require(eval_set_result_id, "eval set result id")
        new = builtins.list(marks)
        reviews = self._db.tables.reviews
        result_row = (
            sa.select(self._db.tables.results.c.id)
            .where(*self._filter(app_name, eval_set_result_id))
            .with_for_update()
        )

        def work(conn: Connection) -> None:
            if conn.execute(result_row).first() is None:
                raise result_not_found(app_name, eval_set_result_id)
            old = {m.key: m for m in self._marks(conn, app_name, eval_set_result_id, lock=True)}
            for mark in merge_marks(old.values(), new):
                if old.get(mark.key) == mark:
                    continue
                values = _mark_values(app_name, eval_set_result_id, mark)
                if mark.key in old:
                    del values["created_at"]
                    conn.execute(
                        sa.update(reviews)
                        .where(reviews.c.mark_key == values["mark_key"])
                        .values(values)
                    )
                else:
                    conn.execute(sa.insert(reviews).values(values))

        self._run("save marks", work)

    def load_marks(self, app_name: str, eval_set_result_id: str) -> builtins.list[Mark]:
        rules.require(app_name, "app name")
        rules.require(eval_set_result_id, "eval set result id")
        return self._run(  # type: ignore[no-any-return]
            "load marks",
            lambda conn: self._marks(conn, app_name, eval_set_result_id, lock=False),
            write=False,
        )


def _mark_values(app_name: str, result_id: str, mark: Mark) -> dict[str, Any]:
    """The ``evaluation_reviews`` row of ``mark`` on a stored result (``ValueError`` when a
    field does not fit its column)."""
    if len(mark.timestamp) > MARKED_AT_LENGTH:
        raise ValueError(f"mark timestamp {mark.timestamp!r} is longer than {MARKED_AT_LENGTH}")
    now = _now()
    return {
        "mark_key": mark_key(app_name, result_id, mark.key),
        "app_name": check_key(app_name, "app name"),
        "eval_set_result_id": check_key(result_id, "eval set result id"),
        "eval_set_id": check_key(mark.eval_set_id, "eval set id") if mark.eval_set_id else "",
        "eval_id": check_key(mark.eval_id, "eval case id"),
        "run_id": mark.run_id,
        "metric": check_key(mark.metric, "metric name") if mark.metric else "",
        "mark": mark.mark,
        "note": mark.note,
        "reviewer": check_key(mark.reviewer, "reviewer"),
        "marked_at": mark.timestamp,
        "created_at": now,
        "updated_at": now,
    }


def _mark_of(row: Any) -> Mark:
    """The mark of an ``evaluation_reviews`` row."""
    return Mark(
        eval_set_id=row.eval_set_id,
        eval_id=row.eval_id,
        run_id=int(row.run_id),
        metric=row.metric or None,
        mark=row.mark,
        note=row.note,
        reviewer=row.reviewer,
        timestamp=row.marked_at,
    )
