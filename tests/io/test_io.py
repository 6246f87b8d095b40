"""Loading, saving, env expansion, ADK conversion and secrets (issue: foundation)."""

from __future__ import annotations

import copy
import json
import os

import pytest
from _builders import evalset, trace_case
from hypothesis import given
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.io import dumps, json_path, write_text_atomic
from agenteval_nb.io.documents import validate_model, validated_by_case
from agenteval_nb.schema.envexpand import expand

EVALSET = {
    "evalSetId": "weather",
    "name": "Weather <demo> & co",
    "evalCases": [
        {
            "evalId": "c1",
            "evalMode": "trace",
            "conversation": [
                {
                    "invocationId": "t1",
                    "userContent": {"role": "user", "content": "Weather in Paris?"},
                    "finalResponse": {"role": "assistant", "content": "Sunny, 20°C"},
                    "tools": [
                        {
                            "id": "x",
                            "name": "get_weather",
                            "arguments": {"city": "Paris", "n": 1.5},
                            "result": {"t": 20},
                        }
                    ],
                    "creationTimestamp": 1700000000.25,
                    "futureField": {"kept": [1, 2]},
                }
            ],
            "sessionInput": {"appName": "demo", "userId": "u", "state": {"k": "v"}},
            "orderSensitive": False,
        }
    ],
    "creationTimestamp": 0,
}


def test_evalset_round_trip_keeps_unknown_keys_and_values():
    es = ae.load_evalset(EVALSET)
    wire = json.loads(dumps(es))
    assert wire == EVALSET
    again = ae.load_evalset(dumps(es))
    assert again == es


def test_loaders_accept_path_text_dict_and_model(tmp_path):
    path = ae.save_evalset(ae.load_evalset(EVALSET), tmp_path / "deep" / "dir" / "w.evalset.json")
    from_path = ae.load_evalset(path)
    assert from_path == ae.load_evalset(str(path)) == ae.load_evalset(json.dumps(EVALSET))
    assert ae.load_evalset(from_path) is from_path


def test_files_are_written_like_go_writes_them(tmp_path):
    path = ae.save_evalset(ae.load_evalset(EVALSET), tmp_path / "w.evalset.json")
    text = path.read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "evalSetId"')
    assert "\\u003cdemo\\u003e \\u0026 co" in text and "<demo>" not in text
    assert "20°C" in text  # other non-ASCII stays UTF-8
    assert json.loads(text)["name"] == "Weather <demo> & co"


def test_atomic_write_leaves_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "f.json"
    write_text_atomic(target, "old\n")

    class Boom(str):
        pass

    with pytest.raises(TypeError):
        write_text_atomic(target, 12345)  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_metrics_env_expansion_and_api_key_never_written(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "sk-very-secret")
    monkeypatch.setenv("JUDGE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("UNSET_VAR", raising=False)
    metrics = [
        {
            "metricName": "judge",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "openai",
                        "modelName": "m-$UNSET_VAR-${JUDGE_URL}x",
                        "baseURL": "${JUDGE_URL}",
                        "apiKey": "${JUDGE_KEY}",
                        "extraFields": {"note": "${JUDGE_KEY}"},
                        "generationConfig": {"max_tokens": 10},
                    }
                }
            },
        }
    ]
    ms = ae.load_metrics(metrics)
    jm = ms[0].criterion.llm_judge.judge_model
    assert jm.api_key == "sk-very-secret"
    assert jm.base_url == "http://127.0.0.1:9/v1"
    assert jm.model_name == "m--http://127.0.0.1:9/v1x"
    assert jm.extra_fields == {"note": "${JUDGE_KEY}"}  # not expanded outside the five fields
    assert jm.generation_config.stream is False
    path = ae.save_metrics(ms, tmp_path / "m.metrics.json")
    text = path.read_text()
    assert "sk-very-secret" not in text and "apiKey" not in text
    assert '"stream": false' in text
    assert "sk-very-secret" not in repr(ms) and "sk-very-secret" not in str(ms[0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${A}", "va"),
        ("$A", "va"),
        ("pre-${A}-post", "pre-va-post"),
        ("$A_B.x", "vab.x"),
        ("${}", ""),
        ("x${", "x"),
        ("${A", "A"),
        ("cost $", "cost $"),
        ("$%", "$%"),
        ("$MISSING|", "|"),
        ("${A B}", ""),
        ("$1x", "onex"),
        ("${*}", "star"),
    ],
)
def test_expand_follows_go_os_expandenv(text, expected):
    env = {"A": "va", "A_B": "vab", "1": "one", "*": "star"}
    assert expand(text, env) == expected


@given(st.text(alphabet=st.characters(blacklist_characters="$")))
def test_expand_leaves_text_without_dollar_alone(text):
    assert expand(text, {}) == text


def test_result_legacy_string_form_and_go_file(tmp_path):
    result = {
        "evalSetResultId": "r",
        "evalSetId": "s",
        "evalCaseResults": [{"evalId": "c", "runId": 1, "finalEvalStatus": "passed"}],
    }
    legacy = tmp_path / "legacy.evalset_result.json"
    legacy.write_text(json.dumps(json.dumps(result)))
    loaded = ae.load_result(legacy)
    assert loaded.eval_case_results[0].final_eval_status == "passed"
    assert loaded.summary is None  # returned as it is
    assert json.loads(dumps(loaded)) == result


def test_go_decoding_matches_keys_case_insensitively():
    es = ae.load_evalset({"EvalSetID": "s", "evalcases": [{"EVALID": "c", "EvalMode": "trace"}]})
    assert es.eval_set_id == "s" and es.eval_cases[0].eval_id == "c" and es.eval_cases[0].is_trace


def test_null_eval_cases_become_empty():
    assert ae.load_evalset({"evalSetId": "s", "evalCases": None}).eval_cases == []


def test_adk_evalset_is_converted():
    adk = {
        "eval_set_id": "adk_set",
        "eval_cases": [
            {
                "eval_id": "e1",
                "conversation": [
                    {
                        "invocation_id": "i1",
                        "user_content": {
                            "role": "user",
                            "parts": [{"text": "Add "}, {"text": "2+2"}],
                        },
                        "final_response": {"role": "model", "parts": [{"text": "4"}]},
                        "intermediate_data": {
                            "tool_uses": [
                                {"id": "a", "name": "calc", "args": {"x": "2+2"}},
                                {"name": "log", "args": {}},
                            ],
                            "tool_responses": [
                                {"name": "log", "response": {"ok": True}},
                                {"id": "a", "name": "calc", "response": {"v": 4}},
                            ],
                            "intermediate_responses": [["agent", [{"text": "thinking"}]]],
                        },
                    }
                ],
                "session_input": {"app_name": "app", "user_id": "u", "state": {}},
            }
        ],
    }
    es = ae.load_evalset(adk)
    inv = es.eval_cases[0].conversation[0]
    assert es.eval_set_id == "adk_set"
    assert inv.user_content.content == "Add 2+2" and inv.final_response.role == "assistant"
    assert [(t.id, t.name, t.arguments, t.result) for t in inv.tools] == [
        ("a", "calc", {"x": "2+2"}, {"v": 4}),
        (None, "log", {}, {"ok": True}),
    ]
    assert es.eval_cases[0].session_input.app_name == "app"
    assert inv.model_extra["intermediateData"]["intermediateResponses"]


def test_adk_camel_case_shape_is_detected():
    adk = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "e",
                "conversation": [
                    {
                        "userContent": {"role": "user", "parts": [{"text": "hi"}]},
                        "intermediateData": {"toolUses": [], "toolResponses": []},
                    }
                ],
            }
        ],
    }
    assert ae.load_evalset(adk).eval_cases[0].conversation[0].user_content.content == "hi"


@pytest.mark.parametrize(
    ("loader", "doc", "path", "what"),
    [
        (ae.load_metrics, '{"metricName": "m"}', "$", "a JSON array of metrics, got an object"),
        (
            ae.load_metrics,
            '[{"metricName": "m", "threshold": "0.5"}]',
            "$[0].threshold",
            "valid number",
        ),
        (ae.load_metrics, "[1]", "$[0]", "a JSON object, got a number"),
        (
            ae.load_evalset,
            '{"evalSetId": "s", "evalCases": [{"evalId": "a", "evalMode": "replay"}]}',
            "$.evalCases[0].evalMode",
            "evalMode must be",
        ),
        (ae.load_evalset, '{"evalCases": []}', "$.evalSetId", "required field is missing"),
        (
            ae.load_result,
            '{"evalCaseResults": [{"runId": "1"}]}',
            "$.evalCaseResults[0].runId",
            "valid integer",
        ),
        (ae.load_evalset, "", "$", "empty"),
    ],
)
def test_bad_input_names_source_path_and_expectation(tmp_path, loader, doc, path, what):
    f = tmp_path / "bad.json"
    f.write_text(doc)
    with pytest.raises(ae.FormatError) as info:
        loader(f)
    err = info.value
    assert err.source == str(f) and err.json_path == path and what in str(err)
    assert str(f) in str(err) and path in str(err)


def test_malformed_json_reports_line(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{\n  "evalSetId": "s",\n  "evalCases": [,]\n}')
    with pytest.raises(ae.FormatError) as info:
        ae.load_evalset(f)
    assert info.value.line == 3 and f"{f}:3: $: valid JSON" in str(info.value)


def test_missing_file_is_a_format_error(tmp_path):
    with pytest.raises(ae.FormatError, match="file not found"):
        ae.load_evalset(tmp_path / "nope.evalset.json")


def test_json_path_rendering():
    assert (
        json_path(("evalCases", 1, "conversation", 0, "userContent"))
        == "$.evalCases[1].conversation[0].userContent"
    )


def test_epoch_time_must_be_a_number():
    with pytest.raises(ae.FormatError, match=r"\$.creationTimestamp"):
        ae.load_evalset({"evalSetId": "s", "creationTimestamp": "bad"})


def test_nothing_is_left_half_written_on_failed_save(tmp_path, monkeypatch):
    target = tmp_path / "x.evalset.json"
    ae.save_evalset(ae.load_evalset(EVALSET), target)
    before = target.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        ae.save_evalset(ae.load_evalset({"evalSetId": "other"}), target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.evalset.json"]


def test_streamed_result_file_equals_the_one_piece_dump(tmp_path):
    result = ae.load_result(
        {
            "evalSetResultId": "r<1>",
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "a&b",
                    "runId": 1,
                    "finalEvalStatus": "passed",
                    "extraKey": {"x": [1, None]},
                },
                {"evalId": "c", "runId": 1, "errorMessage": "line1\nline2 <tag>"},
            ],
            "summary": {"overallStatus": "failed", "numRuns": 1},
            "creationTimestamp": 12.5,
            "producer": {"name": "agenteval_nb"},
        }
    )
    for variant in (
        result,
        result.model_copy(update={"eval_case_results": []}),
        result.model_copy(update={"summary": None}),
    ):
        path = ae.save_result(variant, tmp_path / "r.evalset_result.json")
        assert path.read_text() == dumps(variant)
        assert ae.load_result(path) == variant


def test_a_model_of_another_kind_is_named_not_opened_as_a_path():
    result = ae.load_result({"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": []})
    with pytest.raises(TypeError, match=r"got a model \(EvalSetResult\)"):
        ae.load_evalset(result)


# -- an eval set file validated a case at a time -------------------------------------------


def _two_cases() -> dict:
    odd = trace_case("b", ["x"], ["y"], metaData={"k": [1, 2.5]})
    odd["ActualConversation"] = odd.pop("actualConversation")  # folded by the loader
    return evalset(trace_case("a", ["x"], ["x"]), odd)


def test_a_file_is_validated_case_by_case_and_its_data_dropped_as_it_goes():
    data = _two_cases()
    whole = validate_model(ae.EvalSet, copy.deepcopy(data), "<text>")
    assert validated_by_case(data) == whole
    assert "evalCases" not in data


def test_a_file_loads_as_the_whole_validation_reads_it(tmp_path):
    path = tmp_path / "set.evalset.json"
    path.write_text(json.dumps(_two_cases()), encoding="utf-8")
    loaded = ae.load_evalset(path)
    assert loaded == ae.load_evalset(_two_cases())  # a dict: validated whole
    assert loaded.eval_cases[1].actual_conversation[0].final_response.content == "y"


def test_a_file_with_bad_cases_names_the_problems_as_the_whole_validation_does(tmp_path):
    data = _two_cases()
    data["evalCases"][0]["conversation"] = "not a list"
    data["evalCases"][1]["evalMode"] = 3
    path = tmp_path / "bad.evalset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ae.FormatError) as from_file:
        ae.load_evalset(path)
    with pytest.raises(ae.FormatError) as from_dict:
        ae.load_evalset(data)
    assert "(and 1 more problem)" in str(from_file.value)
    assert str(from_file.value).replace(str(path), "<object>") == str(from_dict.value)
