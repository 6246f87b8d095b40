"""``EvalRun``: one evaluation's result with the eval sets and metrics it came from."""

from __future__ import annotations

import html
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..io import save_result
from ..schema import EvalMetric, EvalSet, EvalSetResult, EvalStatus


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
        summary = self.result.summary
        if summary is not None and summary.num_runs:
            return summary.num_runs
        return max((c.run_id or 1 for c in self.result.eval_case_results or ()), default=1)

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

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the result file atomically (Go format, readable by trpc-agent-go)."""
        return save_result(self.result, path)

    def summary_text(self) -> str:
        """A few plain-text lines with the headline numbers."""
        counts = self.case_status_counts()
        total = sum(counts.values())
        summary = self.result.summary
        lines = [
            f"eval set {self.result.eval_set_id}: {total} case results over {self.num_runs} run(s), "
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
