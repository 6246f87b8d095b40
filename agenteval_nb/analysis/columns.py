"""Frame columns, declared once: name, dtype, meaning, and the frames that hold them.

Everything else reads these declarations: the table builders in :mod:`.frames` (their
schemas, :data:`SCHEMAS`), the empty frames of an empty run, and the column table of
``docs/frames.md`` (:func:`columns_markdown`; a test keeps the file equal to it). Adding a
column means one entry in :data:`COLUMNS`, its name in the frame lists below, and its
extractor in the builder of its level.

Frames: C ``cases_df``, M ``metrics_df``, I ``invocations_df``, R ``rubrics_df``,
S ``samples_df``, L ``logprobs_df``, V ``reviews_df`` (human marks, :mod:`.reviews`),
K ``capture_df`` (the capture report, :mod:`.capture`: its counts are declared in
:mod:`agenteval_nb.agents.capture.report`).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..agents.capture.report import COUNTS, PROBLEMS

STRS = pl.List(pl.String)


@dataclass(frozen=True)
class Column:
    """One frame column: polars dtype and what a value means (the docs' wording)."""

    name: str
    dtype: pl.DataType
    doc: str


def _c(name: str, dtype: pl.DataType, doc: str) -> Column:
    return Column(name, dtype, doc)


_S, _I, _F, _B = pl.String(), pl.Int64(), pl.Float64(), pl.Boolean()

COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        _c("run_id", _I, "1-based run number (`runId`)"),
        _c("eval_id", _S, "case id (`evalId`)"),
        _c("eval_set_id", _S, "eval set id of the case result"),
        _c("metric_name", _S, "metric name"),
        _c("evaluator", _S, "evaluator name (`evaluatorName` or `metricName`)"),
        _c("invocation_index", _I, "0-based turn position in `evalMetricResultPerInvocation`"),
        _c("invocation_id", _S, "`invocationId` of the actual (else expected) invocation"),
        _c("rubric_id", _S, "rubric id"),
        _c(
            "call",
            _S,
            "`sample` (a scored judge sample) or `extra` (a call made before the samples, "
            "e.g. segmentation)",
        ),
        _c(
            "judge",
            _S,
            "the judge that answered: its name in a judge panel, else the judge model",
        ),
        _c("sample_index", _I, "judge sample number"),
        _c("candidate", _S, "`A` (actual response) or `B` (expected response)"),
        _c("label", _S, "verdict label, `A` (best) .. `T` (worst)"),
        _c("status", _S, "`passed`, `failed` or `not_evaluated`"),
        _c("score", _F, "score of the row's level (case, metric, turn, rubric, sample)"),
        _c("threshold", _F, "pass threshold (pass ⇔ score ≥ threshold)"),
        _c("reason", _S, "reason text of the judgement"),
        _c("error", _S, "case `errorMessage` / judge call error"),
        _c("n_turns", _I, "per-invocation entries of the case result"),
        _c("n_metrics", _I, "overall metric results of the case result"),
        _c("session_id", _S, "session id used for inference"),
        _c("user_id", _S, "user id used for inference"),
        _c("user_text", _S, "user message of the turn"),
        _c("actual_text", _S, "agent's final response (null when the invocation is absent)"),
        _c("expected_text", _S, "expected final response (null when absent)"),
        _c("actual_tools", STRS, "names of the tools the agent called, in order"),
        _c("expected_tools", STRS, "names of the expected tool calls, in order"),
        _c("judge_model", _S, "judge model name"),
        _c("heuristic", _B, "scored by the offline heuristic judge"),
        _c("n_samples", _I, "judge samples of the turn"),
        _c("cache_hits", _I, "judge samples answered from the cache"),
        _c(
            "prompt_tokens",
            _I,
            "prompt tokens (I: sum over every judge call of the turn; K: the agent's model calls)",
        ),
        _c(
            "completion_tokens",
            _I,
            "completion tokens (I: sum over every judge call; K: the agent's model calls)",
        ),
        _c("latency_ms", _F, "judge call latency (I: sum over every judge call)"),
        _c(
            "cost_usd",
            _F,
            "cost of the judge call from the price table (a cache hit: its price when it was "
            "made); null when the model has no price",
        ),
        _c("rubric_text", _S, "rubric text, when the metric or eval set is known"),
        _c("chosen", _B, "the sample picked by the samples aggregator"),
        _c("cache_hit", _B, "answered from the judge cache"),
        _c(
            "batch",
            _B,
            "answered through the provider's batch API (its `cost_usd` at the batch price)",
        ),
        _c("tokens", _I, "prompt + completion tokens of the call"),
        _c("raw", _S, "raw judge answer"),
        _c("prob", _F, "probability of the label (renormalised over valid labels)"),
        _c("expected_score", _F, "expected score of the candidate's distribution"),
        _c("sampled_label", _S, "label the judge actually wrote for the candidate"),
        _c("valid_mass", _F, "probability mass on valid labels before renormalising"),
        _c("entropy", _F, "entropy of the candidate's label distribution"),
        _c("from_logprobs", _B, "distribution from token logprobs (False: text fallback)"),
        _c("sample_score", _F, "comparison score of the sample, `0.5 + (sA − sB)/2`"),
        _c("swapped_score", _F, "score with candidates swapped, from A's point of view"),
        _c("swap_gap", _F, "`sample_score − swapped_score` (position bias)"),
        _c("metric", _S, "metric a human mark judges (null: the whole case result)"),
        _c("mark", _S, "human verdict: `pass`, `fail` or `unsure`"),
        _c("note", _S, "the reviewer's note"),
        _c("reviewer", _S, "who marked (`ae.config.reviewer`, default the OS user)"),
        _c("timestamp", pl.Datetime("us", "UTC"), "when the mark was set (UTC)"),
        *(_c(name, _I, f"capture: {doc}") for name, doc in COUNTS.items() if "tokens" not in name),
        *(_c(name, _I, f"capture problem: {doc}") for name, (doc, _) in PROBLEMS.items()),
        _c("fixes", STRS, "one line per capture problem of the case: how many, what, the fix"),
    )
}
"""Every public frame column, in the order of the docs table."""

_INVOCATION_KEY = ("run_id", "eval_id", "invocation_index", "invocation_id")
_METRIC_KEY = ("metric_name", "evaluator")
_JUDGE = ("judge_model", "heuristic", "n_samples", "cache_hits")
_USAGE = ("prompt_tokens", "completion_tokens", "latency_ms")

FRAME_COLUMNS: dict[str, tuple[str, ...]] = {
    "cases": (
        "run_id",
        "eval_id",
        "eval_set_id",
        "status",
        "score",
        "error",
        "n_turns",
        "n_metrics",
        "session_id",
        "user_id",
    ),
    "metrics": ("run_id", "eval_id", *_METRIC_KEY, "score", "threshold", "status", "reason"),
    "invocations": (
        *_INVOCATION_KEY,
        *_METRIC_KEY,
        "score",
        "threshold",
        "status",
        "reason",
        "user_text",
        "actual_text",
        "expected_text",
        "actual_tools",
        "expected_tools",
        *_JUDGE,
        *_USAGE,
    ),
    "rubrics": (*_INVOCATION_KEY, *_METRIC_KEY, "rubric_id", "score", "reason", "rubric_text"),
    "samples": (
        *_INVOCATION_KEY,
        *_METRIC_KEY,
        "judge",
        "call",
        "sample_index",
        "score",
        "status",
        "reason",
        "chosen",
        "cache_hit",
        "batch",
        "tokens",
        *_USAGE,
        "cost_usd",
        "error",
        "judge_model",
        "heuristic",
        "raw",
    ),
    "logprobs": (
        *_INVOCATION_KEY,
        *_METRIC_KEY,
        "judge",
        "sample_index",
        "candidate",
        "label",
        "prob",
        "expected_score",
        "sampled_label",
        "valid_mass",
        "entropy",
        "from_logprobs",
        "sample_score",
        "swapped_score",
        "swap_gap",
    ),
    "reviews": (
        "eval_set_id",
        "eval_id",
        "run_id",
        "metric",
        "mark",
        "note",
        "reviewer",
        "timestamp",
    ),
    "capture": (
        "run_id",
        "eval_id",
        "eval_set_id",
        "n_turns",
        *COUNTS,
        *PROBLEMS,
        "fixes",
    ),
}
"""Frame kind → its columns, in frame order."""

LETTERS = {
    "cases": "C",
    "metrics": "M",
    "invocations": "I",
    "rubrics": "R",
    "samples": "S",
    "logprobs": "L",
    "reviews": "V",
    "capture": "K",
}


def schema(kind: str) -> dict[str, pl.DataType]:
    """Column name → polars dtype of frame ``kind``, in frame order."""
    return {name: COLUMNS[name].dtype for name in FRAME_COLUMNS[kind]}


SCHEMAS: dict[str, dict[str, pl.DataType]] = {kind: schema(kind) for kind in FRAME_COLUMNS}
"""Frame kind → column schema (names in order, polars dtypes)."""


def _dtype_name(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.Datetime):
        return f"Datetime[{dtype.time_unit},{dtype.time_zone}]"
    return "List[Str]" if dtype == STRS else str(dtype)


def columns_markdown() -> str:
    """The docs' column table (``docs/frames.md``, section *Columns*), from :data:`COLUMNS`."""
    lines = ["| column | dtype | frames | meaning |", "|---|---|---|---|"]
    for column in COLUMNS.values():
        frames = "".join(
            letter for kind, letter in LETTERS.items() if column.name in FRAME_COLUMNS[kind]
        )
        lines.append(f"| `{column.name}` | {_dtype_name(column.dtype)} | {frames} | {column.doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m agenteval_nb.analysis.columns > table.md
    print(columns_markdown(), end="")
