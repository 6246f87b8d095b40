"""OTLP/JSON TracesData + LogsData, Tempo batches: the public examples and the protobuf JSON
mapping's rules (hex in any case, base64 ids, enum integers and names, int64 strings)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from agenteval_nb.traces.read import ReadProblem, read_spans

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "traces"
PROTO = CORPUS / "opentelemetry-proto"
TEMPO = CORPUS / "agentevals" / "tempo_export_with_batches.json"

TRACE = "5b8efff798038103d269b633813fc60c"
SPAN = "eee19b7ec3c1b174"


def kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def traces_data(*spans: dict[str, Any], resource: list[Any] | None = None) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": resource or []},
                "scopeSpans": [{"scope": {"name": "lib"}, "spans": list(spans)}],
            }
        ]
    }


def span(span_id: str = SPAN, **fields: Any) -> dict[str, Any]:
    return {"traceId": TRACE, "spanId": span_id, "name": "chat", **fields}


def test_the_proto_trace_example_reads_with_its_ids_lowered_and_parent_kept() -> None:
    (got,) = list(read_spans(PROTO / "trace.json"))
    assert (got.trace_id, got.span_id, got.parent_id) == (TRACE, SPAN, "eee19b7ec3c1b173")
    assert got.name == "I'm a server span"
    assert (got.start_ns, got.end_ns) == (1544712660000000000, 1544712661000000000)
    assert got.kind == "server"
    assert got.attributes == {"my.span.attr": "some value"}
    assert got.resource == {"service.name": "my.service"}
    assert got.scope == "my.library"
    assert (got.source, got.file, got.order) == ("otlp", str(PROTO / "trace.json"), 0)


def test_the_proto_log_example_becomes_an_event_of_its_span_whatever_the_file_order() -> None:
    problems: list[ReadProblem] = []
    (got,) = list(read_spans([PROTO / "logs.json", PROTO / "trace.json"], problems=problems))
    assert problems == []
    (event,) = got.events
    assert event.from_log and event.name == "log"
    assert event.body == "Example log record"
    assert event.time_ns == 1544712660300000000
    assert event.attributes == {
        "string.attribute": "some string",
        "boolean.attribute": True,
        "int.attribute": 10,
        "double.attribute": 637.704,
        "array.attribute": ["many", "values"],
        "map.attribute": {"some.map.key": "some value"},
    }


def test_log_records_without_a_span_are_counted_in_one_problem() -> None:
    problems: list[ReadProblem] = []
    spans = list(read_spans([PROTO / "trace.json", PROTO / "events.json"], problems=problems))
    assert [s.events for s in spans] == [[]]
    (problem,) = problems
    assert problem.file == str(PROTO / "events.json")
    assert "1 log record(s) carry no traceId/spanId" in problem.message


def test_the_tempo_sample_reads_every_span_with_enum_names() -> None:
    problems: list[ReadProblem] = []
    spans = list(read_spans(TEMPO, problems=problems))
    assert problems == []
    assert len(spans) == 86
    assert {s.source for s in spans} == {"tempo"}
    first = spans[0]
    assert (first.kind, first.status, first.name) == ("server", "unset", spans[0].name)
    assert first.attributes["http.response.status_code"] == 404
    assert first.resource["service.name"] == "kagent-controller"
    assert first.scope == "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
    assert [s.order for s in spans] == list(range(86))
    conversations = {s.attributes.get("gen_ai.conversation.id") for s in spans} - {None}
    assert conversations == {"ctx-eff35888-55ab-4eb0-b90d-7b21f711f91f"}


def test_protobuf_json_rules_ids_enums_int64_strings_dropped_count() -> None:
    b64_trace = base64.b64encode(bytes.fromhex(TRACE)).decode()
    b64_span = base64.b64encode(bytes.fromhex(SPAN)).decode()
    doc = traces_data(
        {
            "traceId": b64_trace,
            "spanId": b64_span,
            "parentSpanId": "",
            "name": "chat gpt-4o",
            "kind": "SPAN_KIND_CLIENT",
            "startTimeUnixNano": "1700000000000000001",
            "endTimeUnixNano": 1700000000500000000,
            "status": {"code": 2, "message": "boom"},
            "droppedAttributesCount": 3,
            "attributes": [
                kv("gen_ai.usage.input_tokens", {"intValue": "12"}),
                kv("temperature", {"doubleValue": "0.5"}),
                kv("blob", {"bytesValue": "AAE="}),
                kv("empty", {}),
            ],
            "links": [{"traceId": TRACE, "spanId": SPAN}],
            "someFutureField": {"x": 1},
        },
        resource=[kv("service.name", {"stringValue": "svc"})],
    )
    (got,) = list(read_spans(doc))
    assert (got.trace_id, got.span_id, got.parent_id) == (TRACE, SPAN, None)
    assert (got.kind, got.status, got.status_message) == ("client", "error", "boom")
    assert (got.start_ns, got.end_ns) == (1700000000000000001, 1700000000500000000)
    assert got.dropped_attributes == 3
    assert got.attributes == {
        "gen_ai.usage.input_tokens": 12,
        "temperature": 0.5,
        "blob": "AAE=",
        "empty": None,
    }
    assert got.source == "otlp" and got.file == "<object>"


@pytest.mark.parametrize(
    ("kind", "word"),
    [(0, None), (1, "internal"), (3, "client"), ("SPAN_KIND_PRODUCER", "producer")],
)
def test_span_kinds_from_integers_and_names(kind: Any, word: str | None) -> None:
    (got,) = list(read_spans(traces_data(span(kind=kind))))
    assert got.kind == word


def test_a_span_without_ids_and_a_bad_attribute_are_problems_the_rest_is_read() -> None:
    doc = traces_data(
        {"spanId": SPAN, "name": "no trace id"},
        span("00000000000000aa", attributes=[kv("ok", {"stringValue": "v"}), {"value": {}}]),
        span("00000000000000bb", events=[{"name": "e", "timeUnixNano": "5"}]),
    )
    problems: list[ReadProblem] = []
    got = list(read_spans(json.dumps(doc), problems=problems))
    assert [s.span_id for s in got] == ["00000000000000aa", "00000000000000bb"]
    assert got[0].attributes == {"ok": "v"}
    assert got[1].events[0].name == "e" and got[1].events[0].time_ns == 5
    assert [(p.file, p.where) for p in problems] == [
        ("<text>", "$.resourceSpans[0].scopeSpans[0].spans[0]"),
        ("<text>", "$.resourceSpans[0].scopeSpans[0].spans[1].attributes[1]"),
    ]
    assert problems[0].message == "expected traceId and spanId"


def test_jsonl_is_read_line_by_line_bad_lines_are_problems_with_their_number(
    tmp_path: Path,
) -> None:
    path = tmp_path / "spans.jsonl"
    lines = [
        json.dumps(traces_data(span("00000000000000a1"))),
        "",
        json.dumps(traces_data(span("00000000000000a2"))),
        "{not json",
        json.dumps(traces_data(span("00000000000000a3"))),
    ]
    path.write_text("\n".join(lines) + "\n")
    problems: list[ReadProblem] = []
    stream = read_spans(path, problems=problems)
    first = next(stream)
    assert first.span_id == "00000000000000a1"
    assert problems == []  # line 4 is not parsed yet: the file is streamed, not loaded
    rest = list(stream)
    assert [s.span_id for s in rest] == ["00000000000000a2", "00000000000000a3"]
    assert [s.order for s in [first, *rest]] == [0, 1, 2]
    (problem,) = problems
    assert problem.where == "line 4: $"
    assert problem.message.startswith("expected one JSON value on the line")


def test_logs_in_their_own_jsonl_file_attach_to_spans_of_another_file(tmp_path: Path) -> None:
    log_record = {
        "timeUnixNano": "10",
        "traceId": TRACE.upper(),
        "spanId": SPAN.upper(),
        "eventName": "gen_ai.user.message",
        "body": {"kvlistValue": {"values": [kv("content", {"stringValue": "hi"})]}},
    }
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [log_record]}]}]}
    (tmp_path / "a_spans.jsonl").write_text(json.dumps(traces_data(span())) + "\n")
    (tmp_path / "b_logs.jsonl").write_text(json.dumps(logs) + "\n")
    (tmp_path / "notes.txt").write_text("not read")
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(tmp_path, problems=problems))
    assert problems == []
    (event,) = got.events
    assert (event.name, event.body, event.from_log) == (
        "gen_ai.user.message",
        {"content": "hi"},
        True,
    )


def test_a_log_line_after_its_span_in_a_mixed_file_is_reported_unattached(tmp_path: Path) -> None:
    record = {"traceId": TRACE, "spanId": SPAN, "body": {"stringValue": "late"}}
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}
    path = tmp_path / "mixed.jsonl"
    # more than the first MB of spans, so the log pass does not see the log line
    filler = json.dumps(
        traces_data(span("00000000000000f1", attributes=[kv("x", {"stringValue": "y" * 4000})]))
    )
    path.write_text(
        json.dumps(traces_data(span())) + "\n" + (filler + "\n") * 300 + json.dumps(logs) + "\n"
    )
    problems: list[ReadProblem] = []
    spans = list(read_spans(path, problems=problems))
    assert spans[0].events == []
    (problem,) = problems
    assert f"trace {TRACE} span {SPAN}" in problem.message and problem.message.startswith("1 log")


def test_a_large_jsonl_file_is_never_held_whole(tmp_path: Path) -> None:
    """Peak traced memory while streaming stays far below the file's size."""
    import tracemalloc

    path = tmp_path / "big.jsonl"
    filler = [kv("gen_ai.input.messages", {"stringValue": "m" * 2000})]
    with path.open("w") as handle:
        for number in range(4000):
            handle.write(
                json.dumps(traces_data(span(f"{number + 1:016x}", attributes=filler))) + "\n"
            )
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_spans(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 4000
    assert size > 8_000_000 and peak < size / 4


def test_snake_case_field_names_of_the_protobuf_mapping_are_read_too() -> None:
    doc = {
        "resource_spans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"string_value": "s"}}]
                },
                "scope_spans": [
                    {
                        "scope": {"name": "lib"},
                        "spans": [
                            {
                                "trace_id": TRACE,
                                "span_id": SPAN,
                                "parent_span_id": "00000000000000aa",
                                "name": "chat",
                                "start_time_unix_nano": "7",
                                "dropped_attributes_count": 2,
                                "attributes": [
                                    {
                                        "key": "gen_ai.usage.input_tokens",
                                        "value": {"int_value": "5"},
                                    }
                                ],
                            }
                        ],
                    }
                ],
            }
        ]
    }
    (got,) = list(read_spans(doc))
    assert (got.trace_id, got.span_id, got.parent_id, got.start_ns) == (
        TRACE,
        SPAN,
        "00000000000000aa",
        7,
    )
    assert got.attributes == {"gen_ai.usage.input_tokens": 5}
    assert got.resource == {"service.name": "s"} and got.dropped_attributes == 2
