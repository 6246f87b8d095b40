"""Writes ``data/judge_cache.sqlite`` and ``data/judge_cache.json``: a judged run's cache and
its per-turn results.

Run once, with the code of the commit named in ``judge_cache.json`` (the layout before the judge
stack became one file per judge): ``python tests/llm/_judge_cache.py``. The fake server
listens on a fixed port because the base URL is part of every cache key; the test
``tests/llm/test_judge_cache_compat.py`` serves the same port and expects no request at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE))

from _llm_helpers import EVALUATOR_CASES  # noqa: E402

import agenteval_nb as ae  # noqa: E402
from agenteval_nb.io import dumps  # noqa: E402
from agenteval_nb.testing import FakeOpenAIServer  # noqa: E402
from agenteval_nb.testing.heuristic_judge import heuristic_handler  # noqa: E402

PORT = 47613
BASE_URL = f"http://127.0.0.1:{PORT}/v1"
TOOL_CALL = {
    "id": "k1",
    "name": "knowledge_search",
    "arguments": {"query": "capital of France"},
    "result": {"documents": [{"text": "Paris is the capital of France.", "score": 0.9}]},
}


def turn(user: str, answer: str, **extra: object) -> dict[str, object]:
    return {
        "userContent": {"role": "user", "content": user},
        "finalResponse": {"role": "assistant", "content": answer},
        **extra,
    }


EVALSET = {
    "evalSetId": "judge-cache",
    "evalCases": [
        {
            "evalId": "paris",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of France?", "Paris is the capital of France.")],
            "actualConversation": [
                turn(
                    "Capital of France?",
                    "The capital of France is Paris. It has about two million people.",
                    tools=[TOOL_CALL],
                )
            ],
        },
        {
            "evalId": "two-turns",
            "evalMode": "trace",
            "sessionInput": {"appName": "geo", "userId": "u"},
            "conversation": [turn("Capital of Italy?", "Rome"), turn("And Spain?", "Madrid")],
            "actualConversation": [
                turn("Capital of Italy?", "Rome"),
                turn("And Spain?", "Barcelona"),
            ],
        },
    ],
}


def metrics() -> list[dict[str, object]]:
    """One metric per built-in judge and template scorer, two samples each."""
    out: list[dict[str, object]] = []
    for name, fields in EVALUATOR_CASES:
        evaluator = name if name.startswith("llm_") else "llm_judge_template"
        judge_model = {"modelName": "judge", "baseURL": BASE_URL, "numSamples": 2}
        metric: dict[str, object] = {
            "metricName": f"m_{name}",
            "evaluatorName": evaluator,
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": judge_model, **fields}},
        }
        if name == "llm_verifier_pairwise":
            metric["extension"] = {"verifier": {"swap": "report"}}
        out.append(metric)
    return out


def per_invocation(run: ae.EvalRun) -> dict[str, object]:
    """``case id -> wire JSON of its per-invocation metric results`` (scores and details)."""
    out: dict[str, object] = {}
    for case in run.result.eval_case_results:
        assert case.error_message is None, case.error_message
        out[str(case.eval_id)] = json.loads(dumps(case))["evalMetricResultPerInvocation"]
    return out


def main() -> None:
    db = DATA / "judge_cache.sqlite"
    db.unlink(missing_ok=True)
    with FakeOpenAIServer(handler=heuristic_handler, port=PORT) as srv:
        run = ae.evaluate(EVALSET, metrics(), progress=False, cache=db)
        requests = srv.request_count
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True
    ).stdout.strip()
    record = {
        "commit": commit,
        "base_url": BASE_URL,
        "requests": requests,
        "perInvocation": per_invocation(run),
    }
    (DATA / "judge_cache.json").write_text(json.dumps(record, indent=1) + "\n")
    print(commit, requests)


if __name__ == "__main__":
    main()
