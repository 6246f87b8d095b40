"""Jaeger query JSON: the agentevals kagent sample and a hand-made trace with logs."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_nb.traces.read import ReadProblem, read_spans

K8S = Path(__file__).resolve().parent.parent / "corpus" / "traces" / "agentevals" / "k8s.json"


def test_the_kagent_sample_reads_all_spans_with_parents_times_and_process() -> None:
    problems: list[ReadProblem] = []
    spans = list(read_spans(K8S, problems=problems))
    assert problems == []
    assert len(spans) == 73
    first = spans[0]
    assert (first.trace_id, first.span_id) == (
        "d497c9dd55717f2c5ecb79bda3028993",
        "31e3495892e80304",
    )
    assert first.parent_id == "ce7fcbb15299df20"
    assert (first.start_ns, first.end_ns) == (1771237881558798000, 1771237881558798000 + 4172000)
    # the envelope tags are read back into fields, not kept as attributes
    assert (first.kind, first.status, first.scope) == (
        "client",
        "error",
        "opentelemetry.instrumentation.httpx",
    )
    assert not {"span.kind", "otel.status_code", "otel.scope.name", "error"} & set(first.attributes)
    assert first.attributes["http.status_code"] == 404
    assert first.resource == {"service.namespace": "kagent", "service.name": "k8s_agent"}
    assert {s.source for s in spans} == {"jaeger"}
    roots = [s for s in spans if s.parent_id is None]
    assert roots, "the trace has a root"


def test_a_single_trace_object_with_logs_follows_from_and_string_typed_tags() -> None:
    doc = {
        "traceID": "AB" * 16,
        "spans": [
            {
                "traceID": "AB" * 16,
                "spanID": "0000000000000002",
                "operationName": "execute_tool get_weather",
                "references": [
                    {"refType": "FOLLOWS_FROM", "traceID": "AB" * 16, "spanID": "0000000000000009"},
                    {"refType": "CHILD_OF", "traceID": "AB" * 16, "spanID": "0000000000000001"},
                ],
                "startTime": "1700000000000000",
                "duration": 5,
                "tags": [
                    {"key": "gen_ai.tool.name", "type": "string", "value": "get_weather"},
                    {"key": "attempt", "type": "int64", "value": "2"},
                    {"key": "ratio", "type": "float64", "value": "0.25"},
                    {"key": "cached", "type": "bool", "value": "false"},
                    {"key": "otel.status_code", "type": "string", "value": "OK"},
                    {"key": "error", "type": "bool", "value": True},
                ],
                "logs": [
                    {
                        "timestamp": 1700000000000001,
                        "fields": [
                            {"key": "event", "type": "string", "value": "exception"},
                            {"key": "exception.message", "type": "string", "value": "x"},
                        ],
                    }
                ],
                "processID": "p9",
            },
            {"spanID": "0000000000000003", "operationName": "no trace id"},
        ],
        "processes": {"p9": {"serviceName": "agent", "tags": []}},
    }
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(json.dumps(doc).encode(), problems=problems))
    assert got.parent_id == "0000000000000001"
    assert (got.start_ns, got.end_ns) == (1700000000000000000, 1700000000000005000)
    assert got.status == "ok"  # the status code wins over the error tag
    assert got.attributes == {
        "gen_ai.tool.name": "get_weather",
        "attempt": 2,
        "ratio": 0.25,
        "cached": False,
    }
    (event,) = got.events
    assert (event.name, event.time_ns, event.attributes) == (
        "exception",
        1700000000000001000,
        {"exception.message": "x"},
    )
    assert got.resource == {"service.name": "agent"}
    assert [(p.where, p.message) for p in problems] == [
        ("$.spans[1]", "expected traceID and spanID")
    ]
