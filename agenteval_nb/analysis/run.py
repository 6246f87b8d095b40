"""``EvalRun``: one evaluation's result with the eval sets and metrics it came from."""

from __future__ import annotations

import html
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.summary import run_bound
from ..io import save_result
from ..schema import EvalMetric, EvalSet, EvalSetResult, EvalStatus


def _case_run_counts(result: EvalSetResult) -> dict[str, list[int]]:
    """eval id → ``[n, c]``: distinct run ids of the case, and those where every result of the
    case passed (final status). Duplicates of ``(evalId, runId)`` count once."""
    runs: dict[str, dict[int | None, bool]] = {}
    for case in result.eval_case_results or ():
        slots = runs.setdefault(case.eval_id or "", {})
        passed = case.final_eval_status == EvalStatus.PASSED
        slots[case.run_id] = slots.get(case.run_id, True) and passed
    return {k: [len(v), sum(v.values())] for k, v in runs.items()}


@dataclass
class EvalRun:
    """An evaluation result ready for analysis.

    ``result`` is the wire model (``result.model_dump(by_alias=True)`` is the file JSON);
    ``evalsets`` and ``metrics`` are what was evaluated (empty when loaded from a bare result
    file); ``warnings`` lists what the run wants the user to see (e.g. a skipped metric).
    """

    result: EvalSetResult
    evalsets: list[EvalSet] = field(default_factory=list)
    metrics: list[EvalMetric] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    app_name: str = ""
    elapsed_s: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def evalset(self) -> EvalSet | None:
        """The (first) eval set evaluated, if known."""
        return self.evalsets[0] if self.evalsets else None

    @property
    def num_runs(self) -> int:
        """``summary.numRuns``, else the largest ``runId`` (or 1) — never more than the result's
        run summaries or case results can back (:func:`~..engine.summary.run_bound`)."""
        summary = self.result.summary
        if summary is not None and summary.num_runs:
            claimed = summary.num_runs
        else:
            claimed = max((c.run_id or 1 for c in self.result.eval_case_results or ()), default=1)
        return min(claimed, run_bound(self.result))

    def case_status_counts(self) -> Counter[str]:
        return Counter(c.final_eval_status or "" for c in self.result.eval_case_results or ())

    def metric_pass_rates(self) -> dict[str, tuple[int, int]]:
        """Metric name → (passed, evaluated) over all case results of all runs."""
        out: dict[str, list[int]] = {}
        for case in self.result.eval_case_results or ():
            for m in case.overall_eval_metric_results or ():
                slot = out.setdefault(m.metric_name or "", [0, 0])
                if m.eval_status != EvalStatus.NOT_EVALUATED:
                    slot[1] += 1
                    slot[0] += m.eval_status == EvalStatus.PASSED
        return {k: (v[0], v[1]) for k, v in out.items()}

    # -- frames (columns: agenteval_nb.analysis.frames) ---------------------------------------

    def cases_df(self, backend: str | None = None) -> Any:
        """One row per case result: ``run_id``, ``eval_id``, ``status``, ``score``, ``error`` …"""
        from .frames import frame

        return frame(self, "cases", backend)

    def metrics_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, metric_name): the case's overall metric result."""
        from .frames import frame

        return frame(self, "metrics", backend)

    def invocations_df(self, backend: str | None = None) -> Any:
        """One row per (run_id, eval_id, invocation_index, metric_name): a turn's result."""
        from .frames import frame

        return frame(self, "invocations", backend)

    def rubrics_df(self, backend: str | None = None) -> Any:
        """One row per rubric score of a turn's metric result."""
        from .frames import frame

        return frame(self, "rubrics", backend)

    def samples_df(self, backend: str | None = None) -> Any:
        """One row per judge call (sample before aggregation, or extra call)."""
        from .frames import frame

        return frame(self, "samples", backend)

    def logprobs_df(self, backend: str | None = None) -> Any:
        """One row per (turn result, verifier sample, candidate A/B, label A..T)."""
        from .frames import frame

        return frame(self, "logprobs", backend)

    # -- statistics ----------------------------------------------------------------------------

    def pass_at_k_df(self, ks: Sequence[int] | None = None, backend: str | None = None) -> Any:
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
        import polars as pl

        from .frames import to_backend
        from .load import parse_pass_nc, with_summary
        from .passk import pass_at_k, pass_at_k_table, pass_hat_k, pass_hat_k_unbiased

        counts = _case_run_counts(self.result)
        k_list = list(ks) if ks is not None else list(range(1, self.num_runs + 1))
        table = pass_at_k_table(
            list(counts),
            [v[0] for v in counts.values()],
            [v[1] for v in counts.values()],
            k_list,
        )
        table["eval_id"] = table.pop("case_id")
        schema = _schema(_PASS_AT_K_COLUMNS)
        cases = pl.DataFrame({name: table[name] for name in schema}, schema=schema)

        n_set, c_set = parse_pass_nc(with_summary(self.result)[0])
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
        return to_backend(out, backend)

    def summary_df(
        self,
        level: float = 0.95,
        cluster: str | Mapping[str, Any] | None = None,
        backend: str | None = None,
    ) -> Any:
        """Per metric: mean score with SE and normal CI, and pass rate with a Wilson CI.

        The unit is the case: each case's evaluated runs (status passed/failed) are averaged
        first (STATS.md, repeated runs), and whether the case passed is the ``passed`` column of
        :func:`~.frames.across_runs_frame` (SPEC §8.7; a NaN mean fails). ``cluster`` names a
        column of :meth:`cases_df` or maps eval_id → cluster; the SE is then clustered
        (``se_kind="clustered"``) and ``se_iid`` keeps the unclustered value. Columns:
        ``metric_name, n, n_runs, mean, se, se_iid, se_kind, n_clusters, ci_low, ci_high,
        n_passed, pass_rate, pass_rate_ci_low, pass_rate_ci_high, threshold``.
        """
        import polars as pl

        from .frames import across_runs_frame, to_backend
        from .stats import mean_se, summarize_scores

        per_case = across_runs_frame(self, "case").filter(pl.col("n_runs") > 0)
        clusters_of = self._clusters(cluster) if cluster is not None else None
        schema = _schema(_SUMMARY_COLUMNS)
        rows: dict[str, list[Any]] = {name: [] for name in schema}
        for (name,), group in sorted(
            per_case.group_by(["metric_name"], maintain_order=True), key=lambda g: str(g[0][0])
        ):
            ids = group["eval_id"].to_list()
            scores = group["score"].to_numpy()
            clusters = None
            if clusters_of is not None:
                missing = [i for i in ids if i not in clusters_of]
                if missing:
                    raise ValueError(f"no cluster for eval ids {missing[:5]}")
                clusters = [clusters_of[i] for i in ids]
            stats = summarize_scores(scores, group["passed"].to_numpy(), clusters, level)
            stats.update(
                metric_name=name,
                n_runs=int(group["n_runs"].sum()),
                se_iid=mean_se(scores),
                threshold=group["threshold"][0],
            )
            for key, values in rows.items():
                values.append(stats[key])
        return to_backend(pl.DataFrame(rows, schema=schema), backend)

    def _clusters(self, cluster: str | Mapping[str, Any]) -> dict[str, Any]:
        """eval_id → cluster, from a column of :meth:`cases_df` (first row per case) or a map."""
        if not isinstance(cluster, str):
            return dict(cluster)
        from .frames import cases_frame

        cases = cases_frame(self)
        if cluster not in cases.columns:
            raise ValueError(f"cluster column {cluster!r} is not a column of cases_df")
        out: dict[str, Any] = {}
        for eval_id, value in zip(cases["eval_id"], cases[cluster], strict=True):
            out.setdefault(eval_id, value)
        return out

    def compare(self, other: EvalRun, **kwargs: Any) -> Any:
        """Paired comparison with ``other`` (this run is A); see :func:`~.compare.compare`."""
        from .compare import compare

        return compare(self, other, **kwargs)

    def case_aggregates(self) -> list[Any]:
        """Every case across runs with its metrics aggregated (SPEC §8.7), eval-set order."""
        from ..engine.aggregate import aggregate_case_runs

        order = [c.eval_id for es in self.evalsets for c in es.eval_cases or ()]
        return aggregate_case_runs(self.result.eval_case_results or [], order)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the result file atomically (Go format, readable by trpc-agent-go)."""
        return save_result(self.result, path)

    def to_html(self, path: str | os.PathLike[str], **kwargs: Any) -> Path:
        """Write the single-file HTML report (see :func:`agenteval_nb.report.export_html`)."""
        from ..report import export_html

        return export_html(self, path, **kwargs)

    def summary_text(self) -> str:
        """A few plain-text lines with the headline numbers."""
        counts = self.case_status_counts()
        total = sum(counts.values())
        summary = self.result.summary
        lines = [
            f"eval set {self.result.eval_set_id}: {total} case results "
            f"over {self.num_runs} run(s), "
            f"overall {summary.overall_status if summary else 'n/a'}",
            "cases: "
            + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("passed", "failed", "not_evaluated")),
        ]
        for name, (passed, evaluated) in self.metric_pass_rates().items():
            rate = f"{passed / evaluated:.1%}" if evaluated else "n/a"
            lines.append(f"  {name}: {passed}/{evaluated} passed ({rate})")
        lines.extend(f"warning: {w}" for w in self.warnings)
        return "\n".join(lines)

    def __repr__(self) -> str:
        counts = self.case_status_counts()
        return (
            f"EvalRun(eval_set={self.result.eval_set_id!r}, runs={self.num_runs}, "
            f"cases={sum(counts.values())}, passed={counts.get('passed', 0)}, "
            f"failed={counts.get('failed', 0)}, metrics={len(self.metric_pass_rates())})"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{passed}/{evaluated}</td>"
            f"<td>{(passed / evaluated if evaluated else float('nan')):.1%}</td></tr>"
            for name, (passed, evaluated) in self.metric_pass_rates().items()
        )
        counts = self.case_status_counts()
        warn = "".join(f"<li>{html.escape(w)}</li>" for w in self.warnings)
        return (
            f"<div><b>EvalRun</b> {html.escape(str(self.result.eval_set_id))} — "
            f"{self.num_runs} run(s), {sum(counts.values())} case results: "
            f"{counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, "
            f"{counts.get('not_evaluated', 0)} not evaluated"
            f"<table><tr><th>metric</th><th>passed</th><th>rate</th></tr>{rows}</table>"
            + (f"<ul>{warn}</ul>" if warn else "")
            + "</div>"
        )


_PASS_AT_K_COLUMNS = {
    "level": "s",
    "eval_id": "s",
    "k": "i",
    "n": "i",
    "c": "i",
    "pass_at_k": "f",
    "pass_hat_k_unbiased": "f",
    "pass_hat_k_plugin": "f",
    "pass_at_k_se": "f",
    "pass_hat_k_unbiased_se": "f",
    "pass_hat_k_plugin_se": "f",
    "n_cases": "i",
}
_SUMMARY_COLUMNS = {
    "metric_name": "s",
    "n": "i",
    "n_runs": "i",
    "mean": "f",
    "se": "f",
    "se_iid": "f",
    "se_kind": "s",
    "n_clusters": "i",
    "ci_low": "f",
    "ci_high": "f",
    "n_passed": "i",
    "pass_rate": "f",
    "pass_rate_ci_low": "f",
    "pass_rate_ci_high": "f",
    "threshold": "f",
}


def _schema(columns: Mapping[str, str]) -> dict[str, Any]:
    """Polars schema from short type codes (s/i/f); polars is imported only when called."""
    import polars as pl

    kinds = {"s": pl.String, "i": pl.Int64, "f": pl.Float64}
    return {name: kinds[kind] for name, kind in columns.items()}
