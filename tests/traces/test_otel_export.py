"""tests/traces/_otel_export.py writes valid OTLP/JSON, and the recorded corpus files are what
the real instrumentation packages emit today.

OTLP/JSON rules checked (opentelemetry-proto, JSON protobuf encoding): ids are lower-case hex of
the right length (never base64), enums are integers, 64-bit integers are decimal strings, the
parent id names the parent's span id.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

sys.path.insert(0, str(Path(__file__).parent))

import _live_loop
import _otel_export
from _expected import CORPUS

HEX32 = re.compile(r"[0-9a-f]{32}")
HEX16 = re.compile(r"[0-9a-f]{16}")
DECIMAL = re.compile(r"[0-9]+")


def otlp_spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span of a TracesData document, checking the envelope and each span's encoding."""
    assert set(doc) == {"resourceSpans"}
    spans = []
    for resource_spans in doc["resourceSpans"]:
        for key_value in resource_spans["resource"]["attributes"]:
            check_any_value(key_value["value"])
        for scope_spans in resource_spans["scopeSpans"]:
            assert isinstance(scope_spans["scope"].get("name"), str)
            for span in scope_spans["spans"]:
                check_span(span)
                spans.append(span)
    return spans


def check_span(span: dict[str, Any]) -> None:
    assert HEX32.fullmatch(span["traceId"]), span["traceId"]
    assert HEX16.fullmatch(span["spanId"]), span["spanId"]
    if "parentSpanId" in span:
        assert HEX16.fullmatch(span["parentSpanId"])
    assert type(span["kind"]) is int and 1 <= span["kind"] <= 5
    assert DECIMAL.fullmatch(span["startTimeUnixNano"])
    assert DECIMAL.fullmatch(span["endTimeUnixNano"])
    assert int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"])
    for key_value in span["attributes"]:
        assert isinstance(key_value["key"], str)
        check_any_value(key_value["value"])
    for event in span.get("events", []):
        assert DECIMAL.fullmatch(event["timeUnixNano"])
        for key_value in event["attributes"]:
            check_any_value(key_value["value"])
    if "code" in span["status"]:
        assert type(span["status"]["code"]) is int and span["status"]["code"] in (1, 2)


def check_any_value(value: dict[str, Any]) -> None:
    """One AnyValue: exactly one typed member, int64 as a decimal string."""
    assert len(value) == 1, value
    ((kind, inner),) = value.items()
    if kind == "intValue":
        assert isinstance(inner, str) and re.fullmatch(r"-?[0-9]+", inner)
    elif kind == "stringValue":
        assert isinstance(inner, str)
    elif kind == "boolValue":
        assert isinstance(inner, bool)
    elif kind == "doubleValue":
        assert isinstance(inner, float)
    elif kind == "arrayValue":
        for item in inner["values"]:
            check_any_value(item)
    elif kind == "kvlistValue":
        for key_value in inner["values"]:
            check_any_value(key_value["value"])
    else:
        raise AssertionError(f"unknown AnyValue member {kind}")


def otlp_log_records(doc: dict[str, Any]) -> list[dict[str, Any]]:
    assert set(doc) == {"resourceLogs"}
    records = []
    for resource_logs in doc["resourceLogs"]:
        for scope_logs in resource_logs["scopeLogs"]:
            for record in scope_logs["logRecords"]:
                assert HEX32.fullmatch(record["traceId"]) and HEX16.fullmatch(record["spanId"])
                times = [record[k] for k in ("timeUnixNano", "observedTimeUnixNano") if k in record]
                assert times and all(DECIMAL.fullmatch(t) for t in times)  # one may be unset
                if "severityNumber" in record:
                    assert type(record["severityNumber"]) is int
                if "body" in record:
                    check_any_value(record["body"])
                for key_value in record["attributes"]:
                    check_any_value(key_value["value"])
                records.append(record)
    return records


@pytest.fixture
def recorded() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "export-test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_span_ids_are_hex_of_the_sdk_ints_and_enums_integers(recorded) -> None:
    provider, exporter = recorded
    tracer = provider.get_tracer("export-test", "1.2.3")
    with (
        tracer.start_as_current_span("root", kind=SpanKind.SERVER) as root,
        tracer.start_as_current_span("child", kind=SpanKind.CLIENT) as child,
    ):
        child.set_attribute("n", 2**40)
        child.set_attribute("ok", True)
        child.set_attribute("ratio", 0.5)
        child.set_attribute("names", ["a", "b"])
        child.add_event("gen_ai.choice", {"index": 0})
        child.set_status(Status(StatusCode.ERROR, "boom"))
    doc = json.loads(json.dumps(_otel_export.traces_data(exporter.get_finished_spans())))
    spans = {span["name"]: span for span in otlp_spans(doc)}
    assert len(spans) == 2
    assert spans["root"]["traceId"] == format(root.get_span_context().trace_id, "032x")
    assert spans["root"]["spanId"] == format(root.get_span_context().span_id, "016x")
    assert spans["child"]["parentSpanId"] == spans["root"]["spanId"]
    assert "parentSpanId" not in spans["root"]
    assert (spans["root"]["kind"], spans["child"]["kind"]) == (2, 3)
    assert spans["child"]["status"] == {"code": 2, "message": "boom"}
    attributes = {kv["key"]: kv["value"] for kv in spans["child"]["attributes"]}
    assert attributes == {
        "n": {"intValue": str(2**40)},
        "ok": {"boolValue": True},
        "ratio": {"doubleValue": 0.5},
        "names": {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
    }
    assert spans["child"]["events"][0]["attributes"] == [
        {"key": "index", "value": {"intValue": "0"}}
    ]
    (resource,) = doc["resourceSpans"]
    (scope,) = resource["scopeSpans"]
    assert scope["scope"] == {"name": "export-test", "version": "1.2.3"}


def test_ids_with_leading_zeros_keep_their_length() -> None:
    assert _otel_export.trace_id_hex(1) == "0" * 31 + "1"
    assert _otel_export.span_id_hex(255) == "00000000000000ff"


def test_log_records_keep_their_span_and_a_kvlist_body(recorded) -> None:
    provider, _ = recorded
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "export-test"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    logger = logger_provider.get_logger("export-test")
    with provider.get_tracer("t").start_as_current_span("chat") as span:
        context = span.get_span_context()
        logger.emit(
            LogRecord(
                timestamp=1_700_000_000_000_000_000,
                trace_id=context.trace_id,
                span_id=context.span_id,
                trace_flags=context.trace_flags,
                severity_number=SeverityNumber.INFO,
                body={"content": "hi", "tool_calls": [{"id": "c1"}]},
                attributes={"gen_ai.system": "openai"},
                event_name="gen_ai.user.message",
            )
        )
    (record,) = otlp_log_records(_otel_export.logs_data(logs.get_finished_logs()))
    assert record["traceId"] == format(context.trace_id, "032x")
    assert record["spanId"] == format(context.span_id, "016x")
    assert record["severityNumber"] == 9
    assert record["eventName"] == "gen_ai.user.message"
    body = {kv["key"]: kv["value"] for kv in record["body"]["kvlistValue"]["values"]}
    assert body["content"] == {"stringValue": "hi"}
    assert body["tool_calls"]["arrayValue"]["values"][0]["kvlistValue"]["values"] == [
        {"key": "id", "value": {"stringValue": "c1"}}
    ]


def test_unencodable_values_are_refused() -> None:
    with pytest.raises(TypeError):
        _otel_export.any_value(object())


RECORDED = sorted(_live_loop.RECORDED.items())


def _shape(spans: list[dict[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    """Span names and attribute keys: what a package version decides (not ids, times, text)."""
    return sorted(
        (span["name"], tuple(sorted(kv["key"] for kv in span["attributes"]))) for span in spans
    )


@pytest.mark.slow
@pytest.mark.parametrize("run,stem", RECORDED, ids=[stem for _, stem in RECORDED])
def test_a_live_run_matches_its_recorded_fixture(run: tuple[str, str], stem: str) -> None:
    """The live export is valid OTLP JSON with the conversation's spans (per turn: our root
    and one chat span per model call, its own trace), and has the shape of the recorded corpus
    file: when an installed package version changes what it emits, this says so (re-record
    with ``python tests/traces/_live_loop.py record``)."""
    live = _live_loop.run_in_subprocess(*run)
    spans = otlp_spans(live["traces"])
    check_conversation(spans)
    records = otlp_log_records(live["logs"])
    assert len(records) == (3 if run == ("openai-v2", "events") else 0)
    assert {record["spanId"] for record in records} <= {span["spanId"] for span in spans}
    # the OTLP form groups spans by scope; the console form keeps the finishing order
    assert sorted(c["context"]["span_id"] for c in live["console"]) == sorted(
        "0x" + span["spanId"] for span in spans
    )
    recorded = json.loads((CORPUS / f"{stem}.traces.json").read_text(encoding="utf-8"))
    assert _shape(spans) == _shape(otlp_spans(recorded))


def check_conversation(spans: list[dict[str, Any]]) -> None:
    """Two traces (one per turn): turn 1 = root + two chat spans, turn 2 = root + one."""
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_trace.setdefault(span["traceId"], []).append(span)
    assert sorted(len(members) for members in by_trace.values()) == [2, 3]
    for members in by_trace.values():
        (root,) = [span for span in members if "parentSpanId" not in span]
        assert root["name"] == "invoke_agent weather_agent"
        assert all(span["parentSpanId"] == root["spanId"] for span in members if span is not root)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/*.traces.json")), ids=lambda p: p.name)
def test_recorded_corpus_files_are_valid_otlp_json(path: Path) -> None:
    spans = otlp_spans(json.loads(path.read_text(encoding="utf-8")))
    check_conversation(spans)
    logs = path.with_name(path.name.replace(".traces.json", ".logs.json"))
    if logs.exists():
        records = otlp_log_records(json.loads(logs.read_text(encoding="utf-8")))
        assert {record["spanId"] for record in records} <= {span["spanId"] for span in spans}
