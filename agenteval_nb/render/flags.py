"""Flags of a run whose numbers did not come from LLMs: the offline heuristic judge scored some
judgements, or the agent ran on the offline scripted agent model.

One rule for every place numbers are shown (widget header, report banner, run repr, summaries,
frames): :func:`run_flags` lists the flags, :func:`flags_badges` shows them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup

from ..schema import EvalCaseResult, EvalMetricResult
from ..schema.extras import judge_record
from ..testing.agent_model import SCRIPTED_AGENT_MODEL
from .judge import HEURISTIC_LABEL
from .text import join

SCRIPTED_AGENT_LABEL = "OFFLINE SCRIPTED AGENT MODEL — not an LLM"


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
    """True when the run info names the offline scripted agent model as the agent's model."""
    return SCRIPTED_AGENT_MODEL in str((info or {}).get("agent", ""))


def run_flags(run: Any) -> list[str]:
    """The flag texts of a run (``run.result`` and ``run.info``); empty for an all-LLM run."""
    flags = []
    if any(case_uses_heuristic(c) for c in run.result.eval_case_results or ()):
        flags.append(HEURISTIC_LABEL)
    if agent_is_scripted(getattr(run, "info", None)):
        flags.append(SCRIPTED_AGENT_LABEL)
    return flags


def flags_badges(flags: Iterable[str]) -> Markup:
    """The flags as the yellow badges of the detail views."""
    return join(
        (Markup('<span class="ae-heuristic">{}</span>').format(f) for f in flags), Markup(" ")
    )
