"""The order in which case results are shown: failures first, then lower scores first."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..schema import EvalCaseResult

STATUS_RANK = {"failed": 0, "not_evaluated": 1, "passed": 3}
"""Sort rank of statuses: failures first, passes last, anything else (unknown) in between (2)."""


def sort_key(
    status: str | None, score: float | None, eval_id: str | None, run_id: int | None
) -> tuple[int, float, str, int]:
    """Status rank, then score (missing or NaN last), then eval id, then run id."""
    value = score if score is not None and not math.isnan(score) else math.inf
    return (STATUS_RANK.get(status or "", 2), value, eval_id or "", run_id or 0)


def failures_first(cases: Sequence[EvalCaseResult]) -> list[int]:
    """Positions of ``cases`` in display order (see :func:`sort_key`)."""
    return sorted(
        range(len(cases)),
        key=lambda i: sort_key(
            cases[i].final_eval_status, cases[i].score, cases[i].eval_id, cases[i].run_id
        ),
    )
