"""Judge samples of LLM evaluators (the ``judge`` record stored in per-invocation details)."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from ..offline_flags import HEURISTIC_LABEL
from ..schema import EvalMetricResult
from ..schema.extras import JudgeRecord, JudgeSample, judge_record
from .text import html, join, number, status_badge, text


def heuristic_badge() -> Markup:
    return html('<span class="ae-heuristic">{}</span>', HEURISTIC_LABEL)


def _tokens(sample: JudgeSample) -> str:
    parts = [
        f"{name} {value}"
        for name, value in (
            ("prompt", sample.prompt_tokens),
            ("completion", sample.completion_tokens),
            ("cached", sample.cached_tokens),
            ("reasoning", sample.reasoning_tokens),
        )
        if value is not None
    ]
    return ", ".join(parts) or "—"


def _reason_cell(sample: JudgeSample) -> Markup:
    out = [html('<span class="ae-pre">{}</span>', text(sample.reason))]
    if sample.error:
        out.append(html('<div class="ae-error ae-pre">error: {}</div>', text(sample.error)))
    if sample.rubric_scores:
        items = join(
            html("<li><code>{}</code> {}: {}</li>", text(rs.id), number(rs.score), text(rs.reason))
            for rs in sample.rubric_scores
        )
        out.append(html("<ul>{}</ul>", items))
    if sample.raw:
        out.append(
            html("<details><summary>raw answer</summary><pre>{}</pre></details>", text(sample.raw))
        )
    return join(out)


def samples_table(samples: Sequence[JudgeSample]) -> Markup:
    """One row per sample: index (after the judge's name in a panel), chosen mark, score,
    status, reason, cache hit, tokens, latency."""
    rows = [
        html(
            '<tr><td class="ae-num">{}</td><td>{}</td><td class="ae-num">{}</td><td>{}</td>'
            '<td>{}</td><td>{}</td><td>{}</td><td class="ae-num">{}</td></tr>',
            f"{s.judge} #{s.sample_index}" if s.judge else s.sample_index,
            Markup('<span class="ae-chosen">★ chosen</span>') if s.chosen else "",
            number(s.score),
            status_badge(s.status) if s.status else "—",
            _reason_cell(s),
            "hit" if s.cache_hit else "miss",
            _tokens(s),
            "—" if s.latency_ms is None else f"{number(s.latency_ms, 1)} ms",
        )
        for s in samples
    ]
    return html(
        '<table class="ae-samples"><tr><th>#</th><th>chosen</th><th>score</th><th>status</th>'
        "<th>reason</th><th>cache</th><th>tokens</th><th>latency</th></tr>{}</table>",
        join(rows),
    )


def judge_block(metric_name: str | None, record: JudgeRecord) -> Markup:
    """Heading (metric, evaluator, model, heuristic label), prompt, extra calls and samples."""
    head = html(
        "<h4><code>{}</code> judged by {}{}{}</h4>",
        text(metric_name),
        text(record.model or "unknown model"),
        html(' <span class="ae-muted">(evaluator {})</span>', text(record.evaluator))
        if record.evaluator
        else "",
        Markup(" ") + heuristic_badge() if record.heuristic else "",
    )
    parts = [head]
    if record.prompt:
        msgs = join(
            html(
                '<div class="ae-msg"><div class="ae-msg-role">{}</div><pre>{}</pre></div>',
                text(m.role),
                text(m.content),
            )
            for m in record.prompt
        )
        parts.append(
            html(
                "<details><summary>judge prompt ({} messages)</summary>{}</details>",
                len(record.prompt),
                msgs,
            )
        )
    if record.extra_calls:
        parts.append(
            html(
                "<details><summary>calls before scoring ({})</summary>{}</details>",
                len(record.extra_calls),
                samples_table(record.extra_calls),
            )
        )
    if record.samples:
        parts.append(samples_table(record.samples))
    else:
        parts.append(Markup('<span class="ae-note">no samples recorded</span>'))
    return join(parts)


def judge_section(results: Sequence[EvalMetricResult]) -> Markup:
    """Every judge record among ``results``; empty markup when none has one."""
    blocks = []
    for r in results:
        record = judge_record(r.details)
        if record is not None:
            blocks.append(judge_block(r.metric_name, record))
    return join(blocks)


def uses_heuristic(results: Sequence[EvalMetricResult]) -> bool:
    """True when any of ``results`` was scored by the offline heuristic judge."""
    return any(
        (record := judge_record(r.details)) is not None and record.heuristic for r in results
    )
