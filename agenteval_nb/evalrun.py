"""``EvalRun``: the front door of a run record — one line per method into the room that owns
the work.

The data is ``run.record`` (:class:`~agenteval_nb.analysis.record.RunRecord`: the result, what
was evaluated, the frame tables). Frames are selects from its tables
(:mod:`~agenteval_nb.analysis.frames`), statistics and pass@k are functions of the record
(:mod:`~agenteval_nb.analysis.stats`, :mod:`~agenteval_nb.analysis.passk`), the headline numbers
and texts are :mod:`~agenteval_nb.analysis.headline`, comparison is
:func:`~agenteval_nb.analysis.paired.compare_records` and the report
:func:`agenteval_nb.report.export_html`. Every one of them takes the record, never this class.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .analysis import capture, costs, headline, passk, reviews, stats
from .analysis.frames import frame, to_backend
from .analysis.paired import Comparison, compare_records
from .analysis.record import HoldsRecord, RunRecord, record_of
from .engine.aggregate import aggregate_case_runs
from .report import export_html
from .schema import CaseSummary, EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult


class EvalRun:
    """An evaluation result ready for analysis; ``record`` holds the data.

    ``EvalRun(result=..., evalsets=..., metrics=...)`` builds a model record of a result (the
    fields of :class:`~agenteval_nb.analysis.record.RunRecord`); ``EvalRun(record=...)`` is the
    front door of an existing record.
    """

    def __init__(
        self,
        result: EvalSetResult | None = None,
        evalsets: Sequence[EvalSet] = (),
        metrics: Sequence[EvalMetric] = (),
        warnings: Sequence[str] = (),
        app_name: str = "",
        elapsed_s: float | None = None,
        info: dict[str, Any] | None = None,
        *,
        record: RunRecord | None = None,
    ) -> None:
        if record is None:
            record = RunRecord(result, evalsets, metrics, warnings, app_name, elapsed_s, info)
        self.record = record

    # -- the record's data (see RunRecord) ------------------------------------------------------

    @property
    def result(self) -> EvalSetResult:
        """The result model (a streamed record decodes every case result once, here)."""
        return self.record.result

    @result.setter
    def result(self, value: EvalSetResult) -> None:
        self.record.result = value

    @property
    def header(self) -> EvalSetResult:
        """The result without its case results (ids, timestamp, summary)."""
        return self.record.header

    @property
    def streaming(self) -> bool:
        """True while the case results are held as file text (nothing decoded in bulk)."""
        return self.record.streaming

    @property
    def num_case_results(self) -> int:
        return self.record.num_case_results

    def case_result(self, index: int) -> EvalCaseResult:
        """Case result ``index`` (row ``index`` of the cases table), decoded alone."""
        return self.record.case_result(index)

    def case_results(self) -> Iterator[EvalCaseResult]:
        """Every case result in order, one decoded at a time."""
        return self.record.case_results()

    def case_summaries(self) -> Iterator[CaseSummary]:
        """The summary's case summaries (a streamed record builds them one at a time)."""
        return self.record.case_summaries()

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the result file atomically (Go format, readable by trpc-agent-go); marks held
        in memory go to its review file (:func:`.analysis.reviews.save_run`)."""
        return reviews.save_run(self.record, path)

    @property
    def evalsets(self) -> list[EvalSet]:
        """The eval sets evaluated."""
        return self.record.evalsets

    @evalsets.setter
    def evalsets(self, value: Sequence[EvalSet]) -> None:
        self.record.evalsets = value

    @property
    def evalset(self) -> EvalSet | None:
        """The (first) eval set evaluated, if known."""
        return self.record.evalsets[0] if self.record.evalsets else None

    def eval_set_ids(self) -> list[str]:
        """Ids of the eval sets evaluated (none decoded)."""
        return self.record.eval_set_ids()

    def eval_case(self, eval_id: str) -> EvalCase | None:
        """The eval case ``eval_id`` of the first eval set that holds it (validated alone)."""
        return self.record.eval_case(eval_id)

    @property
    def metrics(self) -> list[EvalMetric]:
        """The metrics evaluated (empty when loaded from a bare result file)."""
        return self.record.metrics

    @metrics.setter
    def metrics(self, value: list[EvalMetric]) -> None:
        self.record.metrics = value

    @property
    def warnings(self) -> list[str]:
        """What the run wants the user to see (e.g. a skipped metric)."""
        return self.record.warnings

    @warnings.setter
    def warnings(self, value: list[str]) -> None:
        self.record.warnings = value

    @property
    def app_name(self) -> str:
        return self.record.app_name

    @app_name.setter
    def app_name(self, value: str) -> None:
        self.record.app_name = value

    @property
    def elapsed_s(self) -> float | None:
        return self.record.elapsed_s

    @elapsed_s.setter
    def elapsed_s(self, value: float | None) -> None:
        self.record.elapsed_s = value

    @property
    def info(self) -> dict[str, Any]:
        """Run information: judge and agent usage, the source file, saved result id …"""
        return self.record.info

    @info.setter
    def info(self, value: dict[str, Any]) -> None:
        self.record.info = value

    def table(self, kind: str) -> Any:
        """The ``kind`` frame table (polars), built on first read and kept."""
        return self.record.table(kind)

    def clear_tables(self) -> None:
        """Forget every built table (after editing the result model in place)."""
        self.record.clear_tables()

    # -- frames (columns: agenteval_nb.analysis.columns) ----------------------------------------

    def cases_df(self, backend: str | None = None) -> Any:
        """One row per case result: ``run_id``, ``eval_id``, ``status``, ``score``, ``error`` …"""
        return frame(self.record, "cases", backend)

    def metrics_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, metric_name): the case's overall metric result."""
        return frame(self.record, "metrics", backend)

    def invocations_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, invocation_index, metric_name): a turn's result."""
        return frame(self.record, "invocations", backend)

    def rubrics_df(self, backend: str | None = None) -> Any:
        """One row per rubric score of a turn's metric result."""
        return frame(self.record, "rubrics", backend)

    def samples_df(self, backend: str | None = None) -> Any:
        """One row per judge call (sample before aggregation, or extra call)."""
        return frame(self.record, "samples", backend)

    def logprobs_df(self, backend: str | None = None) -> Any:
        """One row per (turn result, verifier sample, candidate A/B, label A..T)."""
        return frame(self.record, "logprobs", backend)

    def cost_df(self, prices: Mapping[str, Any] | None = None, backend: str | None = None) -> Any:
        """Per judge model: calls, requests, cache hits, batched calls, tokens, $ and $ saved
        (:func:`.analysis.costs.cost_frame`; ``prices`` ``{model: (input, output)}`` per 1M
        tokens prices the calls again)."""
        return costs.cost_frame(self.record, prices, backend)

    def reviews_df(self, backend: str | None = None) -> Any:
        """One row per human mark: ids, ``metric``, ``mark``, ``note``, ``reviewer``,
        ``timestamp`` (:func:`.analysis.reviews.reviews_frame`)."""
        return reviews.reviews_frame(self.record, backend)

    def capture_df(self, backend: str | None = None) -> Any:
        """One row per case result: what was captured of the agent's turns (model calls,
        spans, tokens) and what was not, with a fix per problem
        (:func:`.analysis.capture.capture_frame`)."""
        return capture.capture_frame(self.record, backend)

    def mark(
        self,
        eval_id: str,
        run_id: int,
        mark: str,
        note: str | None = None,
        metric: str | None = None,
    ) -> reviews.Mark:
        """Mark a case result (or its ``metric``) ``pass`` / ``fail`` / ``unsure``; kept where
        the run's marks live: its result store, its review file, else memory until saved
        (:func:`.analysis.reviews.add_mark`)."""
        return reviews.add_mark(self.record, eval_id, run_id, mark, note, metric)

    # -- statistics -----------------------------------------------------------------------------

    @property
    def num_runs(self) -> int:
        """``summary.numRuns``, else the largest ``runId`` (:func:`.analysis.passk.num_runs`)."""
        return passk.num_runs(self.record)

    def pass_at_k_df(self, ks: Sequence[int] | None = None, backend: str | None = None) -> Any:
        """pass@k / pass^k per case, their mean, and the eval-set reference value
        (:func:`.analysis.passk.pass_at_k_frame`; ``ks`` defaults to ``1..num_runs``)."""
        return to_backend(passk.pass_at_k_frame(self.record, ks), backend)

    def summary_df(
        self,
        level: float = 0.95,
        cluster: str | Mapping[str, Any] | None = None,
        backend: str | None = None,
    ) -> Any:
        """Per metric: mean score with SE and normal CI, and pass rate with a Wilson CI, the
        case being the unit (:func:`.analysis.stats.summary_frame`)."""
        return to_backend(stats.summary_frame(self.record, level, cluster), backend)

    def compare(self, other: RunRecord | HoldsRecord, **kwargs: Any) -> Comparison:
        """Paired comparison with the run ``other`` (this run is A); see
        :func:`~.analysis.paired.compare_records` (``ae.compare`` also takes paths, results)."""
        return compare_records(self.record, record_of(other), **kwargs)

    def case_aggregates(self) -> list[Any]:
        """Every case across runs with its metrics aggregated (SPEC §8.7), eval-set order."""
        order = [c.eval_id for es in self.record.evalsets for c in es.eval_cases or ()]
        return aggregate_case_runs(self.record.result.eval_case_results or [], order)

    def case_status_counts(self) -> Counter[str]:
        """Case results per ``finalEvalStatus`` (all runs)."""
        return headline.case_status_counts(self.record)

    def metric_pass_rates(self) -> dict[str, tuple[int, int]]:
        """Metric name → (passed cases, evaluated cases), each case's runs averaged first (the
        unit of every pass rate shown: :data:`.analysis.headline.PASS_RATE_UNIT`)."""
        return headline.metric_pass_rates(self.record)

    def num_errored(self) -> int:
        """Case results that failed with an error message instead of a score."""
        return headline.num_errored(self.record)

    # -- views ----------------------------------------------------------------------------------

    def to_html(self, path: str | os.PathLike[str], **kwargs: Any) -> Path:
        """Write the single-file HTML report (see :func:`agenteval_nb.report.export_html`)."""
        return export_html(self.record, path, **kwargs)

    def summary_text(self) -> str:
        """A few plain-text lines with the headline numbers."""
        return headline.summary_text(self.record)

    def __repr__(self) -> str:
        return headline.run_repr(self.record)

    def _repr_html_(self) -> str:
        return headline.run_repr_html(self.record)
