"""The headline numbers of a run record — status counts, pass rates per metric, errored cases —
and the short texts a run shows as (its repr, HTML repr and ``summary_text()``)."""

from __future__ import annotations

import html
from collections import Counter

import polars as pl

from .passk import num_runs
from .record import RunRecord, record_flags


def case_status_counts(record: RunRecord) -> Counter[str]:
    """Case results per ``finalEvalStatus`` (all runs)."""
    statuses = record.table("cases")["status"].fill_null("")
    return Counter(dict(statuses.value_counts().iter_rows()))


def metric_pass_rates(record: RunRecord) -> dict[str, tuple[int, int]]:
    """Metric name → (passed, evaluated) over all case results of all runs (first-seen metric
    order)."""
    rows = (
        record.table("metrics")
        .group_by(pl.col("metric_name").fill_null(""), maintain_order=True)
        .agg(
            (pl.col("status") == "passed").sum().alias("passed"),
            (pl.col("status") != "not_evaluated").fill_null(True).sum().alias("evaluated"),
        )
    )
    return {name: (int(p), int(e)) for name, p, e in rows.iter_rows()}


def num_errored(record: RunRecord) -> int:
    """Case results that failed with an error message instead of a score."""
    errors = record.table("cases")["error"]
    return int((errors.is_not_null() & (errors != "")).sum())


def summary_text(record: RunRecord) -> str:
    """A few plain-text lines with the headline numbers."""
    counts = case_status_counts(record)
    summary = record.header.summary
    lines = [
        f"eval set {record.header.eval_set_id}: {sum(counts.values())} case results "
        f"over {num_runs(record)} run(s), "
        f"overall {summary.overall_status if summary else 'n/a'}",
        "cases: "
        + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("passed", "failed", "not_evaluated")),
    ]
    errored = num_errored(record)
    if errored:
        lines[1] += f" ({errored} with an error)"
    for name, (passed, evaluated) in metric_pass_rates(record).items():
        rate = f"{passed / evaluated:.1%}" if evaluated else "n/a"
        lines.append(f"  {name}: {passed}/{evaluated} passed ({rate})")
    lines.extend(f"note: {flag}" for flag in record_flags(record))
    lines.extend(f"warning: {w}" for w in record.warnings)
    return "\n".join(lines)


def run_repr(record: RunRecord) -> str:
    """``EvalRun(eval_set=…, runs=…, cases=…, passed=…, …)``: one line."""
    counts = case_status_counts(record)
    return (
        f"EvalRun(eval_set={record.header.eval_set_id!r}, runs={num_runs(record)}, "
        f"cases={sum(counts.values())}, passed={counts.get('passed', 0)}, "
        f"failed={counts.get('failed', 0)}, errored={num_errored(record)}, "
        f"metrics={len(metric_pass_rates(record))}"
        + (f", offline={flags!r}" if (flags := record_flags(record)) else "")
        + ")"
    )


def run_repr_html(record: RunRecord) -> str:
    """The notebook view: counts, a pass-rate table per metric, flags and warnings."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{passed}/{evaluated}</td>"
        f"<td>{(passed / evaluated if evaluated else float('nan')):.1%}</td></tr>"
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
        f"<table><tr><th>metric</th><th>passed</th><th>rate</th></tr>{rows}</table>"
        + (f"<ul>{warn}</ul>" if warn else "")
        + "</div>"
    )
