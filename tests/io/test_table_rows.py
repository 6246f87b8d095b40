"""Eval sets from rows: cells read by role, ids, turns, trace mode, every bad cell listed."""

from __future__ import annotations

import json

import pytest

import agenteval_nb as ae
from agenteval_nb.io.table_rows import MAX_LISTED, evalset_from_rows


def test_missing_ids_are_stable_and_unique():
    rows = [{"user": "hi"}, {"user": "hi"}, {"user": "bye"}]
    first = [c.eval_id for c in evalset_from_rows(rows).eval_cases]
    again = [c.eval_id for c in evalset_from_rows([dict(r) for r in rows]).eval_cases]
    assert first == again
    assert len(set(first)) == 3
    assert all(i.startswith("case-") for i in first)


def test_bad_rows_are_listed_up_to_the_limit():
    rows = [{"id": str(i), "user": None} for i in range(MAX_LISTED + 5)]
    with pytest.raises(ae.FormatError) as info:
        evalset_from_rows(rows)
    assert f"{MAX_LISTED + 5} bad cells, the first {MAX_LISTED} listed" in str(info.value)


def test_repeated_ids_are_an_error_naming_the_row():
    with pytest.raises(ae.FormatError, match="row 2, column 'id'"):
        evalset_from_rows([{"id": "a", "user": "x"}, {"id": "a", "user": "y"}])


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


def test_the_entry_rules_hold_for_tables():
    with pytest.raises(ae.FormatError, match="finite"):
        evalset_from_rows(
            [{"user": "x", "tools": [{"name": "f", "arguments": {"a": float("inf")}}]}]
        )
