"""The headline numbers of a run record — status counts, pass rates per metric, errored cases —
and the short texts a run shows as (its repr, HTML repr and ``summary_text()``)."""

from __future__ import annotations

import html
from collections import Counter

from .passk import num_runs
from .record import RunRecord, record_flags
from .stats import summary_frame

PASS_RATE_UNIT = "cases passed, runs averaged per case"
"""The unit of every pass rate shown (CLI, repr, ``summary_text``, report): the case, each
case's runs combined first (SPEC §8.7) — the reference's own case verdict, and the unit whose
outcomes are independent, so that the Wilson intervals beside them hold."""


def pass_rate_text(passed: int, total: int) -> str:
    """``"33.3% (1/3 cases passed, runs averaged per case)"``; ``n/a`` without cases."""
    rate = f"{passed / total:.1%}" if total else "n/a"
    return f"{rate} ({passed}/{total} {PASS_RATE_UNIT})"


def case_status_counts(record: RunRecord) -> Counter[str]:
    """Case results per ``finalEvalStatus`` (one per case and run)."""
    statuses = record.table("cases")["status"].fill_null("")
    return Counter(dict(statuses.value_counts().iter_rows()))


def case_pass_counts(record: RunRecord) -> Counter[str]:
    """Cases per overall status across their runs: the summary's case verdicts (SPEC §8.6);
    a result without case summaries counts its case results."""
    counts = Counter(record.case_overall_statuses())
    return counts or case_status_counts(record)


def case_pass_rate(record: RunRecord) -> tuple[int, int]:
    """(passed cases, all cases) in :data:`PASS_RATE_UNIT`; errors count as not passed."""
    counts = case_pass_counts(record)
    return counts.get("passed", 0), sum(counts.values())


def metric_pass_rates(record: RunRecord) -> dict[str, tuple[int, int]]:
    """Metric name → (passed cases, evaluated cases) in :data:`PASS_RATE_UNIT`: the numbers of
    ``summary_df`` (and the report), by metric name."""
    frame = summary_frame(record)
    return {
        name or "": (int(p), int(n))
        for name, p, n in frame.select("metric_name", "n_passed", "n_cases").iter_rows()
    }


def num_errored(record: RunRecord) -> int:
    """Case results that failed with an error message instead of a score."""
    errors = record.table("cases")["error"]
    return int((errors.is_not_null() & (errors != "")).sum())


def summary_text(record: RunRecord) -> str:
    """A few plain-text lines with the headline numbers."""
    counts = case_status_counts(record)
    cases = case_pass_counts(record)
    summary = record.header.summary
    lines = [
        f"eval set {record.header.eval_set_id}: {sum(cases.values())} cases, "
        f"{sum(counts.values())} case results over {num_runs(record)} run(s), "
        f"overall {summary.overall_status if summary else 'n/a'}",
        "case results (one per case and run): "
        + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("passed", "failed", "not_evaluated")),
        f"pass rate {pass_rate_text(*case_pass_rate(record))}",
    ]
    errored = num_errored(record)
    if errored:
        lines[1] += f" ({errored} with an error)"
    for name, (passed, evaluated) in metric_pass_rates(record).items():
        lines.append(f"  {name}: {pass_rate_text(passed, evaluated)}")
    lines.extend(f"note: {flag}" for flag in record_flags(record))
    lines.extend(f"warning: {w}" for w in record.warnings)
    return "\n".join(lines)


def run_repr(record: RunRecord) -> str:
    """``EvalRun(eval_set=…, runs=…, cases=…, case_results=…, passed=…, …)``: one line;
    ``passed``/``failed`` count cases (:data:`PASS_RATE_UNIT`)."""
    cases = case_pass_counts(record)
    return (
        f"EvalRun(eval_set={record.header.eval_set_id!r}, runs={num_runs(record)}, "
        f"cases={sum(cases.values())}, case_results={record.num_case_results}, "
        f"passed={cases.get('passed', 0)}, failed={cases.get('failed', 0)}, "
        f"errored={num_errored(record)}, metrics={len(metric_pass_rates(record))}"
        + (f", offline={flags!r}" if (flags := record_flags(record)) else "")
        + ")"
    )


def run_repr_html(record: RunRecord) -> str:
    """The notebook view: counts, the pass rate per metric, flags and warnings."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}:</td><td>{html.escape(pass_rate_text(passed, evaluated))}"
        "</td></tr>"
        for name, (passed, evaluated) in metric_pass_rates(record).items()
    )
    counts = case_status_counts(record)
    notes = [*record_flags(record), *record.warnings]
    warn = "".join(f"<li>{html.escape(w)}</li>" for w in notes)
    return (
        f"<div><b>EvalRun</b> {html.escape(str(record.header.eval_set_id))} — "
        f"{num_runs(record)} run(s), {sum(counts.values())} case results: "
        f"{counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, "
        f"{counts.get('not_evaluated', 0)} not evaluated, {num_errored(record)} with an error"
        f"<br>pass rate {html.escape(pass_rate_text(*case_pass_rate(record)))}"
        f"<table><tr><th>metric</th><th>pass rate</th></tr>{rows}</table>"
        + (f"<ul>{warn}</ul>" if warn else "")
        + "</div>"
    )
