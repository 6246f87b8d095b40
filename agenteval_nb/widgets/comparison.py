"""Inspector of a comparison (``ae.compare(a, b)``): cases whose status flipped first, both
runs' details side by side.

A comparison's ``frame`` says what changed; the details come from the two runs, taken from the
comparison (``run_a``/``run_b`` attributes) or given to :func:`inspect_comparison`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..analysis.record import uses_heuristic
from ..offline_flags import HEURISTIC_LABEL
from ..render import render_case
from ..render.case import metric_rubric_texts
from ..render.flags import flags_badges
from ..render.messages import word_diff
from ..render.text import join, number, plain, score_text, status_badge, text
from ..schema import EvalCaseResult, message_text
from .entries import Cell, Query, TableColumn, case_search_fields, order_key
from .master import PAGE_SIZE, MasterDetail

DEFAULT_LABELS = ("A", "B")
"""``ae.compare``'s default labels. The verifier's candidates are also called A and B, so the
comparison view calls default-labelled runs "first run" and "second run" instead."""

STATUS_OPTIONS = [
    ("all cases", ""),
    ("flipped", "flipped"),
    ("A passed → B failed", "pass_to_fail"),
    ("A failed → B passed", "fail_to_pass"),
    ("unchanged", "unchanged"),
    ("in one run only", "unpaired"),
]


@dataclass
class PairItem:
    """One case of the comparison: its frame rows and the run filter it was listed under."""

    eval_id: str
    rows: list[dict[str, Any]]
    run_id: int | None = None
    kinds: set[str] = field(default_factory=set)


def _kinds(rows: Sequence[dict[str, Any]]) -> set[str]:
    kinds: set[str] = set()
    for r in rows:
        if r.get("flipped"):
            kinds.add("flipped")
            kinds.add("pass_to_fail" if r.get("status_a") == "passed" else "fail_to_pass")
        if r.get("status_a") is None or r.get("status_b") is None:
            kinds.add("unpaired")
    if "flipped" not in kinds:
        kinds.add("unchanged")
    return kinds


def _max_abs_diff(rows: Sequence[dict[str, Any]]) -> float:
    diffs = [abs(d) for r in rows if (d := r.get("diff")) is not None and not math.isnan(d)]
    return max(diffs, default=0.0)


class _RunCases:
    """One run's case results by eval id — (position, run_id) from its cases table; a case
    result is decoded when asked for (:meth:`cases`)."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.by_id: dict[str, list[tuple[int, int | None]]] = {}
        if run is not None:
            rows = run.table("cases").select("eval_id", "run_id").iter_rows()
            for position, (eval_id, run_id) in enumerate(rows):
                self.by_id.setdefault(eval_id or "", []).append((position, run_id))
        self.rubric_texts = metric_rubric_texts(run.metrics) if run is not None else {}

    def run_ids(self) -> set[int | None]:
        return {run_id for pairs in self.by_id.values() for _, run_id in pairs}

    def heuristic(self) -> bool:
        return self.run is not None and uses_heuristic(self.run)

    def cases(self, eval_id: str, run_id: int | None = None) -> list[EvalCaseResult]:
        """The case results of ``eval_id`` (of run ``run_id`` when given), decoded."""
        return [
            self.run.case_result(position)
            for position, case_run in self.by_id.get(eval_id, ())
            if run_id is None or case_run == run_id
        ]

    def render(self, eval_id: str, cases: Sequence[EvalCaseResult]) -> Markup:
        if not cases:
            return Markup('<div class="ae-note">no result for this case</div>')
        evalset_case = self.run.eval_case(eval_id)
        return join(
            render_case(c, evalset_case=evalset_case, rubric_texts=self.rubric_texts) for c in cases
        )


class ComparisonSource:
    """The comparison's cases as master–detail items (:class:`PairItem`)."""

    def __init__(self, comparison: Any, run_a: Any = None, run_b: Any = None) -> None:
        import polars as pl

        frame = comparison.frame
        frame = frame if isinstance(frame, pl.DataFrame) else pl.from_pandas(frame)
        labels = (
            str(getattr(comparison, "label_a", "A")),
            str(getattr(comparison, "label_b", "B")),
        )
        if labels == DEFAULT_LABELS:
            labels = ("first run", "second run")
        self.label_a, self.label_b = labels
        self.a = _RunCases(run_a if run_a is not None else getattr(comparison, "run_a", None))
        self.b = _RunCases(run_b if run_b is not None else getattr(comparison, "run_b", None))
        self.has_runs = bool(self.a.by_id or self.b.by_id)
        rows_by_id: dict[str, list[dict[str, Any]]] = {}
        for row in frame.iter_rows(named=True):
            rows_by_id.setdefault(row.get("eval_id") or "", []).append(row)
        self.rows_by_id = rows_by_id
        self.kinds = {eval_id: _kinds(rows) for eval_id, rows in rows_by_id.items()}
        self._metrics = sorted({r.get("metric_name") or "" for r in frame.iter_rows(named=True)})
        self._fields: dict[str, dict[str, str]] = {}
        runs = self.a.run_ids() | self.b.run_ids()
        self._run_ids = sorted(r for r in runs if r is not None)

    def metric_names(self) -> Sequence[str]:
        return [m for m in self._metrics if m]

    def status_options(self) -> Sequence[tuple[str, str]]:
        return STATUS_OPTIONS

    def run_ids(self) -> Sequence[int]:
        return self._run_ids

    def _search_fields(self, eval_id: str) -> dict[str, str]:
        found = self._fields.get(eval_id)
        if found is None:
            merged: dict[str, list[str]] = {"id": [eval_id.lower()]}
            for side in (self.a, self.b):
                for case in side.cases(eval_id):
                    for name, value in case_search_fields(case).items():
                        merged.setdefault(name, []).append(value)
            found = self._fields[eval_id] = {k: "\n".join(v) for k, v in merged.items()}
        return found

    def filtered(
        self, metric: str, status: str, run_id: int | None, query: Query, sort: str
    ) -> list[PairItem]:
        """Pairs passing the filters; score conditions of the search apply to max |Δ|; the
        default order is flipped first, then larger |Δ| first."""
        items = []
        for eval_id, all_rows in self.rows_by_id.items():
            rows = [r for r in all_rows if not metric or r.get("metric_name") == metric]
            if not rows:
                continue
            kinds = _kinds(rows)
            if status and status not in kinds:
                continue
            if not query.matches_score(_max_abs_diff(rows)):
                continue
            if query.terms and not query.matches_text(self._search_fields(eval_id)):
                continue
            items.append(PairItem(eval_id, rows, run_id, kinds))
        if sort == "status":
            items.sort(
                key=lambda it: ("flipped" not in it.kinds, -_max_abs_diff(it.rows), it.eval_id)
            )
        else:
            items.sort(key=lambda it: order_key(sort, "", _max_abs_diff(it.rows), it.eval_id, None))
        return items

    def key(self, item: PairItem) -> tuple[str, int | None]:
        return item.eval_id, item.run_id

    def label(self, item: PairItem, metric: str = "") -> str:
        """``⇄ case_id · max |Δ| 0.5`` (``=`` when no status flipped); under a metric filter
        the rows are that metric's."""
        mark = "⇄" if "flipped" in item.kinds else "="
        return f"{mark} {plain(item.eval_id, 40)} · max |Δ| {number(_max_abs_diff(item.rows), 3)}"

    def columns(self) -> list[TableColumn]:
        """flip, case id, max |Δ|, then per metric the score difference (A − B) of the
        largest size."""
        return [
            TableColumn("status", "flip", title="⇄ a status flipped · = none did"),
            TableColumn("id", "case id"),
            TableColumn("score", "max |Δ|", numeric=True, title="largest |score A − score B|"),
            *(
                TableColumn(
                    f"metric:{name}", plain(name), numeric=True, title=f"{plain(name)}: A − B"
                )
                for name in self.metric_names()
            ),
        ]

    def cell(self, item: PairItem, column: str, metric: str = "") -> Cell:
        """The cell of ``item`` in ``column``: a metric's cell is red when it flipped to
        failing in B, green when it flipped to passing."""
        if column == "status":
            flipped = "flipped" in item.kinds
            return Cell("⇄" if flipped else "=", "ae-fail" if flipped else "", int(not flipped))
        if column == "id":
            return Cell(plain(item.eval_id), "", item.eval_id)
        if column == "score":
            largest = _max_abs_diff(item.rows)
            return Cell(number(largest, 3), "", largest)
        if not column.startswith("metric:"):
            raise KeyError(f"no column {column!r}")
        rows = [r for r in item.rows if r.get("metric_name") == column.removeprefix("metric:")]
        diffs = [d for r in rows if (d := r.get("diff")) is not None and not math.isnan(d)]
        diff = max(diffs, key=abs, default=None)
        css = ""
        if any(r.get("flipped") for r in rows):
            to_fail = any(r.get("status_b") == "failed" for r in rows if r.get("flipped"))
            css = "ae-fail" if to_fail else "ae-pass"
        return Cell(number(diff, 3) if rows else "", css, diff)

    def heuristic(self) -> bool:
        """True when either run has a judgement of the offline heuristic judge."""
        return self.a.heuristic() or self.b.heuristic()

    def _answers_diff(
        self, a_list: Sequence[EvalCaseResult], b_list: Sequence[EvalCaseResult]
    ) -> Markup:
        """The final answers of the two runs, turn by turn, words only in one side marked."""
        rows = []
        a_cases = {c.run_id: c for c in a_list}
        b_cases = {c.run_id: c for c in b_list}
        for run_id in sorted(set(a_cases) & set(b_cases), key=lambda r: r or 0):
            a_turns = _answers(a_cases[run_id])
            b_turns = _answers(b_cases[run_id])
            for turn, (a_text, b_text) in enumerate(zip(a_turns, b_turns, strict=False), 1):
                if a_text == b_text:
                    left = right = text(a_text)
                    same = Markup(' <span class="ae-muted">(identical)</span>')
                else:
                    left, right = word_diff(a_text, b_text)
                    same = Markup("")
                rows.append(
                    Markup(
                        '<h4>run {} · turn {}{}</h4><div class="ae-side">'
                        '<div class="ae-pane ae-pre">{}</div><div class="ae-pane ae-pre">{}</div>'
                        "</div>"
                    ).format(run_id, turn, same, left, right)
                )
        if not rows:
            return Markup("")
        return Markup(
            '<section class="ae-answers"><h3>final answers: {} (left) vs {} (right)</h3>'
            '<div class="ae-muted">words only in {} are <del>struck</del>, words only in {} are '
            "<ins>marked</ins></div>{}</section>"
        ).format(self.label_a, self.label_b, self.label_a, self.label_b, join(rows))

    def _diff_table(self, item: PairItem) -> Markup:
        rows = join(
            Markup(
                '<tr class="{}"><td><code>{}</code></td><td class="ae-num">{}</td><td>{}</td>'
                '<td class="ae-num">{}</td><td>{}</td><td class="ae-num">{}</td></tr>'
            ).format(
                "ae-row-fail" if r.get("flipped") else "",
                text(r.get("metric_name")),
                score_text(r.get("score_a"), r.get("status_a")),
                status_badge(r.get("status_a")),
                score_text(r.get("score_b"), r.get("status_b")),
                status_badge(r.get("status_b")),
                number(r.get("diff")),
            )
            for r in item.rows
        )
        return Markup(
            "<table><tr><th>metric</th><th>score {a}</th><th>status {a}</th><th>score {b}</th>"
            "<th>status {b}</th><th>diff ({a} − {b})</th></tr>{rows}</table>"
        ).format(a=self.label_a, b=self.label_b, rows=rows)

    def render(self, item: PairItem) -> Markup:
        head = Markup("<h3><code>{}</code> {}</h3>").format(
            text(item.eval_id), "flipped" if "flipped" in item.kinds else "not flipped"
        )
        if not self.has_runs:
            note = Markup(
                '<div class="ae-note">details need the runs: inspect(comparison, run_a=…, '
                "run_b=…)</div>"
            )
            return head + self._diff_table(item) + note
        a_cases = self.a.cases(item.eval_id, item.run_id)
        b_cases = self.b.cases(item.eval_id, item.run_id)
        sides = Markup(
            '<div class="ae-side"><div><h3>{}</h3>{}</div><div><h3>{}</h3>{}</div></div>'
        ).format(
            self.label_a,
            self.a.render(item.eval_id, a_cases),
            self.label_b,
            self.b.render(item.eval_id, b_cases),
        )
        return head + self._diff_table(item) + self._answers_diff(a_cases, b_cases) + sides


def _answers(case: EvalCaseResult) -> list[str]:
    return [
        message_text(per.actual_invocation.final_response if per.actual_invocation else None)
        for per in case.eval_metric_result_per_invocation or ()
    ]


def inspect_comparison(
    comparison: Any, run_a: Any = None, run_b: Any = None, *, page_size: int = PAGE_SIZE
) -> MasterDetail:
    """The master–detail inspector of a comparison (flipped cases first, A and B side by side)."""
    source = ComparisonSource(comparison, run_a, run_b)
    title = f"{plain(source.label_a)} vs {plain(source.label_b)}: {len(source.rows_by_id)} cases"
    flags = flags_badges([HEURISTIC_LABEL] if source.heuristic() else [])
    return MasterDetail(source, page_size=page_size, title=title, flags=flags)
