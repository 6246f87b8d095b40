"""Filling our prompt templates: ``${name}`` placeholders (``string.Template``), ``$$`` for a
literal dollar. Values are inserted verbatim, once — text inside a value is never re-read as a
placeholder — and every placeholder of the template must be given."""

from __future__ import annotations

from string import Template

__all__ = ["fill", "user_message"]


def fill(template: str, **values: str) -> str:
    """The template with every ``${name}`` replaced (``KeyError`` for a missing value)."""
    return Template(template).substitute(values)


def user_message(content: str) -> list[dict[str, str]]:
    """The one-user-message prompt every built-in constructor produces."""
    return [{"role": "user", "content": content}]
