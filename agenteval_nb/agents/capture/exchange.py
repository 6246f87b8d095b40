"""One recorded model call on the wire: the request the agent sent and the reply it got."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

API_KINDS = ("chat", "responses", "anthropic")
"""Which API an exchange spoke, told by the request path (``…/chat/completions``,
``…/responses``, ``…/messages``)."""


def api_kind(path: str) -> str | None:
    """The API a POST path speaks, or ``None`` for any other request (passed through)."""
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "anthropic"
    return None


@dataclass(slots=True)
class Exchange:
    """A request and its reply. ``reply`` is the decoded JSON body, or for a stream the reply
    assembled from its events (:mod:`.sse`); ``None`` until the reply is complete, or when it
    was not JSON. ``error``: the exception ``send`` raised, or why the body could not be read.
    ``consumed`` is false for a stream the caller closed (or dropped) before its end.
    ``attributed``: how the case was found — ``"context"``, ``"sole_active"`` or
    ``"unattributed"``."""

    seq: int
    api: str
    url: str
    request: Any
    started_ns: int
    thread: str
    attributed: str
    retry: int = 0
    streamed: bool = False
    status: int | None = None
    reply: Any = None
    error: str | None = None
    ended_ns: int | None = None
    consumed: bool = True

    @property
    def ok(self) -> bool:
        """A 2xx reply that was read whole and decoded."""
        return (
            self.status is not None
            and 200 <= self.status < 300
            and self.reply is not None
            and self.error is None
            and self.consumed
        )
