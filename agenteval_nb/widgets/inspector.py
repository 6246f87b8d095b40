"""Inspector of one run record: case results, failures first."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
from markupsafe import Markup

from ..analysis.agreement import HumanVerdicts, mixed_sample_cases
from ..analysis.columns import COLUMNS
from ..analysis.record import RunRecord, record_flags
from ..analysis.reviews import Mark, add_mark, marks_of
from ..render import render_case
from ..render.case import metric_rubric_texts
from ..render.flags import flags_badges
from ..render.text import plain, score_text, status_class
from .entries import (
    Cell,
    Entry,
    Query,
    TableColumn,
    build_entries,
    case_search_fields,
    filter_entries,
    flag_cell,
    status_and_score,
    status_value,
)
from .master import PAGE_SIZE, MasterDetail

STATUS_OPTIONS = [
    ("all statuses", ""),
    ("failed", "failed"),
    ("passed", "passed"),
    ("not evaluated", "not_evaluated"),
]
_MARKS = {"failed": "✗", "passed": "✓", "not_evaluated": "–"}
MARK_ORDER = {"fail": 0, "unsure": 1, "pass": 2}
"""Sort order of the mark column: fail, unsure, pass (unmarked rows last). Marks show as
their words (emoji fonts are missing on many Linux desktops)."""
_MARK_CSS = {"pass": "ae-pass", "fail": "ae-fail", "unsure": "ae-other"}


def status_mark(status: str) -> str:
    return _MARKS.get(status, "?")


class RunSource:
    """A run's case results as master–detail items (:class:`~.entries.Entry`).

    The list comes from the run's tables; a case result (and its eval case) is decoded when
    it is shown, or when a text search first reads it.
    """

    def __init__(self, run: RunRecord) -> None:
        self.run = run
        self.entries = build_entries(run)
        self.rubric_texts = metric_rubric_texts(run.metrics)
        names = {m.metric_name for m in run.metrics}
        for entry in self.entries:
            names.update(entry.metrics)
        self._metric_names = sorted(n for n in names if n)
        marks = marks_of(run)
        self.marks: dict[tuple[str, int | None], Mark] = {
            (m.eval_id, m.run_id): m for m in marks if not m.metric
        }
        self.human = HumanVerdicts(marks)
        self.has_samples = run.table("samples").height > 0
        self.mixed_samples = mixed_sample_cases(run) if self.has_samples else set()

    def metric_names(self) -> Sequence[str]:
        return self._metric_names

    def status_options(self) -> Sequence[tuple[str, str]]:
        return STATUS_OPTIONS

    def run_ids(self) -> Sequence[int]:
        return sorted({e.run_id for e in self.entries if e.run_id is not None})

    def filtered(
        self, metric: str, status: str, run_id: int | None, query: Query, sort: str
    ) -> list[Entry]:
        return filter_entries(
            self.entries,
            lambda position: case_search_fields(self.run.case_result(position)),
            metric=metric,
            status=status,
            run_id=run_id,
            query=query,
            sort=sort,
        )

    def key(self, item: Entry) -> tuple[str, int | None]:
        return item.eval_id, item.run_id

    def label(self, item: Entry, metric: str = "") -> str:
        """``✗ case_id · run 2 · 0.25``: status mark, id (cut at 40 characters), run, score —
        the metric's status and score under a metric filter."""
        status, score = status_and_score(item, metric) or ("", None)
        human = self.marks.get((item.eval_id, item.run_id))
        tail = f" · human: {human.mark}" if human else ""
        return f"{status_mark(status)} {plain(item.eval_id, 40)} · run {item.run_id} · " + (
            score_text(score, status, 3) + tail
        )

    def columns(self) -> list[TableColumn]:
        """status, run, case id, score, a score per metric; the human mark and whether a
        judge verdict differs from it once marks exist; whether judge samples disagree when
        the run has samples."""
        columns = [
            TableColumn("status", "status", title="✗ failed · ✓ passed · – not evaluated"),
            TableColumn("run", "run", numeric=True),
            TableColumn("id", "case id"),
            TableColumn("score", "score", numeric=True, title="the case's score"),
            *(
                TableColumn(
                    f"metric:{name}", plain(name), numeric=True, title=f"{plain(name)}: score"
                )
                for name in self._metric_names
            ),
        ]
        if self.marks or self.human.own:
            columns.append(TableColumn("human", "mark", title="the human mark of the case"))
            columns.append(
                TableColumn(
                    "judge_vs_human",
                    "≠ human",
                    title="some metric's verdict differs from the human mark",
                )
            )
        if self.has_samples:
            columns.append(
                TableColumn(
                    "samples",
                    "≠ samples",
                    title="the judge samples of some metric disagree (pass and fail)",
                )
            )
        return columns

    def cell(self, item: Entry, column: str, metric: str = "") -> Cell:
        """The cell of ``item`` in ``column``; under a metric filter, status and score are the
        metric's."""
        if column in ("status", "score"):
            status, score = status_and_score(item, metric) or ("", None)
            if column == "status":
                return Cell(status_mark(status), status_class(status), status_value(status))
            return Cell(score_text(score, status, 3), status_class(status), score)
        if column == "run":
            return Cell(str(item.run_id or ""), "", item.run_id)
        if column == "id":
            return Cell(plain(item.eval_id), "", item.eval_id)
        if column.startswith("metric:"):
            found = item.metrics.get(column.removeprefix("metric:"))
            if found is None:
                return Cell("")
            return Cell(score_text(found[1], found[0], 3), status_class(found[0]), found[1])
        if column == "human":
            human = self.mark_of(item)
            if human is None:
                return Cell("")
            return Cell(human, _MARK_CSS[human], MARK_ORDER[human])
        if column == "judge_vs_human":
            return flag_cell(self.judge_vs_human(item))
        if column == "samples":
            return flag_cell((item.run_id, item.eval_id) in self.mixed_samples)
        raise KeyError(f"no column {column!r}")

    def judge_vs_human(self, item: Entry) -> bool | None:
        """Whether a metric's verdict differs from the human's (None: no human verdict)."""
        statuses = {name: status for name, (status, _score) in item.metrics.items()}
        return self.human.disagrees(item.run_id, item.eval_id, statuses)

    def mark_of(self, item: Entry) -> str | None:
        """The human mark of the whole case result, if any."""
        human = self.marks.get((item.eval_id, item.run_id))
        return human.mark if human else None

    def mark(
        self,
        eval_id: str,
        run_id: int,
        mark: str,
        note: str | None = None,
        metric: str | None = None,
    ) -> Mark:
        """Keep a human mark of a case result (:func:`~agenteval_nb.analysis.reviews.add_mark`)."""
        kept = add_mark(self.run, eval_id, run_id, mark, note, metric)
        if metric is None:
            self.marks[(eval_id, run_id)] = kept
        self.human.add(kept)
        return kept

    def frame(self, items: Sequence[Entry]) -> pl.DataFrame:
        """The cases-table rows of ``items`` in list order, plus a score column per metric
        (``score:<metric>``), the human mark of the case result (``human_mark``), whether a
        metric's verdict differs from the human's (``judge_vs_human``, null without a human
        verdict) and whether a metric's judge samples disagree (``samples_disagree``)."""
        positions = [item.position for item in items]
        cases = self.run.table("cases")[positions] if positions else self.run.table("cases")[:0]
        scores = {
            f"score:{name}": [item.metrics.get(name, ("", None))[1] for item in items]
            for name in self._metric_names
        }
        human = [self.mark_of(item) for item in items]
        judge_vs_human = [self.judge_vs_human(item) for item in items]
        samples = [(item.run_id, item.eval_id) in self.mixed_samples for item in items]
        extra = pl.DataFrame(
            {
                **scores,
                "human_mark": human,
                "judge_vs_human": judge_vs_human,
                "samples_disagree": samples,
            },
            schema={
                **dict.fromkeys(scores, COLUMNS["score"].dtype),
                "human_mark": COLUMNS["mark"].dtype,
                "judge_vs_human": pl.Boolean,
                "samples_disagree": pl.Boolean,
            },
        )
        return pl.concat([cases, extra], how="horizontal")

    def render(self, item: Entry) -> Markup:
        return render_case(
            self.run.case_result(item.position),
            evalset_case=self.run.eval_case(item.eval_id),
            rubric_texts=self.rubric_texts,
        )


def inspect_run(run: RunRecord, *, page_size: int = PAGE_SIZE) -> MasterDetail:
    """The master–detail inspector of ``run`` (see :class:`~.master.MasterDetail`)."""
    title = f"eval set {plain(run.header.eval_set_id)} · {run.num_case_results}"
    return MasterDetail(
        RunSource(run),
        page_size=page_size,
        title=title + " case results",
        flags=flags_badges(record_flags(run)),
    )
