"""``EvalRun``: the front door of a run record — one-liners into the rooms that own the work.

The data lives in :class:`~.record.RunRecord` (result, what was evaluated, cached frame tables);
frames are selects from its tables (:mod:`.frames`), statistics and pass@k are functions of the
record (:func:`.stats.summary_frame`, :func:`.passk.pass_at_k_frame`), comparison is
:func:`.compare.compare`. Modules that need a run take the record, never this class.
"""

from __future__ import annotations

import html
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ..engine.aggregate import aggregate_case_runs
from ..schema import EvalSet
from . import passk, stats
from .frames import frame, to_backend
from .paired import Comparison, compare_records
from .record import RunRecord, record_flags


class EvalRun(RunRecord):
    """An evaluation result ready for analysis (fields: :class:`~.record.RunRecord`)."""

    @property
    def evalset(self) -> EvalSet | None:
        """The (first) eval set evaluated, if known."""
        return self.evalsets[0] if self.evalsets else None

    @property
    def num_runs(self) -> int:
        """``summary.numRuns``, else the largest ``runId`` (see :func:`.passk.num_runs`)."""
        return passk.num_runs(self)

    def case_status_counts(self) -> Counter[str]:
        """Case results per ``finalEvalStatus`` (all runs)."""
        statuses = self.table("cases")["status"].fill_null("")
        return Counter(dict(statuses.value_counts().iter_rows()))

    def metric_pass_rates(self) -> dict[str, tuple[int, int]]:
        """Metric name → (passed, evaluated) over all case results of all runs (first-seen
        metric order)."""
        rows = (
            self.table("metrics")
            .group_by(pl.col("metric_name").fill_null(""), maintain_order=True)
            .agg(
                (pl.col("status") == "passed").sum().alias("passed"),
                (pl.col("status") != "not_evaluated").fill_null(True).sum().alias("evaluated"),
            )
        )
        return {name: (int(p), int(e)) for name, p, e in rows.iter_rows()}

    # -- frames (columns: agenteval_nb.analysis.frames) ---------------------------------------

    def cases_df(self, backend: str | None = None) -> Any:
        """One row per case result: ``run_id``, ``eval_id``, ``status``, ``score``, ``error`` …"""
        return frame(self, "cases", backend)

    def metrics_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, metric_name): the case's overall metric result."""
        return frame(self, "metrics", backend)

    def invocations_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, invocation_index, metric_name): a turn's result."""
        return frame(self, "invocations", backend)

    def rubrics_df(self, backend: str | None = None) -> Any:
        """One row per rubric score of a turn's metric result."""
        return frame(self, "rubrics", backend)

    def samples_df(self, backend: str | None = None) -> Any:
        """One row per judge call (sample before aggregation, or extra call)."""
        return frame(self, "samples", backend)

    def logprobs_df(self, backend: str | None = None) -> Any:
        """One row per (turn result, verifier sample, candidate A/B, label A..T)."""
        return frame(self, "logprobs", backend)

    # -- statistics ----------------------------------------------------------------------------

    def pass_at_k_df(self, ks: Sequence[int] | None = None, backend: str | None = None) -> Any:
        """pass@k / pass^k per case, their mean, and the eval-set reference value
        (:func:`.passk.pass_at_k_frame`; ``ks`` defaults to ``1..num_runs``)."""
        return to_backend(passk.pass_at_k_frame(self, ks), backend)

    def summary_df(
        self,
        level: float = 0.95,
        cluster: str | Mapping[str, Any] | None = None,
        backend: str | None = None,
    ) -> Any:
        """Per metric: mean score with SE and normal CI, and pass rate with a Wilson CI, the
        case being the unit (:func:`.stats.summary_frame`)."""
        return to_backend(stats.summary_frame(self, level, cluster), backend)

    def compare(self, other: RunRecord, **kwargs: Any) -> Comparison:
        """Paired comparison with the run ``other`` (this run is A); see
        :func:`~.paired.compare_records` (``ae.compare`` also takes paths and results)."""
        return compare_records(self, other, **kwargs)

    def case_aggregates(self) -> list[Any]:
        """Every case across runs with its metrics aggregated (SPEC §8.7), eval-set order."""
        order = [c.eval_id for es in self.evalsets for c in es.eval_cases or ()]
        return aggregate_case_runs(self.result.eval_case_results or [], order)

    def to_html(self, path: str | os.PathLike[str], **kwargs: Any) -> Path:
        """Write the single-file HTML report (see :func:`agenteval_nb.report.export_html`)."""
        from ..report import export_html

        return export_html(self, path, **kwargs)

    def summary_text(self) -> str:
        """A few plain-text lines with the headline numbers."""
        counts = self.case_status_counts()
        total = sum(counts.values())
        header = self.header
        summary = header.summary
        lines = [
            f"eval set {header.eval_set_id}: {total} case results "
            f"over {self.num_runs} run(s), "
            f"overall {summary.overall_status if summary else 'n/a'}",
            "cases: "
            + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("passed", "failed", "not_evaluated")),
        ]
        errored = self.num_errored()
        if errored:
            lines[1] += f" ({errored} with an error)"
        for name, (passed, evaluated) in self.metric_pass_rates().items():
            rate = f"{passed / evaluated:.1%}" if evaluated else "n/a"
            lines.append(f"  {name}: {passed}/{evaluated} passed ({rate})")
        lines.extend(f"note: {flag}" for flag in record_flags(self))
        lines.extend(f"warning: {w}" for w in self.warnings)
        return "\n".join(lines)

    def num_errored(self) -> int:
        """Case results that failed with an error message instead of a score."""
        errors = self.table("cases")["error"]
        return int((errors.is_not_null() & (errors != "")).sum())

    def __repr__(self) -> str:
        counts = self.case_status_counts()
        return (
            f"EvalRun(eval_set={self.header.eval_set_id!r}, runs={self.num_runs}, "
            f"cases={sum(counts.values())}, passed={counts.get('passed', 0)}, "
            f"failed={counts.get('failed', 0)}, errored={self.num_errored()}, "
            f"metrics={len(self.metric_pass_rates())}"
            + (f", offline={flags!r}" if (flags := record_flags(self)) else "")
            + ")"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{passed}/{evaluated}</td>"
            f"<td>{(passed / evaluated if evaluated else float('nan')):.1%}</td></tr>"
            for name, (passed, evaluated) in self.metric_pass_rates().items()
        )
        counts = self.case_status_counts()
        warn = "".join(f"<li>{html.escape(w)}</li>" for w in [*record_flags(self), *self.warnings])
        return (
            f"<div><b>EvalRun</b> {html.escape(str(self.header.eval_set_id))} — "
            f"{self.num_runs} run(s), {sum(counts.values())} case results: "
            f"{counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, "
            f"{counts.get('not_evaluated', 0)} not evaluated, {self.num_errored()} with an error"
            f"<table><tr><th>metric</th><th>passed</th><th>rate</th></tr>{rows}</table>"
            + (f"<ul>{warn}</ul>" if warn else "")
            + "</div>"
        )
