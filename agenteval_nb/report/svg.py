"""Standalone SVG documents (matplotlib output) made fit to inline in one HTML page.

Removes the XML declaration, DOCTYPE, ``<metadata>`` (RDF with URLs), comments and ``xmlns``
declarations (the HTML parser puts ``<svg>`` in the SVG namespace by itself), refuses anything
scriptable or external (links may only point inside the SVG or hold an embedded PNG/JPEG, as
``imshow`` writes them), and prefixes every ``id`` (and its ``#id`` references) so that several
charts on one page cannot clash.
"""

from __future__ import annotations

import re

from markupsafe import Markup

_PROLOGUE = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.DOTALL | re.IGNORECASE)
_METADATA = re.compile(r"<metadata\b.*?</metadata>", re.DOTALL | re.IGNORECASE)
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(href="#|url\(#)([^")]+)')
_FORBIDDEN = re.compile(
    r"<\s*(script|foreignObject|iframe|object|embed)\b|\son\w+\s*=|javascript:|https?:"
    r"|(?<![\w-])url\((?!#)",
    re.IGNORECASE,
)
_HREF = re.compile(r'href\s*=\s*"([^"]*)"', re.IGNORECASE)
_ALLOWED_HREF = re.compile(r"#|data:image/(png|jpeg);base64,", re.IGNORECASE)


class UnsafeSVG(ValueError):
    """An SVG with scripts, event handlers, foreign content or external references."""


def inline_svg(svg: str, prefix: str) -> Markup:
    """``svg`` cleaned for inlining (module docstring); raises :class:`UnsafeSVG` when it holds
    anything that could run code or load a resource."""
    body = _METADATA.sub("", _PROLOGUE.sub("", svg)).strip()
    body = _XMLNS.sub("", body)
    if _FORBIDDEN.search(body) or not all(
        _ALLOWED_HREF.match(m.group(1).strip()) for m in _HREF.finditer(body)
    ):
        raise UnsafeSVG("the SVG holds scripts, event handlers or external references")
    body = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', body)
    body = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", body)
    return Markup(body)
