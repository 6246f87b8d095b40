"""RE2 regular expressions with Go's ``regexp`` error texts, compiled once per pattern.

The reference compiles with Go's ``regexp`` (RE2 syntax, unanchored ``MatchString``). Compile
errors read ``error parsing regexp: <code>: `<arg>` `` as in Go; RE2's own codes are mapped to
Go's wording.
"""

from __future__ import annotations

from functools import lru_cache

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

_GO_CODES = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "unexpected )": "unexpected )",
    "missing (": "unexpected )",
    "bad repetition operator": "invalid nested repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class",
    "trailing \\": "trailing backslash at end of expression",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "duplicate capture group name": "duplicate capture group name",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
}


class RegexError(ValueError):
    """The pattern does not compile; the message reads like Go's ``*syntax.Error``."""


def _go_message(raw: object, pattern: str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, arg = text.partition(": ")
    if not sep:
        code, arg = text, pattern
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{arg}`"


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re2._Regexp | RegexError:
    try:
        return re2.compile(pattern, options=_OPTIONS)
    except re2.error as exc:
        return RegexError(_go_message(exc.args[0] if exc.args else exc, pattern))


def compile_regex(pattern: str) -> re2._Regexp:
    """The compiled pattern (cached); raises :class:`RegexError` with Go's text."""
    compiled = _compile(pattern)
    if isinstance(compiled, RegexError):
        raise compiled
    return compiled
