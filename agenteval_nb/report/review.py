"""The report's review part, present only when the run has human marks (wherever they live:
its result store, its review file, or marks set with ``run.mark``): each case result's marks in
its row, and the agreement of every metric with them (``ae.stats.agreement(run,
against="human")``), with Brier score, ECE and a calibration plot for the verifier metrics
(those with label distributions)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

from .. import plots
from ..analysis.agreement import Agreement, agreement
from ..analysis.record import RunRecord
from ..analysis.reviews import Mark
from .figures import Plot, draw

CALIBRATION_PLOT_INDEX = 100
"""First SVG id prefix number of the calibration plots (the report's charts count from 1)."""


def marks_by_case(marks: list[Mark]) -> dict[tuple[str, str, int], str]:
    """(eval set id, eval id, run id) → the text of its marks: the case's own mark first, then
    each metric's, every one with its note (``"fail — too strict; tool_x: pass"``)."""
    grouped: dict[tuple[str, str, int], list[Mark]] = {}
    for mark in marks:
        grouped.setdefault(mark.key[:3], []).append(mark)
    texts = {}
    for key, group in grouped.items():
        group.sort(key=lambda m: (m.metric is not None, m.metric or ""))
        texts[key] = "; ".join(
            (f"{m.metric}: " if m.metric else "") + m.mark + (f" — {m.note}" if m.note else "")
            for m in group
        )
    return texts


@dataclass
class AgreementRow:
    """One metric's agreement with the human marks, as the report shows it."""

    metric_name: str
    n: int
    agreement: float
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    confusion: tuple[int, int, int, int]
    """metric pass & human pass, metric pass & human fail, metric fail & human pass, both fail"""
    calibration: str
    """``"Brier 0.123 · ECE 0.045"`` for a verifier metric, else empty."""


@dataclass
class ReviewSection:
    """The agreement table and the calibration plots."""

    n_marks: int
    rows: list[AgreementRow]
    plots: list[Plot]


def _calibration_text(brier: float, ece: float) -> str:
    if math.isnan(brier):
        return "no score in [0, 1] to calibrate"
    return f"Brier {brier:.3f} · ECE {ece:.3f}"


def _rows(result: Agreement, verifiers: set[str]) -> list[AgreementRow]:
    return [
        AgreementRow(
            metric_name=r["metric_name"],
            n=r["n"],
            agreement=r["agreement"],
            kappa=r["kappa"],
            kappa_ci_low=r["kappa_ci_low"],
            kappa_ci_high=r["kappa_ci_high"],
            confusion=(r["pass_pass"], r["pass_fail"], r["fail_pass"], r["fail_fail"]),
            calibration=_calibration_text(r["brier"], r["ece"])
            if r["metric_name"] in verifiers
            else "",
        )
        for r in result.table.iter_rows(named=True)
        if r["n"]
    ]


def review_section(run: RunRecord, marks: list[Mark]) -> ReviewSection | None:
    """The section for the run's ``marks``; None without marks."""
    if not marks:
        return None
    result = agreement(run, against="human")
    verifiers = set(run.table("logprobs")["metric_name"].drop_nulls().unique().to_list())
    rows = _rows(result, verifiers)
    calibrated = [row.metric_name for row in rows if row.calibration]
    drawn = [
        draw(
            CALIBRATION_PLOT_INDEX + i,
            f"calibration of {name} against the human marks",
            partial(plots.calibration, result, name),
        )
        for i, name in enumerate(calibrated)
    ]
    return ReviewSection(len(marks), rows, drawn)
