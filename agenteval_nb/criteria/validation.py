"""Load-time check of a metric's criterion (DESIGN §3: reject bad configuration early).

:func:`validate_criterion` returns the reference's text of the first configuration error that
would fail every turn — checked in the order toolTrajectory, finalResponse — or ``None``.
``compareName`` / ``tokenizerName`` resolution is the registry's job, not checked here.
"""

from __future__ import annotations

from ..schema import Criterion
from .final_response import validate_final_response
from .trajectory import validate_tool_trajectory


def validate_criterion(criterion: Criterion | None) -> str | None:
    """First configuration error of the deterministic parts of ``criterion``, else ``None``."""
    if criterion is None:
        return None
    error = validate_tool_trajectory(criterion.tool_trajectory)
    if error is not None:
        return error
    if criterion.final_response is not None:
        return validate_final_response(criterion.final_response)
    return None
