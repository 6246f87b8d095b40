"""Single-file offline HTML reports: :func:`export_html`."""

from .export import DEFAULT_MAX_CASES, export_html, report_html

__all__ = ["DEFAULT_MAX_CASES", "export_html", "report_html"]
