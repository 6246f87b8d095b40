"""Spans as a second source: what the case processor adds to a span, and what reading a turn's
spans and merging them with the wire costs.

Two figures, each measured side by side in this process:

* **per-span overhead**: the same nested spans (a model span over a tool span, GenAI
  attributes) on an SDK provider with the user's own processor (a ``SimpleSpanProcessor`` into
  an in-memory exporter), without and with the case processor, inside a case, in rounds that
  alternate which side goes first (the second side of a round was charged the first one's
  garbage: a 2x artefact); printed as µs of CPU added per span and the ratio.
* **build**: 500 turns of two wire calls, each wire call seen by two instrumentation layers and
  one tool span (5 spans a turn), made invocations by ``agents.capture.turns.built_turn``,
  against the same turns built from the wire alone. Printed as ms per 1k wire calls and the
  ratio.

Run: ``python bench/capture_spans.py [--spans 4000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agenteval_nb.agents.capture import spans
from agenteval_nb.agents.capture.attribution import recording
from agenteval_nb.agents.capture.exchange import Exchange
from agenteval_nb.agents.capture.turns import built_turn

MODEL = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
TOOL = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"}


def emit(provider: TracerProvider, n: int) -> float:
    """CPU seconds to start and end ``n`` spans (pairs: a model span over a tool span), after
    a full collection (the garbage of the previous side is not charged to this one)."""
    tracer = provider.get_tracer("bench")
    gc.collect()
    start = time.process_time()
    with recording("bench"):
        for i in range(n // 2):
            with (
                tracer.start_as_current_span("chat m", attributes=MODEL),
                tracer.start_as_current_span("execute_tool", attributes=TOOL) as tool,
            ):
                tool.set_attribute("gen_ai.tool.call.id", f"call_{i}")
    return time.process_time() - start


def overhead(n: int, rounds: int) -> None:
    plain, with_case = TracerProvider(), TracerProvider()
    exporters = [InMemorySpanExporter(), InMemorySpanExporter()]
    for provider, exporter in zip((plain, with_case), exporters, strict=True):
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    spans.attach(with_case)
    emit(plain, 200), emit(with_case, 200)
    off, on = [], []
    for round_ in range(rounds):  # the side measured first alternates
        for exporter in exporters:
            exporter.clear()
        if round_ % 2:
            on.append(emit(with_case, n))
            off.append(emit(plain, n))
        else:
            off.append(emit(plain, n))
            on.append(emit(with_case, n))
    a, b = statistics.median(off), statistics.median(on)
    print(
        f"per span: {a / n * 1e6:.1f} µs CPU with the user's processor, {b / n * 1e6:.1f} µs with "
        f"the case processor too -> +{(b - a) / n * 1e6:.1f} µs per span ({b / a:.2f}x)"
    )


def exchange(seq: int, start: int, tool_call: bool) -> Exchange:
    message: dict = {"role": "assistant", "content": None if tool_call else "It is sunny."}
    request_messages: list[dict] = [{"role": "user", "content": "Weather in Paris?"}]
    if tool_call:
        message["tool_calls"] = [
            {
                "id": f"call_{seq}",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ]
    else:
        request_messages.append({"role": "tool", "tool_call_id": f"call_{seq - 1}", "content": "1"})
    return Exchange(
        seq=seq,
        api="chat",
        url="http://x/chat/completions",
        request={"model": "m", "messages": request_messages},
        started_ns=start,
        ended_ns=start + 1000,
        thread="main",
        attributed="context",
        status=200,
        reply={
            "id": f"chatcmpl-{seq}",
            "model": "m",
            "choices": [{"message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        },
    )


def turn_spans(provider: TracerProvider, exporter: InMemorySpanExporter) -> list:
    """Five finished spans a turn: two layers around each of the two calls, one tool span."""
    tracer = provider.get_tracer("bench")
    for i in range(2):
        with tracer.start_as_current_span("chat m", attributes=MODEL) as outer:
            outer.set_attribute("gen_ai.response.id", f"chatcmpl-{i}")
            with tracer.start_as_current_span("ChatCompletion", attributes=MODEL):
                pass
        if i == 0:
            with tracer.start_as_current_span("execute_tool", attributes=TOOL) as tool:
                tool.set_attribute("gen_ai.tool.call.id", "call_0")
                tool.set_attribute("gen_ai.tool.call.result", "1")
    return list(exporter.get_finished_spans())


def build(rounds: int) -> None:
    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    finished = turn_spans(provider, exporter)  # end order: inner, outer, tool, inner, outer
    exchanges = [
        exchange(0, finished[0].start_time, True),
        exchange(1, finished[3].start_time, False),
    ]
    wire_ms, both_ms = [], []
    for _ in range(rounds):
        start = time.process_time()
        for i in range(500):
            built_turn(f"t{i}", "Weather in Paris?", "It is sunny.", exchanges)
        wire_ms.append((time.process_time() - start) * 1e3)
        start = time.process_time()
        for i in range(500):
            built_turn(f"t{i}", "Weather in Paris?", "It is sunny.", exchanges, finished)
        both_ms.append((time.process_time() - start) * 1e3)
    a, b = statistics.median(wire_ms), statistics.median(both_ms)
    built, _ = built_turn("t", "Weather in Paris?", "It is sunny.", exchanges, finished)
    assert built is not None and built.model_calls == 2, "the layers were not merged"
    print(
        f"build 1k wire calls (+2.5k spans) into invocations: wire only {a:.1f} ms CPU, with "
        f"spans {b:.1f} ms -> {b / a:.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    overhead(args.spans, args.rounds)
    build(args.rounds)


if __name__ == "__main__":
    main()
