"""What ``ae.evaluate``'s run and case arguments mean (engine/run.py checks)."""

from __future__ import annotations

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case

import agenteval_nb as ae
from agenteval_nb.engine.run import case_id_list, plan_runs, positive_int
from agenteval_nb.io import load_evalset


def run(es, **kw):
    kw.setdefault("progress", False)
    return ae.evaluate(es, [METRIC], registry=registry_with(ExactAnswer()), **kw)


def two_cases(set_id: str = "set") -> dict:
    return evalset(trace_case("abc", ["a"], ["a"]), trace_case("b", ["a"], ["x"]), set_id=set_id)


def test_one_case_id_string_is_one_id_not_its_characters():
    r = run(two_cases(), case_ids="abc")
    assert [c.eval_id for c in r.result.eval_case_results] == ["abc"]
    assert r.warnings == []


def test_case_ids_as_a_list_and_unknown_ids_warn():
    with pytest.warns(UserWarning, match="'nope'"):
        r = run(two_cases(), case_ids=["b", "nope"])
    assert [c.eval_id for c in r.result.eval_case_results] == ["b"]
    assert any("'nope'" in w for w in r.warnings)


@pytest.mark.parametrize("bad", [3, b"abc", [1], {"abc": 1}])
def test_case_ids_of_the_wrong_type_are_a_type_error(bad):
    with pytest.raises(TypeError, match="case_ids"):
        case_id_list(bad)


@pytest.mark.parametrize("bad", [True, 2.0, "3"])
def test_num_runs_must_be_an_int(bad):
    with pytest.raises(TypeError, match=r"num_runs must be a positive int"):
        run(two_cases(), num_runs=bad)


def test_num_runs_none_is_the_default_of_one():
    """None means "not given": the metrics file's num_runs, else 1 (tests/io/test_metrics_config)."""
    assert run(two_cases(), num_runs=None).num_runs == 1


@pytest.mark.parametrize("bad", [0, -2])
def test_num_runs_must_be_positive(bad):
    with pytest.raises(ae.ConfigError, match="num_runs must be greater than 0"):
        run(two_cases(), num_runs=bad)


def test_positive_int_accepts_ints_and_numpy_ints():
    import numpy as np

    assert positive_int("n", 3) == 3
    value = positive_int("n", np.int64(2))
    assert value == 2 and type(value) is int


def test_eval_sets_with_different_ids_are_not_runs_of_one_set():
    with pytest.raises(ae.ConfigError) as err:
        run([two_cases("first"), two_cases("second")])
    message = str(err.value)
    assert "'first', 'second'" in message
    assert "same evalSetId" in message and "one ae.evaluate call per set" in message


def test_eval_sets_with_one_id_are_recorded_runs():
    r = run([two_cases("s"), two_cases("s")])
    assert r.result.summary.num_runs == 2
    assert sorted({c.run_id for c in r.result.eval_case_results}) == [1, 2]


def test_duplicate_eval_ids_in_a_set_are_an_error():
    es = evalset(trace_case("c", ["a"], ["a"]), trace_case("c", ["a"], ["x"]))
    with pytest.raises(ae.ConfigError, match=r"evalId 'c' appears twice .*evalCases\[1\]"):
        run(es)


def test_plan_runs_repeats_one_set():
    es = load_evalset(two_cases())
    assert plan_runs([es], 3) == [es, es, es]
    with pytest.raises(ae.ConfigError, match="no eval set"):
        plan_runs([], 1)


def test_bad_arguments_fail_before_any_case_is_evaluated():
    evaluator = ExactAnswer()
    with pytest.raises(TypeError):
        ae.evaluate(two_cases(), [METRIC], registry=registry_with(evaluator), num_runs="2")
    assert evaluator.seen == []


def test_cli_evaluate_refuses_sets_with_different_ids(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    paths = []
    for set_id in ("first", "second"):
        path = tmp_path / f"{set_id}.evalset.json"
        path.write_text(json.dumps(two_cases(set_id)), "utf-8")
        paths.append(str(path))
    metrics = tmp_path / "m.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "final_response_avg_score",
                    "threshold": 1,
                    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
                }
            ]
        ),
        "utf-8",
    )
    out = tmp_path / "out"
    args = ["evaluate", *paths, "--metrics", str(metrics), "--out", str(out), "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval_nb", *args],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 2, proc.stderr
    assert "different evalSetIds ('first', 'second')" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()
