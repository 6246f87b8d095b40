"""Tables read as eval sets: frames, CSV / JSONL / Parquet files, datasets splits."""

from __future__ import annotations

import csv
import io
import json
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import polars as pl
import pytest

import agenteval_nb as ae
from agenteval_nb.io import table_readers

FAQ = {
    "qid": ["q1", "q2"],
    "question": ["What is 2+2?", "Weather in Paris?"],
    "answer": ["4", "Sunny"],
    "expected_tools": [None, '[{"name": "weather", "arguments": {"city": "Paris"}}]'],
    "system_prompt": ["Be brief.", None],
}
ROLES = dict(
    id="qid", user="question", expected="answer", tools="expected_tools", context="system_prompt"
)


def _wire(es: ae.schema.EvalSet) -> dict:
    return es.to_wire()


@pytest.mark.parametrize("make", [pd.DataFrame, pl.DataFrame], ids=["pandas", "polars"])
def test_frame_roles_become_an_eval_set(make):
    es = ae.evalset_from_df(make(FAQ), eval_set_id="faq", **ROLES)
    first, second = es.eval_cases
    assert es.eval_set_id == "faq"
    assert first.eval_id == "q1"
    assert first.context_messages[0].content == "Be brief."
    assert first.conversation[0].user_content.content == "What is 2+2?"
    assert first.conversation[0].final_response.content == "4"
    assert second.conversation[0].tools[0].name == "weather"
    assert second.conversation[0].tools[0].arguments == {"city": "Paris"}
    assert second.session_input.app_name == "faq"


def test_pandas_and_polars_give_the_same_eval_set():
    a = ae.evalset_from_df(pd.DataFrame(FAQ), **ROLES)
    b = ae.evalset_from_df(pl.DataFrame(FAQ), **ROLES)
    assert _wire(a) == _wire(b)


def test_bad_rows_are_all_listed_with_file_row_and_column(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text(
        'id,user,tools\na,hello,"[{""name"": ""f""}]"\nb,,\nc,hi,"[1]"\nd,ok,"{broken"\n',
        encoding="utf-8",
    )
    with pytest.raises(ae.FormatError) as info:
        ae.load_evalset(path)
    text = str(info.value)
    assert str(path) in text
    assert "row 2, column 'user'" in text
    assert "row 3, column 'tools'" in text
    assert "row 4, column 'tools'" in text
    assert "row 1" not in text


def test_a_mapped_column_that_is_missing_is_named():
    with pytest.raises(ae.FormatError, match="'question'"):
        ae.evalset_from_df(pl.DataFrame({"user": ["x"]}), user="question")


def test_files_by_suffix_with_column_mapping(tmp_path):
    frame = pl.DataFrame(FAQ)
    frame.write_csv(tmp_path / "faq.csv")
    frame.write_parquet(tmp_path / "faq.parquet")
    (tmp_path / "faq.jsonl").write_text(
        "\n".join(json.dumps(r) for r in frame.to_dicts()) + "\n\n", encoding="utf-8"
    )
    expected = _wire(ae.evalset_from_df(frame, eval_set_id="faq", **ROLES))
    for suffix in ("csv", "jsonl", "parquet"):
        es = ae.load_evalset(tmp_path / f"faq.{suffix}", columns=ROLES)
        assert _wire(es) == expected, suffix


def test_a_jsonl_line_that_is_not_an_object_is_named(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"user": "x"}\n[1]\n', encoding="utf-8")
    with pytest.raises(ae.FormatError, match="line 2"):
        ae.load_evalset(path)


def test_datasets_in_memory():
    datasets = pytest.importorskip("datasets", reason="the optional datasets extra")
    ds = datasets.Dataset.from_dict(FAQ)
    es = ae.evalset_from_dataset(ds, eval_set_id="faq", **ROLES)
    assert _wire(es) == _wire(ae.evalset_from_df(pl.DataFrame(FAQ), eval_set_id="faq", **ROLES))
    streamed = ae.evalset_from_dataset(ds.to_iterable_dataset(), eval_set_id="faq", **ROLES)
    assert _wire(streamed) == _wire(es)


def test_evaluate_takes_a_csv_path(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text("id,user,expected,actual\na,hi,hello,hello\nb,hi,hello,bye\n", "utf-8")
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
    run = ae.evaluate(str(path), [metric], progress=False)
    assert run.result.eval_set_id == "cases"
    statuses = {c.eval_id: c.final_eval_status for c in run.result.eval_case_results}
    assert statuses == {"a": "passed", "b": "failed"}


def test_a_csv_row_longer_than_the_header_is_named(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("id,user\na,hi\nb,hi,extra\n", "utf-8")
    with pytest.raises(ae.FormatError, match="row 2"):
        ae.load_evalset(path)


# -- any cell the file holds loads (issue 31 §1) ------------------------------------------

LONG = "x" * 200_000 + ', "quoted", \u2028 and a\nbreak'
"""A cell past the csv module's default field limit (128 KiB), with the characters that make
a cell hard to read: commas, quotes, a line separator, a line break."""


def _csv_text(*rows: list[str]) -> str:
    out = io.StringIO(newline="")
    csv.writer(out).writerows([["id", "user", "expected"], *rows])
    return out.getvalue()


def test_a_csv_cell_past_the_default_field_limit_loads(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(_csv_text(["a", "hi", LONG], ["b", LONG, "ok"]), "utf-8", newline="")
    before = csv.field_size_limit()
    es = ae.load_evalset(path)
    first, second = es.eval_cases
    assert first.conversation[0].final_response.content == LONG
    assert second.conversation[0].user_content.content == LONG
    assert csv.field_size_limit() == before


def test_csv_cells_keep_their_line_breaks_and_separators(tmp_path):
    cells = ["one\ntwo", "one\r\ntwo", "one\rtwo", "x\u2028y\u2029z\x85w\x0cv"]
    path = tmp_path / "breaks.csv"
    rows = [[str(i), cell, cell] for i, cell in enumerate(cells)]
    path.write_text(_csv_text(*rows), "utf-8", newline="")
    es = ae.load_evalset(path)
    got = [c.conversation[0].user_content.content for c in es.eval_cases]
    assert got == cells


def test_a_csv_cell_past_the_cap_names_row_column_and_limit(tmp_path, monkeypatch):
    cap = csv.field_size_limit() + 1000  # a cap above the default, below the cell
    monkeypatch.setattr(table_readers, "CSV_CELL_CAP", cap)
    path = tmp_path / "capped.csv"
    early = 'a "quoted", cell\nover two lines'
    long = "y" * (cap + 1)
    path.write_text(_csv_text(["a", "hi", "ok"], ["b", early, long]), "utf-8", newline="")
    before = csv.field_size_limit()
    with pytest.raises(ae.FormatError) as info:
        ae.load_evalset(path)
    text = str(info.value)
    assert str(path) in text
    assert "row 2, column 'expected'" in text
    assert f"at most {cap} characters" in text
    assert csv.field_size_limit() == before


def test_a_csv_header_cell_past_the_cap_is_named(tmp_path, monkeypatch):
    cap = csv.field_size_limit() + 1000
    monkeypatch.setattr(table_readers, "CSV_CELL_CAP", cap)
    path = tmp_path / "header.csv"
    path.write_text("id," + "u" * (cap + 1) + "\na,hi\n", "utf-8")
    with pytest.raises(ae.FormatError, match="the header, column number 2"):
        ae.load_evalset(path)


def test_the_field_limit_is_put_back_after_concurrent_reads(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(_csv_text(["a", "hi", LONG]), "utf-8", newline="")
    before = csv.field_size_limit()
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda _: ae.load_evalset(path), range(8)))
    assert all(es.eval_cases[0].conversation[0].final_response.content == LONG for es in loaded)
    assert csv.field_size_limit() == before


def test_a_jsonl_string_holding_a_line_separator_loads(tmp_path):
    path = tmp_path / "sep.jsonl"
    rows = [{"id": "a", "user": "x\u2028y\u2029z\x85w", "expected": LONG}, {"id": "b", "user": "k"}]
    text = "\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    path.write_text(text, "utf-8", newline="")
    es = ae.load_evalset(path)
    assert es.eval_cases[0].conversation[0].user_content.content == rows[0]["user"]
    assert es.eval_cases[0].conversation[0].final_response.content == LONG
    assert [c.eval_id for c in es.eval_cases] == ["a", "b"]


def test_a_broken_parquet_file_is_named(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not a parquet file")
    with pytest.raises(ae.FormatError, match="a Parquet file") as info:
        ae.load_evalset(path)
    assert str(path) in str(info.value)


def test_a_parquet_cell_past_the_csv_limit_loads(tmp_path):
    path = tmp_path / "long.parquet"
    pl.DataFrame({"id": ["a"], "user": [LONG]}).write_parquet(path)
    assert ae.load_evalset(path).eval_cases[0].conversation[0].user_content.content == LONG


def test_a_repeated_column_read_for_a_role_is_named(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("id,user,user,note,note\na,first,second,x,y\n", "utf-8")
    with pytest.raises(ae.FormatError, match="one column named 'user' \\(the table has 2\\)"):
        ae.load_evalset(path)
    frame = pd.DataFrame([["a", "first", "second"]], columns=["id", "user", "user"])
    with pytest.warns(UserWarning), pytest.raises(ae.FormatError, match="'user'"):
        ae.evalset_from_df(frame)
