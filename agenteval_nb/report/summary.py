"""The report's summary numbers: case pass rates per run, per-metric means and pass rates with
confidence intervals, and pass@k when the result holds several runs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..analysis.passk import num_runs, pass_at_k_frame
from ..analysis.record import RunRecord
from ..analysis.stats import summary_frame, wilson_interval

LEVEL = 0.95
"""Confidence level of every interval in the report."""


@dataclass
class RunRow:
    """Case statuses of one run with the pass rate's Wilson interval."""

    run_id: int | None
    passed: int
    failed: int
    not_evaluated: int
    other: int
    pass_rate: float | None
    ci_low: float | None
    ci_high: float | None


def run_rows(run: RunRecord) -> list[RunRow]:
    """One row per run id: status counts and the pass rate over evaluated cases (Wilson CI)."""
    counts: dict[int | None, Counter[str]] = {}
    for run_id, status in run.table("cases").select("run_id", "status").iter_rows():
        counts.setdefault(run_id, Counter())[status or ""] += 1
    rows = []
    for run_id in sorted(counts, key=lambda r: (r is None, r or 0)):
        c = counts[run_id]
        passed, failed, ne = c["passed"], c["failed"], c["not_evaluated"]
        evaluated = passed + failed
        rate = low = high = None
        if evaluated:
            rate = passed / evaluated
            low, high = wilson_interval(passed, evaluated, LEVEL)[:2]
        other = sum(c.values()) - passed - failed - ne
        rows.append(RunRow(run_id, passed, failed, ne, other, rate, low, high))
    return rows


def metric_rows(run: RunRecord) -> list[dict[str, Any]]:
    """``run.summary_df()`` as dicts: mean with CI and pass rate with Wilson CI per metric."""
    return list(summary_frame(run, LEVEL).to_dicts())


def reference_is_informative(rows: list[dict[str, Any]]) -> bool:
    """Whether the reference pass@k says anything: it counts a run as passed only when every
    case of it passed (SPEC §7), so with no such run it is 0 for every k."""
    return any(r["reference_c"] for r in rows)


def pass_at_k_rows(run: RunRecord) -> list[dict[str, Any]]:
    """Per k (1..runs): mean per-case pass@k ± SE, unbiased and plug-in pass^k, and the
    eval-set reference pass@k; empty for a single run."""
    if num_runs(run) < 2:
        return []
    frame = pass_at_k_frame(run)
    overall = {r["k"]: r for r in frame.filter(frame["level"] == "overall").to_dicts()}
    reference = {r["k"]: r for r in frame.filter(frame["level"] == "eval_set").to_dicts()}
    rows = []
    for k in sorted(overall):
        o, ref = overall[k], reference.get(k, {})
        rows.append(
            {
                "k": k,
                "n_cases": o.get("n_cases"),
                "pass_at_k": o.get("pass_at_k"),
                "pass_at_k_se": o.get("pass_at_k_se"),
                "pass_hat_k_unbiased": o.get("pass_hat_k_unbiased"),
                "pass_hat_k_plugin": o.get("pass_hat_k_plugin"),
                "reference": ref.get("pass_at_k"),
                "reference_n": ref.get("n"),
                "reference_c": ref.get("c"),
            }
        )
    return rows
