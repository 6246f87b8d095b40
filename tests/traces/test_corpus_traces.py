"""Real trace files no one here wrote load into the invocations their sources say they hold.

tests/corpus/traces/index.json lists every trace input; SOURCES.md says where each came from.
Each input must load through ``ae.load_traces`` without an exception; each ``*.expected.json``
(read off the source by hand, or off the source's own derived answer) must match per case and
turn: user content, final response, tool ids/names/arguments/results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _expected import CORPUS, assert_matches, case_views, load_expected, report_text

import agenteval_nb as ae

INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text(encoding="utf-8"))
TRACES: list[dict[str, Any]] = INDEX["traces"]
WITH_ANSWER = [entry for entry in TRACES if entry["expected"]]


def _id(entry: dict[str, Any]) -> str:
    return "+".join(entry["files"])


def load(files: list[str]) -> tuple[Any, Any]:
    paths = [CORPUS / name for name in files]
    return ae.load_traces(paths[0] if len(paths) == 1 else paths)


def test_the_index_lists_every_corpus_file_once() -> None:
    listed = [name for entry in TRACES for name in entry["files"]]
    listed += [entry["expected"] for entry in TRACES if entry["expected"]]
    listed += INDEX["answers"] + INDEX["attribute_maps"]
    on_disk = {
        str(path.relative_to(CORPUS))
        for path in CORPUS.rglob("*.json")
        if path.name != "index.json"
    }
    # a file may be one input of several entries (traces + logs, the console twin): count once
    assert set(listed) == on_disk
    assert len(set(INDEX["answers"] + INDEX["attribute_maps"])) == len(
        INDEX["answers"] + INDEX["attribute_maps"]
    )


def test_corpus_files_are_small() -> None:
    big = [p.name for p in CORPUS.rglob("*.json") if p.stat().st_size >= 200_000]
    assert big == []


@pytest.mark.parametrize("entry", TRACES, ids=_id)
def test_every_corpus_file_loads(entry: dict[str, Any]) -> None:
    evalset, report = load(entry["files"])
    assert isinstance(evalset, ae.EvalSet)
    for case in evalset.eval_cases or []:
        assert case.eval_mode == "trace"
    report_text(report)  # the report renders


@pytest.mark.parametrize("entry", WITH_ANSWER, ids=_id)
def test_expected_answer_matches(entry: dict[str, Any]) -> None:
    evalset, report = load(entry["files"])
    assert_matches(evalset, report_text(report), load_expected(entry["expected"]), _id(entry))


def test_one_exchange_in_four_encodings_gives_one_invocation() -> None:
    """openinference's converter tests say these four files are one exchange (current GenAI,
    deprecated gen_ai.prompt JSON, OpenInference flat, OpenInference input/output only)."""
    same_as = load_expected("openinference/otel_genai_client_span_tool_calls.expected.json")
    views = []
    for name in same_as["same_as"]:
        evalset, _ = load([f"openinference/{name}"])
        (case,) = [turns for _, turns in case_views(evalset) if turns]
        views.append((name, case))
    first = views[0][1]
    for name, turns in views[1:]:
        assert turns == first, name


def test_agentevals_expected_answers_are_the_shipped_eval_sets() -> None:
    """The hand-copied answers say what agentevals' own EvalSets say (guards copy slips)."""
    for stem in ("k8s", "helm_3"):
        shipped = json.loads((CORPUS / f"agentevals/{stem}.evalset.json").read_text())
        (invocation,) = shipped["eval_cases"][0]["conversation"]
        (turn,) = load_expected(f"agentevals/{stem}.expected.json")["cases"][0]["turns"]
        assert turn["user_content"] == invocation["user_content"]["parts"][0]["text"]
        assert turn["final_response"] == invocation["final_response"]["parts"][0]["text"]
        uses = invocation["intermediate_data"]["tool_uses"]
        assert [(t["id"], t["name"], t["arguments"]) for t in turn["tools"]] == [
            (u["id"], u["name"], u["args"]) for u in uses
        ]
        responses = {
            r["id"]: r["response"] for r in invocation["intermediate_data"]["tool_responses"]
        }
        assert [t["result"] for t in turn["tools"]] == [responses[u["id"]] for u in uses]


def _strings(value: Any) -> set[str]:
    """Every string leaf of a JSON value, JSON text inside strings opened too."""
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    if isinstance(value, str):
        try:
            inner = json.loads(value)
        except ValueError:
            return {value}
        return {value} | (_strings(inner) if isinstance(inner, (dict, list)) else set())
    return set()


@pytest.mark.parametrize(
    "entry", [e for e in WITH_ANSWER if load_expected(e["expected"])["answer"]], ids=_id
)
def test_expected_texts_and_tool_ids_are_in_the_shipped_answer(entry: dict[str, Any]) -> None:
    """Where a source ships its own derived answer, every text and tool id/name our expected
    file states occurs in it verbatim (guards slips in the hand copy); ``not_in_answer`` names
    a field the answer lacks (its ``note`` says where it was read instead)."""
    expected = load_expected(entry["expected"])
    folder = entry["expected"].split("/")[0]
    shipped = _strings(json.loads((CORPUS / folder / expected["answer"]).read_text()))
    for case in expected["cases"]:
        for turn in case["turns"]:
            fields = ("user_content", "final_response")
            stated = [turn[f] for f in fields if f not in expected.get("not_in_answer", ())]
            stated += [t.get(key) for t in turn.get("tools", []) for key in ("id", "name")]
            for text in stated:
                assert text is None or text in shipped, text


def test_a_failed_tool_without_a_recorded_result_gets_its_error() -> None:
    """strands-evals' convention turn with the operation-details events taken away (content
    off): the London call's span failed with ``error.type`` TimeoutError and nothing else holds
    its result, so its result is that error; Paris keeps its span's result."""
    spans = json.loads((CORPUS / "strands-evals/otel_genai_convention_spans.json").read_text())
    for one in spans:
        one["span_events"] = []
    evalset, _ = ae.load_traces(spans)
    ((_, (turn,)),) = case_views(evalset)
    assert [(t["id"], t["result"]) for t in turn["tools"]] == [
        ("call_paris_001", "rainy, 57°F"),
        ("call_london_001", {"error": "TimeoutError"}),
    ]
