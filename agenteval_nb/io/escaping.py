"""Text on its way into a file, escaped as the Go framework writes it.

Rules:

* Go's HTML escaping: ``<`` ``>`` ``&`` U+2028 U+2029 become ``\\u003c`` ``\\u003e`` ``\\u0026``
  ``\\u2028`` ``\\u2029`` (:func:`go_escape`);
* a lone surrogate (half an emoji: valid in JSON, not in UTF-8) inside a JSON string literal is
  written as its ``\\udXXX`` escape, so the file stays valid UTF-8 and reads back to the same
  string (:func:`escape_surrogates`);
* anywhere else a lone surrogate becomes U+FFFD, as Go writes invalid UTF-8: files, frames and
  databases hold UTF-8 only (:func:`utf8_safe`, :func:`utf8_bytes`).
"""

from __future__ import annotations

import re

_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}

_SURROGATE = re.compile("[\ud800-\udfff]")


def go_escape(text: str) -> str:
    """``text`` with Go's HTML escaping of ``<`` ``>`` ``&`` U+2028 U+2029 (a few C-speed
    replaces; ``str.translate`` with a table is ten times slower on large files)."""
    for char, escaped in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escaped)
    return text


def escape_surrogates(text: str) -> str:
    """``text`` with lone surrogates (``\\ud83d``, half an emoji) as JSON ``\\udXXX`` escapes.

    JSON allows them, UTF-8 cannot encode them; escaped, the file stays valid UTF-8 and reads
    back to the same string. Only valid inside JSON string literals, where they can only occur.
    """
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate (half an emoji: valid in JSON, not in UTF-8) replaced
    by U+FFFD, for what holds UTF-8 only (files, frames, databases)."""
    return _SURROGATE.sub("\ufffd", text)


def utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8, each lone surrogate written as U+FFFD (the ASCII case costs nothing)."""
    if text.isascii():
        return text.encode("ascii")
    return utf8_safe(text).encode("utf-8")
