"""The span processor added to the user's OpenTelemetry SDK provider (CAPTURE.md §5).

Imported by :mod:`.spans` only once ``opentelemetry.sdk.trace`` is already loaded (a process
that made an SDK provider has imported it), so the optional SDK costs nothing otherwise.

Rule of a span's case, in order: the case of the calling context (the attribution context
variable) → the case of its parent span, when the parent was started by a case (a thread
handed the OTel context but not ours) → the only active case (:mod:`.attribution`'s
sole-active rule). A span of no case, or started :func:`~.attribution.outside` a case (the
judge's), is left as it was. A span of a case carries the case's key as the attribute
:data:`CASE_ATTRIBUTE` from its start (the user's exporters see it too) and is filed, when it
ends, in that case's :class:`~.attribution.Recording`. The processor never exports, drops or
alters anything else: the user's own processors see every span as before.
"""

from __future__ import annotations

import threading
import weakref

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import get_current_span

from .attribution import Recording, resolve

CASE_ATTRIBUTE = "agenteval.case_id"
"""The span attribute that names the case a span was started for."""
PURGE_AT = 10_000
"""Open spans noted before the entries of finished cases are dropped (a span that never ends
must not keep its case's recording alive: entries hold it weakly)."""


class CaseSpanProcessor(SpanProcessor):
    """Stamps each span with its case on start and files it in the case's recording on end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[int, weakref.ref[Recording]] = {}
        """span id → the recording of a span started for a case and not yet ended"""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        rec, how = resolve()
        if how in ("sole_active", "unattributed"):
            parent = get_current_span(parent_context).get_span_context()
            if parent.is_valid:
                with self._lock:
                    ref = self._open.get(parent.span_id)
                rec = (ref() if ref is not None else None) or rec
        if rec is None:
            return
        context = span.get_span_context()
        if context is None:
            return
        span.set_attribute(CASE_ATTRIBUTE, rec.key)
        with self._lock:
            if len(self._open) >= PURGE_AT:
                self._open = {k: r for k, r in self._open.items() if r() is not None}
            self._open[context.span_id] = weakref.ref(rec)

    def on_end(self, span: ReadableSpan) -> None:
        context = span.get_span_context()
        if context is None:
            return
        with self._lock:
            ref = self._open.pop(context.span_id, None)
            rec = ref() if ref is not None else None
            if rec is not None:
                rec.spans.append(span)

    def shutdown(self) -> None:
        with self._lock:
            self._open.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def open_spans(self) -> int:
        """Spans started for a case that have not ended (a diagnostic)."""
        return len(self._open)
