"""The master–detail widget shared by the run and comparison inspectors.

Filters (metric, status, run, text search) above a paginated ``Select`` list and an
``HTML`` detail pane. Only the visible page of the list is put into the ``Select`` and only the
selected item is rendered (a small cache keeps the last few), so 10k cases stay responsive.
The inspector *is* an ``ipywidgets.VBox``, so it goes into any layout, and its controller
methods (``select``, ``filters``, pages …) are methods of that widget. This module imports
ipywidgets; :mod:`agenteval_nb.widgets` imports it only when a widget is built.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import ipywidgets as w
from markupsafe import Markup

from ..render import STYLESHEET
from .entries import PAGE_SIZE

CACHE_SIZE = 32
"""Rendered detail panes kept for quick re-selection."""


class Source(Protocol):
    """What the master–detail widget lists and renders."""

    def metric_names(self) -> Sequence[str]: ...
    def status_options(self) -> Sequence[tuple[str, str]]: ...
    def run_ids(self) -> Sequence[int]: ...
    def filtered(self, metric: str, status: str, run_id: int | None, query: str) -> list[Any]:
        """Items passing the filters, most interesting first."""
        ...

    def key(self, item: Any) -> tuple[str, int | None]:
        """(eval_id, run_id) of an item."""
        ...

    def label(self, item: Any) -> str: ...
    def render(self, item: Any) -> Markup: ...


def detail_html(body: Markup) -> str:
    """A detail pane value: the shared stylesheet and ``body`` inside the ``.ae`` scope."""
    return str(Markup('<style>{}</style><div class="ae">{}</div>').format(Markup(STYLESHEET), body))


@dataclass
class Filters:
    """The filter widgets; set ``.value`` on any of them to refilter (as a user would)."""

    metric: Any
    status: Any
    run: Any
    search: Any


class MasterDetail(w.VBox):
    """Filters, a paginated list and a detail pane over a :class:`Source` — an ``ipywidgets.VBox``.

    ``filters``, ``list`` (the ``Select``) and ``detail`` (the ``HTML`` pane) are its parts;
    ``items`` are the filtered items, ``visible`` those of the current page; ``render_count``
    counts detail renders. ``controller`` and ``widget`` are the widget itself (older code used
    them to reach the controller and the box).
    """

    def __init__(self, source: Source, *, page_size: int = PAGE_SIZE, title: str = "") -> None:
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        super().__init__()
        self.source = source
        self.page_size = page_size
        self.render_count = 0
        self._cache: OrderedDict[int, str] = OrderedDict()
        self._busy = False
        self.page = 0
        self.items: list[Any] = []
        self.filters = Filters(
            metric=w.Dropdown(
                options=[("all metrics", "")] + [(m, m) for m in source.metric_names()],
                value="",
                description="metric",
            ),
            status=w.Dropdown(
                options=list(source.status_options()), value="", description="status"
            ),
            run=w.Dropdown(
                options=[("all runs", 0)] + [(f"run {r}", r) for r in source.run_ids()],
                value=0,
                description="run",
            ),
            search=w.Text(placeholder="search ids, messages, reasons", continuous_update=False),
        )
        self.list = w.Select(options=[], rows=min(page_size, 20), layout=w.Layout(width="380px"))
        self.prev_button = w.Button(description="◀", layout=w.Layout(width="40px"))
        self.next_button = w.Button(description="▶", layout=w.Layout(width="40px"))
        self.page_label = w.Label()
        self.detail = w.HTML(layout=w.Layout(flex="1 1 auto", overflow="auto"))
        header = w.HTML(str(Markup("<b>{}</b>").format(title))) if title else w.HTML()
        pager = w.HBox([self.prev_button, self.page_label, self.next_button])
        self.children = (
            header,
            w.HBox([self.filters.metric, self.filters.status, self.filters.run]),
            self.filters.search,
            w.HBox([w.VBox([self.list, pager]), self.detail]),
        )
        for control in (self.filters.metric, self.filters.status, self.filters.run):
            control.observe(self._on_filter, names="value")
        self.filters.search.observe(self._on_filter, names="value")
        self.list.observe(self._on_select, names="value")
        self.prev_button.on_click(lambda _b: self.prev_page())
        self.next_button.on_click(lambda _b: self.next_page())
        self.refresh()

    @property
    def controller(self) -> MasterDetail:
        """The widget itself: its methods are the controller API."""
        return self

    @property
    def widget(self) -> MasterDetail:
        """The widget itself (kept for code written when the box was a separate attribute)."""
        return self

    # list and pages ------------------------------------------------------------------------

    @property
    def num_pages(self) -> int:
        return max(1, -(-len(self.items) // self.page_size))

    @property
    def visible(self) -> list[Any]:
        start = self.page * self.page_size
        return self.items[start : start + self.page_size]

    def refresh(self) -> None:
        """Re-apply the filters, go to the first page and select its first item."""
        run = self.filters.run.value
        self.items = self.source.filtered(
            self.filters.metric.value,
            self.filters.status.value,
            run or None,
            self.filters.search.value,
        )
        self.go_to_page(0)

    def go_to_page(self, page: int, select_index: int = 0) -> None:
        """Show page ``page`` (clamped) and select its ``select_index``-th item."""
        self.page = min(max(page, 0), self.num_pages - 1)
        visible = self.visible
        self._busy = True
        try:
            self.list.options = [(self.source.label(it), i) for i, it in enumerate(visible)]
            self.list.value = select_index if visible else None
        finally:
            self._busy = False
        self.page_label.value = f"page {self.page + 1}/{self.num_pages} · {len(self.items)} items"
        self.prev_button.disabled = self.page == 0
        self.next_button.disabled = self.page >= self.num_pages - 1
        self._show(visible[select_index] if visible else None)

    def next_page(self) -> None:
        self.go_to_page(self.page + 1)

    def prev_page(self) -> None:
        self.go_to_page(self.page - 1)

    # selection -----------------------------------------------------------------------------

    @property
    def selected(self) -> Any:
        """The selected item, or ``None``."""
        index = self.list.value
        visible = self.visible
        return visible[index] if index is not None and index < len(visible) else None

    def select(self, eval_id: str, run_id: int | None = None) -> MasterDetail:
        """Select the item of ``eval_id`` (and ``run_id``); clears the filters when they hide it.

        Raises ``KeyError`` when no item has that id.
        """
        index = self._find(eval_id, run_id)
        if index is None:
            self._busy = True
            try:
                self.filters.metric.value = ""
                self.filters.status.value = ""
                self.filters.run.value = 0
                self.filters.search.value = ""
            finally:
                self._busy = False
            self.items = self.source.filtered("", "", None, "")
            index = self._find(eval_id, run_id)
            if index is None:
                raise KeyError((eval_id, run_id))
        self.go_to_page(index // self.page_size, index % self.page_size)
        return self

    def _find(self, eval_id: str, run_id: int | None) -> int | None:
        for i, item in enumerate(self.items):
            key = self.source.key(item)
            if key[0] == eval_id and (run_id is None or key[1] == run_id):
                return i
        return None

    def _on_filter(self, _change: Any) -> None:
        if not self._busy:
            self.refresh()

    def _on_select(self, change: Any) -> None:
        if not self._busy:
            self._show(self.selected)

    def _show(self, item: Any) -> None:
        if item is None:
            self.detail.value = detail_html(Markup('<div class="ae-note">nothing matches</div>'))
            return
        key = id(item)
        value = self._cache.get(key)
        if value is None:
            value = detail_html(self.source.render(item))
            self.render_count += 1
            self._cache[key] = value
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        self.detail.value = value
