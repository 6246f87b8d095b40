"""``ae.compare``: paired comparison of two runs given as anything ``ae.load_run`` accepts.

The rules (alignment, reduction across runs, ``diff``, ``flipped``, the statistics) are those of
:func:`~.paired.compare_records`, which works on run records; this door only turns its
arguments into runs (:func:`~.load.as_run`).
"""

from __future__ import annotations

from typing import Any

from .load import RunLike, as_run
from .paired import STATS_SCHEMA, Comparison, compare_records

__all__ = ["STATS_SCHEMA", "Comparison", "compare", "compare_records"]


def compare(run_a: RunLike, run_b: RunLike, **options: Any) -> Comparison:
    """Align two runs and compare them per metric (:func:`~.paired.compare_records`, same
    options: ``by``, ``level``, ``n_resamples``, ``seed``, ``labels``, ``backend``).
    ``run_a`` / ``run_b``: anything :func:`~agenteval_nb.load_run` accepts (a ``TypeError``
    otherwise)."""
    by = options.get("by", "case")
    if by not in ("case", "invocation"):
        raise ValueError(f'by must be "case" or "invocation", got {by!r}')
    return compare_records(as_run(run_a, "ae.compare"), as_run(run_b, "ae.compare"), **options)
