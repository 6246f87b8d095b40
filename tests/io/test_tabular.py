"""Eval sets from tables: frames, CSV / JSONL / Parquet files, datasets splits, and back."""

from __future__ import annotations

import json

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.io.tabular import MAX_LISTED, evalset_from_rows, evalset_to_rows

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


def test_missing_ids_are_stable_and_unique():
    rows = [{"user": "hi"}, {"user": "hi"}, {"user": "bye"}]
    first = [c.eval_id for c in evalset_from_rows(rows).eval_cases]
    again = [c.eval_id for c in evalset_from_rows([dict(r) for r in rows]).eval_cases]
    assert first == again
    assert len(set(first)) == 3
    assert all(i.startswith("case-") for i in first)


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


def test_bad_rows_are_listed_up_to_the_limit():
    rows = [{"id": str(i), "user": None} for i in range(MAX_LISTED + 5)]
    with pytest.raises(ae.FormatError) as info:
        evalset_from_rows(rows)
    assert f"{MAX_LISTED + 5} bad cells, the first {MAX_LISTED} listed" in str(info.value)


def test_a_mapped_column_that_is_missing_is_named():
    with pytest.raises(ae.FormatError, match="'question'"):
        ae.evalset_from_df(pl.DataFrame({"user": ["x"]}), user="question")


def test_repeated_ids_are_an_error_naming_the_row():
    with pytest.raises(ae.FormatError, match="row 2, column 'id'"):
        evalset_from_rows([{"id": "a", "user": "x"}, {"id": "a", "user": "y"}])


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


def test_trace_columns_make_a_trace_mode_eval_set():
    es = evalset_from_rows(
        [{"id": "t", "user": "hi", "expected": "hello", "actual": "hello there"}]
    )
    case = es.eval_cases[0]
    assert case.eval_mode == "trace"
    assert case.actual_conversation[0].final_response.content == "hello there"
    assert case.conversation[0].final_response.content == "hello"


def test_trace_set_scores_without_an_agent():
    es = evalset_from_rows(
        [
            {"id": "good", "user": "hi", "expected": "hello", "actual": "hello"},
            {"id": "bad", "user": "hi", "expected": "hello", "actual": "bye"},
        ]
    )
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
    run = ae.evaluate(es, [ae.schema.EvalMetric.model_validate(metric)], progress=False)
    statuses = {c.eval_id: c.final_eval_status for c in run.result.eval_case_results}
    assert statuses == {"good": "passed", "bad": "failed"}


def test_turns_column_makes_a_multi_turn_case():
    turns = [{"user": "hi", "expected": "hello"}, {"user": "and?", "tools": [{"name": "f"}]}]
    es = evalset_from_rows([{"id": "m", "turns": json.dumps(turns)}])
    conversation = es.eval_cases[0].conversation
    assert [t.user_content.content for t in conversation] == ["hi", "and?"]
    assert conversation[1].tools[0].name == "f"


def test_one_row_per_turn_grouped_by_id_and_order():
    rows = [
        {"id": "m", "order": 2, "user": "second"},
        {"id": "n", "order": 1, "user": "other"},
        {"id": "m", "order": 1, "user": "first"},
    ]
    es = evalset_from_rows(rows)
    assert [c.eval_id for c in es.eval_cases] == ["m", "n"]
    assert [t.user_content.content for t in es.eval_cases[0].conversation] == ["first", "second"]


def test_datasets_in_memory():
    datasets = pytest.importorskip("datasets", reason="the optional datasets extra")
    ds = datasets.Dataset.from_dict(FAQ)
    es = ae.evalset_from_dataset(ds, eval_set_id="faq", **ROLES)
    assert _wire(es) == _wire(ae.evalset_from_df(pl.DataFrame(FAQ), eval_set_id="faq", **ROLES))
    streamed = ae.evalset_from_dataset(ds.to_iterable_dataset(), eval_set_id="faq", **ROLES)
    assert _wire(streamed) == _wire(es)


def test_the_entry_rules_hold_for_tables():
    with pytest.raises(ae.FormatError, match="finite"):
        evalset_from_rows(
            [{"user": "x", "tools": [{"name": "f", "arguments": {"a": float("inf")}}]}]
        )


_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_tools = st.none() | st.lists(
    st.fixed_dictionaries(
        {"name": _text, "arguments": st.dictionaries(_text, st.integers(-5, 5), max_size=2)}
    ),
    min_size=1,
    max_size=2,
)
_row = st.fixed_dictionaries(
    {
        "user": _text.filter(bool),
        "expected": st.none() | _text.filter(bool),
        "tools": _tools,
        "context": st.none() | _text.filter(lambda t: bool(t) and t.lstrip()[:1] != "["),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(_row, min_size=1, max_size=4),
    trace=st.booleans(),
    backend=st.sampled_from(["polars", "pandas"]),
)
def test_evalset_to_df_round_trips(rows, trace, backend):
    if trace:
        rows = [{**r, "actual": r["expected"], "actual_tools": r["tools"]} for r in rows]
    es = evalset_from_rows(rows, eval_set_id="rt")
    frame = ae.evalset_to_df(es, backend=backend)
    again = ae.evalset_from_df(frame, eval_set_id="rt")
    assert _wire(again) == _wire(es)
    assert evalset_to_rows(again) == evalset_to_rows(es)


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
