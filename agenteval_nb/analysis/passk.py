"""pass@k and pass^k estimators.

Two families live here:

* the reference functions :func:`pass_at_k` and :func:`pass_hat_k` (SPEC §7), with the
  framework's argument checks, error texts and special cases, computed on *eval-set runs*;
* research estimators computed *per case* (STATS.md): Chen et al.'s unbiased pass@k, which is
  NaN when a case has fewer than ``k`` runs, and τ-bench's unbiased pass^k ``C(c,k)/C(n,k)``,
  plus array versions and a per-case table with a mean and standard error across cases.

``n`` is the number of runs, ``c`` the number of passed runs, ``k`` the number of draws.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from ..engine.summary import run_bound
from ..io import load_result
from ..schema import EvalSetResult, EvalStatus
from .record import HoldsRecord, RunRecord, with_summary

__all__ = [
    "pass_at_k",
    "pass_at_k_cases",
    "pass_at_k_table",
    "pass_at_k_unbiased_per_case",
    "pass_hat_k",
    "pass_hat_k_cases",
    "pass_hat_k_unbiased",
]


def _as_int(value: Any, name: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` runs drawn from ``n`` passes (SPEC §7).

    ``1 − C(n−c, k) / C(n, k)``, computed as ``−expm1(lgamma(n−c+1) + lgamma(n−k+1)
    − lgamma(n−c−k+1) − lgamma(n+1))``; ``c == 0`` gives 0 and ``n − c < k`` gives 1.

    Raises ``ValueError``, checked in this order: ``"n must be >= 0"``, ``"k must be >= 1"``,
    ``"c must be >= 0"``, ``"c cannot exceed n"``, ``"k cannot exceed n"``.
    """
    n, c, k = _as_int(n, "n"), _as_int(c, "c"), _as_int(k, "k")
    _check_counts(n, c, k)
    if k > n:
        raise ValueError("k cannot exceed n")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    log_p = (
        math.lgamma(n - c + 1) + math.lgamma(n - k + 1) - math.lgamma(n - c - k + 1)
    ) - math.lgamma(n + 1)
    return -math.expm1(log_p)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Plug-in probability that ``k`` runs all pass: ``(c/n)^k`` (SPEC §7).

    ``c == 0`` gives 0, ``c == n`` gives 1, otherwise ``exp(k·ln(c/n))``; ``k > n`` is allowed.

    Raises ``ValueError``, checked in this order: ``"n must be > 0"``, ``"k must be >= 1"``,
    ``"c must be >= 0"``, ``"c cannot exceed n"``.
    """
    n, c, k = _as_int(n, "n"), _as_int(c, "c"), _as_int(k, "k")
    if n <= 0:
        raise ValueError("n must be > 0")
    if k <= 0:
        raise ValueError("k must be >= 1")
    if c < 0:
        raise ValueError("c must be >= 0")
    if c > n:
        raise ValueError("c cannot exceed n")
    if c == 0:
        return 0.0
    if c == n:
        return 1.0
    return math.exp(k * math.log(c / n))


def _check_counts(n: int, c: int, k: int) -> None:
    """Shared argument checks of the per-case estimators (reference texts, reference order)."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if k <= 0:
        raise ValueError("k must be >= 1")
    if c < 0:
        raise ValueError("c must be >= 0")
    if c > n:
        raise ValueError("c cannot exceed n")


def pass_at_k_unbiased_per_case(n: int, c: int, k: int) -> float:
    """Chen et al. (2021) unbiased pass@k of one case: ``1 − Π_{j=n−c+1..n} (1 − k/j)``.

    Equal to ``1 − C(n−c, k)/C(n, k)``. NaN when ``n < k`` (too few runs to estimate it), 1 when
    ``n − c < k``. Argument errors as :func:`pass_at_k` except that ``k > n`` is not one.
    """
    n, c, k = _as_int(n, "n"), _as_int(c, "c"), _as_int(k, "k")
    _check_counts(n, c, k)
    if n < k:
        return math.nan
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=float)))


def pass_hat_k_unbiased(n: int, c: int, k: int) -> float:
    """τ-bench unbiased pass^k of one case: ``C(c,k)/C(n,k) = Π_{i<k} (c−i)/(n−i)``.

    Never above the plug-in :func:`pass_hat_k` ``(c/n)^k``; equal to it at ``k = 1``, ``c = 0``
    and ``c = n``. NaN when ``n < k``; 0 when ``c < k``. Argument errors as :func:`pass_at_k`
    except that ``k > n`` is not one.
    """
    n, c, k = _as_int(n, "n"), _as_int(c, "c"), _as_int(k, "k")
    _check_counts(n, c, k)
    if n < k:
        return math.nan
    if c < k:
        return 0.0
    if c == n:
        return 1.0
    result = 1.0
    for i in range(k):
        result *= (c - i) / (n - i)
    return result


# -- array versions -------------------------------------------------------------------------------


def _count_arrays(
    n: npt.ArrayLike, c: npt.ArrayLike, k: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    n_arr = np.asarray(n)
    c_arr = np.asarray(c)
    for name, arr in (("n", n_arr), ("c", c_arr)):
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    n_arr = n_arr.astype(np.int64)
    c_arr = c_arr.astype(np.int64)
    if n_arr.shape != c_arr.shape:
        raise ValueError("n and c must have the same shape")
    k = _as_int(k, "k")
    if np.any(n_arr < 0):
        raise ValueError("n must be >= 0")
    if k <= 0:
        raise ValueError("k must be >= 1")
    if np.any(c_arr < 0):
        raise ValueError("c must be >= 0")
    if np.any(c_arr > n_arr):
        raise ValueError("c cannot exceed n")
    return n_arr, c_arr, k


def _log_factorials(limit: int) -> npt.NDArray[np.float64]:
    """``ln(m!)`` for m = 0..limit."""
    return np.array([math.lgamma(m + 1) for m in range(limit + 1)], dtype=float)


def pass_at_k_cases(n: npt.ArrayLike, c: npt.ArrayLike, k: int) -> npt.NDArray[np.float64]:
    """Element-wise :func:`pass_at_k_unbiased_per_case` over arrays of run counts.

    ``−expm1(ln C(n−c,k) − ln C(n,k))`` with log-factorials; NaN where ``n < k``, 0 where
    ``c == 0``, 1 where ``n − c < k``.
    """
    n_arr, c_arr, k = _count_arrays(n, c, k)
    out = np.full(n_arr.shape, np.nan, dtype=float)
    enough = n_arr >= k
    out[enough & (c_arr == 0)] = 0.0
    out[enough & (c_arr > 0) & (n_arr - c_arr < k)] = 1.0
    mid = enough & (c_arr > 0) & (n_arr - c_arr >= k)
    if np.any(mid):
        lf = _log_factorials(int(n_arr[mid].max()))
        nm, fm = n_arr[mid], n_arr[mid] - c_arr[mid]
        log_ratio = lf[fm] - lf[fm - k] - lf[nm] + lf[nm - k]
        out[mid] = -np.expm1(log_ratio)
    return out


def pass_hat_k_cases(
    n: npt.ArrayLike, c: npt.ArrayLike, k: int, *, unbiased: bool = True
) -> npt.NDArray[np.float64]:
    """Element-wise pass^k over arrays of run counts.

    ``unbiased=True``: :func:`pass_hat_k_unbiased`, ``C(c,k)/C(n,k)`` (NaN where ``n < k``).
    ``unbiased=False``: plug-in ``(c/n)^k`` (NaN where ``n == 0``; ``k > n`` allowed).
    """
    n_arr, c_arr, k = _count_arrays(n, c, k)
    out = np.full(n_arr.shape, np.nan, dtype=float)
    if not unbiased:
        has_runs = n_arr > 0
        out[has_runs] = (c_arr[has_runs] / n_arr[has_runs]) ** k
        return out
    enough = n_arr >= k
    out[enough & (c_arr < k)] = 0.0
    out[enough & (c_arr == n_arr)] = 1.0
    mid = enough & (c_arr >= k) & (c_arr < n_arr)
    if np.any(mid):
        lf = _log_factorials(int(n_arr[mid].max()))
        nm, cm = n_arr[mid], c_arr[mid]
        out[mid] = np.exp(lf[cm] - lf[cm - k] - lf[nm] + lf[nm - k])
    return out


# -- per-case table -------------------------------------------------------------------------------


def _mean_and_se(values: npt.NDArray[np.float64]) -> tuple[float, float, int]:
    """NaN-aware mean, ``sd/√T`` (sample sd, ddof=1) and T, the number of finite values."""
    finite = values[~np.isnan(values)]
    t = int(finite.size)
    if t == 0:
        return math.nan, math.nan, 0
    mean = float(finite.mean())
    if t < 2:
        return mean, math.nan, t
    return mean, float(finite.std(ddof=1) / math.sqrt(t)), t


def pass_at_k_table(
    case_ids: Sequence[Any],
    n: npt.ArrayLike,
    c: npt.ArrayLike,
    ks: Iterable[int],
) -> dict[str, list[Any]]:
    """Per-case pass@k / pass^k for each ``k`` in ``ks``, with an overall row per ``k``.

    Long format, column-wise (``pl.DataFrame(table)`` / ``pd.DataFrame(table)`` work directly).
    For each ``k``: one ``level="case"`` row per case (input order), then one ``level="overall"``
    row. Columns:

    * ``level``, ``case_id`` (None on overall rows), ``k``;
    * ``n``, ``c``: the case's runs and passed runs (None on overall rows);
    * ``pass_at_k``: Chen et al. unbiased estimate (NaN when ``n < k``);
    * ``pass_hat_k_unbiased``: ``C(c,k)/C(n,k)`` (NaN when ``n < k``);
    * ``pass_hat_k_plugin``: ``(c/n)^k`` (NaN when ``n == 0``);
    * on overall rows each value is the mean over cases with a finite value and
      ``<column>_se`` is ``sd/√T`` over those T cases (NaN when T < 2; NaN on case rows);
    * ``n_cases``: on overall rows, T for ``pass_at_k`` (cases with ``n ≥ k``); None on case rows.
    """
    ids = list(case_ids)
    n_arr, c_arr, _ = _count_arrays(n, c, 1)
    if n_arr.ndim != 1 or n_arr.shape[0] != len(ids):
        raise ValueError("case_ids, n and c must be one-dimensional and of equal length")
    k_list = [_as_int(k, "k") for k in ks]

    value_cols = ("pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin")
    table: dict[str, list[Any]] = {
        name: []
        for name in (
            "level",
            "case_id",
            "k",
            "n",
            "c",
            *value_cols,
            *(f"{col}_se" for col in value_cols),
            "n_cases",
        )
    }
    for k in k_list:
        columns = {
            "pass_at_k": pass_at_k_cases(n_arr, c_arr, k),
            "pass_hat_k_unbiased": pass_hat_k_cases(n_arr, c_arr, k, unbiased=True),
            "pass_hat_k_plugin": pass_hat_k_cases(n_arr, c_arr, k, unbiased=False),
        }
        for i, case_id in enumerate(ids):
            table["level"].append("case")
            table["case_id"].append(case_id)
            table["k"].append(k)
            table["n"].append(int(n_arr[i]))
            table["c"].append(int(c_arr[i]))
            for col in value_cols:
                table[col].append(float(columns[col][i]))
                table[f"{col}_se"].append(math.nan)
            table["n_cases"].append(None)
        table["level"].append("overall")
        table["case_id"].append(None)
        table["k"].append(k)
        table["n"].append(None)
        table["c"].append(None)
        count = 0
        for col in value_cols:
            mean, se, t = _mean_and_se(columns[col])
            table[col].append(mean)
            table[f"{col}_se"].append(se)
            if col == "pass_at_k":
                count = t
        table["n_cases"].append(count)
    return table


def num_runs(record: RunRecord) -> int:
    """``summary.numRuns``, else the largest ``runId`` (or 1) — never more than the result's
    run summaries or case results can back (:func:`~..engine.summary.run_bound`)."""
    summary = record.header.summary
    if summary is not None and summary.num_runs:
        claimed = summary.num_runs
    else:
        claimed = int(record.table("cases")["run_id"].fill_null(1).max() or 1)  # type: ignore[arg-type]
    return min(claimed, run_bound(summary, record.num_case_results))


def _case_run_counts(record: RunRecord) -> dict[str, list[int]]:
    """eval id → ``[n, c]``: distinct run ids of the case, and those where every result of the
    case passed (final status). Duplicates of ``(evalId, runId)`` count once."""
    rows = record.table("cases").select(
        pl.col("eval_id").fill_null(""),
        "run_id",
        (pl.col("status") == EvalStatus.PASSED.value).fill_null(False).alias("passed"),
    )
    per_run = rows.group_by(["eval_id", "run_id"], maintain_order=True).agg(pl.col("passed").all())
    per_case = per_run.group_by("eval_id", maintain_order=True).agg(
        pl.len().alias("n"), pl.col("passed").sum().alias("c")
    )
    return {eval_id: [int(n), int(c)] for eval_id, n, c in per_case.iter_rows()}


_PASS_AT_K_SCHEMA: dict[str, Any] = {
    "level": pl.String,
    "eval_id": pl.String,
    "k": pl.Int64,
    "n": pl.Int64,
    "c": pl.Int64,
    "pass_at_k": pl.Float64,
    "pass_hat_k_unbiased": pl.Float64,
    "pass_hat_k_plugin": pl.Float64,
    "pass_at_k_se": pl.Float64,
    "pass_hat_k_unbiased_se": pl.Float64,
    "pass_hat_k_plugin_se": pl.Float64,
    "n_cases": pl.Int64,
}


def pass_at_k_frame(record: RunRecord, ks: Sequence[int] | None = None) -> pl.DataFrame:
    """pass@k / pass^k per case, their mean over cases, and the eval-set reference value.

    ``ks`` defaults to ``1..num_runs``. Rows, for each ``k``:

    * ``level="case"``: ``n`` = the case's distinct run ids, ``c`` = those whose results
      all passed (a duplicated ``(evalId, runId)`` is one run, never two); ``pass_at_k`` =
      Chen et al. unbiased estimate, ``pass_hat_k_unbiased`` = ``C(c,k)/C(n,k)``,
      ``pass_hat_k_plugin`` = ``(c/n)^k`` — NaN when ``n < k``
      (plug-in: when ``n == 0``);
    * ``level="overall"``: the mean over cases with a value, ``*_se`` = ``sd/√T`` over those
      T cases (``n_cases``);
    * ``level="eval_set"``: the reference (SPEC §7): ``n, c`` from :func:`parse_pass_nc`
      (runs of the whole eval set; a missing summary is computed first), ``pass_at_k`` =
      ``ae.pass_at_k(n, c, k)`` (NaN when ``k > n``, where the reference raises),
      ``pass_hat_k_plugin`` = ``ae.pass_hat_k(n, c, k)``.
    """
    counts = _case_run_counts(record)
    k_list = list(ks) if ks is not None else list(range(1, num_runs(record) + 1))
    table = pass_at_k_table(
        list(counts),
        [v[0] for v in counts.values()],
        [v[1] for v in counts.values()],
        k_list,
    )
    table["eval_id"] = table.pop("case_id")
    schema = _PASS_AT_K_SCHEMA
    cases = pl.DataFrame({name: table[name] for name in schema}, schema=schema)

    header = record.header
    n_set, c_set = parse_pass_nc(header if header.summary else with_summary(record.result)[0])
    nan = float("nan")
    reference: dict[str, list[Any]] = {name: [] for name in schema}
    for k in k_list:
        row = {
            "level": "eval_set",
            "eval_id": None,
            "k": k,
            "n": n_set,
            "c": c_set,
            "pass_at_k": pass_at_k(n_set, c_set, k) if k <= n_set else nan,
            "pass_hat_k_unbiased": pass_hat_k_unbiased(n_set, c_set, k),
            "pass_hat_k_plugin": pass_hat_k(n_set, c_set, k) if n_set else nan,
            "pass_at_k_se": nan,
            "pass_hat_k_unbiased_se": nan,
            "pass_hat_k_plugin_se": nan,
            "n_cases": len(counts),
        }
        for name, column in reference.items():
            column.append(row[name])
    order = {"case": 0, "overall": 1, "eval_set": 2}
    out = (
        pl.concat([cases, pl.DataFrame(reference, schema=schema)])
        .with_columns(pl.col("level").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort(["k", "_o"], maintain_order=True)
        .drop("_o")
    )
    return out


def parse_pass_nc(run_or_result: Any) -> tuple[int, int]:
    """``(n, c)`` for the reference pass@k (SPEC §7): ``n = summary.numRuns``, ``c =
    summary.runStatusCounts.passed`` — runs of the whole eval set, absent counts read as 0.

    Accepts a run (:class:`~.record.RunRecord`), an ``EvalSetResult`` (or its dict), or an
    object with an ``eval_set_result`` attribute (the in-memory evaluation result). Raises
    ``ValueError`` with the reference texts: ``"evaluation result is nil"``,
    ``"eval set result is nil"``,
    ``"eval set result summary is nil"``, ``"run status counts is nil"``.
    """
    if run_or_result is None:
        raise ValueError("evaluation result is nil")
    if isinstance(run_or_result, HoldsRecord):  # an EvalRun
        run_or_result = run_or_result.record
    result: EvalSetResult | None
    if isinstance(run_or_result, RunRecord):
        result = run_or_result.result
    elif isinstance(run_or_result, EvalSetResult):
        result = run_or_result
    elif isinstance(run_or_result, Mapping):
        inner = run_or_result.get("evalSetResult", run_or_result)
        result = None if inner is None else load_result(dict(inner))
    else:
        result = getattr(run_or_result, "eval_set_result", None)
    if result is None:
        raise ValueError("eval set result is nil")
    summary = result.summary
    if summary is None:
        raise ValueError("eval set result summary is nil")
    counts = summary.run_status_counts
    if counts is None:
        raise ValueError("run status counts is nil")
    return summary.num_runs or 0, counts.passed or 0
