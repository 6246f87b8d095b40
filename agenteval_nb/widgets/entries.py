"""The inspector's list: one entry per case result, filtered and sorted failures first.

Pure Python (no ipywidgets), so the list logic is testable on its own and cheap for 10k cases:
building the entries reads only statuses and scores; the search text of a case is assembled
the first time a search runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..render.order import sort_key
from ..schema import EvalCaseResult, message_text

PAGE_SIZE = 25
"""Items shown per page of the inspector's list."""


@dataclass
class Entry:
    """One case result: where it is, its status and score, and per-metric status and score."""

    position: int
    run_id: int | None
    eval_id: str
    status: str
    score: float | None
    metrics: dict[str, tuple[str, float | None]] = field(default_factory=dict)
    _haystack: str | None = None


def build_entries(cases: Sequence[EvalCaseResult]) -> list[Entry]:
    """An entry per case result, in file order (``position`` indexes ``cases``)."""
    entries = []
    for position, case in enumerate(cases):
        metrics = {
            m.metric_name or "": (m.eval_status or "", m.score)
            for m in case.overall_eval_metric_results or ()
        }
        entries.append(
            Entry(
                position,
                case.run_id,
                case.eval_id or "",
                case.final_eval_status or "",
                case.score,
                metrics,
            )
        )
    return entries


def case_search_text(case: EvalCaseResult) -> str:
    """Lower-cased text searched by the filter: id, error, metric names and reasons, user and
    agent messages, tool names."""
    parts: list[str] = [case.eval_id or "", case.error_message or ""]
    for m in case.overall_eval_metric_results or ():
        parts.append(m.metric_name or "")
        if m.details is not None and m.details.reason:
            parts.append(m.details.reason)
    for per in case.eval_metric_result_per_invocation or ():
        for inv in (per.actual_invocation, per.expected_invocation):
            if inv is None:
                continue
            parts.append(message_text(inv.user_content))
            parts.append(message_text(inv.final_response))
            parts.extend(t.name or "" for t in inv.tools or ())
        for m in per.eval_metric_results or ():
            if m.details is not None and m.details.reason:
                parts.append(m.details.reason)
    return "\n".join(parts).lower()


def status_and_score(entry: Entry, metric: str | None) -> tuple[str, float | None] | None:
    """The case's status and score, or those of ``metric`` (``None`` when the case lacks it)."""
    if not metric:
        return entry.status, entry.score
    return entry.metrics.get(metric)


def filter_entries(
    entries: Iterable[Entry],
    cases: Sequence[EvalCaseResult],
    *,
    metric: str | None = None,
    status: str | None = None,
    run_id: int | None = None,
    query: str = "",
) -> list[Entry]:
    """Entries that pass every filter, failures first.

    ``metric`` restricts to cases with that metric and makes ``status`` and the sort use the
    metric's status and score; ``query`` is a case-insensitive substring of
    :func:`case_search_text`.
    """
    needle = query.strip().lower()
    kept: list[tuple[tuple, Entry]] = []
    for entry in entries:
        pair = status_and_score(entry, metric)
        if pair is None:
            continue
        if status and pair[0] != status:
            continue
        if run_id is not None and entry.run_id != run_id:
            continue
        if needle:
            if entry._haystack is None:
                entry._haystack = case_search_text(cases[entry.position])
            if needle not in entry._haystack:
                continue
        kept.append((sort_key(pair[0], pair[1], entry.eval_id, entry.run_id), entry))
    kept.sort(key=lambda item: item[0])
    return [entry for _, entry in kept]
