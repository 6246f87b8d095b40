"""The capture report (issue 33): per turn, then per case, what was captured and what was not,
each problem with its fix. Declared once here; the turn's counts travel in
``invocation.source.capture`` (saved with the run), the per-case rows are summed from them.

Rules: a count is the number of calls (or tools, spans) of the turn; a problem is a count
above zero among :data:`PROBLEMS`; a turn of the agent whose invocation has no capture counts
is a turn without a captured model call (``turns_without_calls``). Missing usage is reported,
never counted as zero cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...steps.builder import BuiltInvocation
from .exchange import Exchange

COUNTS: dict[str, str] = {
    "model_calls": "model calls of the turn, each counted once (wire and spans merged)",
    "wire_calls": "successful model calls recorded on the wire",
    "span_calls": "model calls seen only on spans (a client the wire does not hook)",
    "spans": "OpenTelemetry spans filed under the case",
    "prompt_tokens": "input tokens the model calls reported",
    "completion_tokens": "output tokens the model calls reported",
}
"""Counts that describe a capture: name → meaning."""

PROBLEMS: dict[str, tuple[str, str]] = {
    "failed_calls": (
        "non-2xx replies and calls that raised (retries among them)",
        "see calls_df() for the status and error of each; retried calls are not in the turn",
    ),
    "unattributed_calls": (
        "calls made while the case ran that no case could claim (several cases active, the "
        "calling thread named none)",
        "start worker threads with contextvars.copy_context().run or use asyncio.to_thread",
    ),
    "calls_without_usage": (
        "calls whose reply reported no token usage (nor a span of the same call)",
        "pass stream_options={'include_usage': True} (a stream reports usage only when asked)",
    ),
    "tools_without_result": (
        "tool uses whose result no later request and no span carried",
        "send tool results back as tool messages, or set an OpenTelemetry SDK tracer provider "
        "with the framework's instrumentor (its tool spans carry the results)",
    ),
    "streams_unconsumed": (
        "streams the agent closed before their end (no reply to record)",
        "read each stream to its end (the last chunk carries the usage)",
    ),
    "turns_without_calls": (
        "turns with no model call captured",
        "the agent's HTTP client is not httpx: set an OpenTelemetry SDK tracer provider with "
        "an instrumentor for it, or return an ae.Invocation",
    ),
}
"""Problems: name → (meaning, the fix)."""

FIELDS: tuple[str, ...] = (*COUNTS, *PROBLEMS)
"""Every count of a report, in report order."""


def turn_counts(
    exchanges: Sequence[Exchange],
    spans: int,
    built: BuiltInvocation | None,
    span_calls: int,
    unattributed: int,
) -> dict[str, int]:
    """The counts of one turn (module rules); zero counts are left out."""
    counts = dict.fromkeys(FIELDS, 0)
    for exchange in exchanges:
        if not exchange.consumed:
            counts["streams_unconsumed"] += 1
        elif not exchange.ok:
            counts["failed_calls"] += 1
        else:
            counts["wire_calls"] += 1
    counts["spans"] = spans
    counts["span_calls"] = span_calls
    counts["unattributed_calls"] = unattributed
    if built is not None:
        counts["model_calls"] = built.model_calls
        counts["tools_without_result"] = built.tools_without_result
        counts["calls_without_usage"] = built.calls_without_usage
        if built.usage is not None:
            counts["prompt_tokens"] = built.usage.input_tokens or 0
            counts["completion_tokens"] = built.usage.output_tokens or 0
    return {name: value for name, value in counts.items() if value}


def case_counts(turns: Iterable[Mapping[str, int] | None]) -> dict[str, int]:
    """One case's counts: its turns' summed (``None``: a turn without capture counts)."""
    total = dict.fromkeys(FIELDS, 0)
    for counts in turns:
        if not counts or not counts.get("model_calls"):
            total["turns_without_calls"] += 1
        for name, value in (counts or {}).items():
            if name in total:
                total[name] += value
    return total


def fixes(counts: Mapping[str, Any]) -> list[str]:
    """One line per problem of ``counts``: how many, what, and the fix."""
    return [
        f"{counts[name]} {meaning.split(' (')[0]}: {fix}"
        for name, (meaning, fix) in PROBLEMS.items()
        if counts.get(name)
    ]
