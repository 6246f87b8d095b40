"""Tool trajectory: expected and actual calls aligned, arguments and results compared by key.

With the trajectory metric's criterion, calls are first paired the way the metric matched them
(:func:`~agenteval_nb.criteria.trajectory.tool_matching`: ordered subsequence, or the one-to-one
matching of unordered and subset trajectories); those pairs read ``match``. The calls the metric
left unmatched — and every call when no criterion is known — are paired by name in order (a
longest-matching-blocks diff of the two name sequences): equal runs pair one to one; a run
replaced by another pairs by position; the remaining calls are *missing* (expected only) or
*extra* (actual only). The metric's own verdict and reason are shown above the table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest
from typing import Any

from markupsafe import Markup

from ..criteria.trajectory import tool_matching, validate_tool_trajectory
from ..schema import EvalMetricResult, Tool, ToolTrajectoryCriterion
from .reasons import display_reason, gloss_note
from .text import html, join, json_text, score_text, status_badge, text

MAX_DEPTH = 4
"""Nested objects deeper than this are compared as whole values."""
MAX_ROWS = 200
"""Key rows shown per arguments/result table."""
NUMBER_TOLERANCE = 1e-6
"""Numbers closer than this count as equal (the default JSON criterion tolerance)."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
"""Marks a key present on one side only."""


@dataclass(frozen=True)
class ToolPair:
    """One row of the alignment; ``expected`` or ``actual`` is ``None`` for a missing/extra call;
    ``matched`` when the metric's criterion matched the two."""

    expected: Tool | None
    actual: Tool | None
    expected_index: int | None
    actual_index: int | None
    matched: bool = False


@dataclass(frozen=True)
class KeyDiff:
    """One compared key path: ``""`` is the whole value."""

    path: str
    expected: Any
    actual: Any
    same: bool


def _by_name(
    expected: Sequence[Tool],
    actual: Sequence[Tool],
    expected_indexes: Sequence[int],
    actual_indexes: Sequence[int],
) -> list[ToolPair]:
    """The given calls paired by name in order, then by position (module docstring)."""
    matcher = SequenceMatcher(
        None,
        [expected[i].name or "" for i in expected_indexes],
        [actual[j].name or "" for j in actual_indexes],
        autojunk=False,
    )
    pairs: list[ToolPair] = []
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i, j in zip_longest(expected_indexes[i1:i2], actual_indexes[j1:j2]):
            pairs.append(
                ToolPair(
                    expected[i] if i is not None else None,
                    actual[j] if j is not None else None,
                    i,
                    j,
                )
            )
    return pairs


def _row_order(pair: ToolPair) -> tuple[int, int]:
    """Rows by expected call, then the extra actual calls in their order."""
    if pair.expected_index is not None:
        return (0, pair.expected_index)
    return (1, pair.actual_index or 0)


def align_tools(
    expected: Sequence[Tool],
    actual: Sequence[Tool],
    criterion: ToolTrajectoryCriterion | None = None,
) -> list[ToolPair]:
    """Pair expected and actual calls: as ``criterion`` matched them, the rest by name in
    order, then by position (module docstring). Without a usable criterion (none, a custom
    compare, an invalid strategy) every call is paired by name."""
    everything = range(len(expected)), range(len(actual))
    if criterion is None or criterion.compare_name or validate_tool_trajectory(criterion):
        return _by_name(expected, actual, *everything)
    matching = tool_matching(criterion, actual, expected)
    pairs = [
        ToolPair(expected[i], actual[j], i, j, matched=True)
        for i, j in enumerate(matching)
        if j is not None
    ]
    used = set(matching)
    rest_expected = [i for i, j in enumerate(matching) if j is None]
    rest_actual = [j for j in range(len(actual)) if j not in used]
    pairs += _by_name(expected, actual, rest_expected, rest_actual)
    return sorted(pairs, key=_row_order)


def _decoded(value: Any) -> Any:
    """A JSON string argument (as some producers store them) decoded; anything else as is."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def same_value(a: Any, b: Any) -> bool:
    """JSON equality with numbers equal within :data:`NUMBER_TOLERANCE`."""
    if _is_number(a) and _is_number(b):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return abs(fa - fb) <= NUMBER_TOLERANCE
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def diff_values(expected: Any, actual: Any) -> list[KeyDiff]:
    """Key-by-key comparison of two JSON values (objects and arrays flattened to paths)."""
    rows: list[KeyDiff] = []

    def walk(path: str, e: Any, a: Any, depth: int) -> None:
        if depth < MAX_DEPTH and isinstance(e, dict) and isinstance(a, dict):
            keys = list(e) + [k for k in a if k not in e]
            if not keys:
                rows.append(KeyDiff(path, e, a, True))
            for key in keys:
                walk(_child(path, key), e.get(key, ABSENT), a.get(key, ABSENT), depth + 1)
            return
        if depth < MAX_DEPTH and isinstance(e, list) and isinstance(a, list) and e and a:
            for i, (x, y) in enumerate(zip_longest(e, a, fillvalue=ABSENT)):
                walk(_child(path, i), x, y, depth + 1)
            return
        same = e is not ABSENT and a is not ABSENT and same_value(e, a)
        rows.append(KeyDiff(path, e, a, same))

    walk("", _decoded(expected), _decoded(actual), 0)
    return rows


def _cell(value: Any) -> Markup:
    if value is ABSENT:
        return Markup('<span class="ae-note">(absent)</span>')
    return html('<span class="ae-pre">{}</span>', json_text(value, limit=4000))


def diff_table(expected: Any, actual: Any, *, one_sided: str | None = None) -> Markup:
    """A key | expected | actual table; differing rows marked, absent keys coloured."""
    rows = diff_values(expected, actual)
    shown = rows[:MAX_ROWS]
    body: list[Markup] = []
    for row in shown:
        if one_sided is not None or row.same:
            css = ""
        elif row.expected is ABSENT:
            css = "ae-extra"
        elif row.actual is ABSENT:
            css = "ae-missing"
        else:
            css = "ae-diff"
        body.append(
            html(
                '<tr class="{}"><td><code>{}</code></td><td>{}</td><td>{}</td></tr>',
                css,
                text(row.path or "(value)"),
                _cell(row.expected),
                _cell(row.actual),
            )
        )
    if len(rows) > MAX_ROWS:
        body.append(
            html(
                '<tr><td colspan="3" class="ae-note">{} more keys not shown</td></tr>',
                len(rows) - MAX_ROWS,
            )
        )
    return html(
        "<table><tr><th>key</th><th>expected</th><th>actual</th></tr>{}</table>", join(body)
    )


def pair_verdict(pair: ToolPair) -> str:
    """``match`` (the metric matched the pair, or nothing differs), ``missing``, ``extra``, or
    what differs: ``name``, ``arguments``, ``result``."""
    if pair.actual is None:
        return "missing"
    if pair.expected is None:
        return "extra"
    if pair.matched:
        return "match"
    differs = []
    if (pair.expected.name or "") != (pair.actual.name or ""):
        differs.append("name")
    if not same_value(_decoded(pair.expected.arguments), _decoded(pair.actual.arguments)):
        differs.append("arguments")
    if not same_value(_decoded(pair.expected.result), _decoded(pair.actual.result)):
        differs.append("result")
    return " + ".join(differs) + " differ" if differs else "match"


_VERDICT_CLASS = {"match": "ae-pass", "missing": "ae-fail", "extra": "ae-ne"}


def mock_label(tool: Tool) -> str | None:
    """``mocked (static rule 1)`` for a call answered by a tool mock (the ``mock`` note the
    toolkit records, rules counted from 1), else ``None``."""
    note = tool.mock
    if not isinstance(note, dict):
        return None
    rule = note.get("rule")
    kind = "generated" if note.get("kind") == "llmGenerator" else str(note.get("kind") or "")
    where = f"rule {rule + 1}" if isinstance(rule, int) else "rule"
    return f"mocked ({kind} {where})" if kind else f"mocked ({where})"


def _side(tool: Tool | None, index: int | None) -> Markup:
    if tool is None:
        return Markup('<span class="ae-note">—</span>')
    label = mock_label(tool)
    mocked = (
        html(' <span class="ae-badge ae-ne" title="answered by a toolMock rule">{}</span>', label)
        if label
        else Markup("")
    )
    return html(
        '#{} <code>{}</code> <span class="ae-muted">{}</span>{}',
        (index or 0) + 1,
        text(tool.name),
        text(tool.id),
        mocked,
    )


def _pair_block(pair: ToolPair) -> Markup:
    verdict = pair_verdict(pair)
    badge = html(
        '<span class="ae-badge {}">{}</span>', _VERDICT_CLASS.get(verdict, "ae-fail"), verdict
    )
    exp, act = pair.expected, pair.actual
    one_sided = None if exp is not None and act is not None else verdict
    tables = html(
        "<h4>arguments</h4>{}<h4>result</h4>{}",
        diff_table(
            exp.arguments if exp is not None else ABSENT,
            act.arguments if act is not None else ABSENT,
            one_sided=one_sided,
        ),
        diff_table(
            exp.result if exp is not None else ABSENT,
            act.result if act is not None else ABSENT,
            one_sided=one_sided,
        ),
    )
    opened = Markup(" open") if verdict != "match" else Markup("")
    return html(
        '<details class="ae-tool"{}><summary>{} expected {} · actual {}</summary>{}</details>',
        opened,
        badge,
        _side(exp, pair.expected_index),
        _side(act, pair.actual_index),
        tables,
    )


def is_trajectory_metric(result: EvalMetricResult) -> bool:
    """True for tool trajectory metrics (by criterion, or by name when the criterion is absent)."""
    if result.criterion is not None and result.criterion.tool_trajectory is not None:
        return True
    return "trajectory" in (result.metric_name or "")


def _metric_reasons(results: Sequence[EvalMetricResult]) -> Markup:
    rows = [
        html(
            "<li>{} <code>{}</code> score {}{}</li>",
            status_badge(r.eval_status),
            text(r.metric_name),
            score_text(r.score, r.eval_status),
            html(
                ': <span class="ae-pre">{}</span>{}',
                text(display_reason(r.details.reason)),
                gloss_note(r.details.reason),
            )
            if r.details is not None and r.details.reason
            else Markup(""),
        )
        for r in results
    ]
    return html("<ul>{}</ul>", join(rows)) if rows else Markup("")


def _pairing(results: Sequence[EvalMetricResult]) -> tuple[ToolTrajectoryCriterion | None, Markup]:
    """The criterion the calls are paired by (the first trajectory metric that stores one) and
    a note saying so."""
    for r in results:
        criterion = r.criterion.tool_trajectory if r.criterion is not None else None
        if criterion is not None and not criterion.compare_name:
            how = (
                "in order"
                if criterion.order_sensitive
                else "as a subset, in any order"
                if criterion.subset_matching
                else "in any order"
            )
            note = html(
                '<div class="ae-muted">calls paired as <code>{}</code> matched them ({})</div>',
                text(r.metric_name),
                how,
            )
            return criterion, note
    return None, Markup("")


def trajectory_section(
    expected: Sequence[Tool] | None,
    actual: Sequence[Tool] | None,
    metric_results: Sequence[EvalMetricResult] = (),
) -> Markup:
    """Trajectory metrics' verdicts and reasons, then the calls paired as the first trajectory
    metric matched them (:func:`align_tools`)."""
    trajectory = [r for r in metric_results if is_trajectory_metric(r)]
    reasons = _metric_reasons(trajectory)
    expected = list(expected or ())
    actual = list(actual or ())
    if not expected and not actual:
        return reasons + Markup('<span class="ae-note">no tool calls on either side</span>')
    criterion, note = _pairing(trajectory)
    counts = html(
        '<div class="ae-muted">{} expected call(s), {} actual call(s)</div>',
        len(expected),
        len(actual),
    )
    pairs = align_tools(expected, actual, criterion)
    return reasons + counts + note + join(_pair_block(p) for p in pairs)
