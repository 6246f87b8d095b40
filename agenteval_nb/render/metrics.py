"""Metric results and rubric scores as tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from ..schema import EvalMetricResult
from .reasons import display_overall_reason, gloss_note
from .text import html, join, number, score_text, status_badge, status_class, text


def _reason(
    result: EvalMetricResult, turn_reasons: Mapping[str, Sequence[str | None]] | None
) -> Markup:
    reason = result.details.reason if result.details is not None else None
    if not reason:
        return Markup("")
    turns = (turn_reasons or {}).get(result.metric_name or "", ())
    return html(
        '<span class="ae-pre">{}</span>{}',
        text(display_overall_reason(reason, turns)),
        gloss_note(reason),
    )


def metrics_table(
    results: Sequence[EvalMetricResult],
    turn_reasons: Mapping[str, Sequence[str | None]] | None = None,
) -> Markup:
    """One row per metric: name, score, status, threshold, reason (failed rows tinted).

    ``turn_reasons`` (metric name → the reason of each turn, for a case's overall results)
    lets an overall reason show one labelled line per turn (see
    :func:`~.reasons.display_overall_reason`); reasons are shown, never changed."""
    if not results:
        return Markup('<span class="ae-note">no metric results</span>')
    rows = [
        html(
            '<tr class="{}"><td><code>{}</code></td><td class="ae-num">{}</td><td>{}</td>'
            '<td class="ae-num">{}</td><td>{}</td></tr>',
            "ae-row-fail" if status_class(r.eval_status) == "ae-fail" else "",
            text(r.metric_name),
            score_text(r.score, r.eval_status),
            status_badge(r.eval_status),
            number(r.threshold),
            _reason(r, turn_reasons),
        )
        for r in results
    ]
    return html(
        '<table class="ae-metrics"><tr><th>metric</th><th>score</th><th>status</th>'
        "<th>threshold</th><th>reason</th></tr>{}</table>",
        join(rows),
    )


def rubric_texts_of(results: Sequence[EvalMetricResult]) -> dict[tuple[str, str], str]:
    """(metric name, rubric id) → rubric text, from the criteria stored with the results."""
    out: dict[tuple[str, str], str] = {}
    for r in results:
        judge = r.criterion.llm_judge if r.criterion is not None else None
        for rubric in (judge.rubrics if judge is not None else None) or ():
            content = rubric.content.text if rubric.content is not None else None
            if rubric.id and (content or rubric.description):
                out[(r.metric_name or "", rubric.id)] = content or rubric.description or ""
    return out


def rubrics_table(
    results: Sequence[EvalMetricResult],
    rubric_texts: Mapping[tuple[str, str], str] | None = None,
) -> Markup:
    """One row per rubric score: metric, rubric id, rubric text, score, reason.

    A rubric's text is taken from the criterion stored with the result, else from
    ``rubric_texts`` (case rubrics, metric definitions). Empty markup when no metric has rubric
    scores.
    """
    texts = dict(rubric_texts or {})
    texts.update(rubric_texts_of(results))
    rows: list[Markup] = []
    for r in results:
        scores = r.details.rubric_scores if r.details is not None else None
        for score in scores or ():
            rubric = texts.get((r.metric_name or "", score.id or ""), "")
            rows.append(
                html(
                    "<tr><td><code>{}</code></td><td><code>{}</code></td>"
                    '<td class="ae-pre">{}</td><td class="ae-num">{}</td>'
                    '<td class="ae-pre">{}</td></tr>',
                    text(r.metric_name),
                    text(score.id),
                    text(rubric),
                    number(score.score),
                    text(score.reason),
                )
            )
    if not rows:
        return Markup("")
    return html(
        '<table class="ae-rubrics"><tr><th>metric</th><th>rubric</th><th>text</th>'
        "<th>score</th><th>reason</th></tr>{}</table>",
        join(rows),
    )
