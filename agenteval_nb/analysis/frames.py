"""Flat tables of an evaluation result, one per level, built column-wise with polars.

Every frame is built from the result model in one walk (lists per column, no per-row dicts),
turned into a ``pl.DataFrame`` with a fixed schema (an empty run gives the same columns and
dtypes with zero rows) and, for ``backend="pandas"``, converted with ``.to_pandas()`` (pyarrow).
``backend=None`` means ``ae.config.backend``.

Levels: ``cases`` (run_id, eval_id), ``metrics`` (+ metric_name: a case's overall metric
result), ``invocations`` (+ invocation_index, metric_name: a turn's metric result), ``rubrics``
(+ rubric_id), ``samples`` (+ sample_index: one judge call), ``logprobs`` (+ sample_index,
candidate, label).

Reading rules. Go omits zero values, so an absent ``score`` of a passed/failed metric result
reads as 0 (null when not evaluated), an absent ``threshold`` as 0 and an absent rubric score as
0. An absent case ``score`` reads as the default case aggregator's value, 1 when the case passed
and 0 when it failed (files older than case scores have none; null when not evaluated).

Judge columns come from the ``judge`` extra (:class:`~agenteval_nb.schema.extras.JudgeRecord`)
and are null for results without one (deterministic metrics, Go-written files), except
``judge_model``, which falls back to the ``judgeModel.modelName`` of the result's criterion.
``evaluator`` is the metric's ``evaluatorName`` or ``metricName`` when the metric is known
(``run.metrics``), else the evaluator named in the judge record, else null. ``rubric_text``
comes from the result's criterion, the case rubrics of the eval set, or the metric definition,
in that order.

Columns, their dtypes and meanings: :mod:`.columns` (declared once; ``docs/frames.md``
holds the generated table).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from ..io import utf8_safe
from ..schema import EvalMetric, EvalMetricResult, EvalSet, EvalSetResult, EvalStatus, Invocation
from ..schema.extras import JUDGE_KEY, VERIFIER_KEY, JudgeRecord, judge_record, verifier_record
from ..settings import config
from .columns import COLUMNS, SCHEMAS, STRS

_STR = pl.String()
_INT = pl.Int64()
_F64 = pl.Float64()
_BOOL = pl.Boolean
_STRS = STRS
_PA_STRS = pa.list_(pa.string())


def _pick(*names: str) -> dict[str, pl.DataType]:
    return {name: COLUMNS[name].dtype for name in names}


CASES_SCHEMA = SCHEMAS["cases"]
METRICS_SCHEMA = SCHEMAS["metrics"]
INVOCATIONS_SCHEMA = SCHEMAS["invocations"]
RUBRICS_SCHEMA = SCHEMAS["rubrics"]
SAMPLES_SCHEMA = SCHEMAS["samples"]
LOGPROBS_SCHEMA = SCHEMAS["logprobs"]
_INVOCATION_KEY = _pick("run_id", "eval_id", "invocation_index", "invocation_id")
_TURN_SCHEMA = {
    **_INVOCATION_KEY,
    **_pick("user_text", "actual_text", "expected_text", "actual_tools", "expected_tools"),
}
_RESULT_SCHEMA = _pick("metric_name", "score", "threshold", "status", "reason")
_JUDGE_SCHEMA: dict[str, pl.DataType] = {
    "judge_evaluator": _STR,
    **_pick(
        "judge_model",
        "heuristic",
        "n_samples",
        "cache_hits",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
    ),
}

_SCALE = tuple("ABCDEFGHIJKLMNOPQRST")
_EVALUATED = ("passed", "failed")


class ResultView(Protocol):
    """What the table builders read: a result model, the metrics and the eval sets (a
    :class:`~.record.RunRecord`, or a :class:`TableInput` over a batch of case results)."""

    @property
    def result(self) -> EvalSetResult: ...

    @property
    def metrics(self) -> Sequence[EvalMetric]: ...

    @property
    def evalsets(self) -> Sequence[EvalSet]: ...


class HoldsTables(Protocol):
    """What the functions over built tables read: ``table(kind)``, the frame table of a kind (a
    :class:`~.record.RunRecord`, which builds its tables with :data:`BUILDERS`)."""

    def table(self, kind: str) -> pl.DataFrame: ...


@dataclass(slots=True)
class TableInput:
    """A plain :class:`ResultView`."""

    result: EvalSetResult
    metrics: Sequence[EvalMetric]
    evalsets: Sequence[EvalSet]


# -- helpers --------------------------------------------------------------------------------------


def resolve_backend(backend: str | None) -> str:
    """``backend``, or ``ae.config.backend`` when None; rejects anything but pandas/polars."""
    chosen = config.backend if backend is None else backend
    if chosen not in ("pandas", "polars"):
        raise ValueError(f'backend must be "pandas" or "polars", got {chosen!r}')
    return chosen


def to_backend(df: pl.DataFrame, backend: str | None) -> Any:
    """``df`` as is for polars, ``df.to_pandas()`` (via pyarrow) for pandas."""
    return df if resolve_backend(backend) == "polars" else df.to_pandas()


def _frame(columns: dict[str, list[Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``pl.DataFrame(columns, schema=schema)``; list-of-string columns go through pyarrow,
    which converts nested Python lists an order of magnitude faster than polars does.

    Frames hold UTF-8: a lone surrogate (half an emoji, valid in JSON) reads as U+FFFD."""
    try:
        return _frame_of(columns, schema)
    except UnicodeEncodeError:
        clean = {
            name: [_utf8_safe(v) for v in values] if schema[name] in (_STR, _STRS) else values
            for name, values in columns.items()
        }
        return _frame_of(clean, schema)


def _frame_of(columns: dict[str, list[Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    data: dict[str, Any] = dict(columns)
    for name, dtype in schema.items():
        if dtype == _STRS:
            data[name] = pl.from_arrow(pa.array(columns[name], type=_PA_STRS))
    return pl.DataFrame(data, schema=schema)


def _utf8_safe(value: Any) -> Any:
    if isinstance(value, str):
        return utf8_safe(value)
    if isinstance(value, list):
        return [_utf8_safe(v) for v in value]
    return value


def _score_read(score: pl.Expr, status: pl.Expr) -> pl.Expr:
    """Go omits a zero score: null score of a passed/failed result ⇒ 0."""
    return pl.when(score.is_null() & status.is_in(_EVALUATED)).then(0.0).otherwise(score)


def _evaluators(run: ResultView) -> dict[str, str]:
    return {m.metric_name: m.evaluator_key for m in run.metrics}


def _with_evaluator(df: pl.DataFrame, run: ResultView, fallback: str | None = None) -> pl.DataFrame:
    """Add ``evaluator`` from the run's metric definitions (else the ``fallback`` column)."""
    mapping = _evaluators(run)
    known = (
        pl.col("metric_name").replace_strict(mapping, default=None, return_dtype=_STR)
        if mapping
        else pl.lit(None, dtype=_STR)
    )
    expr = pl.coalesce(known, pl.col(fallback)) if fallback else known
    return df.with_columns(expr.alias("evaluator"))


def _cases(result: EvalSetResult) -> Sequence[Any]:
    return result.eval_case_results or ()


def _invocation_id(per: Any) -> str | None:
    actual: Invocation | None = per.actual_invocation
    if actual is not None and actual.invocation_id is not None:
        return actual.invocation_id
    expected: Invocation | None = per.expected_invocation
    return expected.invocation_id if expected is not None else None


TurnResult = tuple[int | None, str | None, int, str | None, EvalMetricResult]
"""(run_id, eval_id, invocation_index, invocation_id, metric result)."""


def _walk(result: EvalSetResult) -> Iterator[TurnResult]:
    """(run_id, eval_id, invocation_index, invocation_id, metric result) of every turn result."""
    for case in _cases(result):
        run_id, eval_id = case.run_id, case.eval_id
        for index, per in enumerate(case.eval_metric_result_per_invocation or ()):
            inv_id = _invocation_id(per)
            for m in per.eval_metric_results or ():
                yield run_id, eval_id, index, inv_id, m


def _criterion_judge_model(m: EvalMetricResult) -> str | None:
    crit = m.criterion
    if crit is None or crit.llm_judge is None or crit.llm_judge.judge_model is None:
        return None
    return crit.llm_judge.judge_model.model_name


def _extra_has(m: EvalMetricResult, key: str) -> bool:
    details = m.details
    if details is None:
        return False
    extra = details.__pydantic_extra__
    return extra is not None and key in extra


# -- cases and metrics ----------------------------------------------------------------------------


def cases_frame(run: ResultView) -> pl.DataFrame:
    """One row per case result (run_id, eval_id)."""
    cols: dict[str, list[Any]] = {name: [] for name in CASES_SCHEMA}
    run_ids, eval_ids, set_ids = cols["run_id"], cols["eval_id"], cols["eval_set_id"]
    statuses, scores, errors = cols["status"], cols["score"], cols["error"]
    n_turns, n_metrics = cols["n_turns"], cols["n_metrics"]
    sessions, users = cols["session_id"], cols["user_id"]
    for case in _cases(run.result):
        run_ids.append(case.run_id)
        eval_ids.append(case.eval_id)
        set_ids.append(case.eval_set_id)
        status = case.final_eval_status
        statuses.append(status)
        score = case.score
        if score is None and status in _EVALUATED:
            score = 1.0 if status == "passed" else 0.0
        scores.append(score)
        errors.append(case.error_message)
        n_turns.append(len(case.eval_metric_result_per_invocation or ()))
        n_metrics.append(len(case.overall_eval_metric_results or ()))
        sessions.append(case.session_id)
        users.append(case.user_id)
    return _frame(cols, CASES_SCHEMA)


def metrics_frame(run: ResultView) -> pl.DataFrame:
    """One row per overall metric result of a case result (run_id, eval_id, metric_name)."""
    cols: dict[str, list[Any]] = {name: [] for name in METRICS_SCHEMA if name != "evaluator"}
    run_ids, eval_ids, names = cols["run_id"], cols["eval_id"], cols["metric_name"]
    scores, thresholds, statuses, reasons = (
        cols["score"],
        cols["threshold"],
        cols["status"],
        cols["reason"],
    )
    for case in _cases(run.result):
        run_id, eval_id = case.run_id, case.eval_id
        for m in case.overall_eval_metric_results or ():
            run_ids.append(run_id)
            eval_ids.append(eval_id)
            names.append(m.metric_name)
            scores.append(m.score)
            thresholds.append(m.threshold)
            statuses.append(m.eval_status)
            details = m.details
            reasons.append(details.reason if details is not None else None)
    schema = {k: v for k, v in METRICS_SCHEMA.items() if k != "evaluator"}
    df = _frame(cols, schema).with_columns(
        _score_read(pl.col("score"), pl.col("status")).alias("score"),
        pl.col("threshold").fill_null(0.0),
    )
    return _with_evaluator(df, run).select(list(METRICS_SCHEMA))


# -- invocations ----------------------------------------------------------------------------------


def _judge_totals(record: JudgeRecord) -> tuple[int, int, int | None, int | None, float | None]:
    """n_samples, cache_hits, and token / latency sums over every call of the record."""
    samples = record.samples or ()
    hits = sum(1 for s in samples if s.cache_hit)
    prompt = completion = None
    latency = None
    for s in (*samples, *(record.extra_calls or ())):
        if s.prompt_tokens is not None:
            prompt = (prompt or 0) + s.prompt_tokens
        if s.completion_tokens is not None:
            completion = (completion or 0) + s.completion_tokens
        if s.latency_ms is not None:
            latency = (latency or 0.0) + s.latency_ms
    return len(samples), hits, prompt, completion, latency


def invocations_frame(run: ResultView) -> pl.DataFrame:
    """One row per turn metric result (run_id, eval_id, invocation_index, metric_name).

    Turn columns are collected once per turn and gathered onto its metric rows; judge columns
    are collected only for results that carry a judge record and gathered likewise.
    """
    turn: dict[str, list[Any]] = {name: [] for name in _TURN_SCHEMA}
    t_run, t_eval, t_index, t_id = (
        turn["run_id"].append,
        turn["eval_id"].append,
        turn["invocation_index"].append,
        turn["invocation_id"].append,
    )
    t_user, t_actual, t_expected = (
        turn["user_text"].append,
        turn["actual_text"].append,
        turn["expected_text"].append,
    )
    t_atools, t_etools = turn["actual_tools"].append, turn["expected_tools"].append

    res: dict[str, list[Any]] = {name: [] for name in _RESULT_SCHEMA}
    r_name, r_score, r_thr, r_status, r_reason = (
        res["metric_name"].append,
        res["score"].append,
        res["threshold"].append,
        res["status"].append,
        res["reason"].append,
    )
    turn_of_row: list[int] = []
    to_turn = turn_of_row.append

    judge: dict[str, list[Any]] = {name: [] for name in _JUDGE_SCHEMA}
    judge_rows: list[int] = []
    fallback_rows: list[int] = []
    fallback_models: list[str | None] = []

    # one C call per object instead of one attribute lookup per field
    turn_fields = attrgetter("actual_invocation", "expected_invocation", "eval_metric_results")
    inv_fields = attrgetter("invocation_id", "user_content", "final_response", "tools")
    result_fields = attrgetter(
        "metric_name", "score", "threshold", "eval_status", "details", "criterion"
    )

    row = 0
    turn_no = -1
    for case in _cases(run.result):
        run_id, eval_id = case.run_id, case.eval_id
        for index, per in enumerate(case.eval_metric_result_per_invocation or ()):
            turn_no += 1
            actual, expected, metric_results = turn_fields(per)
            t_run(run_id)
            t_eval(eval_id)
            t_index(index)
            if expected is not None:
                e_id, e_user, e_final, e_tools = inv_fields(expected)
                t_expected(e_final.content if e_final is not None else None)
                t_etools([t.name for t in e_tools] if e_tools else [])
            else:
                e_id = e_user = None
                t_expected(None)
                t_etools(None)
            if actual is not None:
                inv_id, msg, final, tools = inv_fields(actual)
                t_id(e_id if inv_id is None else inv_id)
                if msg is None:
                    msg = e_user
                t_actual(final.content if final is not None else None)
                t_atools([t.name for t in tools] if tools else [])
            else:
                msg = e_user
                t_id(e_id)
                t_actual(None)
                t_atools(None)
            t_user(msg.content if msg is not None else None)

            for m in metric_results or ():
                name, score, threshold, status, details, crit = result_fields(m)
                to_turn(turn_no)
                r_name(name)
                r_score(score)
                r_thr(threshold)
                r_status(status)
                if details is None:
                    r_reason(None)
                else:
                    r_reason(details.reason)
                    extra = details.__pydantic_extra__
                    if extra and JUDGE_KEY in extra:
                        record = judge_record(details)
                        if record is not None:
                            judge_rows.append(row)
                            _append_judge(judge, record)
                if crit is not None and crit.llm_judge is not None:
                    fallback_rows.append(row)
                    fallback_models.append(_criterion_judge_model(m))
                row += 1

    n = row
    turns = _frame(turn, _TURN_SCHEMA)
    results = _frame(res, _RESULT_SCHEMA)
    gathered = turns[pl.Series(turn_of_row, dtype=pl.UInt32)] if n else turns.clear()
    judged = _sparse(judge, _JUDGE_SCHEMA, judge_rows, n)
    criterion_model = _sparse(
        {"criterion_model": fallback_models}, {"criterion_model": _STR}, fallback_rows, n
    )
    df = pl.concat([gathered, results, judged, criterion_model], how="horizontal").with_columns(
        _score_read(pl.col("score"), pl.col("status")).alias("score"),
        pl.col("threshold").fill_null(0.0),
        pl.coalesce(pl.col("judge_model"), pl.col("criterion_model")).alias("judge_model"),
    )
    return _with_evaluator(df, run, fallback="judge_evaluator").select(list(INVOCATIONS_SCHEMA))


def _append_judge(judge: dict[str, list[Any]], record: JudgeRecord) -> None:
    n_samples, hits, prompt, completion, latency = _judge_totals(record)
    judge["judge_evaluator"].append(record.evaluator)
    judge["judge_model"].append(record.model)
    judge["heuristic"].append(record.heuristic)
    judge["n_samples"].append(n_samples)
    judge["cache_hits"].append(hits)
    judge["prompt_tokens"].append(prompt)
    judge["completion_tokens"].append(completion)
    judge["latency_ms"].append(latency)


def _sparse(
    columns: dict[str, list[Any]], schema: dict[str, pl.DataType], rows: list[int], n: int
) -> pl.DataFrame:
    """An ``n``-row frame holding ``columns`` at ``rows`` and nulls elsewhere."""
    small = _frame(columns, schema)
    if len(rows) == n:
        return small
    nulls = pl.DataFrame({k: [None] for k in schema}, schema=schema)
    small = pl.concat([small, nulls])
    index = np.full(n, len(rows), dtype=np.uint32)
    if rows:
        index[np.asarray(rows, dtype=np.int64)] = np.arange(len(rows), dtype=np.uint32)
    return small[pl.Series(index)]


# -- rubrics, samples, logprobs -------------------------------------------------------------------


def _no_rows(kind: str) -> pl.DataFrame:
    """The ``kind`` table without rows: what its builder gives for a result with nothing of
    that kind (most results, the deterministic ones all), without the polars work of a build."""
    return pl.DataFrame(schema=SCHEMAS[kind])


def _rubric_texts(
    run: ResultView,
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str, str], str]]:
    """Rubric text by (metric, rubric id) from the metric definitions, and by (case, metric, id)
    from the eval sets' case rubrics."""
    by_metric: dict[tuple[str, str], str] = {}
    for metric in run.metrics:
        crit = metric.criterion
        if crit is None or crit.llm_judge is None:
            continue
        for rubric in crit.llm_judge.rubrics or ():
            if rubric.id is not None and rubric.content is not None and rubric.content.text:
                by_metric[(metric.metric_name, rubric.id)] = rubric.content.text
    by_case: dict[tuple[str, str, str], str] = {}
    for evalset in run.evalsets:
        for case in evalset.eval_cases or ():
            for case_rubric in case.rubrics or ():
                rid, content = case_rubric.id, case_rubric.content
                if rid is None or content is None or not content.text:
                    continue
                by_case[(case.eval_id, case_rubric.metric_name or "", rid)] = content.text
    return by_metric, by_case


def _criterion_rubrics(m: EvalMetricResult) -> dict[str, str]:
    crit = m.criterion
    if crit is None or crit.llm_judge is None:
        return {}
    return {
        r.id: r.content.text
        for r in crit.llm_judge.rubrics or ()
        if r.id is not None and r.content is not None and r.content.text
    }


def rubrics_frame(run: ResultView) -> pl.DataFrame:
    """One row per rubric score of a turn metric result."""
    names = [k for k in RUBRICS_SCHEMA if k != "evaluator"]
    cols: dict[str, list[Any]] = {name: [] for name in names}
    by_metric, by_case = _rubric_texts(run)
    for run_id, eval_id, index, inv_id, m in _walk(run.result):
        details = m.details
        if details is None or not details.rubric_scores:
            continue
        own = _criterion_rubrics(m)
        name = m.metric_name or ""
        for rubric in details.rubric_scores:
            rid = rubric.id
            text = None
            if rid is not None:
                text = (
                    own.get(rid)
                    or by_case.get((eval_id or "", name, rid))
                    or by_metric.get((name, rid))
                )
            cols["run_id"].append(run_id)
            cols["eval_id"].append(eval_id)
            cols["invocation_index"].append(index)
            cols["invocation_id"].append(inv_id)
            cols["metric_name"].append(m.metric_name)
            cols["rubric_id"].append(rid)
            cols["score"].append(0.0 if rubric.score is None else rubric.score)
            cols["reason"].append(rubric.reason)
            cols["rubric_text"].append(text)
    if not cols["run_id"]:
        return _no_rows("rubrics")
    df = _frame(cols, {k: RUBRICS_SCHEMA[k] for k in names})
    return _with_evaluator(df, run).select(list(RUBRICS_SCHEMA))


def samples_frame(run: ResultView) -> pl.DataFrame:
    """One row per judge call (scored sample or extra call) of a turn metric result."""
    names = [*(k for k in SAMPLES_SCHEMA if k != "evaluator"), "judge_evaluator"]
    cols: dict[str, list[Any]] = {name: [] for name in names}
    for run_id, eval_id, index, inv_id, m in _walk(run.result):
        if not _extra_has(m, JUDGE_KEY):
            continue
        record = judge_record(m.details)
        if record is None:
            continue
        model = record.model or _criterion_judge_model(m)
        calls = [("extra", s) for s in record.extra_calls or ()]
        calls.extend(("sample", s) for s in record.samples or ())
        for kind, s in calls:
            cols["run_id"].append(run_id)
            cols["eval_id"].append(eval_id)
            cols["invocation_index"].append(index)
            cols["invocation_id"].append(inv_id)
            cols["metric_name"].append(m.metric_name)
            cols["judge_evaluator"].append(record.evaluator)
            cols["judge"].append(s.judge or model)
            cols["call"].append(kind)
            cols["sample_index"].append(s.sample_index)
            cols["score"].append(s.score)
            cols["status"].append(s.status)
            cols["reason"].append(s.reason)
            cols["chosen"].append(s.chosen)
            cols["cache_hit"].append(s.cache_hit)
            cols["batch"].append(bool(s.batch))
            p, c = s.prompt_tokens, s.completion_tokens
            cols["tokens"].append(None if p is None and c is None else (p or 0) + (c or 0))
            cols["prompt_tokens"].append(p)
            cols["completion_tokens"].append(c)
            cols["latency_ms"].append(s.latency_ms)
            cols["cost_usd"].append(s.cost_usd)
            cols["error"].append(s.error)
            cols["judge_model"].append(model)
            cols["heuristic"].append(record.heuristic)
            cols["raw"].append(s.raw)
    if not cols["run_id"]:
        return _no_rows("samples")
    schema = {k: SAMPLES_SCHEMA.get(k, _STR) for k in names}
    df = _frame(cols, schema)
    return _with_evaluator(df, run, fallback="judge_evaluator").select(list(SAMPLES_SCHEMA))


def logprobs_frame(run: ResultView) -> pl.DataFrame:
    """One row per (turn metric result, verifier sample, candidate, label)."""
    names = [k for k in LOGPROBS_SCHEMA if k != "evaluator"]
    cols: dict[str, list[Any]] = {name: [] for name in names}
    for run_id, eval_id, index, inv_id, m in _walk(run.result):
        if not _extra_has(m, VERIFIER_KEY):
            continue
        record = verifier_record(m.details)
        if record is None:
            continue
        judged = judge_record(m.details)
        model = (judged.model if judged is not None else None) or _criterion_judge_model(m)
        for sample in record.samples or ():
            for candidate, dist in (("A", sample.a), ("B", sample.b)):
                if dist is None or not dist.probs:
                    continue
                labels = dist.labels or _SCALE[: len(dist.probs)]
                for label, prob in zip(labels, dist.probs, strict=False):
                    cols["run_id"].append(run_id)
                    cols["eval_id"].append(eval_id)
                    cols["invocation_index"].append(index)
                    cols["invocation_id"].append(inv_id)
                    cols["metric_name"].append(m.metric_name)
                    cols["judge"].append(sample.judge or model)
                    cols["sample_index"].append(sample.sample_index)
                    cols["candidate"].append(candidate)
                    cols["label"].append(label)
                    cols["prob"].append(prob)
                    cols["expected_score"].append(dist.expected_score)
                    cols["sampled_label"].append(dist.sampled_label)
                    cols["valid_mass"].append(dist.valid_mass)
                    cols["entropy"].append(dist.entropy)
                    cols["from_logprobs"].append(dist.from_logprobs)
                    cols["sample_score"].append(sample.score)
                    cols["swapped_score"].append(sample.swapped_score)
                    cols["swap_gap"].append(sample.swap_gap)
    if not cols["run_id"]:
        return _no_rows("logprobs")
    df = _frame(cols, {k: LOGPROBS_SCHEMA[k] for k in names})
    return _with_evaluator(df, run).select(list(LOGPROBS_SCHEMA))


BUILDERS = {
    "cases": cases_frame,
    "metrics": metrics_frame,
    "invocations": invocations_frame,
    "rubrics": rubrics_frame,
    "samples": samples_frame,
    "logprobs": logprobs_frame,
}
"""Frame kind → builder ``(ResultView) -> pl.DataFrame`` (a walk of the result model)."""

JUDGE_KINDS = frozenset({"rubrics", "samples", "logprobs"})
"""The tables whose rows come only from an LLM judge's record in a turn result's details: a
result of deterministic metrics has no rows in them."""


# -- across runs ----------------------------------------------------------------------------------


def passes_expr(score: pl.Expr, threshold: pl.Expr) -> pl.Expr:
    """:func:`agenteval_nb.schema.status.passes` as a polars expression — its only columnar
    copy (a test pins the two together): a finite score at or above the threshold (null ⇒ 0).
    Polars orders NaN above every number, so a bare ``score >= threshold`` would pass NaN."""
    return (
        score.is_not_null() & score.is_finite() & (score >= threshold.fill_null(0.0))
    ).fill_null(False)


def combine_runs_exprs(score: pl.Expr, status: pl.Expr, threshold: pl.Expr) -> list[pl.Expr]:
    """:func:`agenteval_nb.schema.status.combine_runs` as ``group_by`` aggregations — its only
    columnar copy (a test pins the two together): ``score`` = mean of the evaluated runs (status
    not not_evaluated, a null score read as 0), ``threshold`` = the first evaluated run's,
    ``n_runs`` = evaluated runs, ``status`` = not_evaluated without them, else
    :func:`passes_expr` of the mean."""
    evaluated = status.ne_missing(pl.lit(EvalStatus.NOT_EVALUATED.value))
    mean = score.fill_null(0.0).filter(evaluated).mean()
    first_threshold = threshold.filter(evaluated).first()
    n_runs = evaluated.sum().cast(_INT)
    combined = (
        pl.when(n_runs == 0)
        .then(pl.lit(EvalStatus.NOT_EVALUATED.value))
        .when(passes_expr(mean, first_threshold))
        .then(pl.lit(EvalStatus.PASSED.value))
        .otherwise(pl.lit(EvalStatus.FAILED.value))
    )
    return [
        mean.alias("score"),
        first_threshold.alias("threshold"),
        combined.alias("status"),
        n_runs.alias("n_runs"),
    ]


def across_runs_frame(record: HoldsTables, by: str = "case") -> pl.DataFrame:
    """One row per key over all runs: ``by="case"`` keys ``(eval_id, metric_name)`` (overall
    metric results), ``by="invocation"`` keys ``(eval_id, invocation_index, metric_name)``.

    SPEC §8.7 for every reader (``compare``, ``summary_df``, the report), by
    :func:`combine_runs_exprs`: ``score``, ``threshold``, ``status``, ``n_runs`` (evaluated
    runs) and ``passed`` = ``status == "passed"``; rows in first-seen key order.
    """
    if by not in ("case", "invocation"):
        raise ValueError(f'by must be "case" or "invocation", got {by!r}')
    if by == "case":
        keys, rows = ["eval_id", "metric_name"], record.table("metrics")
    else:
        keys, rows = ["eval_id", "invocation_index", "metric_name"], record.table("invocations")
    reduced = rows.group_by(keys, maintain_order=True).agg(
        combine_runs_exprs(pl.col("score"), pl.col("status"), pl.col("threshold"))
    )
    return reduced.with_columns(
        (pl.col("status") == EvalStatus.PASSED.value).alias("passed")
    ).select([*keys, "score", "threshold", "status", "passed", "n_runs"])


def frame(record: HoldsTables, kind: str, backend: str | None = None) -> Any:
    """The ``kind`` table of the record (its ``table(kind)``) in ``backend``."""
    if kind not in BUILDERS:
        known = sorted(BUILDERS)
        raise ValueError(f"unknown frame kind {kind!r}; expected one of {known}")
    resolve_backend(backend)
    return to_backend(record.table(kind), backend)
