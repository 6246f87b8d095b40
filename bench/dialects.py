"""``classify`` throughput on realistic GenAI spans, beside ``orjson.loads`` of the same lines.

A synthetic set of conversations in the current OTel GenAI form (``invoke_agent`` root with a
conversation id, ``chat`` spans whose ``gen_ai.input.messages`` resend the growing history as a
JSON string, ``execute_tool`` spans, one HTTP span of noise per turn) is written as one JSON line
per span (flat attributes, the shape a reader hands over). Timed in the same process, CPU time,
rounds alternating, the median round counts:

* ``orjson``: ``orjson.loads`` of every line (the floor any reader pays);
* ``classify``: ``classify`` of every span (spans built beforehand, outside the timing).

Printed: MB/s of each over the lines' bytes, and the ratio classify / orjson. ``classify`` runs
once per span in ``load_traces``, which must reach ≥ 50 MB/s overall (issue 32), so classify alone
should stay well above that.

Usage: ``python bench/dialects.py [--turns 4000] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import orjson

from agenteval_nb.traces.dialects import classify
from agenteval_nb.traces.spans import Span

WORDS = [
    "the",
    "weather",
    "in",
    "paris",
    "is",
    "rainy",
    "and",
    "cold",
    "today",
    "while",
    "london",
    "stays",
    "dry",
    "and",
    "mild",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _span(
    trace: str, span_id: str, parent: str | None, name: str, attrs: dict[str, Any]
) -> dict[str, Any]:
    return {"trace_id": trace, "span_id": span_id, "parent_id": parent, "name": name,
            "start_ns": 1, "end_ns": 2, "attributes": attrs}  # fmt: skip


def make_lines(turns: int, seed: int = 5) -> list[bytes]:
    """One JSON line per span; 5 turns per conversation, history resent on every model call."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    history: list[dict[str, Any]] = []
    for turn in range(turns):
        if turn % 5 == 0:
            history = []
        trace, conv = f"{turn:032x}", f"conv-{turn // 5}"
        user = {"role": "user", "parts": [{"type": "text", "content": _text(rng, 20)}]}
        call = {"type": "tool_call", "id": f"call_{turn}", "name": "get_weather",
                "arguments": {"location": rng.choice(WORDS)}}  # fmt: skip
        asked = {"role": "assistant", "parts": [call], "finish_reason": "tool_calls"}
        answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{turn}",
                                             "response": _text(rng, 15)}]}  # fmt: skip
        final = {"role": "assistant", "parts": [{"type": "text", "content": _text(rng, 40)}]}
        history.append(user)
        chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.conversation.id": conv, "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 20}  # fmt: skip
        spans = [
            _span(trace, "a", None, "invoke_agent weather",
                  {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
                   "gen_ai.conversation.id": conv}),
            _span(trace, "m1", "a", "chat gpt-4o",
                  {**chat, "gen_ai.input.messages": orjson.dumps(history).decode(),
                   "gen_ai.output.messages": orjson.dumps([asked]).decode()}),
            _span(trace, "t1", "a", "execute_tool get_weather",
                  {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                   "gen_ai.tool.call.id": f"call_{turn}",
                   "gen_ai.tool.call.arguments": orjson.dumps(call["arguments"]).decode(),
                   "gen_ai.tool.call.result": answer["parts"][0]["response"]}),
            _span(trace, "h1", "m1", "POST",
                  {"http.request.method": "POST", "server.address": "api.openai.com"}),
        ]  # fmt: skip
        history += [asked, answer]
        spans.append(
            _span(trace, "m2", "a", "chat gpt-4o",
                  {**chat, "gen_ai.input.messages": orjson.dumps(history).decode(),
                   "gen_ai.output.messages": orjson.dumps([final]).decode()})
        )  # fmt: skip
        history.append(final)
        lines += [orjson.dumps(one) for one in spans]
    return lines


def to_span(data: dict[str, Any]) -> Span:
    return Span(data["trace_id"], data["span_id"], data["parent_id"], data["name"],
                data["start_ns"], data["end_ns"], attributes=data["attributes"])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    lines = make_lines(args.turns)
    spans = [to_span(orjson.loads(line)) for line in lines]
    megabytes = sum(len(line) for line in lines) / 1e6
    print(f"{len(spans):,} spans, {megabytes:.1f} MB of JSON lines")
    loads_times, classify_times = [], []
    for _ in range(args.rounds):
        start = time.process_time()
        for line in lines:
            orjson.loads(line)
        loads_times.append(time.process_time() - start)
        start = time.process_time()
        for one in spans:
            classify(one)
        classify_times.append(time.process_time() - start)
    loads_s, classify_s = statistics.median(loads_times), statistics.median(classify_times)
    print(f"orjson.loads of every line   {loads_s:7.3f} s  {megabytes / loads_s:8.1f} MB/s")
    print(f"classify of every span       {classify_s:7.3f} s  {megabytes / classify_s:8.1f} MB/s")
    print(f"ratio classify / orjson      {classify_s / loads_s:7.2f}")


if __name__ == "__main__":
    main()
