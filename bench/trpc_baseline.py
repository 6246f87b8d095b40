"""Times trpc-agent-python's AgentEvaluator on a trace-mode eval set (run by deterministic.py).

Usage: ``.bench-venv/bin/python bench/trpc_baseline.py EVALSET.json METRICS.json OUT_DIR``;
prints ``seconds=<float>`` for evaluate + writing results.
"""

import asyncio
import json
import sys
import time

from trpc_agent_sdk.evaluation import AgentEvaluator
from trpc_agent_sdk.evaluation._eval_config import EvalConfig
from trpc_agent_sdk.evaluation._eval_set import EvalSet
from trpc_agent_sdk.evaluation._local_eval_set_results_manager import LocalEvalSetResultsManager


def main() -> None:
    evalset_path, metrics_path, out_dir = sys.argv[1:4]
    with open(evalset_path) as f:
        eval_set = EvalSet.model_validate(json.load(f))
    with open(metrics_path) as f:
        config = EvalConfig(metrics=json.load(f))
    manager = LocalEvalSetResultsManager(eval_history_dir=out_dir)
    start = time.perf_counter()
    asyncio.run(
        AgentEvaluator.evaluate_eval_set(
            eval_set,
            eval_config=config,
            print_detailed_results=False,
            eval_set_results_manager=manager,
            case_eval_parallelism=4,
        )
    )
    print(f"seconds={time.perf_counter() - start:.4f}")


if __name__ == "__main__":
    main()
