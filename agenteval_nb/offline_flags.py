"""Flags of a run whose numbers did not come from LLMs: the offline heuristic judge scored some
judgements, or the agent ran on the offline scripted agent model.

One rule for every place numbers are shown — the run's repr and ``summary_text()``, the
inspector's header, the report's banner (frames carry a ``heuristic`` column per judgement):
:func:`run_flags` lists the flags of a run and its run info.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .schema import EvalCaseResult, EvalMetricResult, EvalSetResult
from .schema.extras import judge_record
from .testing.agent_model import SCRIPTED_AGENT_MODEL

HEURISTIC_LABEL = "OFFLINE HEURISTIC JUDGE — not an LLM"
"""Shown next to every judgement whose scores came from the offline heuristic judge."""

SCRIPTED_AGENT_LABEL = "OFFLINE SCRIPTED AGENT MODEL — not an LLM"
"""Shown for a run whose agent answered with the offline scripted agent model."""


def _metric_results(case: EvalCaseResult) -> Iterable[EvalMetricResult]:
    yield from case.overall_eval_metric_results or ()
    for per in case.eval_metric_result_per_invocation or ():
        yield from per.eval_metric_results or ()


def case_uses_heuristic(case: EvalCaseResult) -> bool:
    """True when a judgement of ``case`` came from the offline heuristic judge."""
    return any(
        (record := judge_record(m.details)) is not None and record.heuristic
        for m in _metric_results(case)
    )


def agent_is_scripted(info: Mapping[str, Any] | None) -> bool:
    """True when the run info's ``agent`` names the offline scripted agent model."""
    return SCRIPTED_AGENT_MODEL in str((info or {}).get("agent", ""))


def result_uses_heuristic(result: EvalSetResult) -> bool:
    """True when a judgement of any case result came from the offline heuristic judge."""
    return any(case_uses_heuristic(c) for c in result.eval_case_results or ())


def run_flags(heuristic: bool, info: Mapping[str, Any] | None = None) -> list[str]:
    """The flag texts of a run (``heuristic``: a judgement came from the offline heuristic
    judge) and its run info; empty when LLMs produced everything."""
    flags = []
    if heuristic:
        flags.append(HEURISTIC_LABEL)
    if agent_is_scripted(info):
        flags.append(SCRIPTED_AGENT_LABEL)
    return flags
