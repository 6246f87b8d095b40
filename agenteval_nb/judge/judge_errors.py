"""The one exception type of the judge layer.

Rule: every judge failure (bad configuration, HTTP error, timeout, malformed response, a failing
injected judge) surfaces as :class:`JudgeError`. Its message is short, names what was wrong and
never contains an API key, so it can be stored as a reason and shown in a report: endpoint text
is quoted only through :func:`shorten`, and both :func:`shorten` and :class:`JudgeError` redact
(:func:`agenteval_nb.secrets.redact`) before they cut anything.
"""

from __future__ import annotations

from ..secrets import redact

_MAX_MESSAGE = 600


def shorten(text: str, limit: int = 200) -> str:
    """``text`` redacted, on one line, at most ``limit`` characters (an ellipsis marks a cut)."""
    flat = " ".join(redact(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JudgeError(Exception):
    """A judge call failed; ``str(err)`` is safe to show.

    ``kind``: ``config``, ``http``, ``timeout``, ``connection``, ``malformed``, ``injected`` or
    ``other``. ``status_code``: the HTTP status for ``http`` errors, else ``None``.
    """

    def __init__(self, message: str, *, kind: str = "other", status_code: int | None = None):
        message = redact(message)
        if len(message) > _MAX_MESSAGE:
            message = message[: _MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.kind = kind
        self.status_code = status_code

    @property
    def message(self) -> str:
        return str(self)
