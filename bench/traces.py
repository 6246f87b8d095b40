"""Reading a large OTLP JSONL trace file: throughput and peak memory, each variant in a child.

The parent writes (into a temp dir, once per size) a JSONL file in the OTLP file exporter's form:
one ``TracesData`` per line, one trace per line, ~10 spans per trace (an ``invoke_agent`` root,
current-semconv ``chat`` spans whose ``gen_ai.input.messages`` resend the growing history,
``execute_tool`` spans with arguments and results), three traces per conversation
(``gen_ai.conversation.id``). A trace line is ≈ 15 KB (the resent history): at the default
``--size-mb 1024``, ≈ 680k spans, 68k traces.

Variants, each in its own process (peak RSS is that child's):

* ``orjson``: ``orjson.loads`` of every line (the baseline: parsing alone);
* ``read_spans``: :func:`agenteval_nb.traces.read.read_spans` over the file, every span consumed;
* ``load_traces``: ``ae.load_traces`` (with each turn's ``executionTrace``, the default);
* ``load_no_trace``: ``ae.load_traces(..., execution_trace=False)``.

Printed: CPU seconds (``time.process_time``), MB/s, the ratio to ``orjson`` (the same lines read
in the same way), peak RSS. Goal of the pipeline: ``load_traces`` ≥ 50 MB/s, ≤ 2 GB RSS.
Every import (``ae.load_traces`` is imported lazily: polars, the schema) happens before the
clocks start.

    python bench/traces.py [--size-mb 1024] [--variants orjson,read_spans,load_traces] [--keep]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # this checkout, not an installed copy

VARIANTS = ("orjson", "read_spans", "load_traces", "load_no_trace")
TRACES_PER_CONVERSATION = 3
TOOL_ROUNDS = 4  # per trace: 4 tool rounds → 5 chat spans + 4 tool spans + the agent = 10 spans


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    trace: str, span: str, parent: str | None, name: str, start: int, attrs: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": trace,
        "spanId": span,
        "name": name,
        "kind": 3 if name.startswith("chat") else 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 900_000_000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
        "status": {"code": 1},
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def _trace(number: int) -> dict[str, Any]:
    """One turn of an agent: ~10 spans with realistic GenAI attributes."""
    trace = f"{number + 1:032x}"
    conversation = f"conv-{number // TRACES_PER_CONVERSATION:08d}"
    base = 1_760_000_000_000_000_000 + number * 60_000_000_000
    root = f"{number * 100 + 100:016x}"
    question = f"Turn {number}: what is the weather in city {number % 97} and should I cycle?"
    history: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"type": "text", "content": question}]}
    ]
    spans = [
        _span(
            trace,
            root,
            None,
            "invoke_agent weather_agent",
            base,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "weather_agent",
                "gen_ai.conversation.id": conversation,
                "gen_ai.provider.name": "openai",
            },
        )
    ]
    for round_ in range(TOOL_ROUNDS + 1):
        chat_id = f"{number * 100 + 2 * round_ + 101:016x}"
        final = round_ == TOOL_ROUNDS
        call_id = f"call_{number}_{round_}"
        arguments = json.dumps({"city": f"city {number % 97}", "day": round_, "units": "metric"})
        if final:
            output = [
                {
                    "role": "assistant",
                    "parts": [{"type": "text", "content": "It is sunny; cycling is fine. " * 3}],
                    "finish_reason": "stop",
                }
            ]
        else:
            output = [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": call_id,
                            "name": "get_weather",
                            "arguments": arguments,
                        }
                    ],
                    "finish_reason": "tool_call",
                }
            ]
        spans.append(
            _span(
                trace,
                chat_id,
                root,
                "chat gpt-4o-mini",
                base + (2 * round_ + 1) * 1_000_000_000,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
                    "gen_ai.response.id": f"chatcmpl-{number}-{round_}",
                    "gen_ai.response.finish_reasons": "stop" if final else "tool_calls",
                    "gen_ai.usage.input_tokens": 200 + 40 * round_,
                    "gen_ai.usage.output_tokens": 30,
                    "server.address": "api.openai.com",
                    "gen_ai.system_instructions": json.dumps(
                        [{"type": "text", "content": "You are a weather assistant. Be brief."}]
                    ),
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps(output),
                },
            )
        )
        history = history + output
        if final:
            break
        result = json.dumps({"temperature": 20 + round_, "sky": "clear", "wind_kmh": 7})
        spans.append(
            _span(
                trace,
                f"{number * 100 + 2 * round_ + 102:016x}",
                root,
                "execute_tool get_weather",
                base + (2 * round_ + 2) * 1_000_000_000,
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather",
                    "gen_ai.tool.call.id": call_id,
                    "gen_ai.tool.call.arguments": arguments,
                    "gen_ai.tool.call.result": result,
                    "gen_ai.tool.type": "function",
                },
            )
        )
        history.append(
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": call_id, "response": result}],
            }
        )
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [_kv("service.name", "weather-service")]},
                "scopeSpans": [
                    {
                        "scope": {
                            "name": "opentelemetry.instrumentation.openai_v2",
                            "version": "2.1b0",
                        },
                        "spans": spans,
                    }
                ],
            }
        ]
    }


def write_file(path: Path, size_mb: int) -> tuple[int, int]:
    """Write the JSONL file up to ``size_mb``; return (traces, spans)."""
    limit = size_mb * 1024 * 1024
    written = traces = spans = 0
    with open(path, "wb") as handle:
        while written < limit:
            doc = _trace(traces)
            line = orjson.dumps(doc) + b"\n"
            handle.write(line)
            written += len(line)
            traces += 1
            spans += len(doc["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return traces, spans


def one(variant: str, path: Path) -> dict[str, Any]:
    """Run ``variant`` over ``path`` in this process; CPU seconds and peak RSS (imports are
    done before the clocks start)."""
    from agenteval_nb.traces.load import load_traces
    from agenteval_nb.traces.read import read_spans

    start = time.process_time()
    wall = time.perf_counter()
    count = 0
    if variant == "orjson":
        with open(path, "rb", buffering=1 << 20) as handle:
            for line in handle:
                orjson.loads(line)
                count += 1
    elif variant == "read_spans":
        problems: list[Any] = []
        for _ in read_spans(path, problems=problems):
            count += 1
        if problems:
            raise SystemExit(f"read_spans reported problems: {problems[:3]}")
    else:
        es, _report = load_traces(path, execution_trace=variant == "load_traces")
        count = len(es.eval_cases or ())
    return {
        "seconds": time.process_time() - start,
        "wall": time.perf_counter() - wall,
        "count": count,
        "peak_mb": _peak_mb(),
    }


def _child(variant: str, path: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--one", variant, "--file", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--pairs", type=int, default=1, help="runs of each variant (median kept)")
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, Path(args.file))))
        return
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; choose from {VARIANTS}")
    if "orjson" not in variants:
        variants.insert(0, "orjson")
    out = Path(tempfile.mkdtemp(prefix="bench_traces_"))
    path = out / f"spans_{args.size_mb}mb.jsonl"
    try:
        started = time.perf_counter()
        traces, spans = write_file(path, args.size_mb)
        size_mb = path.stat().st_size / (1024 * 1024)
        print(
            f"file: {path} {size_mb:.0f} MB, {traces} traces, {spans} spans "
            f"(written in {time.perf_counter() - started:.0f} s)"
        )
        results: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
        for _ in range(args.pairs):
            for variant in variants:  # interleaved: drift on a shared machine hits all alike
                results[variant].append(_child(variant, path))
        base = _median(results["orjson"], "seconds")
        print(
            f"{'variant':<14} {'cpu s':>8} {'wall s':>8} {'MB/s':>8} {'x orjson':>9} {'peak MB':>8}"
        )
        for variant in variants:
            rows = results[variant]
            first = rows[0]
            if "seconds" not in first:
                print(f"{variant:<14} {first.get('error')}")
                continue
            seconds = _median(rows, "seconds")
            wall = _median(rows, "wall")
            peak = max(r["peak_mb"] for r in rows)
            print(
                f"{variant:<14} {seconds:8.2f} {wall:8.2f} {size_mb / seconds:8.1f} "
                f"{seconds / base:9.2f} {peak:8.0f}"
            )
    finally:
        if not args.keep:  # also when interrupted: a 1 GB file must not stay behind
            shutil.rmtree(out, ignore_errors=True)


def _median(rows: list[dict[str, Any]], key: str) -> float:
    values = sorted(r[key] for r in rows if key in r)
    return values[len(values) // 2] if values else float("nan")


if __name__ == "__main__":
    main()
