"""LengthCriterion (SPEC §3.3): inclusive bounds on the number of Unicode code points.

``null`` or ``ignore`` ⇒ match. Configuration errors, in this order:
``"length criterion must configure min or max"``, ``"min length must be non-negative"``,
``"max length must be non-negative"``, ``"min length must be less than or equal to max length"``.
Mismatch: ``"actual length L is less than min M, expected range R"`` /
``"actual length L is greater than max M, expected range R"``, R = ``[min, max]`` with min
defaulting to 0 and an absent max written ``[min, +inf)``.
"""

from __future__ import annotations

from ..schema import LengthCriterion
from .errors import Reason, fail, raise_if


def validate_length(criterion: LengthCriterion | None) -> str | None:
    """The configuration error text of an active length criterion, else ``None``."""
    if criterion is None or criterion.ignore:
        return None
    low, high = criterion.min, criterion.max
    if low is None and high is None:
        return "length criterion must configure min or max"
    if low is not None and low < 0:
        return "min length must be non-negative"
    if high is not None and high < 0:
        return "max length must be non-negative"
    if low is not None and high is not None and low > high:
        return "min length must be less than or equal to max length"
    return None


def _range_text(criterion: LengthCriterion) -> str:
    low = criterion.min if criterion.min is not None else 0
    if criterion.max is None:
        return f"[{low}, +inf)"
    return f"[{low}, {criterion.max}]"


def length_reason(criterion: LengthCriterion | None, content: str) -> Reason | None:
    """``None`` when ``content`` is within range, else the deferred mismatch text."""
    if criterion is None or criterion.ignore:
        return None
    error = validate_length(criterion)
    if error is not None:
        return fail(error)
    size = len(content)
    if criterion.min is not None and size < criterion.min:
        return fail(
            f"actual length {size} is less than min {criterion.min}, "
            f"expected range {_range_text(criterion)}"
        )
    if criterion.max is not None and size > criterion.max:
        return fail(
            f"actual length {size} is greater than max {criterion.max}, "
            f"expected range {_range_text(criterion)}"
        )
    return None


def match_length(criterion: LengthCriterion | None, content: str) -> None:
    """Raise :class:`~.errors.MatchError` unless ``content`` has an allowed length."""
    raise_if(length_reason(criterion, content))
