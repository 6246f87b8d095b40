"""Wire capture: what it adds to a model call, and what building captured calls costs.

Two figures, each measured side by side in this process:

* **per-call overhead**: the same sequential chat calls (real ``openai`` client, loopback
  server) with the ``httpx``/``httpx2`` hooks off, and on inside ``ae.capture()``, in
  alternating rounds; printed as µs added per call (CPU time of this process, which holds the
  client and the hooks; the server runs in its own thread here, so its CPU counts on both
  sides alike) and the wall ratio. Goal: ≤ 20 µs per call.
* **build**: 1k captured calls (a two-call tool turn, 500 times) made invocations by the one
  builder (``agents.capture.turns.built_turn``), against decoding their reply bodies with
  ``orjson`` (the floor of any reader). Goal: ≤ 5 ms per 1k calls.

Run: ``python bench/capture.py [--calls 400] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from openai import OpenAI

from agenteval_nb.agents.capture import wire
from agenteval_nb.agents.capture.capture import capture
from agenteval_nb.agents.capture.turns import built_turn
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
    turn = cap.exchanges
    bodies = [orjson.dumps(e.reply) for e in turn] * 500
    build_ms, floor_ms = [], []
    for _ in range(rounds):
        start = time.process_time()
        for i in range(500):
            built_turn(f"t{i}", "What is the weather in Paris?", "It is sunny.", turn)
        build_ms.append((time.process_time() - start) * 1e3)
        start = time.process_time()
        for body in bodies:
            orjson.loads(body)
        floor_ms.append((time.process_time() - start) * 1e3)
    b, f = statistics.median(build_ms), statistics.median(floor_ms)
    print(
        f"build 1k captured calls into invocations: {b:.1f} ms CPU (goal <= 5), orjson.loads of "
        f"their replies {f:.2f} ms -> {b / f:.0f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with FakeOpenAIServer(ScriptedAgentModel([RULE])) as server:
        overhead(server.base_url, args.calls, args.rounds)
        build(server.base_url, args.rounds)


if __name__ == "__main__":
    main()
