"""Go ``os.ExpandEnv`` semantics, used on judgeModel strings while metrics are decoded (SPEC §1.4).

``${NAME}`` and ``$NAME`` are replaced by the environment value (unset ⇒ ``""``); NAME is a run
of ``[A-Za-z0-9_]`` or one special character of ``*#$@!?-`` or a digit; inside braces any text
up to ``}`` is the name. ``${}`` is deleted, an unterminated ``${`` loses the ``${``, and a ``$``
that is last or followed by a non-name character stays as it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

_SPECIAL = frozenset("*#$@!?-0123456789")


def _is_name_char(ch: str) -> bool:
    return ch == "_" or ("0" <= ch <= "9") or ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _shell_name(s: str) -> tuple[str, int]:
    """Return (name, width consumed after the ``$``), as Go's ``getShellName``."""
    if s[0] == "{":
        if len(s) > 2 and s[1] in _SPECIAL and s[2] == "}":
            return s[1:2], 3
        for i in range(1, len(s)):
            if s[i] == "}":
                if i == 1:
                    return "", 2
                return s[1:i], i + 1
        return "", 1
    if s[0] in _SPECIAL:
        return s[0:1], 1
    i = 0
    while i < len(s) and _is_name_char(s[i]):
        i += 1
    return s[:i], i


def expand(text: str, lookup: Callable[[str], str | None] | Mapping[str, str] | None = None) -> str:
    """Expand ``$VAR`` / ``${VAR}`` in ``text`` (environment by default)."""
    if "$" not in text:
        return text
    get: Callable[[str], str | None]
    if lookup is None:
        get = os.environ.get
    elif isinstance(lookup, Mapping):
        get = lookup.get
    else:
        get = lookup
    out: list[str] = []
    i = 0
    j = 0
    n = len(text)
    while j < n:
        if text[j] == "$" and j + 1 < n:
            out.append(text[i:j])
            name, width = _shell_name(text[j + 1 :])
            if name == "" and width > 0:
                pass  # bad syntax: the consumed characters vanish
            elif name == "":
                out.append("$")
            else:
                out.append(get(name) or "")
            j += width
            i = j + 1
        j += 1
    out.append(text[i:])
    return "".join(out)
