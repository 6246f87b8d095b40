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

from ..render import render_case
from ..render.case import metric_rubric_texts
from ..render.text import join, number, plain, score_text, status_badge, text
from ..schema import EvalCase, EvalCaseResult
from .entries import case_search_text
from .master import PAGE_SIZE, MasterDetail

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
    """Case results of one run by eval id, with the eval set cases and rubric texts."""

    def __init__(self, run: Any) -> None:
        self.by_id: dict[str, list[EvalCaseResult]] = {}
        for case in (run.result.eval_case_results or ()) if run is not None else ():
            self.by_id.setdefault(case.eval_id or "", []).append(case)
        self.evalset_cases: dict[str, EvalCase] = (
            {c.eval_id: c for es in run.evalsets for c in es.eval_cases or ()} if run else {}
        )
        self.rubric_texts = metric_rubric_texts(run.metrics) if run is not None else {}

    def render(self, eval_id: str, run_id: int | None) -> Markup:
        cases = [c for c in self.by_id.get(eval_id, ()) if run_id is None or c.run_id == run_id]
        if not cases:
            return Markup('<div class="ae-note">no result for this case</div>')
        return join(
            render_case(
                c,
                evalset_case=self.evalset_cases.get(eval_id),
                rubric_texts=self.rubric_texts,
            )
            for c in cases
        )


class ComparisonSource:
    """The comparison's cases as master–detail items (:class:`PairItem`)."""

    def __init__(self, comparison: Any, run_a: Any = None, run_b: Any = None) -> None:
        import polars as pl

        frame = comparison.frame
        frame = frame if isinstance(frame, pl.DataFrame) else pl.from_pandas(frame)
        self.label_a = str(getattr(comparison, "label_a", "A"))
        self.label_b = str(getattr(comparison, "label_b", "B"))
        self.a = _RunCases(run_a if run_a is not None else getattr(comparison, "run_a", None))
        self.b = _RunCases(run_b if run_b is not None else getattr(comparison, "run_b", None))
        self.has_runs = bool(self.a.by_id or self.b.by_id)
        rows_by_id: dict[str, list[dict[str, Any]]] = {}
        for row in frame.iter_rows(named=True):
            rows_by_id.setdefault(row.get("eval_id") or "", []).append(row)
        self.rows_by_id = rows_by_id
        self.kinds = {eval_id: _kinds(rows) for eval_id, rows in rows_by_id.items()}
        self._metrics = sorted({r.get("metric_name") or "" for r in frame.iter_rows(named=True)})
        self._haystacks: dict[str, str] = {}
        runs = {c.run_id for side in (self.a, self.b) for cs in side.by_id.values() for c in cs}
        self._run_ids = sorted(r for r in runs if r is not None)

    def metric_names(self) -> Sequence[str]:
        return [m for m in self._metrics if m]

    def status_options(self) -> Sequence[tuple[str, str]]:
        return STATUS_OPTIONS

    def run_ids(self) -> Sequence[int]:
        return self._run_ids

    def _haystack(self, eval_id: str) -> str:
        found = self._haystacks.get(eval_id)
        if found is None:
            texts = [eval_id.lower()]
            for side in (self.a, self.b):
                texts.extend(case_search_text(c) for c in side.by_id.get(eval_id, ()))
            found = self._haystacks[eval_id] = "\n".join(texts)
        return found

    def filtered(self, metric: str, status: str, run_id: int | None, query: str) -> list[PairItem]:
        needle = query.strip().lower()
        items = []
        for eval_id, all_rows in self.rows_by_id.items():
            rows = [r for r in all_rows if not metric or r.get("metric_name") == metric]
            if not rows:
                continue
            kinds = _kinds(rows)
            if status and status not in kinds:
                continue
            if needle and needle not in self._haystack(eval_id):
                continue
            items.append(PairItem(eval_id, rows, run_id, kinds))
        items.sort(key=lambda it: ("flipped" not in it.kinds, -_max_abs_diff(it.rows), it.eval_id))
        return items

    def key(self, item: PairItem) -> tuple[str, int | None]:
        return item.eval_id, item.run_id

    def label(self, item: PairItem) -> str:
        mark = "⇄" if "flipped" in item.kinds else "="
        return f"{mark} {plain(item.eval_id, 60)} · max |Δ| {number(_max_abs_diff(item.rows), 3)}"

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
        sides = Markup(
            '<div class="ae-side"><div><h3>{}</h3>{}</div><div><h3>{}</h3>{}</div></div>'
        ).format(
            self.label_a,
            self.a.render(item.eval_id, item.run_id),
            self.label_b,
            self.b.render(item.eval_id, item.run_id),
        )
        return head + self._diff_table(item) + sides


def inspect_comparison(
    comparison: Any, run_a: Any = None, run_b: Any = None, *, page_size: int = PAGE_SIZE
) -> MasterDetail:
    """The master–detail inspector of a comparison (flipped cases first, A and B side by side)."""
    source = ComparisonSource(comparison, run_a, run_b)
    title = f"{plain(source.label_a)} vs {plain(source.label_b)}: {len(source.rows_by_id)} cases"
    return MasterDetail(source, page_size=page_size, title=title)
