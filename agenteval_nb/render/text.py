"""Turning untrusted values into safe HTML text.

Every string that came from an agent, a judge or an eval set goes through :func:`text`: it is
HTML-escaped, cut at :data:`MAX_CHARS`, and characters that could disguise or break the page
(C0/C1 controls such as NUL, bidirectional overrides such as U+202E, lone surrogates, BOM) are
replaced by a visible ``U+XXXX`` marker.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

MAX_CHARS = 20_000
"""Longest text shown in full; the rest is replaced by a note with the number of characters cut."""

_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
    "\u2066-\u2069\ufeff\ud800-\udfff]"
)


def _marker(match: re.Match[str]) -> str:
    return f'<span class="ae-ctl">U+{ord(match.group()):04X}</span>'


def text(value: Any, *, limit: int = MAX_CHARS) -> Markup:
    """Escaped, visible-controls HTML for ``value`` (``str()`` of non-strings; ``None`` → "")."""
    if value is None:
        return Markup("")
    raw = value if isinstance(value, str) else str(value)
    cut = len(raw) - limit if limit and len(raw) > limit else 0
    if cut:
        raw = raw[:limit]
    safe = escape(raw)
    if _UNSAFE.search(safe) is not None:
        safe = Markup(_UNSAFE.sub(_marker, str(safe)))
    if cut:
        safe += html('<span class="ae-note"> … ({} more characters)</span>', cut)
    return safe


def _escaped(value: Any) -> Any:
    return value if type(value) is Markup else escape(value)


def html(template: str, *args: Any) -> Markup:
    """``Markup(template).format(*args)``, faster: every argument that is not markup is escaped
    (``str()`` of non-strings), markup is inserted as is. ``template`` is trusted HTML with
    positional ``{}`` fields only (no format specs)."""
    return Markup(template.format(*map(_escaped, args)))


def to_json(value: Any) -> str:
    """Readable JSON of any value (indent 2, non-ASCII kept, unknown objects via ``str``)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError):
        return repr(value)


def json_text(value: Any, *, limit: int = MAX_CHARS) -> Markup:
    """:func:`text` of :func:`to_json`; strings are JSON-quoted so ``"1"`` and ``1`` differ."""
    shown = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else to_json(value)
    return text(shown, limit=limit)


def number(value: float | int | None, digits: int = 4) -> str:
    """``value`` with at most ``digits`` decimals, trailing zeros dropped; ``None`` → "—"."""
    if value is None or isinstance(value, bool):
        return "—" if value is None else str(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "—"
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    shown = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if shown in ("-0", "") else shown


_STATUS_CLASSES = {
    "passed": "ae-pass",
    "failed": "ae-fail",
    "not_evaluated": "ae-ne",
}


def status_class(status: str | None) -> str:
    """CSS class of a status string; unknown or missing statuses get ``ae-unk``."""
    return _STATUS_CLASSES.get(status or "", "ae-unk")


@lru_cache(maxsize=256)
def _badge(status: str) -> Markup:
    return html('<span class="ae-badge {}">{}</span>', status_class(status), text(status, limit=40))


def status_badge(status: str | None) -> Markup:
    """A coloured badge with the status text."""
    shown = status or "—"
    if type(shown) is not str:
        return html(
            '<span class="ae-badge {}">{}</span>', status_class(status), text(shown, limit=40)
        )
    return _badge(shown)


def join(parts: Any, sep: str = "") -> Markup:
    """Concatenate HTML fragments (plain strings among them are escaped)."""
    return Markup(str.join(sep, map(_escaped, parts)))


def plain(value: Any, limit: int = 80) -> str:
    """Plain text for widget labels: controls and bidi overrides shown as ``U+XXXX``, cut."""
    raw = "" if value is None else str(value)
    if len(raw) > limit:
        raw = raw[: limit - 1] + "…"
    return _UNSAFE.sub(lambda m: f"U+{ord(m.group()):04X}", raw)


def score_text(score: float | None, status: str | None, digits: int = 4) -> str:
    """A result's score as shown: Go omits a zero score, so a missing score of a passed or
    failed result reads as 0; otherwise "—"."""
    if score is None and status in ("passed", "failed"):
        score = 0.0
    return number(score, digits)


_TAG = re.compile(r"(<[^>]*>)")
_ENTITY = re.compile(r"(&#?\w+;)")
_SKIP_OPEN = re.compile(r"<(svg|style|script|title)\b", re.I)
_SKIP_CLOSE = re.compile(r"</(svg|style|script|title)\s*>", re.I)


def highlight(html: Markup, needles: list[str]) -> Markup:
    """``html`` with every case-insensitive occurrence of ``needles`` in its text wrapped in
    ``<mark>``; tags, attributes and the insides of ``<svg>``, ``<style>``, ``<script>`` and
    ``<title>`` are left alone, and so are character references (``&amp;``): a needle that spans
    one (``a<b``) filters the list but is not marked."""
    escaped = sorted({n for n in needles if n and n == str(escape(n))}, key=len, reverse=True)
    if not escaped:
        return html
    pattern = re.compile("|".join(re.escape(n) for n in escaped), re.I)
    out: list[str] = []
    skip = 0
    for part in _TAG.split(str(html)):
        if part.startswith("<"):
            if _SKIP_OPEN.match(part) and not part.endswith("/>"):
                skip += 1
            elif _SKIP_CLOSE.match(part):
                skip = max(0, skip - 1)
            out.append(part)
        elif skip or not part:
            out.append(part)
        else:
            out.extend(
                piece
                if _ENTITY.fullmatch(piece)
                else pattern.sub(lambda m: f'<mark class="ae-hit">{m.group()}</mark>', piece)
                for piece in _ENTITY.split(part)
            )
    return Markup("".join(out))
