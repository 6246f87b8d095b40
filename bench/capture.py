"""Wire capture: what it adds to a model call, and what building captured calls costs.

Three figures, each measured side by side in this process:

* **per-call overhead, real client**: the same sequential chat calls (real ``openai`` client,
  loopback server) with the ``httpx``/``httpx2`` hooks off, and on inside ``ae.capture()``, in
  alternating rounds; printed as µs added per call (CPU time of this process, which holds the
  client and the hooks; the server runs in its own thread here, so its CPU counts on both
  sides alike and makes this figure noisy) and the wall ratio.
* **per-call overhead, hook alone**: the same ``httpx2`` calls (a 3 KB request: the ninth call
  of a tool loop resending its conversation) to an in-process transport (no server, no socket),
  hooks off against on inside ``ae.capture()``, alternating rounds; what the hook itself costs
  a call, the recorded calls kept as a case keeps them. Goal: ≤ 20 µs per call.
* **build**: 1k captured calls (a two-call tool turn, 500 times, each call a fresh exchange
  holding the bytes that crossed the wire) made invocations: the exchanges' bodies decoded and
  read (``model_call``, the capture's part) and the one builder (``build_invocation``) — against
  decoding their reply bodies with ``orjson`` (the floor of any reader). Goal: ≤ 5 ms per 1k.

Run: ``python bench/capture.py [--calls 400] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2
import orjson
from openai import OpenAI

from agenteval_nb.agents.capture import wire
from agenteval_nb.agents.capture.capture import capture
from agenteval_nb.agents.capture.exchange import Exchange
from agenteval_nb.agents.capture.model_calls import model_call
from agenteval_nb.agents.capture.turns import capture_gaps
from agenteval_nb.steps.builder import build_invocation
from agenteval_nb.steps.records import TurnSteps
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer

RULE = ToolRule("get_weather", ["weather"], arguments=r"in (?P<city>\w+)")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def calls(client: OpenAI, n: int) -> tuple[float, float]:
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    return time.perf_counter() - wall, time.process_time() - cpu


def overhead(base_url: str, n: int, rounds: int) -> None:
    client = OpenAI(base_url=base_url, api_key="k")
    calls(client, 50)  # warm up the connection pool and the client
    off_cpu, on_cpu, ratios = [], [], []
    for _ in range(rounds):
        wire.uninstall()
        wall_off, cpu_off = calls(client, n)
        wire.install()
        with capture():
            wall_on, cpu_on = calls(client, n)
        off_cpu.append(cpu_off / n)
        on_cpu.append(cpu_on / n)
        ratios.append(wall_on / wall_off)
    added = (statistics.median(on_cpu) - statistics.median(off_cpu)) * 1e6
    print(
        f"per call: hooks off {statistics.median(off_cpu) * 1e6:.0f} µs CPU, on "
        f"{statistics.median(on_cpu) * 1e6:.0f} µs CPU -> {added:+.1f} µs added per call "
        f"(goal <= 20); wall on/off {statistics.median(ratios):.3f} (median of {rounds} rounds)"
    )


def hook_alone(n: int, rounds: int) -> None:
    reply = orjson.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "It is sunny."},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
        }
    )
    headers = {"content-type": "application/json"}
    client = httpx2.Client(
        transport=httpx2.MockTransport(
            lambda _: httpx2.Response(200, content=reply, headers=headers)
        ),
        base_url="http://model/v1",
    )
    history: list[dict] = []
    for i in range(8):  # an agent resends its conversation: the 9th call of a tool loop
        history += [
            {"role": "user", "content": f"What is the weather in city number {i}?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": f'{{"city": "c{i}"}}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"call_{i}", "content": '{"sky": "sunny"}'},
            {"role": "assistant", "content": f"It is sunny in city number {i}."},
        ]
    body = orjson.dumps({"model": "m", "messages": history, "tools": TOOLS})

    def run() -> float:
        start = time.process_time()
        for _ in range(n):
            client.post("/chat/completions", content=body, headers=headers).json()
        return (time.process_time() - start) / n

    run()
    off, on = [], []
    for _ in range(rounds):
        wire.uninstall()
        off.append(run())
        wire.install()
        with capture():
            on.append(run())
    o, w = statistics.median(off) * 1e6, statistics.median(on) * 1e6
    print(
        f"hook alone (in-process transport): off {o:.1f} µs CPU, on {w:.1f} µs CPU -> "
        f"{w - o:+.1f} µs added per call (goal <= 20); on/off {w / o:.3f}"
    )


def build(base_url: str, rounds: int) -> None:
    client = OpenAI(base_url=base_url, api_key="k")
    wire.install()
    with capture() as cap:
        messages: list = [{"role": "user", "content": "What is the weather in Paris?"}]
        first = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        call = first.choices[0].message.tool_calls[0]
        messages += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny"}'},
        ]
        client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    wire_bytes = [(orjson.dumps(e.request), orjson.dumps(e.reply), e) for e in cap.exchanges]

    def fresh() -> list[list[Exchange]]:
        """500 turns of two calls, each call an exchange holding its bytes (not decoded)."""
        return [
            [
                Exchange(
                    e.seq,
                    e.api,
                    e.url,
                    started_ns=e.started_ns,
                    status=e.status,
                    ended_ns=e.ended_ns,
                    request_body=request,
                    reply_body=reply,
                    content_type="application/json",
                )
                for request, reply, e in wire_bytes
            ]
            for _ in range(500)
        ]

    read_ms, build_ms, floor_ms = [], [], []
    for _ in range(rounds):
        turns = fresh()
        start = time.process_time()
        read = [[model_call(e) for e in turn if e.ok] for turn in turns]
        read_ms.append((time.process_time() - start) * 1e3)
        start = time.process_time()
        for i, (turn, calls) in enumerate(zip(turns, read, strict=True)):
            steps = TurnSteps(
                turn_id=f"t{i}",
                steps=list(calls),
                user_text="What is the weather in Paris?",
                final_text="It is sunny.",
                start_ns=calls[0].start_ns,
                end_ns=calls[-1].end_ns,
                gaps=capture_gaps(turn),
            )
            build_invocation(steps)
        build_ms.append((time.process_time() - start) * 1e3)
        start = time.process_time()
        for _, reply, _ in wire_bytes * 500:
            orjson.loads(reply)
        floor_ms.append((time.process_time() - start) * 1e3)
    r, b, f = (statistics.median(x) for x in (read_ms, build_ms, floor_ms))
    print(
        f"build 1k captured calls into invocations: {r + b:.1f} ms CPU (goal <= 5) = decode and "
        f"read the exchanges {r:.1f} ms + the one builder {b:.1f} ms; orjson.loads of their "
        f"replies {f:.2f} ms -> {(r + b) / f:.0f}x (read {r / f:.0f}x, builder {b / f:.0f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with FakeOpenAIServer(ScriptedAgentModel([RULE])) as server:
        overhead(server.base_url, args.calls, args.rounds)
        hook_alone(args.calls * 5, args.rounds)
        build(server.base_url, args.rounds)


if __name__ == "__main__":
    main()
