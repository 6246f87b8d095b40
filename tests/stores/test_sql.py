"""What only the SQL stores promise: the Go tables, transactions, processes, URLs and secrets.

Each test runs on SQLite and on MariaDB/MySQL (skipped, with the reason, without
``AGENTEVAL_TEST_MYSQL_URL``); the store-contract tests of the other files run on both too.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import socket
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case
from _storeenv import fake_clock, mysql_url

import agenteval_nb as ae
from agenteval_nb.schema import EvalSet
from agenteval_nb.stores import (
    AlreadyExistsError,
    NotFoundError,
    SQLEvalSetStore,
    SQLMetricStore,
    SQLResultStore,
    StoreBackendError,
)
from agenteval_nb.stores.sqlschema import SCHEMA_FILE, build_tables, mysql_schema_sql

SECRET = "pw-Xq9!never-shown"


def _engine(backend) -> sa.Engine:
    return backend.evalsets._db.engine  # type: ignore[attr-defined]


def _tables(backend):
    return backend.evalsets._db.tables  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- schema


def test_shipped_schema_sql_is_generated_from_the_table_definitions():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == mysql_schema_sql()


def test_schema_sql_has_the_seed_tables_and_keys():
    text = mysql_schema_sql()
    for table in (
        "evaluation_eval_sets",
        "evaluation_eval_cases",
        "evaluation_metrics",
        "evaluation_eval_set_results",
    ):
        assert f"CREATE TABLE IF NOT EXISTS {{{{PREFIX}}}}{table} (" in text
    for key in (
        "CONSTRAINT uniq_eval_sets_app_eval_set UNIQUE (app_name, eval_set_id)",
        "KEY idx_eval_sets_app_created (app_name, created_at)",
        "CONSTRAINT uniq_eval_cases_app_set_case UNIQUE (app_name, eval_set_id, eval_id)",
        "KEY idx_eval_cases_app_set_order (app_name, eval_set_id, id)",
        "CONSTRAINT uniq_metrics_app_set_name UNIQUE (app_name, eval_set_id, metric_name)",
        "CONSTRAINT uniq_results_app_result_id UNIQUE (app_name, eval_set_result_id)",
        "eval_mode VARCHAR(32) NOT NULL DEFAULT ''",
        "eval_case JSON NOT NULL",
        "updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE "
        "CURRENT_TIMESTAMP(6)",
        "ENGINE=InnoDB CHARSET=utf8mb4 COLLATE utf8mb4_unicode_ci",
    ):
        assert key in text


@pytest.mark.parametrize(("prefix", "table"), [("trpc", "trpc_"), ("trpc_", "trpc_"), ("", "")])
def test_table_prefix_gets_its_underscore(prefix, table):
    assert build_tables(prefix).eval_sets.name == f"{table}evaluation_eval_sets"


def test_table_prefix_must_be_an_identifier(tmp_path):
    with pytest.raises(ValueError, match="table prefix"):
        SQLEvalSetStore(f"sqlite:///{tmp_path}/x.db", table_prefix="x; DROP TABLE y")


def test_tables_are_created_with_the_prefix(tmp_path):
    url = f"sqlite:///{tmp_path}/p.db"
    with SQLEvalSetStore(url, table_prefix="trpc") as store:
        store.create("app", "s")
    engine = sa.create_engine(url)
    names = set(sa.inspect(engine).get_table_names())
    engine.dispose()
    assert names == {"trpc_evaluation_eval_sets", "trpc_evaluation_eval_cases"}


def test_skip_db_init_needs_the_tables_and_says_where_they_are(sql_backend, sql_prefix):
    url = str(_engine(sql_backend).url.render_as_string(hide_password=False))
    prefix = sql_prefix + "skip" if sql_prefix else "skip"
    store = SQLEvalSetStore(url, table_prefix=prefix, skip_db_init=True)
    with pytest.raises(StoreBackendError, match=r"schema\.sql"):
        store.list("app")
    # a DBA creates them (here from the shipped file on MySQL, from the definitions on SQLite)
    engine = _engine(sql_backend)
    tables = build_tables(prefix, engine.dialect.name)
    try:
        with engine.begin() as conn:
            if engine.dialect.name == "mysql":
                ddl = SCHEMA_FILE.read_text(encoding="utf-8").replace("{{PREFIX}}", prefix + "_")
                lines = [line for line in ddl.splitlines() if not line.startswith("--")]
                for statement in "\n".join(lines).split(";"):
                    if statement.strip():
                        conn.exec_driver_sql(statement)
            else:
                tables.metadata.create_all(conn)
        store.create("app", "s")
        assert store.list("app") == ["s"]
    finally:
        store.close()
        tables.metadata.drop_all(engine)


# ------------------------------------------------------------------- Go compatibility


def test_rows_written_the_way_go_writes_them_read_back(sql_backend):
    """The Go manager inserts without timestamps (column defaults) and marshals cases itself."""
    sql_backend.evalsets.list("app")  # creates the tables
    tables = _tables(sql_backend)
    case = {"evalId": "go-case", "evalMode": "trace", "actualConversation": [{"invocationId": "i"}]}
    with _engine(sql_backend).begin() as conn:
        conn.execute(
            sa.insert(tables.eval_sets).values(
                app_name="app", eval_set_id="from-go", name="from-go", description=""
            )
        )
        conn.execute(
            sa.insert(tables.eval_cases).values(
                app_name="app",
                eval_set_id="from-go",
                eval_id="go-case",
                eval_mode="trace",
                eval_case=json.dumps(case),
            )
        )
    got = sql_backend.evalsets.get("app", "from-go")
    assert got.name == "from-go" and got.description is None
    assert got.creation_timestamp is not None and got.creation_timestamp > 1.7e9
    assert [c.eval_id for c in got.eval_cases] == ["go-case"]
    assert got.eval_cases[0].is_trace


def test_rows_written_here_have_the_go_column_semantics(sql_backend, now):
    sql_backend.evalsets.create("app", "s")
    sql_backend.evalsets.add_case("app", "s", {"evalId": "b", "evalMode": "trace"})
    sql_backend.evalsets.add_case("app", "s", {"evalId": "a"})
    metric = {
        "metricName": "judge",
        "threshold": 1,
        "criterion": {
            "llmJudge": {"judgeModel": {"modelName": "m", "apiKey": "sk-stored-nowhere-123"}}
        },
    }
    sql_backend.metrics.add("app", "s", metric)
    sql_backend.results.save("app", {"evalSetId": "s", "evalSetResultId": "r", "summary": {}})
    tables = _tables(sql_backend)
    with _engine(sql_backend).connect() as conn:
        set_row = conn.execute(sa.select(tables.eval_sets)).one()
        cases = conn.execute(
            sa.select(tables.eval_cases.c.eval_id, tables.eval_cases.c.eval_mode)
            .add_columns(tables.eval_cases.c.eval_case)
            .order_by(tables.eval_cases.c.id)
        ).all()
        metric_text = conn.execute(sa.select(tables.metrics.c.metric)).scalar_one()
        result_row = conn.execute(sa.select(tables.results)).one()
    assert (set_row.name, set_row.description) == ("s", None)
    assert set_row.created_at.timestamp() == pytest.approx(now)  # naive UTC
    assert [(c.eval_id, c.eval_mode) for c in cases] == [("b", "trace"), ("a", "")]
    assert json.loads(cases[0].eval_case)["evalId"] == "b"
    assert json.loads(cases[0].eval_case)["creationTimestamp"] == now
    assert json.loads(metric_text)["metricName"] == "judge"
    assert "sk-stored-nowhere-123" not in metric_text  # apiKey is never stored
    assert json.loads(result_row.eval_case_results) is None
    assert json.loads(result_row.summary) == {}
    assert (result_row.eval_set_result_name, result_row.eval_set_id) == ("r", "s")


def test_payload_text_survives_the_json_column(sql_backend):
    """Go escapes, non-ASCII, lone surrogates, nested JSON in tool arguments."""
    odd = "<b> & \u2028 ünïcødé 🙂 \ud83d half"
    case = {
        "evalId": "c",
        "conversation": [
            {
                "invocationId": "t",
                "userContent": {"role": "user", "content": odd},
                "tools": [{"name": "f", "arguments": {"deep": [[{"x": 1.5}]], "s": odd}}],
            }
        ],
    }
    sql_backend.evalsets.create("app", "s")
    kept = odd
    if sql_backend.kind == "mysql":  # JSON columns hold valid Unicode only: U+FFFD, as Go does
        kept = odd.replace("\ud83d", "\ufffd")
        with pytest.warns(UserWarning, match="lone surrogates"):
            stored = sql_backend.evalsets.add_case("app", "s", case)
    else:
        stored = sql_backend.evalsets.add_case("app", "s", case)
    got = sql_backend.evalsets.get_case("app", "s", "c")
    assert got == stored
    assert got.conversation[0].user_content.content == kept
    assert got.conversation[0].tools[0].arguments == {"deep": [[{"x": 1.5}]], "s": kept}


def test_ids_differing_in_case_follow_the_database_collation(sql_backend):
    sql_backend.evalsets.create("app", "Math")
    if sql_backend.kind == "mysql":  # utf8mb4_unicode_ci: one key, refused, lookups exact
        with pytest.raises(AlreadyExistsError):
            sql_backend.evalsets.create("app", "math")
        with pytest.raises(NotFoundError):
            sql_backend.evalsets.get("app", "math")
        assert sql_backend.evalsets.list("app") == ["Math"]
    else:
        sql_backend.evalsets.create("app", "math")
        assert sql_backend.evalsets.list("app") == ["Math", "math"]


# -------------------------------------------------------------- limits of the columns


def test_ids_must_fit_the_key_columns(sql_backend):
    with pytest.raises(ValueError, match="longer than 255"):
        sql_backend.evalsets.create("app", "x" * 256)
    with pytest.raises(ValueError, match="valid Unicode"):
        sql_backend.evalsets.create("app", "bad\ud800id")
    with pytest.raises(ValueError, match="longer than 255"):
        sql_backend.results.save("app", {"evalSetId": "s", "evalSetResultId": "r" * 300})
    sql_backend.evalsets.create("app", "x" * 255)
    assert sql_backend.evalsets.list("app") == ["x" * 255]


@pytest.mark.parametrize("timestamp", [0.0, 0.5, -3.0, 2.2e9])
def test_timestamps_outside_the_timestamp_column_are_refused(sql_backend, timestamp):
    with pytest.raises(ValueError, match="creationTimestamp"):
        sql_backend.evalsets.save("app", {"evalSetId": "s", "creationTimestamp": timestamp})
    assert sql_backend.evalsets.list("app") == []


def test_timestamps_keep_microseconds(sql_backend):
    saved = sql_backend.evalsets.save(
        "app", {"evalSetId": "s", "creationTimestamp": 1_750_000_000.123456789}
    )
    assert saved.creation_timestamp == 1_750_000_000.123457
    assert sql_backend.evalsets.get("app", "s") == saved


# --------------------------------------------------------------------- transactions


def _fail_on(engine: sa.Engine, table: str, marker: str = "INSERT INTO"):
    """Make the next statement inserting into ``table`` fail, as a lost connection would."""

    def before(conn, cursor, statement, parameters, context, executemany):
        if statement.startswith(marker) and table in statement.split("(")[0]:
            raise RuntimeError("injected failure")

    sa.event.listen(engine, "before_cursor_execute", before)
    return lambda: sa.event.remove(engine, "before_cursor_execute", before)


def test_a_failing_save_leaves_the_previous_set_whole(sql_backend):
    store = sql_backend.evalsets
    before = store.save("app", EvalSet(evalSetId="s", name="v1", evalCases=[{"evalId": "a"}]))
    remove = _fail_on(_engine(sql_backend), _tables(sql_backend).eval_cases.name)
    try:
        with pytest.raises(RuntimeError, match="injected"):
            store.save(
                "app",
                EvalSet(evalSetId="s", name="v2", evalCases=[{"evalId": "x"}, {"evalId": "y"}]),
            )
        with pytest.raises(RuntimeError, match="injected"):
            store.save("app", EvalSet(evalSetId="new", evalCases=[{"evalId": "x"}]))
    finally:
        remove()
    assert store.get("app", "s") == before
    assert store.list("app") == ["s"]  # no half-written "new"


def test_a_failing_metric_list_save_keeps_the_old_list(sql_backend):
    sql_backend.metrics.save_all("app", "s", [{"metricName": "a"}, {"metricName": "b"}])
    metrics_engine = sql_backend.metrics._db.engine  # each store has its own engine
    remove = _fail_on(metrics_engine, _tables(sql_backend).metrics.name)
    try:
        with pytest.raises(RuntimeError, match="injected"):
            sql_backend.metrics.save_all("app", "s", [{"metricName": "c"}])
    finally:
        remove()
    assert sql_backend.metrics.list("app", "s") == ["a", "b"]


def test_a_duplicate_case_id_in_save_writes_nothing(sql_backend):
    with pytest.raises(AlreadyExistsError):
        sql_backend.evalsets.save("app", {"evalSetId": "s", "evalCases": [{"evalId": "d"}] * 2})
    assert sql_backend.evalsets.list("app") == []


# ------------------------------------------------------------------------ processes


def _add_cases_in_a_process(args: tuple[str, str, int, int]) -> int:
    url, prefix, worker, count = args
    with (
        SQLEvalSetStore(url, table_prefix=prefix) as sets,
        SQLMetricStore(url, table_prefix=prefix) as metrics,
        SQLResultStore(url, table_prefix=prefix) as results,
    ):
        for i in range(count):
            sets.add_case("app", "shared", {"evalId": f"p{worker}-c{i}"})
            metrics.add("app", "shared", {"metricName": f"p{worker}-m{i}"})
            results.save("app", {"evalSetId": "shared"})
    return count


@pytest.mark.slow
def test_concurrent_processes_lose_nothing(sql_backend, sql_prefix):
    url = _engine(sql_backend).url.render_as_string(hide_password=False)
    prefix = sql_prefix if sql_backend.kind == "mysql" else ""
    sql_backend.evalsets.create("app", "shared")
    workers, per_worker = 4, 15
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers) as pool:
        done = pool.map(
            _add_cases_in_a_process, [(url, prefix, w, per_worker) for w in range(workers)]
        )
    assert done == [per_worker] * workers
    ids = [c.eval_id for c in sql_backend.evalsets.get("app", "shared").eval_cases]
    assert sorted(ids) == sorted(f"p{w}-c{i}" for w in range(workers) for i in range(per_worker))
    for w in range(workers):  # each process's cases keep its order
        assert [i for i in ids if i.startswith(f"p{w}-")] == [
            f"p{w}-c{i}" for i in range(per_worker)
        ]
    assert len(sql_backend.metrics.list("app", "shared")) == workers * per_worker
    assert len(sql_backend.results.list("app")) == workers * per_worker


# ----------------------------------------------------------------- URLs and secrets


def test_env_references_in_the_url_are_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("AE_TEST_DB_DIR", str(tmp_path / "nested"))
    with SQLResultStore("sqlite:///${AE_TEST_DB_DIR}/r.db") as store:
        store.save("app", {"evalSetId": "s", "evalSetResultId": "r"})
        assert "${" not in repr(store)
    assert (tmp_path / "nested" / "r.db").exists()
    monkeypatch.delenv("AE_TEST_DB_DIR")
    with pytest.raises(ValueError, match="AE_TEST_DB_DIR"):
        SQLResultStore("sqlite:///${AE_TEST_DB_DIR}/r.db")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_password_is_not_in_repr_error_or_log(caplog, monkeypatch):
    monkeypatch.setenv("AE_TEST_DB_PASSWORD", SECRET)
    url = f"mysql+pymysql://user:${{AE_TEST_DB_PASSWORD}}@127.0.0.1:{_closed_port()}/db"
    caplog.set_level(logging.DEBUG)
    store = SQLResultStore(url, skip_db_init=True)
    assert SECRET not in repr(store) and SECRET not in store.url
    assert "***" in repr(store)
    with pytest.raises(StoreBackendError) as info:
        store.list("app")
    text = str(info.value)
    assert "127.0.0.1" in text and SECRET not in text
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert SECRET not in caplog.text


def test_malformed_url_is_not_quoted():
    with pytest.raises(ValueError) as info:
        SQLResultStore(f"mysql+pymysql://user:{SECRET}@host:notaport/db")
    assert SECRET not in str(info.value)


def test_password_is_kept_out_on_a_real_server(caplog):
    url = mysql_url()
    caplog.set_level(logging.DEBUG)
    parsed = sa.make_url(url)
    with SQLResultStore(url, table_prefix="pwcheck") as store:
        store.save("app", {"evalSetId": "s", "evalSetResultId": "r"})
        assert parsed.password not in repr(store)
    wrong = parsed.set(password=SECRET)
    bad = SQLResultStore(wrong.render_as_string(hide_password=False), table_prefix="pwcheck")
    with pytest.raises(StoreBackendError) as info:
        bad.list("app")
    assert "Access denied" in str(info.value) and SECRET not in str(info.value)
    for secret in (SECRET, parsed.password):
        assert secret not in caplog.text
    engine = sa.create_engine(url)
    build_tables("pwcheck").metadata.drop_all(engine)
    engine.dispose()


# ---------------------------------------------------------------------- evaluation


def test_evaluate_saves_into_a_sql_result_store(sql_backend):
    es = evalset(trace_case("ok", ["a"], ["a"]), trace_case("bad", ["a"], ["x"]))
    run = ae.evaluate(
        es,
        [METRIC],
        registry=registry_with(ExactAnswer()),
        progress=False,
        result_store=sql_backend.results,
    )
    app = "app"  # the cases' sessionInput.appName
    (result_id,) = sql_backend.results.list_results(app)
    stored = sql_backend.results.get(app, result_id)
    assert stored.eval_set_result_id == result_id
    assert [c.final_eval_status for c in stored.eval_case_results] == ["passed", "failed"]
    assert stored.model_dump(exclude={"creation_timestamp"}) == run.result.model_dump(
        exclude={"creation_timestamp", "eval_set_result_id", "eval_set_result_name"}
    ) | {"eval_set_result_id": result_id, "eval_set_result_name": stored.eval_set_result_name}
    reloaded = ae.load_run(stored)
    assert reloaded.cases_df()["status"].tolist() == ["passed", "failed"]


def test_sqlite_in_memory_works_across_threads():
    store = SQLEvalSetStore("sqlite://", clock=fake_clock)
    store.create("app", "s")

    def add(n: int) -> None:
        for i in range(10):
            store.add_case("app", "s", {"evalId": f"t{n}-{i}"})

    threads = [threading.Thread(target=add, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.get("app", "s").eval_cases) == 40


def test_database_file_folder_is_created(tmp_path: Path):
    with SQLMetricStore(f"sqlite:///{tmp_path}/a/b/m.db") as store:
        store.add("app", "s", METRIC)
    assert (tmp_path / "a" / "b" / "m.db").exists()
