"""agenteval_nb: evaluate LLM agents from Jupyter.

The evaluation system of trpc-agent-go (same files, same scores) with results as DataFrames,
widgets, statistics, plots and single-file HTML reports. Everything a user needs is importable
from here; heavy modules load on first use so that ``import agenteval_nb`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # loading and saving
    "load_evalset": "agenteval_nb.io",
    "load_metrics": "agenteval_nb.io",
    "load_result": "agenteval_nb.io",
    "save_evalset": "agenteval_nb.io",
    "save_metrics": "agenteval_nb.io",
    "save_result": "agenteval_nb.runs",
    "load_metrics_config": "agenteval_nb.io",
    "evalset_from_df": "agenteval_nb.io",
    "evalset_from_dataset": "agenteval_nb.io",
    "evalset_to_df": "agenteval_nb.io",
    "load_traces": "agenteval_nb.traces.load",
    "TraceReport": "agenteval_nb.traces.load_report",
    "FormatError": "agenteval_nb.errors",
    "ConfigError": "agenteval_nb.errors",
    "config": "agenteval_nb.settings",
    # evaluation
    "evaluate": "agenteval_nb.api",
    "evaluate_async": "agenteval_nb.api",
    "EvalRun": "agenteval_nb.evalrun",
    "BatchJob": "agenteval_nb.api",
    "BatchConfig": "agenteval_nb.judge.batch",
    "load_run": "agenteval_nb.runs",
    "RunCollection": "agenteval_nb.runs",
    "compare": "agenteval_nb.views",
    "Comparison": "agenteval_nb.analysis.paired",
    "Registry": "agenteval_nb.evaluators.registry",
    "Evaluator": "agenteval_nb.evaluators.base",
    "EvaluateResult": "agenteval_nb.evaluators.base",
    "PerInvocationResult": "agenteval_nb.evaluators.base",
    "EvaluationContext": "agenteval_nb.evaluators.base",
    "EvaluatorError": "agenteval_nb.evaluators.base",
    "Callbacks": "agenteval_nb.engine.callbacks",
    "CallbackPoint": "agenteval_nb.engine.callbacks",
    "CallbackEvent": "agenteval_nb.engine.callbacks",
    "CaseAggregationInput": "agenteval_nb.engine.aggregate",
    "CaseAggregation": "agenteval_nb.engine.aggregate",
    "EvaluationError": "agenteval_nb.engine.run",
    "Adaptive": "agenteval_nb.judge.adaptive",
    "BudgetExhausted": "agenteval_nb.judge.budget",
    "JudgePanel": "agenteval_nb.judge.panel",
    # agents under test
    "Turn": "agenteval_nb.agents.turn",
    "record": "agenteval_nb.agents.recorder",
    "agent": "agenteval_nb.agents.base",
    "capture": "agenteval_nb.agents.capture.capture",
    "mockable": "agenteval_nb.agents.mockable",
    "RayExecutor": "agenteval_nb.executors.ray_executor",
    # wire models
    "EvalSet": "agenteval_nb.schema",
    "EvalCase": "agenteval_nb.schema",
    "Invocation": "agenteval_nb.schema",
    "InvocationSource": "agenteval_nb.schema",
    "Message": "agenteval_nb.schema",
    "Tool": "agenteval_nb.schema",
    "SessionInput": "agenteval_nb.schema",
    "EvalMetric": "agenteval_nb.schema",
    "Criterion": "agenteval_nb.schema",
    "EvalSetResult": "agenteval_nb.schema",
    "EvalCaseResult": "agenteval_nb.schema",
    "EvalMetricResult": "agenteval_nb.schema",
    "EvalStatus": "agenteval_nb.schema",
    # statistics
    "pass_at_k": "agenteval_nb.analysis.passk",
    "pass_hat_k": "agenteval_nb.analysis.passk",
    "parse_pass_nc": "agenteval_nb.analysis.passk",
    "experiment": "agenteval_nb.experiments",
    "experiment_async": "agenteval_nb.experiments",
    "load_experiment": "agenteval_nb.experiments",
    "Experiment": "agenteval_nb.experiments",
    "best_of_n": "agenteval_nb.bestofn",
    "best_of_n_async": "agenteval_nb.bestofn",
    "BestOfNResult": "agenteval_nb.bestofn",
    # live runs
    "start": "agenteval_nb.live",
    "watch": "agenteval_nb.live",
    "LiveRun": "agenteval_nb.live",
    "WatchedRun": "agenteval_nb.live",
    # choosing a judge, and its cost
    "rejudge": "agenteval_nb.rejudging",
    "rejudge_async": "agenteval_nb.rejudging",
    "compare_judges": "agenteval_nb.judge_choice",
    "compare_judges_async": "agenteval_nb.judge_choice",
    "JudgeComparison": "agenteval_nb.analysis.judge_comparison",
    "estimate_cost": "agenteval_nb.cost_estimate",
    "estimate_cost_async": "agenteval_nb.cost_estimate",
    # inspection and reports
    "inspect": "agenteval_nb.views",
    "export_html": "agenteval_nb.views",
}

_SUBMODULES = {
    "agents",
    "schema",
    "stats",
    "verifier",
    "criteria",
    "judge",
    "testing",
    "stores",
    "plots",
    "review",
}
_SUBMODULE_PATHS = {
    "stats": "agenteval_nb.analysis.stats",
    "review": "agenteval_nb.analysis.reviews",
}

__all__ = sorted([*_EXPORTS, *_SUBMODULES])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(_SUBMODULE_PATHS.get(name, f"agenteval_nb.{name}"))
    else:
        raise AttributeError(f"module 'agenteval_nb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
