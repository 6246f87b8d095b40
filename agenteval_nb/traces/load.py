"""``ae.load_traces``: trace files (or spans in memory) → a trace-mode eval set and a report.

The path (TRACES.md §3): envelopes → canonical spans (:func:`~.read.read_spans`, streaming) →
one step per span (:func:`~.dialects.classify`) → conversations and turns
(:func:`~.grouping.group`) → one invocation per turn
(:func:`agenteval_nb.steps.builder.build_invocation`). :func:`build_evalset` is the part after
the readers and dialects: any source of classified spans (files, in-process capture) uses it.

Each conversation is one case: ``evalMode: "trace"``, its turns as ``actualConversation``,
``evalId`` the conversation id (the trace id when there is none), a ``sessionInput`` (the
engine needs one) whose ``appName`` is the eval set id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._gc import gc_paused
from ..schema import EvalCase, EvalSet, SessionInput
from ..steps.builder import build_invocation
from .dialects import CONTENT_SWITCH, Classified, classify
from .grouping import group
from .load_report import TraceReport, report_row
from .read import ReadProblem, read_spans
from .spans import Span

DEFAULT_EVAL_SET_ID = "traces"


def build_evalset(
    pairs: Iterable[tuple[Span, Classified]],
    *,
    eval_set_id: str = DEFAULT_EVAL_SET_ID,
    switches: dict[str, str] | None = None,
    execution_trace: bool = True,
) -> tuple[EvalSet, TraceReport]:
    """The eval set and report of classified spans (one case per conversation);
    ``execution_trace`` as in :func:`~agenteval_nb.steps.builder.build_invocation`."""
    cases: list[EvalCase] = []
    report = TraceReport()
    with gc_paused(keep=True):  # millions of small acyclic records (see agenteval_nb._gc)
        for conv in group(pairs):
            built = [build_invocation(t, execution_trace=execution_trace) for t in conv.turns]
            conv.turns = []  # its steps are spent: freed before the next case is built
            cases.append(
                EvalCase(
                    eval_id=conv.case_id,
                    eval_mode="trace",
                    actual_conversation=[b.invocation for b in built],
                    session_input=SessionInput(app_name=eval_set_id, user_id="", state={}),
                )
            )
            report.rows.append(
                report_row(conv, built, CONTENT_SWITCH if switches is None else switches)
            )
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases), report


def load_traces(
    source: Any,
    *,
    format: str = "auto",
    group_by: str | None = None,
    eval_set_id: str | None = None,
    execution_trace: bool = True,
) -> tuple[EvalSet, TraceReport]:
    """Trace files (a path, a folder, a list of paths) or spans in memory → (eval set, report).

    ``format``: an envelope of :data:`~.read.FORMATS` (``"auto"`` detects it); ``group_by``: an
    attribute naming the conversation instead of the dialects' keys; ``eval_set_id``: default
    the file's name without its suffixes, else ``"traces"``; ``execution_trace=False``: no
    ``executionTrace`` per turn (a large load ≈ 1.6× faster in ≈ ⅔ of the memory). A record
    that cannot be read is a report problem; ``FormatError`` only when nothing at all could be
    read.
    """
    problems: list[ReadProblem] = []
    spans = read_spans(source, format=format, problems=problems)
    pairs = ((span, classify(span, group_by=group_by)) for span in spans)
    evalset, report = build_evalset(
        pairs,
        eval_set_id=eval_set_id or default_eval_set_id(source),
        execution_trace=execution_trace,
    )
    report.problems = list(problems)
    return evalset, report


def default_eval_set_id(source: Any) -> str:
    """A path's name without suffixes (``spans.otlp.jsonl`` → ``spans``), else ``"traces"``."""
    if isinstance(source, Path) or (
        isinstance(source, str)
        and "\n" not in source
        and not source.lstrip().startswith(("{", "["))
    ):
        name = Path(source).name.split(".")[0]
        return name or DEFAULT_EVAL_SET_ID
    return DEFAULT_EVAL_SET_ID


_ENVELOPE_KEYS = ("resourceSpans", "resourceLogs", "batches", "observations")
_SPAN_KEYS = ("traceId", "trace_id", "spanId", "span_id", "context", "parentSpanId", "span_kind")
_EVAL_SET_KEYS = ("evalSetId", "eval_set_id", "evalCases", "eval_cases", "metricName")
_PEEK_BYTES = 1 << 20


def looks_like_traces(path: str | Path) -> bool:
    """Whether a file holds spans rather than an eval set or metrics (the CLI's ``convert``
    routes on it): a folder, or a file whose first JSON value (the first line of JSONL) is an
    OTLP / Tempo / Langfuse envelope, a Jaeger ``data[]`` with spans, a span dict, or a list of
    those; for a document larger than the first MiB read, an envelope or span id key in it and
    no eval-set or metric key."""
    target = Path(path)
    if target.is_dir():
        return True
    with target.open("rb") as handle:
        head = handle.read(_PEEK_BYTES)
    text = head.decode("utf-8", errors="replace").lstrip()
    for candidate in (text, text.split("\n", 1)[0]):
        try:
            return _trace_shaped(json.loads(candidate))
        except ValueError:
            continue
    # a document larger than the peek: its keys decide
    if any(f'"{key}"' in text for key in _EVAL_SET_KEYS):
        return False
    return any(f'"{key}"' in text for key in (*_ENVELOPE_KEYS, *_SPAN_KEYS[:4]))


def _trace_shaped(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and _trace_shaped(value[0])
    if not isinstance(value, dict):
        return False
    if any(key in value for key in _ENVELOPE_KEYS):
        return True
    data = value.get("data")
    if isinstance(data, list) and data and isinstance(data[0], dict) and "spans" in data[0]:
        return True
    return any(key in value for key in _SPAN_KEYS)
