"""The inspector's list: one entry per case result, filtered by a query and sorted.

Pure Python (no ipywidgets), so the list logic is testable on its own and cheap for 100k cases:
the entries are built from the run's cases and metrics tables (no case result decoded); the
search fields of a case are assembled (its case result decoded) the first time a text search
runs.

The search box takes terms separated by spaces, all of which must match (case-insensitive
substrings; ``"two words"`` in double quotes is one term):

* a bare term matches the case id, the error, the user and agent messages, the metric reasons
  or the tool names — never the metric names, which every case shares;
* ``id:``, ``error:``, ``msg:``, ``reason:``, ``tool:`` restrict a term to one of those fields;
* ``score:<0.5``, ``score:>=0.8`` (``<``, ``<=``, ``>``, ``>=``, ``=``) keep the entries whose
  shown score (the metric's under a metric filter) compares so; a missing score never matches.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..analysis.record import RunRecord, case_metric_rows
from ..render.order import STATUS_RANK, sort_key
from ..schema import EvalCaseResult, message_text

PAGE_SIZE = 25
"""Items shown per page of the inspector's list."""

SEARCH_FIELDS = ("id", "error", "msg", "reason", "tool")
"""Fields a search term can be scoped to (``reason:timeout``); a bare term searches them all."""

SORT_OPTIONS = [
    ("failures first", "status"),
    ("score, low first", "score"),
    ("score, high first", "-score"),
    ("case id", "id"),
]
"""Orders of the list (label, key); under a metric filter the scores are the metric's."""

T = TypeVar("T")

_TERM = re.compile(r'(?:(\w+):)?(?:"([^"]*)"?|(\S+))')
_COMPARE = re.compile(r"^(<=|>=|<|>|=)?\s*(-?[0-9.]+(?:e-?[0-9]+)?)$")
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
}


@dataclass(frozen=True)
class Query:
    """A parsed search: text terms as (field or ``None``, needle) and score conditions."""

    terms: tuple[tuple[str | None, str], ...] = ()
    scores: tuple[tuple[str, float], ...] = ()

    @property
    def needles(self) -> list[str]:
        """The texts searched for (what the detail pane highlights)."""
        return [needle for _field, needle in self.terms]

    def matches_text(self, fields: Mapping[str, str]) -> bool:
        """Every term is found in its field (bare terms: in any field)."""
        for name, needle in self.terms:
            haystacks = (fields.get(name, ""),) if name else fields.values()
            if not any(needle in h for h in haystacks):
                return False
        return True

    def matches_score(self, score: float | None) -> bool:
        if not self.scores:
            return True
        if score is None or math.isnan(score):
            return False
        return all(_OPERATORS[op](score, bound) for op, bound in self.scores)


def parse_query(query: str) -> Query:
    """:class:`Query` of the search box text (see the module docstring for the syntax).

    A ``field:`` prefix that is not a search field stays part of a bare term, so ``http://x``
    or ``a:b`` search as typed; a ``score:`` term that is not a comparison is searched as text.
    """
    terms: list[tuple[str | None, str]] = []
    scores: list[tuple[str, float]] = []
    for match in _TERM.finditer(query.strip()):
        name, quoted, bare = match.group(1), match.group(2), match.group(3)
        value = (quoted if quoted is not None else bare or "").lower()
        key = name.lower() if name else None
        if key == "score":
            found = _COMPARE.match(value.strip())
            if found:
                scores.append((found.group(1) or "=", float(found.group(2))))
                continue
        if key is not None and key not in SEARCH_FIELDS:
            value, key = f"{name.lower()}:{value}", None
        if value:
            terms.append((key, value))
    return Query(tuple(terms), tuple(scores))


@dataclass
class Entry:
    """One case result: where it is, its status and score, and per-metric status and score."""

    position: int
    run_id: int | None
    eval_id: str
    status: str
    score: float | None
    metrics: dict[str, tuple[str, float | None]] = field(default_factory=dict)
    _fields: dict[str, str] | None = None


def build_entries(run: RunRecord) -> list[Entry]:
    """An entry per case result, in file order (``position``: row of the run's cases table),
    from the cases and metrics tables (nothing decoded)."""
    cases = run.table("cases").select("run_id", "eval_id", "status", "score").iter_rows()
    metrics = case_metric_rows(run, ("metric_name", "status", "score"))
    return [
        Entry(
            position,
            run_id,
            eval_id or "",
            status or "",
            score,
            {name or "": (m_status or "", m_score) for name, m_status, m_score in case_metrics},
        )
        for position, ((run_id, eval_id, status, score), case_metrics) in enumerate(
            zip(cases, metrics, strict=True)
        )
    ]


def case_search_fields(case: EvalCaseResult) -> dict[str, str]:
    """Lower-cased searchable text of a case by field (:data:`SEARCH_FIELDS`)."""
    messages: list[str] = []
    reasons: list[str] = []
    tools: list[str] = []
    for m in case.overall_eval_metric_results or ():
        if m.details is not None and m.details.reason:
            reasons.append(m.details.reason)
    for per in case.eval_metric_result_per_invocation or ():
        for inv in (per.actual_invocation, per.expected_invocation):
            if inv is None:
                continue
            messages.append(message_text(inv.user_content))
            messages.append(message_text(inv.final_response))
            tools.extend(t.name or "" for t in inv.tools or ())
        for m in per.eval_metric_results or ():
            if m.details is not None and m.details.reason:
                reasons.append(m.details.reason)
    return {
        "id": (case.eval_id or "").lower(),
        "error": (case.error_message or "").lower(),
        "msg": "\n".join(messages).lower(),
        "reason": "\n".join(reasons).lower(),
        "tool": "\n".join(tools).lower(),
    }


def status_and_score(entry: Entry, metric: str | None) -> tuple[str, float | None] | None:
    """The case's status and score, or those of ``metric`` (``None`` when the case lacks it)."""
    if not metric:
        return entry.status, entry.score
    return entry.metrics.get(metric)


def order_key(
    sort: str, status: str, score: float | None, eval_id: str, run_id: int | None
) -> tuple:
    """Sort key of an item for a :data:`SORT_OPTIONS` key (missing scores last; ties by id)."""
    value = score if score is not None and not math.isnan(score) else None
    if sort == "score":
        return (value is None, value or 0.0, eval_id, run_id or 0)
    if sort == "-score":
        return (value is None, -(value or 0.0), eval_id, run_id or 0)
    if sort == "id":
        return (eval_id, run_id or 0)
    return sort_key(status, score, eval_id, run_id)


def filter_entries(
    entries: Iterable[Entry],
    search_fields: Callable[[int], Mapping[str, str]],
    *,
    metric: str | None = None,
    status: str | None = None,
    run_id: int | None = None,
    query: str | Query = "",
    sort: str = "status",
) -> list[Entry]:
    """Entries that pass every filter, in the ``sort`` order (failures first by default).

    ``metric`` restricts to cases with that metric and makes ``status``, the score conditions
    and the sort use the metric's status and score; ``query`` is a search (:func:`parse_query`)
    over ``search_fields(position)``, asked once per entry (it may decode the case result).
    """
    parsed = query if isinstance(query, Query) else parse_query(query)
    kept: list[tuple[tuple, Entry]] = []
    for entry in entries:
        pair = status_and_score(entry, metric)
        if pair is None:
            continue
        if status and pair[0] != status:
            continue
        if run_id is not None and entry.run_id != run_id:
            continue
        if not parsed.matches_score(pair[1]):
            continue
        if parsed.terms:
            if entry._fields is None:
                entry._fields = dict(search_fields(entry.position))
            if not parsed.matches_text(entry._fields):
                continue
        kept.append((order_key(sort, pair[0], pair[1], entry.eval_id, entry.run_id), entry))
    kept.sort(key=lambda item: item[0])
    return [entry for _, entry in kept]


# the table -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableColumn:
    """A column of the inspector's table: its sort key, header and hover text."""

    key: str
    label: str
    numeric: bool = False
    title: str = ""

    def wire(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "numeric": self.numeric, "title": self.title}


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown, a CSS class (``ae-pass``, ``ae-fail``, ``ae-flag`` …)
    and the value the column sorts by (``None`` sorts last either way)."""

    text: str
    css: str = ""
    value: Any = None


def status_value(status: str) -> int:
    """The sort value of a status: failures first (:data:`~..render.order.STATUS_RANK`)."""
    return STATUS_RANK.get(status, 2)


def flag_cell(flag: bool | None) -> Cell:
    """A yes/no column: ``⚑`` when set (sorted first), blank when not or when unknown (sorted
    last)."""
    if flag is None:
        return Cell("")
    return Cell("⚑", "ae-flag", 0) if flag else Cell("", "", 1)


def sort_descending(sort: str) -> tuple[str, bool]:
    """(column key, descending) of a sort value: a leading ``-`` sorts descending."""
    return (sort[1:], True) if sort.startswith("-") else (sort, False)


def toggled_sort(current: str, column: str) -> str:
    """The sort after a click on ``column``'s header: ascending first, then descending."""
    return f"-{column}" if current == column else column


def sort_by_column(items: list[T], value_of: Callable[[T], Any], descending: bool) -> list[T]:
    """``items`` ordered by ``value_of`` (descending when asked), items without a value (None
    or NaN) last; a stable sort, so ties keep the order ``items`` came in."""
    present: list[tuple[Any, T]] = []
    missing: list[T] = []
    for item in items:
        value = value_of(item)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            missing.append(item)
        else:
            present.append((value, item))
    present.sort(key=lambda pair: pair[0], reverse=descending)
    return [item for _, item in present] + missing
