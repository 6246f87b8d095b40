"""Any trace source → canonical spans, streaming: :func:`read_spans`.

A source is a path (a file, or a folder: its ``*.json`` / ``*.jsonl`` files, sorted, not
recursive), a list of paths, JSON text or bytes, or objects already in memory (a dict, a list of
dicts, OTel SDK ``ReadableSpan``s and log records, Agents SDK ``Trace``/``Span`` objects).

How a file is read:

1. its first line parses on its own ⇒ JSONL, one document per line, read line by line (memory
   holds one line and the spans not yet yielded, never the file);
2. else the whole file is one JSON document;
3. else several concatenated JSON values (the SDK console exporter's output);
4. else line by line after all, each bad line a problem.

Each document (an array: each of its items) is recognised by its keys (``format="auto"``) and
read by its envelope's module: :mod:`~agenteval_nb.traces.otlp_json` (OTLP, Tempo, LogsData),
:mod:`~agenteval_nb.traces.jaeger`, :mod:`~agenteval_nb.traces.span_dicts` (console, Phoenix,
plain dicts), :mod:`~agenteval_nb.traces.langfuse_export`,
:mod:`~agenteval_nb.traces.agents_sdk_export`, :mod:`~agenteval_nb.traces.sdk_objects`. A
format named explicitly reads only documents of its family (``otlp``/``tempo``;
``console``/``phoenix``/``dicts``, the name setting the span's ``source``); others are problems.

Log records (``LogsData``, console log records, SDK log records) become events of their span
(``from_log``) before the span is yielded. Memory rule: a first pass reads the log records of
every in-memory input, text, and file whose first MB shows a log envelope (``resourceLogs`` /
``severity_number``: the file exporter writes one signal per file, so a logs file shows it on its
first line; other files cost that one small read), and holds them by (trace id, span id) until
their span is yielded. A log document met later in a spans file (a mixed file) is read when met
and attaches to the spans that follow it. Records whose span never comes are one problem at the
end, counted.

Bad records are :class:`ReadProblem`s appended to ``problems`` (at most
:data:`PROBLEMS_PER_FILE` per file, then one line counting the rest). :class:`FormatError` is
raised only when no document of the source could be recognised at all (not JSON, an unknown
envelope, or every document of another format than the one named). A missing path or an unknown
format name raise at call time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from agenteval_nb.errors import ConfigError, FormatError, describe_exception
from agenteval_nb.traces import (
    agents_sdk_export,
    jaeger,
    langfuse_export,
    otlp_json,
    sdk_objects,
    span_dicts,
)
from agenteval_nb.traces.otlp_json import LogEvent
from agenteval_nb.traces.read_problems import Problems, ReadProblem
from agenteval_nb.traces.spans import Span, SpanEvent

__all__ = ["FORMATS", "PROBLEMS_PER_FILE", "ReadProblem", "detect_format", "read_spans"]

FORMATS = (
    "auto",
    "otlp",
    "jaeger",
    "tempo",
    "console",
    "phoenix",
    "langfuse",
    "agents_sdk",
    "dicts",
)
PROBLEMS_PER_FILE = 200

_FAMILY = {
    "otlp": ("otlp", "tempo"),
    "tempo": ("otlp", "tempo"),
    "jaeger": ("jaeger",),
    "console": ("console", "phoenix", "dicts"),
    "phoenix": ("console", "phoenix", "dicts"),
    "dicts": ("console", "phoenix", "dicts"),
    "langfuse": ("langfuse",),
    "agents_sdk": ("agents_sdk",),
}
_LOG_FORMATS = ("otlp_logs", "console_logs", "sdk_log")
_LOG_MARKERS = (b"resourceLogs", b"resource_logs", b'"severity_number"')
_HEAD = 1 << 20
_EXPECTED = (
    "expected a trace envelope: OTLP resourceSpans/resourceLogs, Tempo batches, Jaeger "
    "data[].spans, Langfuse {trace, observations}, Agents SDK trace/trace.span records, "
    "or span objects with a trace id and a span id"
)


@dataclass(slots=True)
class _Input:
    """One file, text, or the in-memory objects of the source."""

    label: str
    path: Path | None = None
    text: bytes | None = None
    objects: list[Any] | None = None
    array: bool = False
    """the objects came as a list (problems name their index: ``$[3]``)"""
    logs_read: bool = False
    """the log pass read this input's log records (the span pass skips them)"""


@dataclass(slots=True)
class _Read:
    """What one :func:`read_spans` call carries across its inputs."""

    format: str
    problems: list[ReadProblem]
    first_problem: int = 0
    """where this call's problems start in ``problems`` (the caller may pass a filled list)"""
    logs: dict[tuple[str, str], list[SpanEvent]] = field(default_factory=dict)
    agents_traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    recognised: int = 0
    spans: int = 0


def read_spans(
    source: Any, *, format: str = "auto", problems: list[ReadProblem] | None = None
) -> Iterator[Span]:
    """The canonical spans of ``source``, streamed in input order (``Span.order`` numbers them,
    ``Span.file`` names their file). See the module doc for sources, formats and the rules."""
    if format not in FORMATS:
        raise ConfigError(f"format {format!r}: expected one of {', '.join(FORMATS)}")
    inputs = list(_inputs(source))
    out = problems if problems is not None else []
    state = _Read(format, out, first_problem=len(out))
    return _spans(inputs, state)


def _spans(inputs: list[_Input], state: _Read) -> Iterator[Span]:
    for item in inputs:
        _collect_logs(item, state)
    for item in inputs:
        sink = _Sink(state.problems, file=item.label)
        for span in _input_spans(item, state, sink):
            if state.logs:
                events = state.logs.pop((span.trace_id, span.span_id), None)
                if events:
                    span.events = span.events + events
            span.order = state.spans
            span.file = item.label
            state.spans += 1
            yield span
        sink.close()
    if state.logs:
        count = sum(len(events) for events in state.logs.values())
        trace_id, span_id = next(iter(state.logs))
        state.problems.append(
            ReadProblem(
                inputs[0].label if len(inputs) == 1 else None,
                "log records",
                f"{count} log record(s) name spans not in the input "
                f"(e.g. trace {trace_id} span {span_id}): not attached",
            )
        )
    if not state.recognised and len(state.problems) > state.first_problem:
        first = state.problems[state.first_problem]
        raise FormatError(first.file or "<object>", first.where, first.message)


# --- sources -------------------------------------------------------------------------------------


def _inputs(source: Any) -> Iterator[_Input]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield _Input("<text>", text=bytes(source))
    elif isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        yield _Input("<text>", text=source.encode())
    elif isinstance(source, (str, os.PathLike)):
        yield from _path_inputs(Path(source))
    elif isinstance(source, dict):
        yield _Input("<object>", objects=[source])
    elif isinstance(source, Iterable):
        items = list(source)
        if items and all(isinstance(i, (str, os.PathLike)) for i in items):
            for item in items:
                yield from _inputs(item)
        else:
            yield _Input("<object>", objects=items, array=True)
    else:
        yield _Input("<object>", objects=[source])


def _path_inputs(path: Path) -> Iterator[_Input]:
    if path.is_dir():
        for child in sorted(path.iterdir()):
            if child.is_file() and child.suffix.lower() in (".json", ".jsonl"):
                yield _Input(str(child), path=child)
    elif path.is_file():
        yield _Input(str(path), path=path)
    else:
        raise FileNotFoundError(f"{path}: no such file or folder")


# --- documents -----------------------------------------------------------------------------------


class _Sink(Problems):
    """:class:`Problems` with the per-file cap."""

    __slots__ = ("count",)

    def __init__(self, out: list[ReadProblem], file: str | None) -> None:
        super().__init__(out, file)
        self.count = 0

    def add(self, path: str, message: str) -> None:
        self.count += 1
        if self.count <= PROBLEMS_PER_FILE:
            Problems.add(self, path, message)

    def close(self) -> None:
        """Count the problems past the cap in one last line."""
        if self.count > PROBLEMS_PER_FILE:
            self.line = None
            Problems.add(self, "$", f"{self.count - PROBLEMS_PER_FILE} more problem(s) not listed")


def _documents(item: _Input, sink: Problems, only_marked: bool = False) -> Iterator[Any]:
    """The JSON documents (or objects) of one input; ``sink.line`` follows JSONL lines.
    ``only_marked``: parse only the lines holding a log marker (the log pass)."""
    if item.objects is not None:
        sink.line = None
        yield item.objects if item.array else item.objects[0]
        return
    if item.text is not None:
        yield from _text_documents(item.text, sink)
        return
    assert item.path is not None
    with open(item.path, "rb", buffering=1 << 20) as handle:
        first = handle.readline()
        while first and not first.strip():
            first = handle.readline()
        if not first:
            return  # an empty file: nothing to read, nothing wrong
        try:
            orjson.loads(first)
        except orjson.JSONDecodeError:
            handle.seek(0)
            yield from _text_documents(handle.read(), sink)
            return
        handle.seek(0)
        yield from _lines(handle, sink, only_marked)


def _lines(lines: Iterable[bytes], sink: Problems, only_marked: bool) -> Iterator[Any]:
    for number, line in enumerate(lines, 1):
        if only_marked and not any(marker in line for marker in _LOG_MARKERS):
            continue
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            if line.strip():
                sink.line = number
                sink.add("$", f"expected one JSON value on the line ({exc})")
            continue
        sink.line = number
        yield doc
    sink.line = None


def _text_documents(text: bytes, sink: Problems) -> Iterator[Any]:
    sink.line = None
    try:
        yield orjson.loads(text)
        return
    except orjson.JSONDecodeError:
        pass
    decoded = text.decode("utf-8", errors="replace")
    values, position = _concatenated(decoded)
    if values:
        yield from values
        if position < len(decoded):
            sink.line = decoded.count("\n", 0, position) + 1
            sink.add("$", "expected JSON after the previous value; the rest of the file is unread")
            sink.line = None
        return
    if text.count(b"\n") > 1:
        yield from _lines(text.splitlines(), sink, False)
        return
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        sink.add("$", f"expected JSON or JSON lines ({exc})")


def _concatenated(text: str) -> tuple[list[Any], int]:
    """Concatenated JSON values (``{...}{...}`` or one per few lines), and where reading stopped."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return values, position
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return values, position
        values.append(value)


def _marked(item: _Input) -> bool:
    """Whether a text, or a file's first MB, shows a log envelope."""
    if item.text is not None:
        return any(marker in item.text for marker in _LOG_MARKERS)
    if item.path is None:
        return True
    with open(item.path, "rb") as handle:
        head = handle.read(_HEAD)
    return any(marker in head for marker in _LOG_MARKERS)


# --- recognising and reading ---------------------------------------------------------------------


def detect_format(doc: Any) -> str | None:
    """The envelope of one document (an item of an array), or ``None``: one of :data:`FORMATS`
    (not ``auto``), or a log envelope ``otlp_logs`` / ``console_logs`` / ``sdk_log``; in-memory
    objects give ``otel_sdk`` / ``agents_sdk``."""
    if isinstance(doc, dict):
        if otlp_json.is_traces_data(doc):
            return "tempo" if "batches" in doc or "trace" in doc else "otlp"
        if otlp_json.is_logs_data(doc):
            return "otlp_logs"
        if agents_sdk_export.is_agents_sdk(doc):
            return "agents_sdk"
        if langfuse_export.is_langfuse(doc):
            return "langfuse"
        if jaeger.is_jaeger(doc):
            return "jaeger"
        if span_dicts.is_console_log(doc):
            return "console_logs"
        if span_dicts.is_span_dict(doc):
            return span_dicts.span_dict_format(doc)
        return None
    if sdk_objects.is_sdk_span(doc):
        return "otel_sdk"
    if sdk_objects.is_sdk_log(doc):
        return "sdk_log"
    if agents_sdk_export.is_agents_sdk_object(doc):
        return "agents_sdk"
    return None


def _collect_logs(item: _Input, state: _Read) -> None:
    """The log pass: every log record of the input, held by its span's ids (log envelopes
    are read whatever span format is named: logs accompany any of them)."""
    if item.objects is None and not _marked(item):
        return
    item.logs_read = True
    sink = _Sink(state.problems, file=item.label)
    quiet = Problems([], item.label)  # the span pass reports the documents' problems
    for doc in _documents(item, quiet, only_marked=True):
        for path, entry in _entries(doc):
            kind = detect_format(entry)
            if kind not in _LOG_FORMATS:
                continue
            sink.line = quiet.line
            for trace_id, span_id, event in _log_events(entry, kind, sink, path):
                state.logs.setdefault((trace_id, span_id), []).append(event)
    sink.close()


def _log_events(entry: Any, kind: str | None, sink: Problems, path: str) -> Iterator[LogEvent]:
    if kind == "otlp_logs":
        yield from otlp_json.read_logs_data(entry, sink, path)
    elif kind == "console_logs":
        yield from span_dicts.read_console_log(entry, sink, path)
    else:
        event = sdk_objects.sdk_log(entry)
        if event is None:
            sink.add(path, "log record carries no trace/span id: not attached to any span")
        else:
            yield event


def _entries(doc: Any) -> Iterator[tuple[str, Any]]:
    """The entries of a document with their JSON paths: an array's items, the items of a list
    of span objects wrapped in an object (:func:`_span_list`), or the document itself."""
    key = _span_list(doc) if isinstance(doc, dict) else None
    if key is not None:
        for index, entry in enumerate(doc[key]):
            yield f"$.{key}[{index}]", entry
    elif isinstance(doc, list):
        for index, entry in enumerate(doc):
            yield f"$[{index}]", entry
    else:
        yield "$", doc


_SPAN_LISTS = ("data", "spans")


def _span_list(doc: dict[str, Any]) -> str | None:
    """The key under which an object wraps a list of span objects: a page ``{"data": [...],
    "next_cursor": …}`` (Phoenix's REST export) or a capture ``{"spans": [...], …}`` (the ADOT
    session captures' ``{session_id, span_count, spans}``); ``None`` for any other document
    (a Jaeger trace object holds ``spans`` too, and is an envelope of its own)."""
    for key in _SPAN_LISTS:
        items = doc.get(key)
        if (
            isinstance(items, list)
            and items
            and isinstance(items[0], dict)
            and "observations" not in items[0]
            and span_dicts.is_span_dict(items[0])
        ):
            return key if detect_format(doc) is None else None
    return None


def _input_spans(item: _Input, state: _Read, sink: Problems) -> Iterator[Span]:
    for doc in _documents(item, sink):
        if isinstance(doc, list):
            agents_sdk_export.remember_traces(doc, state.agents_traces)
        for path, entry in _entries(doc):
            if isinstance(entry, list):
                sink.add(path, "expected an object, got an array inside an array")
                continue
            yield from _entry_spans(entry, path, state, sink, item.logs_read)


def _entry_spans(
    entry: Any, path: str, state: _Read, sink: Problems, logs_read: bool
) -> Iterator[Span]:
    """The spans of one entry. Whatever a reader raises past its own checks (a pathological
    value: nesting deeper than the recursion limit, an object whose properties raise) ends that
    entry as a problem, never the read."""
    kind = detect_format(entry)
    try:
        yield from _read_entry(entry, kind, path, state, sink, logs_read)
    except Exception as exc:
        sink.add(path, f"could not read this entry ({describe_exception(exc)})")


def _read_entry(
    entry: Any, kind: str | None, path: str, state: _Read, sink: Problems, logs_read: bool
) -> Iterator[Span]:
    if kind in _LOG_FORMATS:
        state.recognised += 1
        if not logs_read:  # a log document in a spans file: it serves the spans that follow
            for trace_id, span_id, event in _log_events(entry, kind, sink, path):
                state.logs.setdefault((trace_id, span_id), []).append(event)
        return
    if kind is None:
        keys = ", ".join(list(entry)[:8]) if isinstance(entry, dict) else type(entry).__name__
        sink.add(path, f"{_EXPECTED}; got {keys}")
        return
    if state.format != "auto" and kind not in _FAMILY[state.format] and kind != "otel_sdk":
        sink.add(path, f"expected a {state.format} document, found {kind}")
        return
    state.recognised += 1
    if kind in ("otlp", "tempo"):
        yield from otlp_json.read_traces_data(entry, sink, kind, path)
    elif kind == "jaeger":
        yield from jaeger.read_jaeger(entry, sink, path)
    elif kind == "langfuse":
        yield from langfuse_export.read_langfuse(entry, sink, path)
    elif kind == "agents_sdk":
        yield from _agents_sdk(entry, path, state, sink)
    elif kind == "otel_sdk":
        span = sdk_objects.sdk_span(entry)
        if span is None:
            sink.add(path, "expected a span context with a trace id and a span id")
        else:
            yield span
    else:
        source = state.format if state.format in _FAMILY["dicts"] else kind
        source = "dict" if source == "dicts" else source  # Span.source's word for plain dicts
        yield from span_dicts.read_span_dict(entry, sink, source, path)


def _agents_sdk(entry: Any, path: str, state: _Read, sink: Problems) -> Iterator[Span]:
    if not isinstance(entry, dict):
        record = agents_sdk_export.exported(entry)
        if record is None:
            sink.add(path, "expected .export() to give a trace or span record (tracing disabled?)")
            return
        entry = record
    yield from agents_sdk_export.read_agents_sdk(entry, sink, state.agents_traces, path)
