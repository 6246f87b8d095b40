"""How criteria report a mismatch.

Public ``match_*`` functions return ``None`` on a match and raise :class:`MatchError` otherwise.
The text is the reference's error text; an empty text stands for Go's "false without error",
so wrappers write ``"name mismatch"`` for it and ``"name mismatch: <cause>"`` otherwise.

Internally, criteria return a :data:`Reason` (a zero-argument callable that builds the text) or
``None``. Building the text is deferred because most of it is never read: the bipartite matcher
tries many pairs that fail and only needs to know *that* they failed.
"""

from __future__ import annotations

from collections.abc import Callable

Reason = Callable[[], str]
"""A deferred mismatch text; ``""`` means a mismatch without an error."""


class MatchError(Exception):
    """A criterion did not match; ``str(err)`` is the reference's error text (may be empty)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def fail(text: str) -> Reason:
    """A reason whose text is already known."""
    return lambda: text


NO_CAUSE: Reason = fail("")
"""A mismatch without an error (Go's ``false, nil``)."""


def wrap(prefix: str, cause: Reason) -> Reason:
    """``"<prefix>: <cause>"``, or just ``prefix`` when the cause text is empty."""

    def text() -> str:
        inner = cause()
        return f"{prefix}: {inner}" if inner else prefix

    return text


def raise_if(reason: Reason | None) -> None:
    """Raise :class:`MatchError` with the reason's text, if there is a reason."""
    if reason is not None:
        raise MatchError(reason())
