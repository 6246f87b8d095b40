"""Grouping + building of classified spans (``traces.load.build_evalset``), against loading
the same eval set from its decoded JSON (``EvalSet.model_validate``), in one process.

The spans are made in memory (no reader, no dialect): N traces of one turn each — an agent
root, three model calls, two tool runs — five traces per conversation (made once, outside
the timing; building does not consume them). Printed per variant: CPU seconds (median of
``--pairs`` rounds, variants timed in turn), spans/s and the ratio to the baseline.

    python bench/traces_builder.py --traces 20000 --pairs 3
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # this checkout, not an installed copy

from agenteval_nb._gc import gc_paused  # noqa: E402
from agenteval_nb.schema import EvalSet  # noqa: E402
from agenteval_nb.steps.records import AgentRun, ModelCall, ToolRun, ToolUse, Usage  # noqa: E402
from agenteval_nb.traces.dialects import Classified  # noqa: E402
from agenteval_nb.traces.load import build_evalset  # noqa: E402
from agenteval_nb.traces.spans import Span  # noqa: E402

MS = 1_000_000


def _pair(trace: str, sid: str, parent: str | None, start: int, step: Any, conv: str | None):
    span = Span(trace, sid, parent, "span", start * MS, (start + 5) * MS)
    step.start_ns, step.end_ns, step.parent_span_id = span.start_ns, span.end_ns, parent
    return span, Classified(dialect="otel_genai", step=step, conversation_id=conv, flags=set())


def make_pairs(n_traces: int) -> list[tuple[Span, Classified]]:
    pairs = []
    for t in range(n_traces):
        trace, base, conv = f"{t:032x}", t * 1000, f"conv-{t // 5}"
        root = f"{trace[:12]}0000"
        question, answer = f"question {t}: what is the rate?", f"The rate is {t % 97}."
        pairs.append(
            _pair(
                trace, root, None, base, AgentRun(root, "bot", None, None, question, answer), conv
            )
        )
        for k in range(3):
            sid = f"{trace[:12]}01{k:02d}"
            calls = [] if k == 2 else [ToolUse(f"call-{t}-{k}", "fx_rate", {"ccy": "EUR", "k": k})]
            text = answer if k == 2 else None
            step = ModelCall(sid, model="gpt-4o", last_user_text=question, output_text=text)
            step.tool_calls, step.usage = calls, Usage(400 + k, 20)
            pairs.append(_pair(trace, sid, root, base + 10 * k, step, None))
            if k < 2:
                tid = f"{trace[:12]}02{k:02d}"
                use = ToolUse(f"call-{t}-{k}", "fx_rate", None, {"rate": 1.08}, True)
                pairs.append(_pair(trace, tid, root, base + 10 * k + 6, ToolRun(tid, use), None))
    return pairs


def _cpu(fn: Callable[[], Any]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=20000)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    pairs = make_pairs(args.traces)
    wire = build_evalset(iter(pairs))[0].model_dump(mode="json", by_alias=True, exclude_none=True)

    def baseline() -> None:
        with gc_paused():  # as the eval-set loaders do
            EvalSet.model_validate(wire)

    variants: dict[str, Callable[[], Any]] = {
        "baseline: EvalSet.model_validate of the same set": baseline,
        "build_evalset (executionTrace)": lambda: build_evalset(iter(pairs)),
        "build_evalset (execution_trace=False)": lambda: build_evalset(
            iter(pairs), execution_trace=False
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.pairs):
        for name, fn in variants.items():
            times[name].append(_cpu(fn))
    n_spans = len(pairs)
    base = statistics.median(next(iter(times.values())))
    print(f"{args.traces} traces, {n_spans} spans in memory; median CPU s of {args.pairs} rounds")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:50s} {median:7.2f} s  {n_spans / median:9.0f} spans/s"
            f"  ratio to baseline {median / base:5.2f}"
        )


if __name__ == "__main__":
    main()
