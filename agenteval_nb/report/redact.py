"""Secrets out of anything shown in a report: ``apiKey`` never appears (DESIGN §5).

The value of a key naming a secret (:func:`is_secret_key`) is masked whole; every other string
goes through the one redaction rule of :mod:`agenteval_nb.secrets` (registered keys,
``Authorization`` credentials, ``Bearer`` tokens, ``sk-`` keys …). Endpoint URLs (``baseURL``
…) are shown as ``host[:port]/path`` only: user info and query strings can carry credentials,
and the report links to nothing.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..secrets import MASK as REDACTED
from ..secrets import redact as redact_text

_SECRET_KEYS = re.compile(
    r"(api_?key|secret|password|passwd|token|authorization|auth|bearer|credentials?|cookie)$"
)
_URL_KEYS = re.compile(r"(baseurl|endpoint|url|uri)$")


def endpoint(url: str) -> str:
    """``url`` without scheme, user info, query and fragment: ``host[:port]/path``."""
    parts = urlsplit(url.strip())
    if not parts.netloc:
        return url.split("?", 1)[0].split("#", 1)[0]
    host = parts.netloc.rsplit("@", 1)[-1]
    return host + parts.path


def is_secret_key(key: str) -> bool:
    """True for keys naming a secret: ``apiKey``, ``api_key``, ``x-api-key``, ``Authorization``,
    ``access_token``, ``client_secret`` … (not ``max_tokens``)."""
    normalized = re.sub(r"[^a-z0-9_]", "_", key.lower())
    return bool(_SECRET_KEYS.search(normalized.replace("_", "")) or _SECRET_KEYS.search(normalized))


def _redact_item(key: Any, value: Any) -> Any:
    if isinstance(key, str) and is_secret_key(key):
        return REDACTED
    if isinstance(key, str) and isinstance(value, str) and _URL_KEYS.search(key.lower()):
        return endpoint(value)
    return redact(value)


def redact(value: Any) -> Any:
    """A copy of a JSON-like value: secret keys' values masked, keys redacted from every other
    string, endpoint URLs reduced (module docstring)."""
    if isinstance(value, dict):
        return {k: _redact_item(k, v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value
