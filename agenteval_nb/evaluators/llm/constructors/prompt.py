"""Filling our prompt templates: ``${name}`` placeholders (``string.Template``), ``$$`` for a
literal dollar. Values are inserted verbatim, once — text inside a value is never re-read as a
placeholder — and every placeholder of the template must be given."""

from __future__ import annotations

from string import Template

__all__ = ["fill", "section", "sections", "user_message"]


def fill(template: str, **values: str) -> str:
    """The template with every ``${name}`` replaced (``KeyError`` for a missing value)."""
    return Template(template).substitute(values)


def user_message(content: str) -> list[dict[str, str]]:
    """The one-user-message prompt every built-in constructor produces."""
    return [{"role": "user", "content": content}]


def section(tag: str, name: str | None = None, *, close_on_new_line: bool = True) -> str:
    """A tagged placeholder block: ``<tag>``, ``${name}`` (default: the tag), ``</tag>``.

    ``close_on_new_line=False`` puts ``</tag>`` right after the placeholder, for values that
    already end with a newline (the rubrics text).
    """
    end = "\n" if close_on_new_line else ""
    return f"<{tag}>\n${{{name or tag}}}{end}</{tag}>\n"


def sections(*blocks: str) -> str:
    """Blocks of :func:`section`, each followed by a blank line."""
    return "\n".join(blocks) + "\n"
