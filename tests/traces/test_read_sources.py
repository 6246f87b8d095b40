"""read_spans' sources and failures: paths, folders, text, bytes, objects; detection; when a
FormatError is raised and when problems are enough."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval_nb.errors import ConfigError, FormatError
from agenteval_nb.traces.read import PROBLEMS_PER_FILE, ReadProblem, detect_format, read_spans

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "traces"
TRACE = CORPUS / "opentelemetry-proto" / "trace.json"
JAEGER = CORPUS / "agentevals" / "k8s.json"

SPAN = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "s"}
OTLP = {"resourceSpans": [{"scopeSpans": [{"spans": [SPAN]}]}]}


@pytest.mark.parametrize(
    ("doc", "fmt"),
    [
        (OTLP, "otlp"),
        ({"batches": []}, "tempo"),
        ({"trace": {"resourceSpans": []}}, "tempo"),
        ({"result": {"resourceSpans": []}}, "otlp"),
        ({"resourceLogs": []}, "otlp_logs"),
        ({"data": [{"traceID": "a", "spans": [], "processes": {}}]}, "jaeger"),
        ({"traceID": "a", "spans": []}, "jaeger"),
        ({"trace": {"id": "t"}, "observations": []}, "langfuse"),
        ({"object": "trace.span", "id": "span_1"}, "agents_sdk"),
        ({"context": {"trace_id": "0x1", "span_id": "0x2"}, "kind": "SpanKind.CLIENT"}, "console"),
        ({"context": {"trace_id": "1", "span_id": "2"}, "span_kind": "LLM"}, "phoenix"),
        ({"trace_id": "1", "span_id": "2"}, "dicts"),
        ({"body": "x", "severity_number": 9, "trace_id": "0x1"}, "console_logs"),
        ({"evalSetId": "x"}, None),
        ("text", None),
    ],
)
def test_detect_format(doc: Any, fmt: str | None) -> None:
    assert detect_format(doc) == fmt


def test_call_time_errors_unknown_format_and_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="format 'zipkin'"):
        read_spans(TRACE, format="zipkin")
    with pytest.raises(FileNotFoundError, match=r"nope\.json"):
        read_spans(tmp_path / "nope.json")


def test_not_json_raises_a_format_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "spans.json"
    path.write_text("this is not json")
    with pytest.raises(FormatError) as caught:
        list(read_spans(path))
    assert caught.value.source == str(path)
    assert "expected JSON or JSON lines" in str(caught.value)


def test_an_unknown_envelope_raises_and_names_the_keys_seen() -> None:
    with pytest.raises(FormatError, match="got evalSetId, evalCases"):
        list(read_spans({"evalSetId": "x", "evalCases": []}))


def test_a_format_named_explicitly_reads_only_its_family() -> None:
    with pytest.raises(FormatError, match="expected a otlp document, found jaeger"):
        list(read_spans(JAEGER, format="otlp"))
    assert len(list(read_spans(JAEGER, format="jaeger"))) == 73
    (got,) = list(read_spans(OTLP, format="tempo"))
    assert got.source == "otlp"
    (phoenix,) = list(read_spans({"trace_id": "1", "span_id": "2"}, format="phoenix"))
    assert phoenix.source == "phoenix"


def test_a_folder_with_one_bad_file_gives_problems_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(OTLP))
    (tmp_path / "b.jsonl").write_text("{broken\n")
    (tmp_path / "c.json").write_text(json.dumps({"unrelated": True}))
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(tmp_path, problems=problems))
    assert got.file == str(tmp_path / "a.json")
    assert [(Path(p.file or "").name, p.where) for p in problems] == [
        ("b.jsonl", "$"),
        ("c.json", "line 1: $"),  # a one-line file is read as JSONL
    ]


def test_text_bytes_lists_of_paths_and_an_empty_envelope() -> None:
    assert [s.span_id for s in read_spans(json.dumps(OTLP))] == ["cd" * 8]
    assert [s.file for s in read_spans(json.dumps(OTLP).encode())] == ["<text>"]
    spans = list(read_spans([str(TRACE), TRACE]))
    assert [s.order for s in spans] == [0, 1]
    assert list(read_spans({"resourceSpans": []})) == []  # readable, just empty: no error


def test_problems_are_capped_per_file_with_a_count_of_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    bad = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "no ids"}]}]}]})
    path.write_text(json.dumps(OTLP) + "\n" + (bad + "\n") * (PROBLEMS_PER_FILE + 50))
    problems: list[ReadProblem] = []
    assert len(list(read_spans(path, problems=problems))) == 1
    assert len(problems) == PROBLEMS_PER_FILE + 1
    assert problems[0].where == "line 2: $.resourceSpans[0].scopeSpans[0].spans[0]"
    assert problems[-1].message == "50 more problem(s) not listed"


def test_concatenated_documents_and_a_broken_tail(tmp_path: Path) -> None:
    path = tmp_path / "console.json"
    one = json.dumps(OTLP, indent=2)
    path.write_text(one + "\n" + one + "\n{ broken")
    problems: list[ReadProblem] = []
    assert len(list(read_spans(path, problems=problems))) == 2
    (problem,) = problems
    assert problem.where.startswith(f"line {2 * one.count(chr(10)) + 3}: ")


class _Exploding:
    """Looks like an SDK span until its context is read."""

    start_time = 1

    def get_span_context(self) -> Any:
        raise RuntimeError("no context here")


def test_an_entry_whose_reading_raises_is_a_problem_and_the_rest_is_read() -> None:
    problems: list[ReadProblem] = []
    got = list(read_spans([_Exploding(), {"trace_id": "t", "span_id": "s"}], problems=problems))
    assert [s.span_id for s in got] == ["s"]
    assert [(p.where, p.message) for p in problems] == [
        ("$[0]", "could not read this entry (RuntimeError: no context here)")
    ]
