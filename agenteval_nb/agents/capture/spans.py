"""Spans as a second source (CAPTURE.md §5): what the wire cannot see.

When the process has an OpenTelemetry SDK ``TracerProvider`` as its global provider,
:func:`install` adds one :class:`~.span_processor.CaseSpanProcessor` to it (once per provider;
the provider is never replaced, its own processors keep working). Each span started while a
case records carries the case's key (``agenteval.case_id``) and, when it ends, is filed in the
case's recording. A provider handed to instrumentations explicitly (not the global one) is
added with :func:`attach`. Without the SDK, or with the API's default provider, nothing happens:
the SDK is never imported here (a process that made an SDK provider has imported it).

:func:`span_steps` decodes a recording's spans with the trace readers (the SDK span reader, the
dialect detector): the steps :func:`~agenteval_nb.steps.merge.merge_sources` merges with the
wire's — tool runs whose results the wire never carried (results sent back as plain text, a
tool that ends the run), model calls of clients the wire does not hook (not ``httpx``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import Any

from ...steps.records import Step
from ...traces.dialects import classify
from ...traces.grouping import node_of
from ...traces.sdk_objects import sdk_span

_SDK = "opentelemetry.sdk.trace"
_lock = threading.Lock()
_attached: dict[int, Any] = {}
"""id(provider) → (provider, its processor): providers this process added a processor to"""


def install() -> None:
    """Add the case processor to the global SDK provider, once (module doc); cheap when done."""
    sdk = sys.modules.get(_SDK)
    api = sys.modules.get("opentelemetry.trace")
    if sdk is None or api is None:
        return
    provider = api.get_tracer_provider()
    if isinstance(provider, sdk.TracerProvider):
        attach(provider)


def attach(provider: Any) -> Any:
    """Add the case processor to ``provider`` (an SDK ``TracerProvider``) unless it has one;
    returns the processor. Nothing of the provider is replaced."""
    with _lock:
        found = _attached.get(id(provider))
        if found is not None and found[0] is provider:
            return found[1]
        from .span_processor import CaseSpanProcessor  # the optional SDK: loaded by now

        processor = CaseSpanProcessor()
        provider.add_span_processor(processor)
        _attached[id(provider)] = (provider, processor)
        return processor


def span_steps(spans: Iterable[Any]) -> list[Step]:
    """The steps of a case's finished SDK spans, in start order (each step knows its parent
    span); spans without ids are skipped."""
    read = []
    for index, obj in enumerate(spans):
        span = sdk_span(obj)
        if span is None:
            continue
        node = node_of(span, classify(span))
        read.append((node.start_ns is None, node.start_ns or 0, index, node.step))
    read.sort(key=lambda entry: entry[:3])
    return [step for *_, step in read]
