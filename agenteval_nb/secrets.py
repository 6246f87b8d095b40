"""Redaction of API keys from any text that may be shown or stored: the one rule, in one place.

Rules:

* before text from an endpoint or an exception becomes an error message, a reason, a file, a
  frame, a report or a log line, it goes through :func:`redact` — always before any truncation,
  so that no part of a key survives;
* :func:`redact` masks, with :data:`MASK`: every secret passed to it and every key registered
  with :func:`register_secret` (4+ characters; longest first); the value after an
  ``api-key`` / ``x-api-key`` / ``api_key`` label (``key: value``, ``key=value``, quoted or
  not, an optional ``Bearer`` included); the credential after an ``Authorization`` /
  ``Proxy-Authorization`` label, keeping the scheme word (``Basic``, ``Digest``, ``Bearer``,
  ``Token``, any other) when one precedes it — a token, or a comma-separated list of
  ``name=value`` / ``name="value"`` parameters as Digest and AWS send; any ``Bearer <token>``;
  any OpenAI-style ``sk-…`` key. A bare key followed by more words after ``Authorization:``
  reads as scheme and credential: only registered keys are masked wherever they appear;
* configured keys are registered when they are resolved (the judge does it for each endpoint
  it builds a request for) and stay in memory, never shown, for the life of the process;
* :func:`redact_json` applies the same rule to every string (keys and values) of a JSON-like
  value and returns the value itself when nothing changed.

This module imports nothing from the package, so every layer can use it.
"""

from __future__ import annotations

import re
import threading
from typing import Any

MASK = "***"
REDACTED = MASK  # the name used by the judge side
MIN_SECRET_LENGTH = 4

_SEPARATOR = r"[\"']?\s*[:=]\s*[\"']?"
_VALUE_CHAR = r"[^\s\"',;}&\\]"
_AUTH_PARAM = rf"[\w.-]+=(?:\\?\"[^\"\\\n]*\\?\"|{_VALUE_CHAR}*)"
_CREDENTIAL = rf"(?:{_AUTH_PARAM}(?:[ \t]*,[ \t]*{_AUTH_PARAM})*(?!{_VALUE_CHAR})|{_VALUE_CHAR}+)"
_LABELLED = (
    r"(?i:\b(?P<label>(?P<authorization>(?:proxy-)?authorization)|x-api-key|api[-_]?key)"
    rf"(?P<sep>{_SEPARATOR})"
    r"(?(authorization)(?P<scheme>[A-Za-z][\w.+-]*[ \t]+)?|(?:bearer\s+)?)"
    rf"{_CREDENTIAL})"
)
_BEARER = r"(?i:\bbearer\s+[A-Za-z0-9._~+/=\-]{4,})"
_SK_KEY = r"\bsk-[A-Za-z0-9_\-]{8,}"

_lock = threading.Lock()
_secrets: set[str] = set()
_compiled: tuple[frozenset[str], re.Pattern[str]] | None = None


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret to redact from now on (ignored when shorter than 4)."""
    global _compiled
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _secrets:
            _secrets.add(value)
            _compiled = None


def _pattern(extra: tuple[str, ...]) -> re.Pattern[str]:
    global _compiled
    with _lock:
        compiled = _compiled
        if compiled is None:
            compiled = (frozenset(_secrets), _build(_secrets))
            _compiled = compiled
    usable = [s for s in extra if s and len(s) >= MIN_SECRET_LENGTH and s not in compiled[0]]
    if not usable:
        return compiled[1]
    return _build(compiled[0] | set(usable))


def _build(secrets: set[str] | frozenset[str]) -> re.Pattern[str]:
    literal = "|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True))
    parts = [f"(?P<secret>{literal})"] if literal else []
    parts += [f"(?P<labelled>{_LABELLED})", f"(?P<bearer>{_BEARER})", f"(?P<sk>{_SK_KEY})"]
    return re.compile("|".join(parts))


def _replace(match: re.Match[str]) -> str:
    if match.lastgroup == "labelled":
        scheme = match.group("scheme") or ""
        return f"{match.group('label')}{match.group('sep')}{scheme}{REDACTED}"
    if match.lastgroup == "bearer":
        return f"{match.group(0).split()[0]} {REDACTED}"
    return REDACTED


def redact(text: str, *extra: str | None) -> str:
    """``text`` with every secret replaced by :data:`MASK` (module rules)."""
    if not text:
        return text
    return _pattern(tuple(s for s in extra if s)).sub(_replace, text)


def redact_json(value: Any, *extra: str | None) -> Any:
    """``value`` with :func:`redact` applied to every string in it (module rules)."""
    pattern = _pattern(tuple(s for s in extra if s))
    return _walk(value, pattern)


def _walk(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(_replace, value) if pattern.search(value) else value
    if isinstance(value, dict):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key, new_item = _walk(key, pattern), _walk(item, pattern)
            changed = changed or new_key is not key or new_item is not item
            out[new_key] = new_item
        return out if changed else value
    if isinstance(value, list):
        items = [_walk(item, pattern) for item in value]
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return items if changed else value
    return value
