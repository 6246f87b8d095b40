"""The order in which case results are shown: failures first, then lower scores first."""

from __future__ import annotations

import math
from collections.abc import Sequence

STATUS_RANK = {"failed": 0, "not_evaluated": 1, "passed": 3}
"""Sort rank of statuses: failures first, passes last, anything else (unknown) in between (2)."""


def sort_key(
    status: str | None, score: float | None, eval_id: str | None, run_id: int | None
) -> tuple[int, float, str, int]:
    """Status rank, then score (missing or NaN last), then eval id, then run id."""
    value = score if score is not None and not math.isnan(score) else math.inf
    return (STATUS_RANK.get(status or "", 2), value, eval_id or "", run_id or 0)


def display_order(
    statuses: Sequence[str | None],
    scores: Sequence[float | None],
    eval_ids: Sequence[str | None],
    run_ids: Sequence[int | None],
) -> list[int]:
    """Positions in display order of case results given column-wise (a cases table's
    ``status``, ``score``, ``eval_id``, ``run_id``; see :func:`sort_key`)."""
    keys = list(map(sort_key, statuses, scores, eval_ids, run_ids))
    return sorted(range(len(keys)), key=keys.__getitem__)
