"""Redaction of API keys from any text that may be shown or stored.

Rule: before text from an endpoint or an exception becomes an error message, a reason, a file,
a frame, a report or a log line, every configured key (4+ characters) and anything shaped like
a bearer token or an OpenAI-style ``sk-…`` key is replaced by ``***`` — always before any
truncation, so that no part of a key survives.
"""

from __future__ import annotations

import re

MASK = "***"

_TOKEN_SHAPES = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_\-]{8,}|bearer\s+[A-Za-z0-9._~+/\-]{8,}=*)"
)


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with the given secrets and token-shaped strings masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return _TOKEN_SHAPES.sub(MASK, text)
