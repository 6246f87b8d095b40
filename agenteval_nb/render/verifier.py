"""Verifier label distributions as small hand-written SVG bar charts.

One chart per candidate per sample — Candidate A is the agent's answer, Candidate B the
reference — with one bar per label (A best … T worst), height proportional to the probability
(clamped to [0, 1]; non-finite values drawn as 0), the sampled label in a second colour, a
probability axis and the numbers written above the bars. The SVG is plain text built here, so
it is byte-for-byte deterministic and needs no plotting library.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence

from markupsafe import Markup

from ..schema import EvalMetricResult
from ..schema.extras import LabelDistributionRecord, VerifierRecord, verifier_record
from .text import html, join, number, text

BAR_WIDTH = 15
BAR_GAP = 3
PLOT_HEIGHT = 90
AXIS_SPACE = 30
TOP_SPACE = 16
LABEL_SPACE = 16
MARGIN = 4
MIN_SHOWN = 0.03
"""Bars at least this probable carry their number above them (the rest read as ~0)."""

CANDIDATES = {
    "A": "the agent's answer (actual)",
    "B": "the reference answer (expected)",
}
"""What the verifier's Candidate A and B are (SPEC: A = actual final response, B = expected)."""


def _prob(value: float | None) -> float:
    if value is None or not math.isfinite(value):
        return 0.0
    return min(1.0, max(0.0, float(value)))


def _bar_number(p: float) -> str:
    """A probability in at most three characters: ``1``, ``.81``, ``.05``."""
    return "1" if p >= 0.995 else f"{p:.2f}".lstrip("0")


def distribution_svg(record: LabelDistributionRecord, title: str = "") -> Markup:
    """A bar chart of ``record.probs`` over ``record.labels`` (labels default to A, B, …).

    A probability axis (0, .5, 1) on the left, the number above every bar of at least
    :data:`MIN_SHOWN` (readable without hovering; the exact value is in the bar's tooltip), the
    sampled label's bar in the second colour. Built with plain string formatting for speed:
    numbers are formatted here, and the only strings from the record (labels) go through
    :func:`text`.
    """
    probs = list(record.probs or ())
    labels = list(record.labels or ())
    if not labels:
        labels = list(string.ascii_uppercase[: len(probs)])
    n = min(len(probs), len(labels))
    left = AXIS_SPACE
    width = left + max(n, 1) * (BAR_WIDTH + BAR_GAP) + MARGIN
    base = TOP_SPACE + PLOT_HEIGHT
    height = base + LABEL_SPACE
    shapes = []
    for tick, tick_text in ((0.0, "0"), (0.5, ".5"), (1.0, "1")):
        y = round(base - tick * PLOT_HEIGHT, 2)
        shapes.append(
            f'<line class="ae-grid" x1="{left - 3}" y1="{y}" x2="{width - MARGIN}" y2="{y}"/>'
            f'<text class="ae-tick" x="{left - 5}" y="{y + 3.5}" text-anchor="end">'
            f"{tick_text}</text>"
        )
    for k in range(n):
        p = _prob(probs[k])
        h = round(p * PLOT_HEIGHT, 2)
        x = left + k * (BAR_WIDTH + BAR_GAP)
        label = labels[k]
        css = (
            "ae-bar-sel"
            if record.sampled_label is not None and label == record.sampled_label
            else "ae-bar"
        )
        shapes.append(
            f'<rect class="{css}" x="{x}" y="{round(base - h, 2)}" width="{BAR_WIDTH}" '
            f'height="{h}"><title>{text(label, limit=8)}: {number(probs[k])}</title></rect>'
            f'<text x="{x + BAR_WIDTH / 2}" y="{height - 3}" text-anchor="middle">'
            f"{text(label, limit=2)}</text>"
        )
        if p >= MIN_SHOWN:
            shapes.append(
                f'<text class="ae-val" x="{x + BAR_WIDTH / 2}" y="{round(base - h - 3, 2)}" '
                f'text-anchor="middle">{_bar_number(p)}</text>'
            )
    return Markup(
        f'<svg class="ae-bars" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{text(title)}">{"".join(shapes)}</svg>'
    )


def _caption(name: str, record: LabelDistributionRecord) -> Markup:
    source = "logprobs" if record.from_logprobs else "text (no logprobs)"
    entropy = html(", entropy {}", number(record.entropy)) if record.entropy is not None else ""
    return html(
        "<div><b>candidate {}</b> — {}<br>expected score <b>{}</b> · valid mass {} · sampled {}"
        " · from {}{}</div>",
        name,
        CANDIDATES.get(name, ""),
        number(record.expected_score),
        number(record.valid_mass),
        text(record.sampled_label or "—", limit=8),
        source,
        entropy,
    )


def _chart(name: str, record: LabelDistributionRecord | None) -> Markup:
    if record is None:
        return html('<div class="ae-chart ae-note">candidate {}: no distribution</div>', name)
    return html(
        '<div class="ae-chart">{}{}</div>',
        _caption(name, record),
        distribution_svg(record, f"label distribution of candidate {name}"),
    )


def verifier_block(metric_name: str | None, record: VerifierRecord) -> Markup:
    """Per sample: score, swapped score and swap gap when present, then the A and B charts."""
    parts = [
        html(
            "<h4><code>{}</code> verifier{}</h4>",
            text(metric_name),
            html(" · swap mode {}", text(record.swap_mode)) if record.swap_mode else "",
        )
    ]
    for sample in record.samples or ():
        swap = Markup("")
        if sample.swapped_score is not None or sample.swap_gap is not None:
            swap = html(
                " · swapped score {} · swap gap <b>{}</b>",
                number(sample.swapped_score),
                _signed(sample.swap_gap),
            )
        parts.append(
            html(
                '<div class="ae-vsample"><div>sample {} · score <b>{}</b>{}</div>'
                '<div class="ae-charts">{}{}</div></div>',
                sample.sample_index,
                number(sample.score),
                swap,
                _chart("A", sample.a),
                _chart("B", sample.b),
            )
        )
    if record.samples:
        parts.append(
            Markup(
                '<div class="ae-legend"><span class="ae-key ae-key-sel"></span> sampled label · '
                '<span class="ae-key"></span> other labels (A best … T worst) · y: probability'
                "</div>"
            )
        )
    else:
        parts.append(Markup('<span class="ae-note">no verifier samples recorded</span>'))
    return join(parts)


def _signed(value: float | None) -> str:
    shown = number(value)
    if value is not None and math.isfinite(value) and value > 0:
        return "+" + shown
    return shown


def verifier_section(results: Sequence[EvalMetricResult]) -> Markup:
    """Every verifier record among ``results``; empty markup when none has one."""
    return join(
        verifier_block(r.metric_name, rec)
        for r in results
        if (rec := verifier_record(r.details)) is not None
    )
