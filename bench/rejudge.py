"""``ae.rejudge`` against ``ae.evaluate`` on the same turns: what scoring a recorded run again
costs beside scoring it the first time.

``--cases`` trace-mode cases of one turn, one ``llm_final_response`` metric, judged through
the in-process loopback server (every answer valid). Per round, side by side in this process:

* cold: ``ae.evaluate`` with a fresh cache (every call reaches the server) against
  ``ae.rejudge`` of that run with another judge model (every call reaches the server);
* warm: the same two again, every call answered by the cache (no server work).

Printed: the median over ``--rounds`` of process CPU seconds per 1,000 cases of each side and
the ratio rejudge / evaluate (the server shares the process, so cold figures include its work
on both sides alike). Targets: warm ≈ 1 (rejudge adds the copy-back of recorded results and
nothing per call), cold ≈ 1.

Usage: ``python bench/rejudge.py [--cases 1000] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy

import agenteval_nb as ae  # noqa: E402
from agenteval_nb.testing import FakeOpenAIServer  # noqa: E402
from agenteval_nb.testing.fake_server import completion  # noqa: E402

VERDICT = "reasoning: matches\nis_the_agent_response_valid: valid"


def evalset(n: int) -> dict:
    def turn(k: int) -> dict:
        return {
            "userContent": {"role": "user", "content": f"question {k}"},
            "finalResponse": {"role": "assistant", "content": f"answer {k}"},
        }

    cases = [
        {
            "evalId": f"c{k}",
            "evalMode": "trace",
            "sessionInput": {"appName": "bench", "userId": "u"},
            "conversation": [turn(k)],
            "actualConversation": [turn(k)],
        }
        for k in range(n)
    ]
    return {"evalSetId": "bench", "evalCases": cases}


def metric(base_url: str) -> list[dict]:
    return [
        {
            "metricName": "fr",
            "evaluatorName": "llm_final_response",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": {"modelName": "a", "baseURL": base_url}}},
        }
    ]


def cpu(fn, *args, **kwargs):
    start = time.process_time()
    value = fn(*args, **kwargs)
    return value, time.process_time() - start


def one_round(es: dict, ms: list[dict], srv: FakeOpenAIServer, sides: dict) -> None:
    with tempfile.TemporaryDirectory() as cache:
        run, t = cpu(ae.evaluate, es, ms, cache=cache, progress=False)
        sides["ev cold"].append(t)
        _, t = cpu(ae.rejudge, run, {"modelName": "b"}, cache=cache, progress=False)
        sides["re cold"].append(t)
        sent = srv.request_count
        _, t = cpu(ae.evaluate, es, ms, cache=cache, progress=False)
        sides["ev warm"].append(t)
        _, t = cpu(ae.rejudge, run, {"modelName": "b"}, cache=cache, progress=False)
        sides["re warm"].append(t)
        assert srv.request_count == sent, "the warm runs sent requests"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sides: dict[str, list[float]] = {k: [] for k in ("ev cold", "re cold", "ev warm", "re warm")}
    with FakeOpenAIServer(handler=lambda request: completion(VERDICT)) as srv:
        es, ms = evalset(args.cases), metric(srv.base_url)
        for _ in range(args.rounds):
            one_round(es, ms, srv, sides)
    per_1k = {k: 1000 * statistics.median(v) / args.cases for k, v in sides.items()}
    for phase in ("cold", "warm"):
        ev, re_ = per_1k[f"ev {phase}"], per_1k[f"re {phase}"]
        print(
            f"{phase}: evaluate {ev:.2f} s CPU / 1k cases, rejudge {re_:.2f} s; "
            f"rejudge / evaluate = {re_ / ev:.2f}"
        )


if __name__ == "__main__":
    main()
