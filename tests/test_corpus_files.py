"""The sample files under ``data/`` are valid, survive a round trip, and the demo is reproducible.

* (a) every JSON file under ``data/`` validates with the wire models (eval sets, metrics arrays,
  results — including the legacy result file whose whole content is a JSON string);
* (b) ``model.to_wire()`` equals the input once both sides are normalised for what Go treats as
  equal: object keys whose value is ``null`` are dropped, key order is ignored, ``1`` equals
  ``1.0``; and ``judgeModel.apiKey`` is dropped from the input because it is never written
  (SPEC §1.4). ``${VAR}`` references in ``judgeModel`` are expanded when metrics are decoded;
  the test sets every referenced variable to its own reference text (``VAR="${VAR}"``), so
  expansion, which is not recursive, gives the text back and the files compare as written;
* (c) ``data/make_demo.py`` regenerates byte-identical demo files;
* (d) the demo keeps its promises (see ``data/README.md``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval_nb.schema import EvalMetric, EvalSet, EvalSetResult

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = DATA / "demo"
DEMO_APP = DEMO / "demo_assistant"
SUFFIXES = {
    ".evalset.json": "evalset",
    ".metrics.json": "metrics",
    ".evalset_result.json": "result",
}
JUDGE_RESPONSES = DATA / "seeds" / "judge_responses"
JSON_FILES = sorted(DATA.rglob("*.json"))
GO_FILES = [p for p in JSON_FILES if not p.is_relative_to(JUDGE_RESPONSES)]


def _id(path: Path) -> str:
    return str(path.relative_to(DATA))


def kind_of(path: Path) -> str:
    for suffix, kind in SUFFIXES.items():
        if path.name.endswith(suffix):
            return kind
    if path.is_relative_to(JUDGE_RESPONSES):
        return "judge_response"
    raise AssertionError(f"{_id(path)}: not a Go file name and not a judge response fragment")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def read_json(path: Path) -> Any:
    """Strict JSON (no NaN/Infinity); a legacy result file's outer JSON string is decoded."""
    data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    if kind_of(path) == "result" and isinstance(data, str):
        data = json.loads(data, parse_constant=_reject_constant)
    return data


def validate(path: Path) -> Any:
    """The validated model(s) of a Go-format file: a model, or a list of EvalMetric."""
    data = read_json(path)
    kind = kind_of(path)
    if kind == "evalset":
        return EvalSet.model_validate(data)
    if kind == "result":
        return EvalSetResult.model_validate(data)
    assert isinstance(data, list), f"{_id(path)}: a metrics file must be a JSON array"
    return [EvalMetric.model_validate(item) for item in data]


def to_wire(model: Any) -> Any:
    if isinstance(model, list):
        return [m.to_wire() for m in model]
    return model.to_wire()


def normalise(value: Any, parent: str | None = None) -> Any:
    """Canonical form for comparison: null-valued keys dropped, numbers as floats, bools tagged."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if item is None or (parent == "judgeModel" and key == "apiKey"):
                continue
            out[key] = normalise(item, key)
        return out
    if isinstance(value, list):
        return [normalise(item) for item in value]
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    return value


def first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                return f"{path}.{key}: missing after the round trip"
            if key not in b:
                return f"{path}.{key}: added by the round trip"
            diff = first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            diff = first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


@pytest.fixture(autouse=True)
def _env_refs_expand_to_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    names: set[str] = set()
    for path in JSON_FILES:
        names.update(re.findall(r"\$\{([A-Za-z0-9_]+)\}", path.read_text(encoding="utf-8")))
    for name in names:
        monkeypatch.setenv(name, "${" + name + "}")


# ------------------------------------------------------------------------------------------ (a)


def test_data_has_files() -> None:
    kinds = [kind_of(p) for p in JSON_FILES]
    assert kinds.count("evalset") >= 10
    assert kinds.count("metrics") >= 15
    assert kinds.count("result") >= 3


@pytest.mark.parametrize("path", JSON_FILES, ids=_id)
def test_file_is_valid(path: Path) -> None:
    if kind_of(path) == "judge_response":
        data = read_json(path)
        tokens = data["choices"][0]["logprobs"]["content"]
        assert tokens, "a logprobs fragment needs at least one token"
        for token in tokens:
            assert isinstance(token["token"], str)
            assert isinstance(token["logprob"], int | float)
            for top in token.get("top_logprobs", []):
                assert isinstance(top["token"], str)
                assert isinstance(top["logprob"], int | float)
        return
    validate(path)


def test_legacy_string_result_is_a_string_file() -> None:
    legacy = [
        p
        for p in JSON_FILES
        if kind_of(p) == "result" and isinstance(json.loads(p.read_text("utf-8")), str)
    ]
    assert legacy, "the legacy string-form result file is missing"
    for path in legacy:
        assert isinstance(validate(path), EvalSetResult)


def test_older_result_without_summary_and_score_is_present() -> None:
    older = []
    for path in JSON_FILES:
        if kind_of(path) != "result":
            continue
        data = read_json(path)
        if "summary" not in data and all("score" not in c for c in data["evalCaseResults"]):
            older.append(path)
    assert older, "an older-format result file (no summary, no case score) is missing"


# ------------------------------------------------------------------------------------------ (b)


@pytest.mark.parametrize("path", GO_FILES, ids=_id)
def test_round_trip(path: Path) -> None:
    source = read_json(path)
    written = to_wire(validate(path))
    expected, actual = normalise(source), normalise(written)
    assert expected == actual, f"{_id(path)}: {first_difference(expected, actual)}"


def test_round_trip_compare_is_not_blind() -> None:
    assert normalise({"a": True}) != normalise({"a": 1})
    assert normalise({"a": 1, "b": None}) == normalise({"a": 1.0})
    assert normalise({"judgeModel": {"apiKey": "k", "modelName": "m"}}) == normalise(
        {"judgeModel": {"modelName": "m"}}
    )
    assert normalise({"apiKey": "k"}) != normalise({})


# ------------------------------------------------------------------------------------------ (c)


def test_make_demo_regenerates_identical_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(DATA / "make_demo.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = {p.relative_to(DEMO): p.read_bytes() for p in DEMO.rglob("*") if p.is_file()}
    generated = {
        p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
    }
    assert sorted(committed) == sorted(generated)
    for rel, content in committed.items():
        assert content == generated[rel], f"data/demo/{rel} differs from make_demo.py output"


# ------------------------------------------------------------------------------------------ (d)


def _runs() -> dict[int, dict[str, Any]]:
    return {r: read_json(DEMO_APP / f"demo_run{r}.evalset.json") for r in (1, 2, 3)}


def _shape(turn: dict[str, Any]) -> Any:
    """What a grader sees of a recorded turn: tool names and arguments, and the final text."""
    tools = [
        (t.get("name"), json.dumps(t.get("arguments"), sort_keys=True))
        for t in turn.get("tools") or []
    ]
    return tools, (turn.get("finalResponse") or {}).get("content")


def test_demo_run_files_share_cases_and_expectations() -> None:
    runs = _runs()
    for run, data in runs.items():
        assert data["evalSetId"] == "demo_assistant"  # one eval set, three recorded runs
        assert data["name"] == f"demo_run{run}"
        EvalSet.model_validate(data)
    ids = [[c["evalId"] for c in data["evalCases"]] for data in runs.values()]
    assert len(ids[0]) >= 30
    assert len(set(ids[0])) == len(ids[0]), "case ids must be unique"
    assert ids[0] == ids[1] == ids[2]
    for i, case in enumerate(runs[1]["evalCases"]):
        for run in (2, 3):
            other = runs[run]["evalCases"][i]
            assert other["conversation"] == case["conversation"], case["evalId"]
            assert other.get("sessionInput") == case.get("sessionInput"), case["evalId"]


def test_demo_cases_are_complete_trace_cases() -> None:
    runs = _runs()
    for data in runs.values():
        for case in data["evalCases"]:
            eid = case["evalId"]
            assert case.get("evalMode") == "trace", eid
            session = case.get("sessionInput")
            assert isinstance(session, dict) and session.get("appName") == "demo_assistant", eid
            assert session.get("userId"), eid
            expected, actual = case["conversation"], case["actualConversation"]
            assert 1 <= len(expected) <= 4, eid
            assert len(actual) == len(expected), eid
            for turn in expected + actual:
                assert turn["userContent"]["role"] == "user", eid
                assert turn["userContent"]["content"], eid
                assert turn["finalResponse"]["content"], eid
            for e, a in zip(expected, actual, strict=True):
                assert e["userContent"] == a["userContent"], eid
    cases = runs[1]["evalCases"]
    multi_turn = sum(len(c["conversation"]) > 1 for c in cases)
    assert multi_turn * 2 > len(cases), "most demo cases should be multi-turn"


def test_demo_has_flaky_cases_and_required_features() -> None:
    runs = _runs()
    cases = {r: {c["evalId"]: c for c in data["evalCases"]} for r, data in runs.items()}
    flaky = [
        eid
        for eid in cases[1]
        if len({json.dumps([_shape(t) for t in cases[r][eid]["actualConversation"]]) for r in runs})
        > 1
    ]
    assert flaky, "no case behaves differently between runs"
    all_cases = list(cases[1].values())
    assert any(c.get("contextMessages") for c in all_cases)
    assert any(
        r.get("metricName") == "llm_rubric_response"
        for c in all_cases
        for r in c.get("rubrics", [])
    )
    finals = [t["finalResponse"]["content"] for c in all_cases for t in c["conversation"]]
    assert any(re.search(r"[\u4e00-\u9fff]", f) for f in finals)
    assert any("<" in f and "&" in f and '"' in f for f in finals)
    raw = (DEMO_APP / "demo_run1.evalset.json").read_text("utf-8")
    assert "\\u003c" in raw and "\\u0026" in raw and "<" not in raw  # Go's HTML escaping


def test_demo_metrics() -> None:
    full = read_json(DEMO_APP / "demo.metrics.json")
    deterministic = read_json(DEMO_APP / "demo_deterministic.metrics.json")
    for data in (full, deterministic):
        [EvalMetric.model_validate(m) for m in data]
    assert full[: len(deterministic)] == deterministic
    assert all("llmJudge" not in m["criterion"] for m in deterministic)
    by_name = {m["metricName"]: m for m in full}
    evaluators = {m.get("evaluatorName") or m["metricName"] for m in full}
    assert {
        "tool_trajectory_avg_score",
        "final_response_avg_score",
        "llm_final_response",
        "llm_rubric_response",
        "llm_hallucinations",
        "llm_verifier_pairwise",
    } <= evaluators
    trajectory = by_name["tool_trajectory_avg_score"]["criterion"]["toolTrajectory"]
    assert trajectory["orderSensitive"] is False
    assert any(
        "ignoreTree" in (s.get("arguments") or {}) for s in trajectory["toolStrategy"].values()
    )
    text = by_name["final_response_avg_score"]["criterion"]["finalResponse"]["text"]
    assert text == {"caseInsensitive": True, "matchStrategy": "contains"}
    assert 2 <= len(by_name["llm_rubric_response"]["criterion"]["llmJudge"]["rubrics"]) <= 3
    verifier = by_name["verifier_pairwise"]
    assert verifier["evaluatorName"] == "llm_verifier_pairwise"
    assert verifier["threshold"] == 0.5
    config = verifier["criterion"]["llmJudge"]["judgeModel"]["generationConfig"]
    assert config["logprobs"] is True and config["top_logprobs"] == 20
    judge = {
        "providerName": "openai",
        "modelName": "${AGENTEVAL_JUDGE_MODEL}",
        "baseURL": "${OPENAI_BASE_URL}",
        "apiKey": "${OPENAI_API_KEY}",
    }
    for metric in full:
        llm = metric["criterion"].get("llmJudge")
        if llm is not None:
            model = {k: v for k, v in llm["judgeModel"].items() if k != "generationConfig"}
            assert model == judge, metric["metricName"]
