"""Issue 20 class 4: an eval set or metrics list in any form (file, JSON text, dict, model) meets
the same entry rules before any case runs, with the same error (source, JSON path, expectation).

Each eval set holds six valid cases first (more than the cases a streamed file decodes up front)
and the broken case last; the agent counts its calls, so an error raised after cases ran fails
the ``calls == 0`` check even when the error itself is right.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agenteval_nb as ae
from agenteval_nb.io import MAX_DEPTH

GOOD_CASES = 6
BAD_AT = f"$.evalCases[{GOOD_CASES}]"
METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]
FORMS = ["file", "text", "dict", "model"]


def _case(eval_id: str) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "sessionInput": {"appName": "app", "userId": "u"},
        "conversation": [
            {
                "userContent": {"role": "user", "content": "q"},
                "finalResponse": {"role": "assistant", "content": "ok"},
            }
        ],
    }


def _evalset(last: dict[str, Any]) -> dict[str, Any]:
    return {"evalSetId": "s", "evalCases": [*(_case(f"c{i}") for i in range(GOOD_CASES)), last]}


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


class CountingAgent:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> str:
        self.calls += 1
        return "ok"


def _given(form: str, data: dict[str, Any], tmp_path: Path) -> tuple[Any, str]:
    """The eval set in ``form`` and the source its errors must name."""
    if form == "model":
        return ae.EvalSet.model_validate(data), "<object>"
    if form == "dict":
        return data, "<object>"
    text = json.dumps(data)
    if form == "text":
        return text, "<text>"
    path = tmp_path / "set.evalset.json"
    path.write_text(text)
    return str(path), str(path)


def _state_case(value: Any) -> dict[str, Any]:
    case = _case("bad")
    case["sessionInput"]["state"] = {"k": value}
    return case


DEEP_PATH = f"{BAD_AT}.sessionInput.state.k" + "[0]" * (MAX_DEPTH - 5)
"""The first array past the limit: the set, evalCases, the case, sessionInput, state are five."""
RULES: dict[str, tuple[dict[str, Any], str, str]] = {
    "empty_eval_id": ({**_case("bad"), "evalId": ""}, f"{BAD_AT}.evalId", "non-empty evalId"),
    "nesting_too_deep": (
        _state_case(_nested(MAX_DEPTH)),
        DEEP_PATH,
        f"nested at most {MAX_DEPTH} levels deep",
    ),
    "int_beyond_float64": (
        _state_case(10**400),
        f"{BAD_AT}.sessionInput.state.k",
        "a number within the float64 range (got 10000000000",
    ),
}


def test_the_valid_set_runs_every_case(tmp_path):
    """The control: without a broken case, every form runs all its cases."""
    for form in FORMS:
        agent = CountingAgent()
        src, _ = _given(form, _evalset(_case("last")), tmp_path)
        run = ae.evaluate(src, METRICS, agent=agent, progress=False)
        assert agent.calls == GOOD_CASES + 1, form
        assert run.result.summary.overall_status == "passed", form


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("rule", sorted(RULES))
def test_entry_rule_holds_for_every_form_before_any_case_runs(rule, form, tmp_path):
    last, json_path, expected = RULES[rule]
    src, source = _given(form, _evalset(last), tmp_path)
    agent = CountingAgent()
    with pytest.raises(ae.FormatError) as info:
        ae.evaluate(src, METRICS, agent=agent, progress=False)
    assert agent.calls == 0
    err = info.value
    assert (err.source, err.json_path) == (source, json_path), str(err)
    assert expected in err.expected, str(err)
    assert str(err).startswith(source) and f": {json_path}: " in str(err)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_entry_rule_error_reads_the_same_in_every_form(rule, tmp_path):
    last, _, _ = RULES[rule]
    errors = set()
    for form in FORMS:
        src, _ = _given(form, _evalset(last), tmp_path)
        with pytest.raises(ae.FormatError) as info:
            ae.evaluate(src, METRICS, agent=CountingAgent(), progress=False)
        errors.add((info.value.json_path, info.value.expected))
    assert len(errors) == 1, errors


@pytest.mark.parametrize("form", ["file", "text", "dict"])
def test_missing_eval_id_is_refused_before_any_case_runs(form, tmp_path):
    last = _case("bad")
    del last["evalId"]
    src, source = _given(form, _evalset(last), tmp_path)
    agent = CountingAgent()
    with pytest.raises(ae.FormatError) as info:
        ae.evaluate(src, METRICS, agent=agent, progress=False)
    assert agent.calls == 0
    assert (info.value.source, info.value.json_path) == (source, f"{BAD_AT}.evalId")


@pytest.mark.parametrize("form", ["dict", "model"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_number_in_memory_is_refused_before_any_case_runs(form, value, tmp_path):
    """Go cannot write NaN or infinity: the result would hold ``null`` where the set had a
    number. Files cannot hold them either (see the next test)."""
    src, _ = _given(form, _evalset(_state_case(value)), tmp_path)
    agent = CountingAgent()
    with pytest.raises(ae.FormatError) as info:
        ae.evaluate(src, METRICS, agent=agent, progress=False)
    assert agent.calls == 0
    assert info.value.json_path == f"{BAD_AT}.sessionInput.state.k"
    assert "a finite number" in info.value.expected


@pytest.mark.parametrize("form", ["file", "text"])
@pytest.mark.parametrize("literal", ["NaN", "-Infinity", "1e999"])
def test_non_finite_number_in_a_file_is_refused_before_any_case_runs(form, literal, tmp_path):
    text = json.dumps(_evalset(_state_case("X"))).replace('"X"', literal)
    src: str = text
    source = "<text>"
    if form == "file":
        path = tmp_path / "set.evalset.json"
        path.write_text(text)
        src = source = str(path)
    agent = CountingAgent()
    with pytest.raises(ae.FormatError) as info:
        ae.evaluate(src, METRICS, agent=agent, progress=False)
    assert agent.calls == 0
    assert info.value.source == source and info.value.line == 1


def test_a_model_changed_after_it_was_built_meets_the_rules(tmp_path):
    evalset = ae.EvalSet.model_validate(_evalset(_case("last")))
    evalset.eval_cases[GOOD_CASES].eval_id = ""  # type: ignore[index]
    agent = CountingAgent()
    with pytest.raises(ae.FormatError, match=r"\$\.evalCases\[6\]\.evalId: a non-empty"):
        ae.evaluate(evalset, METRICS, agent=agent, progress=False)
    assert agent.calls == 0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("[{" * MAX_DEPTH, None),  # brackets in a string: not nesting
        ({1, 2}, None),  # a value JSON cannot hold: the rules have nothing to say about it
        ([None, "null"], None),  # nulls that are no NaN
        ([1, [float("nan")]], ".k[1][0]: a finite number (got nan)"),
        ({"deep": _nested(MAX_DEPTH)}, ".k.deep" + "[0]" * (MAX_DEPTH - 6) + ": arrays"),
        (10**309, ".k: a number within the float64 range"),
    ],
    ids=["brackets-in-a-string", "a-set", "nulls", "nan", "too-deep", "huge-int"],
)
@pytest.mark.parametrize("form", ["model", "dict"])
def test_data_in_hand_is_held_to_the_rules_however_its_values_are_written(value, expected, form):
    data = _evalset(_case("last"))
    if form == "model":
        evalset: Any = ae.EvalSet.model_validate(data)
        evalset.eval_cases[3].session_input.state = {"k": value}
    else:
        data["evalCases"][3]["sessionInput"]["state"] = {"k": value}
        evalset = data
    if expected is None:
        ae.load_evalset(evalset)
        return
    with pytest.raises(ae.FormatError) as info:
        ae.load_evalset(evalset)
    assert str(info.value).startswith("<object>: $.evalCases[3].sessionInput.state" + expected)


METRIC_RULES: dict[str, tuple[dict[str, Any], str, str]] = {
    "nan_threshold": ({"threshold": float("nan")}, "$[1].threshold", "a finite number"),
    "deep_extension": (
        {"extension": {"w": _nested(MAX_DEPTH)}},
        "$[1].extension.w" + "[0]" * (MAX_DEPTH - 3),
        f"nested at most {MAX_DEPTH} levels deep",
    ),
    "int_beyond_float64": ({"extension": {"w": -(10**400)}}, "$[1].extension.w", "float64"),
}


@pytest.mark.parametrize("form", ["dict", "model"])
@pytest.mark.parametrize("rule", sorted(METRIC_RULES))
def test_metrics_in_memory_meet_the_file_rules_before_any_case_runs(rule, form, tmp_path):
    change, json_path, expected = METRIC_RULES[rule]
    items = [*METRICS, {**METRICS[0], "metricName": "second", **change}]
    metrics = items if form == "dict" else [ae.EvalMetric.model_validate(m) for m in items]
    agent = CountingAgent()
    with pytest.raises(ae.FormatError) as info:
        ae.evaluate(_evalset(_case("last")), metrics, agent=agent, progress=False)
    assert agent.calls == 0
    err = info.value
    assert (err.source, err.json_path) == ("<object>", json_path), str(err)
    assert expected in err.expected


def test_a_list_of_metric_models_and_dicts_loads():
    mixed = [ae.EvalMetric.model_validate(METRICS[0]), {**METRICS[0], "metricName": "b"}]
    assert [m.metric_name for m in ae.load_metrics(mixed)] == ["final_response_avg_score", "b"]
