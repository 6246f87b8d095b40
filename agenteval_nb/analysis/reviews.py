"""Human marks of a run (``ae.review``): set them, read them back as a frame, merge two
reviewers' files.

Where a run's marks live, decided here only (:func:`marks_of` reads, :func:`add_mark` writes):

1. a run loaded from a result store or evaluated into one (``record.stored_as``, set by
   :func:`keep_marks_in_store`) keeps them in that store, beside the stored result
   (:meth:`~agenteval_nb.stores.ResultStore.save_marks`);
2. else a run read from a result file keeps them in that file's review file
   (:func:`~agenteval_nb.io.reviews.review_path`, or ``record.info["review_file"]`` when set);
3. else they stay in ``record.marks`` until the run is saved (:func:`save_marks`,
   :func:`keep_marks_in_store`).

So they come back whenever the result is loaded again, on any machine. The rules of a kept
mark (one per key, last writer wins per mark, locked read-merge-write) are
:mod:`agenteval_nb.io.reviews` and the stores'.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..io.reviews import (
    MARKS,
    Mark,
    mark_fields,
    merge_marks,
    now_timestamp,
    read_marks,
    review_path,
    write_marks,
)
from ..settings import config
from ..stores.base import ResultStore, StoredResult
from .columns import SCHEMAS
from .frames import to_backend
from .record import RunRecord

__all__ = [
    "MARKS",
    "Mark",
    "ReviewMerge",
    "add_mark",
    "keep_marks_in_store",
    "marks_of",
    "merge",
    "read_marks",
    "review_file",
    "review_path",
    "reviews_frame",
    "save_marks",
    "save_run",
]

REVIEWS_SCHEMA = SCHEMAS["reviews"]


def review_file(record: RunRecord) -> Path | None:
    """The review file of ``record``: ``info["review_file"]``, else the review file beside the
    result file it was read from; None for a run without a file."""
    if record.info.get("review_file"):
        return Path(record.info["review_file"])
    source = record.info.get("source")
    if isinstance(source, str) and source.endswith(".json") and Path(source).is_file():
        return review_path(source)
    return None


def _kept(record: RunRecord) -> list[Mark]:
    """The marks kept for the run: in its store, else in its review file."""
    home = record.stored_as
    if home is not None:
        return home.store.load_marks(home.app_name, home.result_id)
    path = review_file(record)
    return read_marks(path) if path else []


def _keep(record: RunRecord, marks: list[Mark]) -> None:
    """Keep ``marks`` where the run's marks live: its store, its review file, or memory."""
    home = record.stored_as
    if home is not None:
        home.store.save_marks(home.app_name, home.result_id, marks)
        return
    path = review_file(record)
    if path is not None:
        write_marks(path, marks)
    else:
        record.marks = merge_marks(record.marks, marks)


def marks_of(record: RunRecord) -> list[Mark]:
    """Every mark of the run: those kept (store or review file) merged with those held in
    memory."""
    return merge_marks(_kept(record), record.marks)


def add_mark(
    record: RunRecord,
    eval_id: str,
    run_id: int,
    mark: str,
    note: str | None = None,
    metric: str | None = None,
    *,
    reviewer: str | None = None,
) -> Mark:
    """Mark case result (``eval_id``, ``run_id``) — or its metric ``metric`` — ``pass``,
    ``fail`` or ``unsure`` as ``reviewer`` (default ``ae.config.reviewer``) and keep the mark
    (the run's store, else its review file, else ``record.marks``). An unknown case result or
    metric is a ``KeyError``."""
    cases = record.table("cases").filter(
        (pl.col("eval_id") == eval_id) & (pl.col("run_id") == run_id)
    )
    if cases.height == 0:
        raise KeyError(f"no case result {eval_id!r} in run {run_id}")
    if metric is not None:
        metrics = record.table("metrics").filter(
            (pl.col("eval_id") == eval_id) & (pl.col("run_id") == run_id)
        )
        names = metrics["metric_name"].to_list()
        if metric not in names:
            raise KeyError(f"case result {eval_id!r} of run {run_id} has no metric {metric!r}")
    new = Mark(
        eval_set_id=cases["eval_set_id"][0] or "",
        eval_id=eval_id,
        run_id=run_id,
        metric=metric,
        mark=mark,
        note=note,
        reviewer=reviewer or config.reviewer,
        timestamp=now_timestamp(),
    )
    _keep(record, [new])
    return new


def save_run(record: RunRecord, path: str | os.PathLike[str]) -> Path:
    """Write the result file; marks held in memory go to its review file, which becomes the
    home of the run's later marks (a run whose marks live in a store keeps them there)."""
    written = record.save(path)
    if record.marks:
        save_marks(record, written)
    return written


def save_marks(record: RunRecord, result_path: str | os.PathLike[str]) -> Path:
    """Write the marks held in memory to the review file of ``result_path`` (after the run was
    saved there) and make it the run's review file."""
    path = review_path(result_path)
    write_marks(path, record.marks)
    record.info["review_file"] = str(path)
    record.marks = []
    return path


def keep_marks_in_store(
    record: RunRecord, store: ResultStore, app_name: str, result_id: str
) -> None:
    """Make stored result ``result_id`` of ``app_name`` the home of the run's marks: those held
    in memory move there, later ones go there, and loading it again brings them back."""
    record.stored_as = StoredResult(store, app_name, result_id)
    if record.marks:
        store.save_marks(app_name, result_id, record.marks)
        record.marks = []


def frame_of_marks(marks: list[Mark]) -> pl.DataFrame:
    """One row per mark, columns :data:`REVIEWS_SCHEMA` (``timestamp`` a UTC datetime)."""
    rows = [mark_fields(m) for m in marks]
    table = (
        pl.DataFrame(rows, schema={**REVIEWS_SCHEMA, "timestamp": pl.String}, orient="row")
        if rows
        else pl.DataFrame(schema={**REVIEWS_SCHEMA, "timestamp": pl.String})
    )
    return table.with_columns(
        pl.col("timestamp").str.to_datetime(
            "%Y-%m-%dT%H:%M:%S%.fZ", time_unit="us", time_zone="UTC"
        )
    ).select(list(REVIEWS_SCHEMA))


def reviews_frame(record: RunRecord, backend: str | None = None) -> Any:
    """``run.reviews_df()``: one row per mark of the run."""
    return to_backend(frame_of_marks(marks_of(record)), backend)


@dataclass(frozen=True)
class ReviewMerge:
    """Two review files as one: ``marks`` (last writer wins per mark) and ``conflicts``, one row
    per key the two files mark differently (``mark_a``, ``mark_b``, who, and the mark kept)."""

    marks: list[Mark]
    conflicts: pl.DataFrame

    def frame(self, backend: str | None = None) -> Any:
        return to_backend(frame_of_marks(self.marks), backend)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Merge the marks into review file ``path`` (under its lock)."""
        write_marks(path, self.marks)
        return Path(path)

    def __repr__(self) -> str:
        return f"ReviewMerge({len(self.marks)} marks, {self.conflicts.height} conflicts)"


_CONFLICT_SCHEMA = {
    "eval_set_id": pl.String,
    "eval_id": pl.String,
    "run_id": pl.Int64,
    "metric": pl.String,
    "mark_a": pl.String,
    "reviewer_a": pl.String,
    "mark_b": pl.String,
    "reviewer_b": pl.String,
    "kept": pl.String,
}


def merge(
    a: str | os.PathLike[str] | list[Mark], b: str | os.PathLike[str] | list[Mark]
) -> ReviewMerge:
    """``ae.review.merge(a, b)``: two reviewers' review files (paths or mark lists) combined,
    one mark per key (the later timestamp wins), with the keys where their marks differ."""
    marks_a = a if isinstance(a, list) else read_marks(a)
    marks_b = b if isinstance(b, list) else read_marks(b)
    merged = merge_marks(marks_a, marks_b)
    kept = {m.key: m for m in merged}
    by_key_b = {m.key: m for m in marks_b}
    rows = [
        (*m.key[:3], m.metric, m.mark, m.reviewer, other.mark, other.reviewer, kept[m.key].mark)
        for m in marks_a
        if (other := by_key_b.get(m.key)) is not None and other.mark != m.mark
    ]
    conflicts = pl.DataFrame(rows, schema=_CONFLICT_SCHEMA, orient="row")
    return ReviewMerge(merged, conflicts)
