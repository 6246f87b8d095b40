"""The single-file report of an experiment (``ae.export_html(exp, path)``): the leaderboard,
the Holm-adjusted pairwise table, the experiment's figures, and the cases whose outcome differs
between variants in detail — each variant's first run of the case side by side.

Offline like the run report: inline CSS and SVG, every value escaped
(:mod:`agenteval_nb.render.text`), the file replaced atomically.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl
from markupsafe import Markup

from .. import __version__, plots
from ..analysis.experiment import (
    HoldsRecords,
    leaderboard_of,
    matrix_frame,
    pairwise_frame,
    records_of,
)
from ..analysis.record import RunRecord, record_flags
from ..io import write_text_atomic
from ..render import STYLESHEET, render_case
from ..render.board import frame_table, leaderboard_table
from ..render.case import metric_rubric_texts
from ..render.text import html, join, text
from .export import REPORT_CSS
from .junit import junit_xml
from .svg import inline_svg

DEFAULT_MAX_CASES = 50
"""Differing cases shown in detail when ``max_cases`` is not given."""

EXPERIMENT_CSS = """
.ae-report table.ae-board td, .ae-report table.ae-board th { padding: 2px 6px; }
.ae-report .ae-side { display: grid; gap: 8px; }
.ae-report .ae-side > div { border: 1px solid #d0d7de; border-radius: 4px; padding: 4px;
  min-width: 0; overflow-x: auto; font-size: 12px; }
.ae-report .ae-scroll { overflow-x: auto; }
.ae-report tr.ae-sig td { font-weight: 600; }
"""


PAIR_COLUMNS = [
    "metric_name",
    "variant_a",
    "variant_b",
    "n",
    "mean_diff",
    "ci_low",
    "ci_high",
    "n_pass_to_fail",
    "n_fail_to_pass",
    "mcnemar_exact_p",
    "p_holm",
    "significant",
]


def _figures(experiment: Any) -> Markup:
    parts = []
    for index, (caption, make) in enumerate(
        (
            ("leaderboard", plots.leaderboard),
            ("pass rate vs cost", plots.cost_vs_score),
            ("pass rate per case and variant", plots.variant_heatmap),
        )
    ):
        svg = inline_svg(plots.figure_to_svg(make(experiment)), f"xp{index}")
        parts.append(
            html('<figure class="ae-plot">{}<figcaption>{}</figcaption></figure>', svg, caption)
        )
    return join(parts)


def _first_run_of(record: RunRecord) -> dict[str, int]:
    """eval id → row of its first case result in the cases table."""
    cases = record.table("cases").with_row_index("_row").sort(["eval_id", "run_id", "_row"])
    firsts = cases.unique("eval_id", keep="first", maintain_order=True)
    return dict(zip(firsts["eval_id"], firsts["_row"], strict=True))


def _differing(records: Mapping[str, RunRecord], max_cases: int) -> tuple[Markup, int]:
    """The cases whose pass rate over runs differs between variants (most separating first),
    each variant's first run side by side; and how many differ in all."""
    matrix = matrix_frame(records)
    variants = matrix.columns[1:]
    spread = matrix.select(
        "eval_id",
        (pl.max_horizontal(variants) - pl.min_horizontal(variants)).alias("_spread"),
    ).filter(pl.col("_spread") > 0)
    ordered = spread.sort("_spread", descending=True, maintain_order=True)["eval_id"].to_list()
    rows = {name: _first_run_of(record) for name, record in records.items()}
    blocks = []
    for eval_id in ordered[:max_cases]:
        sides = []
        for name, record in records.items():
            row = rows[name].get(eval_id)
            body = (
                render_case(
                    record.case_result(row),
                    evalset_case=record.eval_case(eval_id),
                    rubric_texts=metric_rubric_texts(record.metrics),
                    open_invocations=False,
                )
                if row is not None
                else Markup('<div class="ae-note">not run</div>')
            )
            sides.append(html("<div><h4>{}</h4>{}</div>", name, body))
        columns = f"grid-template-columns: repeat({len(sides)}, minmax(0, 1fr))"
        blocks.append(
            html(
                '<details class="ae-case-block"><summary>{}</summary>'
                '<div class="ae-side" style="{}">{}</div></details>',
                eval_id,
                columns,
                join(sides),
            )
        )
    return join(blocks), len(ordered)


def _banner(records: Mapping[str, RunRecord]) -> Markup:
    """A warning per offline flag (heuristic judge, scripted agent) naming the variants it
    concerns: their numbers do not come from LLMs."""
    concerned: dict[str, list[str]] = {}
    for name, record in records.items():
        for flag in record_flags(record):
            concerned.setdefault(flag, []).append(name)
    return join(
        html(
            '<div class="ae-banner" id="offline-warning">&#9888; {}: {}.</div>',
            flag,
            ", ".join(names),
        )
        for flag, names in concerned.items()
    )


def experiment_html(
    experiment: HoldsRecords, *, title: str | None = None, max_cases: int | None = None
) -> str:
    """The report of ``experiment`` as HTML text (``max_cases`` differing cases in detail,
    :data:`DEFAULT_MAX_CASES` when not given)."""
    records = records_of(experiment)
    limit = DEFAULT_MAX_CASES if max_cases is None else max_cases
    board = leaderboard_of(experiment)
    pairs = pairwise_frame(records)
    cases, n_differing = _differing(records, limit)
    shown = min(limit, n_differing)
    note = (
        html('<div class="ae-note">{} of {} differing cases shown</div>', shown, n_differing)
        if shown < n_differing
        else Markup("")
    )
    heading = title or f"Experiment: {', '.join(records)}"
    body = join(
        [
            html(
                '<header><h1>{}</h1><div class="ae-muted">agenteval_nb {}</div></header>',
                heading,
                __version__,
            ),
            _banner(records),
            html("<section><h2>Leaderboard</h2>{}</section>", leaderboard_table(board)),
            html(
                "<section><h2>Pairwise (Holm–Bonferroni per metric)</h2>"
                '<div class="ae-scroll">{}</div></section>',
                frame_table(pairs, PAIR_COLUMNS, lambda r: "ae-sig" if r["significant"] else ""),
            ),
            html("<section><h2>Figures</h2>{}</section>", _figures(experiment)),
            html("<section><h2>Cases that differ</h2>{}{}</section>", note, cases),
        ]
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{text(heading)}</title><style>{STYLESHEET}{REPORT_CSS}{EXPERIMENT_CSS}</style>"
        f'</head><body><div class="ae ae-report">{body}</div></body></html>\n'
    )


def export_experiment_html(
    experiment: HoldsRecords,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    max_cases: int | None = None,
) -> Path:
    """Write :func:`experiment_html` to ``path`` atomically and return the path."""
    return write_text_atomic(path, experiment_html(experiment, title=title, max_cases=max_cases))


def experiment_junit_xml(experiment: HoldsRecords) -> str:
    """JUnit XML of an experiment: one ``<testsuite>`` per variant, named by the variant, with
    the test cases of :func:`~.junit.junit_xml` of its run; the root sums their counts."""
    root = ET.Element("testsuites", name="agenteval")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    time = 0.0
    for name, record in records_of(experiment).items():
        suite = ET.fromstring(junit_xml(record))[0]  # junit_xml writes one suite
        suite.set("name", name)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
        time += float(suite.get("time", "0"))
        root.append(suite)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{time:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_experiment_junit(experiment: HoldsRecords, path: str | os.PathLike[str]) -> Path:
    """Write :func:`experiment_junit_xml` to ``path`` atomically; returns the path."""
    return write_text_atomic(path, experiment_junit_xml(experiment))
