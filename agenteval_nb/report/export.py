"""``export_html``: one self-contained HTML file for a run record (``ae.export_html``,
:func:`agenteval_nb.views.export_html`, turns what it is given into the record first).

jinja2 with autoescape, the template shipped as package data, every ``{{ }}`` value passed
through :func:`agenteval_nb.render.text.text` (escaped, controls made visible) unless it is
already safe markup from :mod:`agenteval_nb.render`. Inline CSS and SVG only: no script, font,
image or stylesheet is loaded from anywhere, so the file opens offline from ``file://``.

Size: the case table lists every case result, read from the run's cases and metrics tables;
per-invocation details are written for the first ``max_cases`` case results in display order
(failures first), :data:`DEFAULT_MAX_CASES` when not given, with a note saying how many were
left out. Only those case results (and their eval cases) are decoded, one at a time.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from .. import __version__
from .._gc import gc_frozen
from ..analysis.headline import case_pass_rate, pass_rate_text
from ..analysis.record import RunRecord, case_metric_rows
from ..analysis.reviews import marks_of
from ..io import write_text_atomic
from ..offline_flags import HEURISTIC_LABEL, SCRIPTED_AGENT_LABEL, agent_is_scripted
from ..render import STYLESHEET, render_case
from ..render.capture import capture_rows_table
from ..render.case import metric_rubric_texts
from ..render.order import display_order
from ..render.text import (
    html,
    number,
    score_text,
    status_badge,
    status_class,
    text,
    to_json,
)
from ..schema import EvalCase
from .figures import report_plots
from .header import build_header
from .review import marks_by_case, review_section
from .summary import metric_rows, pass_at_k_rows, reference_is_informative, run_rows

DEFAULT_MAX_CASES = 500
"""Case results with full details when ``max_cases`` is not given (failures first)."""
MAX_TABLE_METRICS = 12
"""Metric columns of the case table (the first ones by name); details show all metrics."""

REPORT_CSS = """
body { margin: 0; background: #fff; }
.ae-report { max-width: 1280px; box-sizing: border-box; margin: 0 auto; padding: 16px 24px;
  overflow-wrap: anywhere; }
.ae-report section, .ae-report header { margin-bottom: 24px; }
.ae-report table { max-width: 100%; }
.ae-report table.ae-fixed { table-layout: fixed; width: 100%; }
.ae-report td { overflow-wrap: anywhere; }
.ae-report pre, .ae-report .ae-pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.ae-report svg { max-width: 100%; height: auto; }
.ae-report .ae-case-table { font-size: 12px; }
.ae-report .ae-case-table th code { display: -webkit-box; -webkit-box-orient: vertical;
  -webkit-line-clamp: 3; line-clamp: 3; overflow: hidden; overflow-wrap: anywhere; }
.ae-report .ae-case-table td { padding: 1px 4px; vertical-align: top; }
.ae-report .ae-case-table col.ae-col-status { width: 80px; }
.ae-report .ae-case-table col.ae-col-run { width: 40px; }
.ae-report .ae-case-table col.ae-col-num { width: 88px; }
.ae-report details.ae-case-block > summary .ae-failed-metrics { color: #cf222e;
  font-weight: 400; }
.ae-report .ae-mark { color: #0550ae; }
.ae-report table.ae-confusion td { border: 1px solid #d0d7de; min-width: 2em;
  text-align: right; }
.ae-report details.ae-case-block { border: 1px solid #d0d7de; border-radius: 4px;
  padding: 4px 8px; margin: 4px 0; }
.ae-report details.ae-case-block > summary { font-weight: 600; }
.ae-report figure.ae-plot { display: inline-block; margin: 8px; vertical-align: top; }
.ae-report figcaption { font-size: 12px; color: #57606a; text-align: center; }
.ae-report td.ae-c-pass { color: #1a7f37; }
.ae-report td.ae-c-fail { color: #cf222e; font-weight: 600; }
.ae-report td.ae-c-ne { color: #9a6700; }
"""

_CELL_CLASS = {"ae-pass": "ae-c-pass", "ae-fail": "ae-c-fail", "ae-ne": "ae-c-ne"}
_MARK = {"ae-pass": "✓", "ae-fail": "✗", "ae-ne": "–"}


def _safe(value: Any) -> Any:
    """jinja2 ``finalize``: markup stays, anything else goes through :func:`text`."""
    if isinstance(value, Markup):
        return value
    return text(value)


def _kappa(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return f"{value:.3f}"


def _pct(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return f"{100 * value:.1f}%"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's jinja2 environment (templates from ``agenteval_nb/report/templates``)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=True,
        finalize=_safe,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = number
    env.filters["pct"] = _pct
    env.filters["kappa"] = _kappa
    env.filters["pretty"] = to_json
    env.globals["pass_rate_text"] = pass_rate_text
    return env


def _attempt(what: str, compute: Callable[[], list[Any]], notes: list[str]) -> list[Any]:
    """``compute()``, or ``[]`` with a note (and a warning) when it fails: a summary table that
    cannot be computed must not cost the user the whole report."""
    try:
        return compute()
    except Exception as exc:
        message = f"{what} not computed: {type(exc).__name__}: {exc}"
        warnings.warn(message, stacklevel=3)
        notes.append(message)
        return []


def _metric_cell(metrics: list[tuple[Any, ...]], name: str) -> tuple[str, str]:
    """Cell of metric ``name`` from a case's (metric_name, status, score) rows (first match)."""
    for metric_name, status, score in metrics:
        if metric_name == name:
            css = status_class(status)
            return _CELL_CLASS.get(css, ""), f"{_MARK.get(css, '?')} {score_text(score, status, 3)}"
    return "", ""


def _failed_metrics(metrics: list[tuple[Any, ...]]) -> list[str]:
    """Names of the failed metrics among a case's (metric_name, status, score) rows."""
    return [name or "" for name, status, _ in metrics if status == "failed"]


def _case_row(
    eval_id: str | None,
    run_id: int | None,
    status: str | None,
    error: str | None,
    badge: Markup,
    anchor: str | None,
    score: str,
    metrics: list[tuple[str, str]],
    mark: str | None,
) -> Markup:
    """One row of the case table; every value through :func:`text`, as the template's
    ``finalize`` does (built here: 10k rows cost a third of the report in jinja); ``mark``
    None: no mark column. Untrusted text stays out of attributes: long ids wrap."""
    shown_id = text(eval_id)
    link = (
        html('<a href="#{}"><code>{}</code></a>', text(anchor), shown_id)
        if anchor
        else html("<code>{}</code>", shown_id)
    )
    cells = "".join(
        html('<td class="ae-num {}">{}</td>', text(css), text(shown)) for css, shown in metrics
    )
    mark_cell = html('<td class="ae-mark">{}</td>', text(mark)) if mark is not None else ""
    return html(
        '<tr{}><td>{}</td><td>{}</td><td class="ae-num">{}</td><td class="ae-num">{}</td>{}{}'
        '<td class="ae-error">{}</td></tr>',
        Markup(' class="ae-row-fail"') if status == "failed" else Markup(""),
        badge,
        link,
        text(run_id if run_id is not None else "—"),
        text(score),
        Markup(cells),
        Markup(mark_cell),
        text(error, limit=200),
    )


def _table_metrics(run: RunRecord) -> list[str]:
    names = run.table("metrics")["metric_name"].fill_null("").unique().to_list()
    return sorted(names)[:MAX_TABLE_METRICS]


def report_html(run: RunRecord, *, title: str | None = None, max_cases: int | None = None) -> str:
    """The report of the run record ``run`` as HTML text."""
    # the collector stays on for the cycles rendering makes (jinja, matplotlib) but does not
    # rescan the run's millions of objects on every full collection (≈ 2× the report's time)
    with gc_frozen():
        return _report_html(run, title=title, max_cases=max_cases)


def _report_html(run: RunRecord, *, title: str | None, max_cases: int | None) -> str:
    """The report; the case table reads the cases and metrics tables, and only the detailed
    case results (and their eval cases) are decoded."""
    table = run.table("cases")
    eval_ids = table["eval_id"].to_list()
    set_ids = table["eval_set_id"].to_list()
    run_ids = table["run_id"].to_list()
    statuses = table["status"].to_list()
    scores = table["score"].to_list()
    errors = table["error"].to_list()
    case_metrics = case_metric_rows(run, ("metric_name", "status", "score"))
    order = display_order(statuses, scores, eval_ids, run_ids)
    limit = DEFAULT_MAX_CASES if max_cases is None else max(0, int(max_cases))
    detailed = set(order[:limit])
    evalset_cases: dict[str, EvalCase | None] = {}
    rubric_texts = metric_rubric_texts(run.metrics)
    table_metrics = _table_metrics(run)
    marks = marks_of(run)
    case_marks = marks_by_case(marks)
    rows = []
    details = []
    for rank, position in enumerate(order):
        eval_id, run_id, status = eval_ids[position], run_ids[position], statuses[position]
        mark = case_marks.get((set_ids[position] or "", eval_id or "", run_id or 0), "")
        anchor = f"case-{rank + 1}" if position in detailed else None
        badge = status_badge(status)
        shown_score = score_text(scores[position], None if errors[position] else status)
        metrics = case_metrics[position]
        rows.append(
            _case_row(
                eval_id,
                run_id,
                status,
                errors[position],
                badge,
                anchor,
                shown_score,
                [_metric_cell(metrics, name) for name in table_metrics],
                mark if marks else None,
            )
        )
        if anchor is not None:
            key = eval_id or ""
            if key not in evalset_cases:
                evalset_cases[key] = run.eval_case(key)
            details.append(
                {
                    "anchor": anchor,
                    "badge": badge,
                    "eval_id": eval_id,
                    "run_id": run_id if run_id is not None else "—",
                    "score": shown_score,
                    "failed_metrics": ", ".join(_failed_metrics(metrics)),
                    "mark": mark,
                    "body": render_case(
                        run.case_result(position),
                        evalset_case=evalset_cases[key],
                        rubric_texts=rubric_texts,
                        open_invocations=False,
                    ),
                }
            )
    note = ""
    if len(details) < len(order):
        note = (
            f"Details are included for {len(details)} of {len(order)} case results "
            f"(failures first); pass max_cases to export_html to include more."
        )
    header = build_header(run)
    template = environment().get_template("report.html.j2")
    notes: list[str] = []
    metric_summary = _attempt("metric summary", lambda: metric_rows(run), notes)
    pass_at_k = _attempt("pass@k", lambda: pass_at_k_rows(run), notes)
    review = _attempt("agreement", lambda: [review_section(run, marks)], notes)
    return template.render(
        title=title
        or f"Evaluation report: {header.eval_set_ids[0] if header.eval_set_ids else ''}",
        version=__version__,
        stylesheet=Markup(STYLESHEET),
        report_css=Markup(REPORT_CSS),
        heuristic_label=HEURISTIC_LABEL,
        scripted_agent=agent_is_scripted(run.info),
        scripted_agent_label=SCRIPTED_AGENT_LABEL,
        header=header,
        capture_table=capture_rows_table(header.capture),
        runs=run_rows(run),
        metric_summary=metric_summary,
        pass_at_k=pass_at_k,
        reference_informative=reference_is_informative(pass_at_k),
        case_pass_rate=case_pass_rate(run),
        review=review[0] if review else None,
        marked=bool(marks),
        summary_notes=notes,
        plots=report_plots(run),
        cases=rows,
        table_metrics=table_metrics,
        details=details,
        details_note=note,
    )


def export_html(
    run: RunRecord,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    max_cases: int | None = None,
) -> Path:
    """Write the single-file report of the run record ``run`` to ``path`` atomically and return
    the path; ``max_cases`` caps the case results written with full details (module docstring).
    """
    return write_text_atomic(path, report_html(run, title=title, max_cases=max_cases))
