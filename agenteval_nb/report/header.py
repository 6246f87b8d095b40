"""What the report's header states: the eval set, the metrics and judges, the run
configuration (secrets redacted), and how many judgements the offline heuristic judge made."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..analysis.capture import capture_rows
from ..analysis.passk import num_runs
from ..analysis.record import RunRecord, case_metric_rows
from ..schema import EvalCaseResult, EvalMetric, EvalMetricResult
from .redact import redact


@dataclass
class MetricRow:
    """One metric of the header table."""

    name: str
    evaluator: str
    threshold: float | None
    kind: str
    judge: str
    config: Any
    heuristic_judgements: int = 0


@dataclass
class Header:
    """The header's facts (see module docstring)."""

    eval_set_ids: list[str]
    result_id: str
    created: str
    n_case_results: int
    n_runs: int
    metrics: list[MetricRow]
    judge_models: list[tuple[str, int]]
    heuristic_judgements: int
    total_judgements: int
    configuration: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    capture: list[dict[str, Any]] = field(default_factory=list)
    """the capture report's rows (:func:`~agenteval_nb.analysis.capture.capture_rows`)"""


def _kind(metric: EvalMetric | EvalMetricResult) -> str:
    crit = metric.criterion
    if crit is None:
        return "custom"
    kinds = [
        name
        for name, value in (
            ("tool trajectory", crit.tool_trajectory),
            ("final response", crit.final_response),
            ("LLM judge", crit.llm_judge),
        )
        if value is not None
    ]
    return ", ".join(kinds) or "custom"


def _judge_model(metric: EvalMetric | EvalMetricResult) -> str:
    llm = metric.criterion.llm_judge if metric.criterion is not None else None
    model = llm.judge_model if llm is not None else None
    if model is None:
        return ""
    parts = [p for p in (model.provider_name, model.model_name, model.variant) if p]
    shown = "/".join(parts)
    if model.num_samples:
        shown += f" × {model.num_samples} samples"
    return shown


def _judgements(run: RunRecord) -> tuple[Counter[str], Counter[str], int]:
    """Heuristic judgements per metric, judgements per judge model, and all judgements: the
    turn results with a judge record (``n_samples`` set in the invocations table)."""
    judged = run.table("invocations").filter(pl.col("n_samples").is_not_null())
    heuristic: Counter[str] = Counter()
    models: Counter[str] = Counter()
    for name, model, is_heuristic in judged.select(
        "metric_name", "judge_model", "heuristic"
    ).iter_rows():
        models[model or "unknown model"] += 1
        if is_heuristic:
            heuristic[name or ""] += 1
    return heuristic, models, judged.height


def _definitions(run: RunRecord) -> list[EvalMetric | EvalMetricResult]:
    """``run.metrics``, then each other metric of the case results as its first result (the
    case result holding it is decoded; one decode per such case)."""
    definitions: list[EvalMetric | EvalMetricResult] = list(run.metrics)
    known = {m.metric_name for m in definitions}
    first: dict[str, int] = {}
    for position, metrics in enumerate(case_metric_rows(run, ("metric_name",))):
        for (name,) in metrics:
            if name not in known and name not in first:
                first[name] = position
    decoded: dict[int, EvalCaseResult] = {}
    for name, position in first.items():
        if position not in decoded:
            decoded[position] = run.case_result(position)
        results = decoded[position].overall_eval_metric_results or ()
        definitions.append(next(m for m in results if m.metric_name == name))
    return definitions


def _created(timestamp: float | None) -> str:
    if not timestamp:
        return ""
    try:
        moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _capture(run: RunRecord) -> list[dict[str, Any]]:
    """The capture report's rows: the evaluation's (``info["capture"]``), else read from the
    turns of a record whose results are decoded already (a streamed one would decode them
    all: its report has the rows in each case's view only)."""
    rows = (run.info or {}).get("capture")
    if isinstance(rows, list):
        return rows
    return [] if run.streaming else capture_rows(run)


def build_header(run: RunRecord) -> Header:
    """The header of the run record ``run``."""
    result = run.header
    heuristic, models, total = _judgements(run)
    definitions = _definitions(run)
    rows = []
    for metric in definitions:
        name = metric.metric_name or ""
        evaluator = metric.evaluator_key if isinstance(metric, EvalMetric) else name
        crit = metric.criterion.to_wire() if metric.criterion is not None else None
        rows.append(
            MetricRow(
                name=name,
                evaluator=evaluator,
                threshold=metric.threshold,
                kind=_kind(metric),
                judge=_judge_model(metric),
                config=redact(crit) if crit else None,
                heuristic_judgements=heuristic.get(name, 0),
            )
        )
    config: dict[str, Any] = {}
    if run.app_name:
        config["app name"] = run.app_name
    runs = num_runs(run)
    config["runs"] = runs
    if run.elapsed_s is not None:
        config["elapsed"] = f"{run.elapsed_s:.1f} s"
    for key, value in (run.info or {}).items():
        if key != "capture":  # a section of its own
            config[str(key)] = value
    set_ids = run.eval_set_ids() or [result.eval_set_id or ""]
    return Header(
        eval_set_ids=list(dict.fromkeys(set_ids)),
        result_id=result.eval_set_result_id or "",
        created=_created(result.creation_timestamp),
        n_case_results=run.num_case_results,
        n_runs=runs,
        metrics=rows,
        judge_models=sorted(models.items()),
        heuristic_judgements=sum(heuristic.values()),
        total_judgements=total,
        configuration=redact(config),
        warnings=list(run.warnings),
        capture=_capture(run),
    )
