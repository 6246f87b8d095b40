"""What the verifier's position-bias control shows on the demo data (offline heuristic judge).

Scores run 1 of the demo with ``verifier_pairwise`` three ways — reference scoring, ``swap:
"report"`` and ``swap: "mean"`` — against the heuristic judge without and with a bias towards
the first slot, and prints the mean swap gap and how many case statuses the bias flipped.

    python bench/verifier_swap.py [--bias 0.15]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer, HeuristicJudge

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "demo_assistant"


def score(bias: float, swap: str | None) -> ae.EvalRun:
    with FakeOpenAIServer(handler=HeuristicJudge(position_bias=bias).handler) as server:
        os.environ.update(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="offline",
            AGENTEVAL_JUDGE_MODEL="agenteval-heuristic-judge",
        )
        metric = next(
            m
            for m in ae.load_metrics(DEMO / "demo.metrics.json")
            if m.metric_name == "verifier_pairwise"
        )
        if swap:
            metric = metric.model_copy(update={"extension": {"verifier": {"swap": swap}}})
        return ae.evaluate(DEMO / "demo_run1.evalset.json", [metric], cache=False, progress=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bias", type=float, default=0.15)
    args = parser.parse_args()
    for bias in (0.0, args.bias):
        plain = score(bias, None).metrics_df()
        report = score(bias, "report")
        mean = score(bias, "mean").metrics_df()
        lp = report.logprobs_df()
        gaps = lp.drop_duplicates(["eval_id", "invocation_index"])["swap_gap"]
        flips = (plain["status"] != mean["status"]).sum()
        print(
            f"bias {bias:.2f}: mean score {plain['score'].mean():.4f} (reference scoring), "
            f"{mean['score'].mean():.4f} (swap mean); mean |swap gap| {gaps.abs().mean():.4f}; "
            f"statuses changed by swap=mean: {flips}/{len(plain)}"
        )


if __name__ == "__main__":
    main()
