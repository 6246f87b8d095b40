"""Issue 10, wire formats: nothing finished is lost, odd input is a clear FormatError,
apiKey near-misses, paths, and the neighbouring frameworks' real files."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.io import MAX_DEPTH, RESULT_EXTRA_DEPTH, dumps
from agenteval_nb.schema import (
    EvalMetricResultDetails,
    EvalSetResult,
    MetricSummary,
    ScoreValue,
)

SAMPLES = Path(__file__).resolve().parent / "samples"
DATA = Path(__file__).resolve().parents[2] / "data"
LOADERS = {"evalset": ae.load_evalset, "metrics": ae.load_metrics, "result": ae.load_result}
SUFFIXES = {
    ".evalset.json": "evalset",
    ".metrics.json": "metrics",
    ".evalset_result.json": "result",
}
GO_FILES = sorted(p for p in DATA.rglob("*.json") if any(p.name.endswith(s) for s in SUFFIXES))


def kind_of(path: Path) -> str:
    return next(kind for suffix, kind in SUFFIXES.items() if path.name.endswith(suffix))


EVALSET: dict[str, Any] = {
    "evalSetId": "s",
    "evalCases": [
        {
            "evalId": "c",
            "evalMode": "trace",
            "conversation": [
                {
                    "userContent": {"role": "user", "content": "q"},
                    "tools": [{"name": "f", "arguments": {"a": 1}, "result": [1, 2]}],
                }
            ],
            "actualConversation": [
                {
                    "executionTrace": {
                        "Steps": [{"StepID": "s", "Tools": [{"Name": "f", "Arguments": {"n": 1}}]}]
                    }
                }
            ],
            "sessionInput": {"appName": "a", "userId": "u", "state": {"k": 1.5}},
        }
    ],
    "creationTimestamp": 1.0,
}
METRICS: list[Any] = [
    {
        "metricName": "m",
        "threshold": 0.5,
        "criterion": {
            "llmJudge": {"judgeModel": {"modelName": "x", "generationConfig": {"temperature": 0.1}}}
        },
        "extension": {"w": [1, 2]},
    }
]
RESULT: dict[str, Any] = {
    "evalSetResultId": "r",
    "evalSetId": "s",
    "evalCaseResults": [
        {
            "evalId": "c",
            "runId": 1,
            "score": 1,
            "evalMetricResultPerInvocation": [
                {
                    "actualInvocation": {"tools": [{"name": "f", "result": {"v": 2}}]},
                    "evalMetricResults": [
                        {"metricName": "m", "details": {"value": {"kind": "numeric", "numeric": 1}}}
                    ],
                }
            ],
        }
    ],
    "summary": {"runSummaries": [{"metricSummaries": [{"metricName": "m", "averageScore": 1}]}]},
    "creationTimestamp": 2.0,
}
DOCS = {"evalset": EVALSET, "metrics": METRICS, "result": RESULT}


def number_paths(value: Any, loc: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Locations of every number in a document."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in number_paths(v, (*loc, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in number_paths(v, (*loc, i))]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [loc]
    return []


def all_paths(value: Any, loc: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [loc]
    if isinstance(value, dict):
        out += [p for k, v in value.items() for p in all_paths(v, (*loc, k))]
    elif isinstance(value, list):
        out += [p for i, v in enumerate(value) for p in all_paths(v, (*loc, i))]
    return out


def replaced(doc: Any, loc: tuple[Any, ...], new: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    if not loc:
        return new
    target = doc
    for part in loc[:-1]:
        target = target[part]
    target[loc[-1]] = new
    return doc


def json_path(loc: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


# ------------------------------------------------------------------- numbers out of range


@pytest.mark.parametrize("kind", sorted(DOCS))
@pytest.mark.parametrize("literal", ["1e999", "-2E+308", "1" + "0" * 320])
def test_every_number_out_of_float64_range_is_a_format_error_at_its_path(kind, literal):
    doc = DOCS[kind]
    for loc in number_paths(doc):
        text = json.dumps(replaced(doc, loc, "@MARK@")).replace('"@MARK@"', literal)
        with pytest.raises(ae.FormatError) as info:
            LOADERS[kind](text)
        assert info.value.json_path == json_path(loc)
        assert "float64 range" in info.value.expected


@pytest.mark.parametrize("kind", sorted(DOCS))
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 10**400])
def test_non_finite_or_huge_numbers_in_python_input_are_format_errors(kind, value):
    doc = DOCS[kind]
    for loc in number_paths(doc):
        with pytest.raises(ae.FormatError) as info:
            LOADERS[kind](_inject(doc, loc, value))
        assert info.value.json_path == json_path(loc)


def _inject(doc: Any, loc: tuple[Any, ...], value: Any) -> Any:
    out = json.loads(json.dumps(doc))
    target = out
    for part in loc[:-1]:
        target = target[part]
    target[loc[-1]] = value
    return out


def test_small_numbers_underflow_to_zero_as_in_go():
    es = ae.load_evalset(json.dumps(EVALSET).replace("1.5", "1e-400"))
    assert es.eval_cases[0].session_input.state == {"k": 0.0}


# ------------------------------------------------------------------- nesting


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000, 50_000])
def test_deep_nesting_is_a_format_error_not_a_recursion_error(depth):
    text = json.dumps(EVALSET).replace('{"k": 1.5}', "[" * depth + "]" * depth)
    with pytest.raises(ae.FormatError) as info:
        ae.load_evalset(text)
    assert "nested at most" in info.value.expected
    assert info.value.json_path.startswith("$.evalCases[0].sessionInput.state[0][0]")
    data = _inject(EVALSET, ("evalCases", 0, "sessionInput", "state"), {"x": _nested(depth)})
    with pytest.raises(ae.FormatError, match="nested at most"):
        ae.load_evalset(data)


def test_nesting_at_the_limit_loads_saves_and_loads_again(tmp_path):
    doc = _inject(EVALSET, ("evalCases", 0, "conversation", 0, "tools", 0, "arguments"), None)
    inner = MAX_DEPTH - 7  # $ evalCases [0] conversation [0] tools [0] = 7 levels above
    doc["evalCases"][0]["conversation"][0]["tools"][0]["arguments"] = _nested(inner - 1)
    es = ae.load_evalset(json.dumps(doc))
    path = ae.save_evalset(es, tmp_path / "deep.evalset.json")
    assert ae.load_evalset(path) == es
    result = EvalSetResult.model_validate(
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "c",
                    "evalMetricResultPerInvocation": [
                        {"actualInvocation": es.eval_cases[0].conversation[0]}
                    ],
                }
            ],
        }
    )
    saved = ae.save_result(result, tmp_path / "deep.evalset_result.json")
    assert ae.load_result(saved) == result  # results may nest RESULT_EXTRA_DEPTH more
    assert RESULT_EXTRA_DEPTH >= 8


def test_writing_deeper_than_the_loader_accepts_warns_but_writes(tmp_path):
    es = ae.load_evalset(EVALSET)
    es.eval_cases[0].conversation[0].tools[0].result = _nested(2000)  # e.g. from a live agent
    with pytest.warns(UserWarning, match="nests"):
        path = ae.save_evalset(es, tmp_path / "x.evalset.json")
    assert path.read_text().count("[") >= 2000
    with pytest.raises(ae.FormatError, match="nested at most"):
        ae.load_evalset(path)  # the warning said so: the file is kept, our loader refuses it


# ------------------------------------------------------------------- writing never fails

ODD_TEXT = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["\ud83d", "a\udc00b", "\ud83d\ude00", "\x00\x1f", "\u2028<&>", "é漢"]),
)
ODD_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | ODD_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ODD_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _finite(value: Any) -> Any:
    """What a written value reads back as: NaN / infinity become None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=ODD_TEXT, value=ODD_JSON, depth=st.sampled_from([0, 1, 150, 240]))
def test_every_file_we_write_is_utf8_strict_json_and_loads_again(tmp_path, text, value, depth):
    es = ae.load_evalset(EVALSET)
    es.eval_set_id = text or "s"
    turn = es.eval_cases[0].conversation[0]
    turn.tools[0].arguments = {text: value}
    turn.tools[0].result = _nested(depth)
    turn.user_content.content = text
    es.eval_cases[0].session_input.state = {"odd": value, text: float("nan")}
    result = EvalSetResult.model_validate(
        {
            "evalSetId": text,
            "evalCaseResults": [
                {
                    "evalId": text,
                    "score": float("inf"),
                    "errorMessage": text,
                    "evalMetricResultPerInvocation": [{"actualInvocation": turn}],
                    "extra": value,
                }
            ],
            "producer": value,
        }
    )
    metrics = ae.load_metrics(METRICS)
    metrics[0].extension = value
    metrics[0].threshold = float("nan")
    for model, save, load in (
        (es, ae.save_evalset, ae.load_evalset),
        (result, ae.save_result, ae.load_result),
        (metrics, ae.save_metrics, ae.load_metrics),
    ):
        path = save(model, tmp_path / "f.json")
        raw = path.read_bytes().decode("utf-8")  # strict: no lone surrogates in the bytes
        assert not re.search(r"\bNaN\b|\bInfinity\b", re.sub(r'"(?:[^"\\]|\\.)*"', "", raw))
        back = load(path)  # NaN / infinity were written as null, which reads back as absent
        assert _no_nulls(json.loads(dumps(back))) == _no_nulls(json.loads(raw))
    again = ae.load_evalset(ae.save_evalset(es, tmp_path / "e.json"))
    assert again.eval_set_id == json.loads(json.dumps(es.eval_set_id))
    back = ae.load_result(ae.save_result(result, tmp_path / "r.json"))
    # JSON readers join an escaped surrogate pair into one character, as json.loads does
    assert back.eval_case_results[0].model_extra.get("extra") == json.loads(
        json.dumps(_finite(value))
    )
    assert back.eval_case_results[0].score is None  # inf is written as null
    assert back.eval_case_results[0].error_message == json.loads(json.dumps(text))


def test_fast_and_iterative_writers_agree(tmp_path):
    es = ae.load_evalset(EVALSET)
    fast = dumps(es)
    es.name = "\ud83d"  # forces the iterative encoder
    slow = dumps(es)
    assert json.loads(slow)["name"] == "\ud83d"
    del es.name
    a, b = json.loads(fast), json.loads(slow)
    b.pop("name")
    assert a == b


def test_huge_python_int_is_written_as_a_string_so_the_file_loads(tmp_path):
    es = ae.load_evalset(EVALSET)
    es.eval_cases[0].conversation[0].tools[0].result = 10**400
    back = ae.load_evalset(ae.save_evalset(es, tmp_path / "x.evalset.json"))
    assert back.eval_cases[0].conversation[0].tools[0].result == str(10**400)


# ------------------------------------------------------------------- wrong types anywhere

SAMPLE_DOCS = {
    "go evalset": ("evalset", EVALSET),
    "adk evalset": ("evalset", json.loads((SAMPLES / "python_trace.evalset.json").read_text())),
    "adk test": ("evalset", json.loads((SAMPLES / "roll_dice.test.json").read_text())),
    "adk cases": ("evalset", json.loads((SAMPLES / "named_cases.test.json").read_text())),
    "metrics": ("metrics", METRICS),
    "test_config": ("metrics", json.loads((SAMPLES / "test_config_objects.json").read_text())),
    "result": ("result", RESULT),
}
WRONG = st.sampled_from([None, True, 7, 1.5, "s", [], [1, "x"], {}, {"a": [1]}, [[{}]]])


@settings(max_examples=250, deadline=None)
@given(name=st.sampled_from(sorted(SAMPLE_DOCS)), data=st.data(), wrong=WRONG)
def test_a_value_of_the_wrong_type_anywhere_is_a_format_error_or_loads(name, data, wrong):
    kind, doc = SAMPLE_DOCS[name]
    loc = data.draw(st.sampled_from(all_paths(doc)))
    try:
        LOADERS[kind](json.dumps(replaced(doc, loc, wrong)))
    except ae.FormatError as exc:
        assert exc.json_path.startswith("$")


# ------------------------------------------------------------------- apiKey near-misses

SPELLINGS = ["apiKey", "api_key", "APIKey", "apikey", "Api_Key", "API-KEY", "ApiKey", "APIKEY"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_the_key_is_the_key_and_never_written(spelling, tmp_path):
    secret = "sk-near-miss-secret-123456"
    metric = {"metricName": "m", "criterion": {"llmJudge": {"judgeModel": {spelling: secret}}}}
    loaded = ae.load_metrics([metric])
    judge = loaded[0].criterion.llm_judge.judge_model
    assert judge.api_key == secret
    assert not judge.model_extra
    text = ae.save_metrics(loaded, tmp_path / "m.metrics.json").read_text()
    assert secret not in text and secret not in repr(loaded) and secret not in str(loaded)
    assert secret not in json.dumps(loaded[0].model_dump(by_alias=True))


@pytest.mark.parametrize("second", [s for s in SPELLINGS if s != "apiKey"])
def test_two_different_keys_under_near_miss_names_are_rejected(second):
    judge = {"apiKey": "sk-first-secret-0000", second: "sk-second-secret-1111"}
    metric = {"metricName": "m", "criterion": {"llmJudge": {"judgeModel": judge}}}
    with pytest.raises(ae.FormatError) as info:
        ae.load_metrics([metric])
    assert info.value.json_path == "$[0].criterion.llmJudge.judgeModel"
    assert "given twice" in str(info.value)
    assert "sk-" not in str(info.value)


def test_the_same_key_under_two_spellings_is_accepted_once():
    judge = {"apiKey": "k-same", "api_key": "k-same"}
    metric = {"metricName": "m", "criterion": {"llmJudge": {"judgeModel": judge}}}
    assert ae.load_metrics([metric])[0].criterion.llm_judge.judge_model.api_key == "k-same"


# ------------------------------------------------------------------- paths


@pytest.mark.parametrize("name", ["[x].json", "{y}.json", '"z".json', " [w].json"])
def test_an_existing_path_is_a_path_even_if_it_looks_like_json(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(json.dumps(EVALSET))
    assert ae.load_evalset(name).eval_set_id == "s"
    Path(name).write_text(json.dumps(METRICS))
    assert ae.load_metrics(name)[0].metric_name == "m"
    Path(name).write_text(json.dumps(RESULT))
    assert ae.load_result(name).eval_set_result_id == "r"
    assert ae.load_result(str(tmp_path / name)).eval_set_result_id == "r"


def test_json_text_is_still_json_text():
    assert ae.load_evalset(json.dumps(EVALSET)).eval_set_id == "s"
    assert ae.load_evalset("  " + json.dumps(EVALSET) * 1).eval_set_id == "s"


# ------------------------------------------------------------------- google-adk files


def test_adk_list_of_turns_test_file_is_one_case():
    es = ae.load_evalset(SAMPLES / "roll_dice.test.json")
    assert es.eval_set_id == "roll_dice"
    (case,) = es.eval_cases
    assert case.eval_id == "roll_dice" and not case.is_trace
    assert case.session_input.app_name == "roll_dice" and case.session_input.user_id == "user"
    first, second = case.conversation
    assert first.user_content.content == "What can you do?" and first.tools is None
    assert second.final_response.content == "I rolled a 6-sided die twice: 2 and 4."
    assert [(t.name, t.arguments) for t in second.tools] == [("roll_die", {"sides": 6})] * 2
    assert second.intermediate_responses[0].content == "Rolling now."


def test_adk_named_cases_test_file_keeps_initial_session():
    es = ae.load_evalset(SAMPLES / "named_cases.test.json")
    assert [c.eval_id for c in es.eval_cases] == ["prime_check", "greeting"]
    first, second = es.eval_cases
    assert first.session_input.model_dump() == {
        "app_name": "hello_world",
        "user_id": "tester",
        "state": {"lang": "en"},
    }
    assert second.session_input.user_id == "user"


def test_adk_test_config_thresholds_become_metrics():
    metrics = ae.load_metrics(SAMPLES / "test_config.json")
    assert [m.metric_name for m in metrics] == ["tool_trajectory_avg_score", "response_match_score"]
    trajectory, rouge = metrics
    assert trajectory.evaluator_key == "tool_trajectory_avg_score"
    assert trajectory.threshold == 1.0
    tt = trajectory.criterion.tool_trajectory
    assert tt.order_sensitive is True and not tt.subset_matching
    assert tt.default_strategy.name.match_strategy == "exact"
    assert tt.default_strategy.arguments.match_strategy == "exact"
    assert tt.default_strategy.result is None  # ADK compares names and arguments only
    assert rouge.evaluator_key == "final_response_avg_score" and rouge.threshold == 1.0
    r = rouge.criterion.final_response.rouge
    assert (r.rouge_type, r.measure, r.use_stemmer, r.threshold.f1) == ("rouge1", "f1", True, 0.8)


def test_adk_test_config_objects_and_llm_criteria():
    metrics = {m.metric_name: m for m in ae.load_metrics(SAMPLES / "test_config_objects.json")}
    tt = metrics["tool_trajectory_avg_score"]
    assert tt.threshold == 0.9 and tt.criterion.tool_trajectory.order_sensitive is None
    assert tt.criterion.tool_trajectory.subset_matching is True
    assert metrics["response_match_score"].criterion.final_response.rouge.threshold.f1 == 0.7
    llm = metrics["final_response_match_v2"]
    assert llm.evaluator_key == "llm_final_response" and llm.threshold == 0.5
    assert llm.criterion.llm_judge.judge_model.model_name == "gpt-4o-mini"
    assert llm.criterion.llm_judge.judge_model.num_samples == 3
    rubric = metrics["rubric_based_final_response_quality_v1"]
    assert rubric.evaluator_key == "llm_rubric_response"
    assert rubric.criterion.llm_judge.rubrics[0].content.text == "The answer is brief."
    assert metrics["hallucinations_v1"].evaluator_key == "llm_hallucinations"


def test_converted_adk_files_evaluate(tmp_path):
    es = ae.load_evalset(SAMPLES / "python_trace.evalset.json")
    run = ae.evaluate(es, SAMPLES / "test_config.json", progress=False, cache=False)
    statuses = {
        m.metric_name: m.eval_status
        for m in run.result.eval_case_results[0].overall_eval_metric_results
    }
    assert statuses == {"tool_trajectory_avg_score": "passed", "response_match_score": "passed"}
    assert not run.result.eval_case_results[0].error_message


def test_python_trace_set_gets_a_default_session_input_go_sets_keep_the_go_rule():
    es = ae.load_evalset(SAMPLES / "python_trace.evalset.json")
    session = es.eval_cases[0].session_input
    assert (session.app_name, session.user_id, session.state) == ("weather_trace", "user", {})
    go = ae.load_evalset(_inject(EVALSET, ("evalCases", 0, "sessionInput"), None))
    assert go.eval_cases[0].session_input is None
    run = ae.evaluate(go, SAMPLES / "test_config.json", progress=False, cache=False)
    assert "session input is nil" in (run.result.eval_case_results[0].error_message or "")


# ------------------------------------------------------------------- round trips


@pytest.fixture
def env_refs_expand_to_themselves(monkeypatch):
    for path in GO_FILES:
        for name in re.findall(r"\$\{([A-Za-z0-9_]+)\}", path.read_text(encoding="utf-8")):
            monkeypatch.setenv(name, "${" + name + "}")


def _read_go(path: Path) -> Any:
    data = json.loads(path.read_text(encoding="utf-8"))
    return json.loads(data) if isinstance(data, str) else data


def _without_api_key(value: Any, parent: str | None = None) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_api_key(v, k)
            for k, v in value.items()
            if not (parent == "judgeModel" and k == "apiKey")
        }
    if isinstance(value, list):
        return [_without_api_key(v) for v in value]
    return value


def _typed(value: Any) -> Any:
    """Exact comparison: booleans are not numbers; ``1`` equals ``1.0`` (JSON has one number)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    return value


def test_data_has_go_files_with_null_trace_keys():
    assert len(GO_FILES) >= 30
    assert any('"Skills": null' in p.read_text() for p in GO_FILES)


@pytest.mark.usefixtures("env_refs_expand_to_themselves")
@pytest.mark.parametrize("path", GO_FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_every_data_file_round_trips_exactly(path):
    model = LOADERS[kind_of(path)](path)
    written = json.loads(dumps(model))
    assert _typed(written) == _typed(_without_api_key(_read_go(path)))


@pytest.mark.parametrize(
    "path", [p for p in GO_FILES if kind_of(p) == "result"], ids=lambda p: p.name
)
def test_load_run_then_save_writes_no_zero_values_go_would_omit(path, tmp_path):
    run = ae.load_run(path)
    text = ae.save_result(run.result, tmp_path / "r.evalset_result.json").read_text()
    assert not re.search(r'"(reason|averageScore)": (""|0|0\.0)[,\n]', text)
    if "summary" in _read_go(path):
        assert _typed(json.loads(text)) == _typed(_read_go(path))


def test_computed_zero_values_follow_go_omitempty():
    details = EvalMetricResultDetails(
        reason="", score=0.0, value=ScoreValue(kind="numeric", numeric=0.0)
    )
    assert json.loads(dumps(details)) == {"score": 0, "value": {"kind": "numeric", "numeric": 0}}
    summary = MetricSummary(metric_name="m", average_score=0.0, eval_status="failed", threshold=0.0)
    assert json.loads(dumps(summary)) == {"metricName": "m", "evalStatus": "failed", "threshold": 0}
    assert details.reason is None and summary.average_score == 0.0  # both read back the same
    assert (
        ae.load_result(
            dumps(EvalSetResult(summary={"runSummaries": [{"metricSummaries": [summary]}]}))
        )
        .summary.run_summaries[0]
        .metric_summaries[0]
        == summary
    )


def test_trace_keys_given_as_null_are_written_back_as_null():
    doc = _inject(
        EVALSET,
        ("evalCases", 0, "actualConversation", 0, "executionTrace"),
        {
            "RootAgentName": "a",
            "Usage": None,
            "Steps": [{"StepID": "s", "Tools": None, "Error": ""}],
        },
    )
    trace = json.loads(dumps(ae.load_evalset(doc)))["evalCases"][0]["actualConversation"][0][
        "executionTrace"
    ]
    assert trace == {
        "RootAgentName": "a",
        "Usage": None,
        "Steps": [{"StepID": "s", "Tools": None, "Error": ""}],
    }


# ------------------------------------------------------------------- not a result


@pytest.mark.parametrize(
    "path", [p for p in GO_FILES if kind_of(p) != "result"], ids=lambda p: p.name
)
def test_load_result_and_load_run_refuse_eval_sets_and_metrics_files(path):
    for loader in (ae.load_result, ae.load_run):
        with pytest.raises(ae.FormatError) as info:
            loader(path)
        assert info.value.json_path == "$"
        assert re.search(r"looks like (an eval set|a metrics file)", info.value.expected)


def test_an_empty_object_is_still_an_empty_result():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ae.load_result({}) == EvalSetResult()


def test_error_previews_never_show_a_key_even_nested():
    secret = "sk-nested-secret-abcdef123"
    bad_llm = [{"judgeModel": {"api_key": secret, "modelName": "m"}}]  # a list where an object goes
    metric = {"metricName": "m", "criterion": {"llmJudge": bad_llm}}
    with pytest.raises(ae.FormatError) as info:
        ae.load_metrics([metric])
    assert info.value.json_path == "$[0].criterion.llmJudge"
    assert secret[:6] not in str(info.value) and "***" in str(info.value)


def test_write_text_atomic_always_writes_valid_utf8(tmp_path):
    from agenteval_nb.io import write_text_atomic

    path = write_text_atomic(tmp_path / "r.html", "<p>half \ud83d emoji</p>")
    assert path.read_bytes().decode("utf-8") == "<p>half \ufffd emoji</p>"
    path = write_text_atomic(tmp_path / "r2.html", iter(["a\udc00", "b"]))
    assert path.read_bytes().decode("utf-8") == "a\ufffdb"


def test_a_finished_evaluation_with_unsafe_ids_and_odd_text_is_saved(tmp_path):
    """End to end: ids that are not file names, half an emoji, NaN-free output, all saved."""
    doc = _inject(EVALSET, ("evalSetId",), "../../outside/\ud83d")
    doc["evalCases"][0]["sessionInput"]["appName"] = "/abs/app"
    doc["evalCases"][0]["conversation"][0]["finalResponse"] = {
        "role": "assistant",
        "content": "\ud83d",
    }
    doc["evalCases"][0]["actualConversation"][0]["finalResponse"] = {
        "role": "assistant",
        "content": "\ud83d",
    }
    results = tmp_path / "results"
    with pytest.warns(UserWarning, match="not a safe file name"):
        run = ae.evaluate(doc, SAMPLES / "test_config.json", progress=False, results_dir=results)
    saved = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(saved) == 1 and saved[0].is_relative_to(results)
    assert saved[0].parent.parent == results
    store = ae.stores.LocalResultStore(results)
    (result_id,) = store.list("/abs/app")
    assert result_id == run.info["saved_result_id"]
    assert store.get("/abs/app", result_id) == ae.load_result(saved[0]) == run.result
    assert ae.load_result(saved[0]).eval_set_id == "../../outside/\ud83d"
