"""One invocation, and one case result with all its invocations: the shared detail view.

The widget's detail pane and the report's ``<details>`` blocks both show :func:`render_case`,
so a judgement looks the same in a notebook and in a report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from markupsafe import Markup

from ..engine.case import with_case_context
from ..schema import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResultPerInvocation,
    Invocation,
    Message,
)
from ..schema.status import summarize_statuses
from .capture import case_capture
from .judge import judge_section
from .messages import final_response_section, messages_section
from .metrics import metrics_table, rubrics_table
from .reasons import gloss_note
from .source import source_section
from .text import html, join, score_text, status_badge, status_class, text
from .tools import trajectory_section
from .verifier import verifier_section


def case_score_text(case: EvalCaseResult) -> str:
    """The case score as shown (a case with an error message has no score)."""
    return score_text(case.score, None if case.error_message else case.final_eval_status)


def invocation_status(per_invocation: EvalMetricResultPerInvocation) -> str:
    """Summary of the invocation's metric statuses (failed > passed > not_evaluated)."""
    statuses = [r.eval_status or "" for r in per_invocation.eval_metric_results or ()]
    try:
        return str(summarize_statuses(statuses))
    except ValueError:
        return "unknown"


def case_rubric_texts(case: EvalCase | None) -> dict[tuple[str, str], str]:
    """(metric name, rubric id) → text of the case-level rubrics of an eval set case."""
    out: dict[tuple[str, str], str] = {}
    for rubric in (case.rubrics if case is not None else None) or ():
        content = rubric.content.text if rubric.content is not None else None
        if rubric.id and (content or rubric.description):
            out[(rubric.metric_name or "", rubric.id)] = content or rubric.description or ""
    return out


def metric_rubric_texts(metrics: Iterable[EvalMetric]) -> dict[tuple[str, str], str]:
    """(metric name, rubric id) → rubric text from metric definitions (``run.metrics``)."""
    out: dict[tuple[str, str], str] = {}
    for metric in metrics:
        judge = metric.criterion.llm_judge if metric.criterion is not None else None
        for rubric in (judge.rubrics if judge is not None else None) or ():
            content = rubric.content.text if rubric.content is not None else None
            if rubric.id and (content or rubric.description):
                out[(metric.metric_name, rubric.id)] = content or rubric.description or ""
    return out


def speaker(invocation: Invocation | None) -> str:
    """Who wrote the turn's user message: ``user (simulated)`` when a user simulator did."""
    simulated = invocation is not None and invocation.simulated_user is True
    return "user (simulated)" if simulated else "user"


def turn_reasons_of(case: EvalCaseResult) -> dict[str, list[str | None]]:
    """Metric name → the reason of that metric in each turn (``None`` where it has none)."""
    per_invocation = list(case.eval_metric_result_per_invocation or ())
    out: dict[str, list[str | None]] = {}
    for index, inv in enumerate(per_invocation):
        for r in inv.eval_metric_results or ():
            reasons = out.setdefault(r.metric_name or "", [None] * len(per_invocation))
            reasons[index] = r.details.reason if r.details is not None else None
    return out


def _section(title: str, body: Markup) -> Markup:
    if not body:
        return Markup("")
    return html('<section class="ae-sec"><h3>{}</h3>{}</section>', title, body)


def render_invocation(
    per_invocation: EvalMetricResultPerInvocation,
    *,
    case_context: Sequence[Message] = (),
    rubric_texts: Mapping[tuple[str, str], str] | None = None,
) -> Markup:
    """Everything about one turn: messages, tools, final response, metrics, rubrics, judge,
    verifier, and the source spans of a turn built from traces. ``case_context`` are the
    case's context messages, shown as the engine gives them to the turn: only when the turn has
    none of its own."""
    actual = per_invocation.actual_invocation
    expected = per_invocation.expected_invocation
    results = list(per_invocation.eval_metric_results or ())
    shown = actual or expected
    if shown is not None:
        shown = with_case_context(shown, case_context)
    context = (shown.context_messages if shown is not None else None) or ()
    user = shown.user_content if shown is not None else None
    intermediate = (actual.intermediate_responses if actual is not None else None) or ()
    parts = [
        _section(
            "user message",
            messages_section(user, context, intermediate, user_label=speaker(shown)),
        ),
        _section(
            "tool trajectory",
            trajectory_section(
                expected.tools if expected is not None else None,
                actual.tools if actual is not None else None,
                results,
            ),
        ),
        _section(
            "final response",
            final_response_section(
                actual.final_response if actual is not None else None,
                expected.final_response if expected is not None else None,
            ),
        ),
        _section("metrics", metrics_table(results)),
        _section("rubric scores", rubrics_table(results, rubric_texts)),
        _section("judge samples", judge_section(results)),
        _section("verifier", verifier_section(results)),
        _section("source spans", source_section(actual.source if actual is not None else None)),
    ]
    return join(parts)


def _session_line(case: EvalCaseResult) -> Markup:
    parts = [
        html("{} {}", name, text(value))
        for name, value in (("session", case.session_id), ("user", case.user_id))
        if value
    ]
    return html('<div class="ae-muted">{}</div>', join(parts, " · ")) if parts else Markup("")


def render_case(
    case: EvalCaseResult,
    *,
    evalset_case: EvalCase | None = None,
    rubric_texts: Mapping[tuple[str, str], str] | None = None,
    open_invocations: bool = True,
) -> Markup:
    """A case result: header, error, overall metrics, then each invocation in a ``<details>``.

    Rubric texts come from the case rubrics of ``evalset_case``, then ``rubric_texts`` (e.g.
    :func:`metric_rubric_texts` of the run's metrics), then the criteria stored in the results.
    """
    head = html(
        '<div class="ae-casehead"><h3>{} <code>{}</code> <span class="ae-muted">run {}</span>'
        " · score {}</h3>{}</div>",
        status_badge(case.final_eval_status),
        text(case.eval_id),
        text(case.run_id if case.run_id is not None else "—"),
        case_score_text(case),
        _session_line(case),
    )
    parts = [head]
    if case.error_message:
        parts.append(
            html(
                '<div class="ae-error ae-pre">error: {}</div>{}',
                text(case.error_message),
                gloss_note(case.error_message),
            )
        )
    overall = list(case.overall_eval_metric_results or ())
    if overall:
        parts.append(
            Markup("<h4>overall metrics</h4>") + metrics_table(overall, turn_reasons_of(case))
        )
    captured = case_capture(case)
    if captured:
        parts.append(Markup("<h4>capture</h4>") + captured)
    context = list((evalset_case.context_messages if evalset_case else None) or ())
    texts = {**(rubric_texts or {}), **case_rubric_texts(evalset_case)}
    per_invocation = list(case.eval_metric_result_per_invocation or ())
    for index, inv in enumerate(per_invocation):
        status = invocation_status(inv)
        inv_id = inv.actual_invocation or inv.expected_invocation or None
        parts.append(
            html(
                '<details class="ae-inv"{}><summary>{} turn {} <span class="ae-muted">{}</span>'
                "</summary>{}</details>",
                Markup(" open") if open_invocations else "",
                status_badge(status),
                index + 1,
                text(inv_id.invocation_id if inv_id is not None else ""),
                render_invocation(inv, case_context=context, rubric_texts=texts),
            )
        )
    if not per_invocation:
        parts.append(Markup('<div class="ae-note">no per-invocation results</div>'))
    return html('<div class="ae-case {}">{}</div>', case_class(case.final_eval_status), join(parts))


def case_class(status: str | None) -> str:
    """CSS class of a case container by status (``ae-case-failed``, ``ae-case-passed`` …)."""
    return {"ae-pass": "ae-case-passed", "ae-fail": "ae-case-failed"}.get(
        status_class(status), "ae-case-other"
    )
