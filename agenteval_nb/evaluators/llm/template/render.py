"""Rendering a judge template (SPEC §6.4): double-brace placeholders only.

A placeholder is ``{{`` + optional white space + a name + an optional ``?`` + optional white
space + ``}}``; the name has no white space, braces, quotes, backticks or ``?``. Any other text
— ``{{ a b }}``, single braces — is literal. A bound name is replaced by its value verbatim (no
escaping, values are never re-scanned). An unbound optional placeholder ``{{x?}}`` renders as
nothing. Unbound required placeholders stay as they are and the render fails with
``prompt: unresolved placeholders: {{x}}, {{y}}`` (unique names, sorted). Unused bindings are
fine.
"""

from __future__ import annotations

from collections.abc import Mapping

import re2

__all__ = ["RenderError", "render_template"]

_PLACEHOLDER = re2.compile(r"\{\{\s*([^\s{}\"'`?]+)(\?)?\s*\}\}")


class RenderError(ValueError):
    """Required placeholders without a value."""


def render_template(template: str, values: Mapping[str, str]) -> str:
    """The rendered text (rules in the module doc)."""
    missing: set[str] = set()
    out: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        out.append(template[position : match.start()])
        name, optional = match.group(1), match.group(2)
        if name in values:
            out.append(values[name])
        elif optional:
            pass
        else:
            missing.add(name)
            out.append(match.group(0))
        position = match.end()
    out.append(template[position:])
    if missing:
        listed = ", ".join("{{" + name + "}}" for name in sorted(missing))
        raise RenderError(f"prompt: unresolved placeholders: {listed}")
    return "".join(out)
