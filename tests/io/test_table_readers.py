"""Tables read as eval sets: frames, CSV / JSONL / Parquet files, datasets splits."""

from __future__ import annotations

import json

import pandas as pd
import polars as pl
import pytest

import agenteval_nb as ae

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
