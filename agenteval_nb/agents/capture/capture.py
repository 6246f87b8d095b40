"""``ae.capture()``: record the model calls of any code in a ``with`` block.

    with ae.capture() as cap:
        my_app.invoke({"messages": [("user", "Weather in Paris?")]})
    cap.calls_df()        # one row per model call
    cap.model_calls()     # the ModelCall steps the invocation builder takes

The block is one case for :mod:`.attribution`: calls from its context (tasks, ``to_thread``)
are its own; calls from bare threads are its own while no other case is active.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import polars as pl

from ...settings import config
from ...steps.records import ModelCall
from . import spans, wire
from .attribution import Recording, recording
from .exchange import Exchange
from .model_calls import model_call


@dataclass
class Capture:
    """The exchanges recorded in one block (plain record; read after the block ends)."""

    recording: Recording

    @property
    def exchanges(self) -> list[Exchange]:
        return list(self.recording.exchanges)

    @property
    def spans(self) -> list[Any]:
        """The OpenTelemetry spans the block's code finished (when the process has an SDK
        provider, :mod:`.spans`), in end order."""
        return list(self.recording.spans)

    def model_calls(self) -> list[ModelCall]:
        """One step per successful exchange, in start order (failed ones are in
        :meth:`calls_df` with their error)."""
        return [model_call(e) for e in self.recording.exchanges if e.ok]

    def calls_df(self, backend: str | None = None) -> Any:
        """One row per recorded exchange, successful or not."""
        return calls_frame(self.recording.exchanges, backend=backend)


@contextmanager
def capture(key: str = "capture") -> Iterator[Capture]:
    """Record every model call made in the block (installs the HTTP hooks once, and the span
    processor when the process has an OpenTelemetry SDK provider)."""
    wire.install()
    spans.install()
    with recording(key) as rec:
        yield Capture(rec)


CALL_COLUMNS: dict[str, tuple[Any, str]] = {
    "seq": (pl.Int64, "process-wide order in which the calls started"),
    "api": (pl.Utf8, "chat, responses or anthropic"),
    "model": (pl.Utf8, "the model the reply names (else the request's)"),
    "status": (pl.Int64, "HTTP status; null when the call raised"),
    "ok": (pl.Boolean, "a 2xx reply read whole and decoded (only these become steps)"),
    "streamed": (pl.Boolean, "the reply came as server-sent events"),
    "consumed": (pl.Boolean, "false when the caller closed the stream before its end"),
    "attributed": (pl.Utf8, "how the case was found: context or sole_active"),
    "thread": (pl.Utf8, "the calling thread's name"),
    "retry": (pl.Int64, "x-stainless-retry-count of the request"),
    "latency_ms": (pl.Float64, "from the request's start to the reply's end"),
    "input_tokens": (pl.Int64, "usage reported by the reply; null when it reported none"),
    "output_tokens": (pl.Int64, "usage reported by the reply; null when it reported none"),
    "tool_calls": (pl.Utf8, "names of the tools the reply asked for, comma-separated"),
    "output_text": (pl.Utf8, "the reply's assistant text"),
    "error": (pl.Utf8, "why the call failed or could not be read"),
}
"""The columns of :meth:`Capture.calls_df`: name → (dtype, meaning)."""


def calls_frame(exchanges: list[Exchange], *, backend: str | None = None) -> Any:
    """The ``calls_df`` frame of these exchanges (pandas unless ``backend="polars"``)."""
    data: dict[str, list[Any]] = {name: [] for name in CALL_COLUMNS}
    for e in exchanges:
        step = model_call(e) if e.ok else None
        usage = step.usage if step is not None else None
        data["seq"].append(e.seq)
        data["api"].append(e.api)
        data["model"].append(step.model if step is not None else None)
        data["status"].append(e.status)
        data["ok"].append(e.ok)
        data["streamed"].append(e.streamed)
        data["consumed"].append(e.consumed)
        data["attributed"].append(e.attributed)
        data["thread"].append(e.thread)
        data["retry"].append(e.retry)
        latency = (e.ended_ns - e.started_ns) / 1e6 if e.ended_ns is not None else None
        data["latency_ms"].append(latency)
        data["input_tokens"].append(usage.input_tokens if usage else None)
        data["output_tokens"].append(usage.output_tokens if usage else None)
        names = [t.name or "" for t in step.tool_calls] if step is not None else []
        data["tool_calls"].append(",".join(names) or None)
        data["output_text"].append(step.output_text if step is not None else None)
        data["error"].append(e.error)
    frame = pl.DataFrame(data, schema={name: dtype for name, (dtype, _) in CALL_COLUMNS.items()})
    return frame if (backend or config.backend) == "polars" else frame.to_pandas()
