"""The master–detail widget shared by the run and comparison inspectors.

Filters (metric, status, run, text search, sort) above a sortable, paginated table
(:class:`~.table.CaseTable`: one row per item, a column per metric; click a header to sort,
keys to move and mark) and an ``HTML`` detail pane. Only the visible page goes to the browser
and only the selected item is rendered (a small cache keeps the last few), so 10k cases stay
responsive. The inspector *is* an ``ipywidgets.VBox``, so it goes into any layout, and its
controller methods (``select``, ``filters``, pages …) are methods of that widget. This module
imports ipywidgets; :mod:`agenteval_nb.widgets` imports it only when a widget is built.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import ipywidgets as w
from markupsafe import Markup

from ..analysis.frames import to_backend
from ..render import STYLESHEET
from ..render.text import highlight, join, plain, text
from .entries import (
    PAGE_SIZE,
    SORT_OPTIONS,
    Cell,
    Query,
    TableColumn,
    parse_query,
    sort_by_column,
    sort_descending,
    toggled_sort,
)
from .table import CaseTable

CACHE_SIZE = 32
"""Rendered detail panes kept for quick re-selection."""


class Source(Protocol):
    """What the master–detail widget lists and renders."""

    def metric_names(self) -> Sequence[str]: ...
    def status_options(self) -> Sequence[tuple[str, str]]: ...
    def run_ids(self) -> Sequence[int]: ...
    def filtered(
        self, metric: str, status: str, run_id: int | None, query: Query, sort: str
    ) -> list[Any]:
        """Items passing the filters and the search, in the ``sort`` order (a
        :data:`~.entries.SORT_OPTIONS` key)."""
        ...

    def key(self, item: Any) -> tuple[str, int | None]:
        """(eval_id, run_id) of an item."""
        ...

    def label(self, item: Any, metric: str) -> str:
        """The one-line label of the static view; under a metric filter it shows that metric's
        status and score."""
        ...

    def columns(self) -> Sequence[TableColumn]:
        """The table's columns now (they may grow, e.g. a mark column once marks exist)."""
        ...

    def cell(self, item: Any, column: str, metric: str) -> Cell:
        """The cell of an item in column ``column`` (its key); under a metric filter, status
        and score are the metric's."""
        ...

    def render(self, item: Any) -> Markup: ...


class Reviewable(Protocol):
    """A source whose items take human marks and read back as a frame (a run's cases)."""

    def mark(
        self, eval_id: str, run_id: int, mark: str, note: str | None, metric: str | None
    ) -> Any: ...
    def mark_of(self, item: Any) -> str | None: ...
    def frame(self, items: Sequence[Any]) -> Any: ...


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
    sort: Any


TABLE_WIDTH = "660px"
"""Width of the table column when there is room: at most 55 % of the inspector, at least
380 px (a table wider than its column scrolls inside it)."""

REVIEW_KEYS = {"p": "pass", "f": "fail", "u": "unsure"}
"""Table keys that mark the selected row."""


def sort_options(columns: Sequence[TableColumn]) -> list[tuple[str, str]]:
    """The sort dropdown: the list orders (:data:`~.entries.SORT_OPTIONS`), then each other
    column ascending and descending."""
    taken = {value for _label, value in SORT_OPTIONS}
    extra = [
        (f"{column.label} {arrow}", f"{sign}{column.key}")
        for column in columns
        for arrow, sign in (("▲", ""), ("▼", "-"))
        if f"{sign}{column.key}" not in taken
    ]
    return [*SORT_OPTIONS, *extra]


def _keep_options(dropdown: Any, options: list[tuple[str, Any]]) -> None:
    """New options for ``dropdown``, its value kept (it only grows: a live run's snapshots)."""
    if list(dropdown.options) != options:
        value = dropdown.value
        dropdown.options = options
        dropdown.value = value if value in [v for _label, v in options] else options[0][1]


class MasterDetail(w.VBox):
    """Filters, a sortable paginated table and a detail pane over a :class:`Source` — an
    ``ipywidgets.VBox``.

    ``filters``, ``table`` (the :class:`~.table.CaseTable`) and ``detail`` (the ``HTML`` pane)
    are its parts; ``items`` are the filtered items in the shown order, ``visible`` those of the
    current page, ``selected`` the one open in the detail pane; ``render_count`` counts detail
    renders. The sort is ``filters.sort.value``: a list order or a column key (``-`` first:
    descending); a header click sets it. Search hits are marked in the detail pane; choosing a
    metric scrolls the detail pane to that metric's section. ``controller`` and ``widget`` are
    the widget itself (older code used them). In a static view of a saved notebook (no widget
    state) it shows :meth:`static_html` instead.
    """

    def __init__(
        self,
        source: Source,
        *,
        page_size: int = PAGE_SIZE,
        title: str = "",
        flags: str = "",
    ) -> None:
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        super().__init__()
        self.add_class("ae-inspector")
        self.source = source
        self.page_size = page_size
        self.title = title
        self.flags = Markup(flags)  # safe HTML (``flags_badges``), not user text
        self.render_count = 0
        self._cache: OrderedDict[tuple[int, tuple[str, ...]], str] = OrderedDict()
        self._busy = False
        self.page = 0
        self.index = 0
        self.items: list[Any] = []
        self.query = Query()
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
            search=w.Text(
                placeholder="search ids, messages, reasons · reason:… tool:… score:<0.5",
                continuous_update=False,
                layout=w.Layout(width=TABLE_WIDTH),
            ),
            sort=w.Dropdown(
                options=sort_options(source.columns()), value="status", description="sort"
            ),
        )
        self.table = CaseTable(layout=w.Layout(width="100%"))
        self.table.on_sort(self.sort_by)
        self.table.on_key(self.press)
        self.table.on_note(self.save_note)
        self.prev_button = w.Button(description="◀", layout=w.Layout(width="40px"))
        self.next_button = w.Button(description="▶", layout=w.Layout(width="40px"))
        self.page_label = w.Label()
        self.detail = w.HTML(
            layout=w.Layout(
                flex="1 1 auto", min_width="0", max_height="80vh", overflow="auto", padding="0 4px"
            )
        )
        self.detail.add_class("ae-detail")
        self.header = header = w.HTML(detail_html(Markup("<b>{}</b> {}").format(title, flags)))
        pager = w.HBox([self.prev_button, self.page_label, self.next_button])
        master = w.VBox(
            [self.table, pager],
            layout=w.Layout(width=TABLE_WIDTH, max_width="55%", min_width="380px", flex="0 0 auto"),
        )
        self.note = w.Text(placeholder="note for the mark", layout=w.Layout(width="260px"))
        self.mark_buttons = {
            mark: w.Button(description=mark, layout=w.Layout(width="70px"))
            for mark in ("pass", "fail", "unsure")
        }
        for mark, button in self.mark_buttons.items():
            button.on_click(lambda _b, mark=mark: self.mark_selected(mark, self.note.value or None))
        review = w.HBox(
            [
                w.Label("mark"),
                *self.mark_buttons.values(),
                self.note,
                w.Label("keys in the table: j/k move · p/f/u mark · n note · ? help"),
            ]
        )
        self.children = (
            header,
            w.HBox([self.filters.metric, self.filters.status, self.filters.run]),
            w.HBox([self.filters.search, self.filters.sort]),
            *((review,) if hasattr(source, "mark") else ()),
            w.HBox([master, self.detail], layout=w.Layout(align_items="flex-start")),
        )
        for control in (
            self.filters.metric,
            self.filters.status,
            self.filters.run,
            self.filters.search,
            self.filters.sort,
        ):
            control.observe(self._on_filter, names="value")
        self.table.observe(self._on_select, names="index")
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

    # table and pages -----------------------------------------------------------------------

    @property
    def num_pages(self) -> int:
        return max(1, -(-len(self.items) // self.page_size))

    @property
    def visible(self) -> list[Any]:
        start = self.page * self.page_size
        return self.items[start : start + self.page_size]

    @property
    def sort(self) -> str:
        """The current sort: a :data:`~.entries.SORT_OPTIONS` key or a column key, ``-`` first
        when descending."""
        return self.filters.sort.value or "status"

    def refresh(self) -> None:
        """Re-apply the filters, the search and the sort; go to the first page and select its
        first item."""
        self.query = parse_query(self.filters.search.value)
        self.items = self.ordered(self._filtered(self.sort), self.sort)
        self.table.focus_metric = self.filters.metric.value
        self.go_to_page(0)

    def replace_source(self, source: Source, title: str | None = None) -> None:
        """Show ``source`` in place of the current one (a live run's newer snapshot): the
        filters, search, sort and the selected item stay (its page is shown)."""
        item = self.selected
        key = None if item is None else self.source.key(item)
        page = self.page
        self.source = source
        self._cache.clear()
        if title is not None:
            self.title = title
            self.header.value = detail_html(Markup("<b>{}</b> {}").format(title, self.flags))
        self._busy = True
        try:
            _keep_options(
                self.filters.metric, [("all metrics", "")] + [(m, m) for m in source.metric_names()]
            )
            _keep_options(
                self.filters.run, [("all runs", 0)] + [(f"run {r}", r) for r in source.run_ids()]
            )
        finally:
            self._busy = False
        self.items = self.ordered(self._filtered(self.sort), self.sort)
        index = None if key is None else self._find(*key)
        if index is None:
            self.go_to_page(page)
        else:
            self.go_to_page(index // self.page_size, index % self.page_size)

    def _filtered(self, sort: str) -> list[Any]:
        own = {value for _label, value in SORT_OPTIONS}
        return self.source.filtered(
            self.filters.metric.value,
            self.filters.status.value,
            self.filters.run.value or None,
            self.query,
            sort if sort in own else "status",
        )

    def ordered(self, items: list[Any], sort: str) -> list[Any]:
        """``items`` (in a list order) sorted by a column when ``sort`` names one; ties keep
        the failures-first order."""
        if sort in {value for _label, value in SORT_OPTIONS}:
            return items
        column, descending = sort_descending(sort)
        metric = self.filters.metric.value
        return sort_by_column(
            items, lambda item: self.source.cell(item, column, metric).value, descending
        )

    def sort_by(self, column: str) -> None:
        """Sort by ``column`` (a header click): ascending, or descending when it already is."""
        self.filters.sort.value = toggled_sort(self.sort, column)

    def go_to_page(self, page: int, select_index: int = 0) -> None:
        """Show page ``page`` (clamped) and select its ``select_index``-th item."""
        self.page = min(max(page, 0), self.num_pages - 1)
        visible = self.visible
        self.index = min(max(select_index, 0), max(len(visible) - 1, 0)) if visible else -1
        self._draw()
        self.page_label.value = f"page {self.page + 1}/{self.num_pages} · {len(self.items)} items"
        self.prev_button.disabled = self.page == 0
        self.next_button.disabled = self.page >= self.num_pages - 1
        self._show(self.selected)

    def _draw(self) -> None:
        """Send the visible page's rows (and the columns) to the table."""
        columns = list(self.source.columns())
        metric = self.filters.metric.value
        rows = []
        for item in self.visible:
            cells = [self.source.cell(item, c.key, metric) for c in columns]
            rows.append([[cell.text, cell.css] for cell in cells])
        options = sort_options(columns)
        self._busy = True
        try:
            if list(self.filters.sort.options) != options:  # a column came (e.g. marks)
                sort = self.filters.sort.value
                self.filters.sort.options = options
                self.filters.sort.value = sort
            with self.table.hold_sync():
                self.table.columns = [c.wire() for c in columns]
                self.table.rows = rows
                self.table.index = self.index
                self.table.sort = self.sort
        finally:
            self._busy = False

    def next_page(self) -> None:
        self.go_to_page(self.page + 1)

    def prev_page(self) -> None:
        self.go_to_page(self.page - 1, self.page_size - 1)

    def move(self, step: int) -> None:
        """Select the row ``step`` rows down (up when negative), across pages."""
        if not self.items:
            return
        position = self.page * self.page_size + max(self.index, 0) + step
        position = min(max(position, 0), len(self.items) - 1)
        page, index = divmod(position, self.page_size)
        if page == self.page:
            self.index = index
            self._busy = True
            try:
                self.table.index = index
            finally:
                self._busy = False
            self._show(self.selected)
        else:
            self.go_to_page(page, index)

    def press(self, key: str) -> None:
        """A table key (:data:`~.table.KEYS`): ``j``/``k`` move, ``p``/``f``/``u`` mark the
        selected row; other keys are the browser's own (note field, help)."""
        if key == "j":
            self.move(1)
        elif key == "k":
            self.move(-1)
        elif key in REVIEW_KEYS and hasattr(self.source, "mark") and self.selected is not None:
            self.mark_selected(REVIEW_KEYS[key])

    def save_note(self, note: str) -> None:
        """The note field's Enter: keep ``note`` with the selected row's mark (``unsure``
        when it has none yet)."""
        item = self.selected
        if item is None or not hasattr(self.source, "mark"):
            return
        current = self._reviewable().mark_of(item)
        self.mark_selected(current or "unsure", note.strip() or None)

    # selection -----------------------------------------------------------------------------

    @property
    def selected(self) -> Any:
        """The item open in the detail pane, or ``None``."""
        visible = self.visible
        return visible[self.index] if 0 <= self.index < len(visible) else None

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
            self.query = Query()
            self.table.focus_metric = ""
            self.items = self.ordered(self._filtered(self.sort), self.sort)
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
        """A row clicked in the browser."""
        if self._busy:
            return
        self.index = change["new"]
        self._show(self.selected)

    def _show(self, item: Any) -> None:
        if item is None:
            self.detail.value = detail_html(Markup('<div class="ae-note">nothing matches</div>'))
            return
        needles = tuple(self.query.needles)
        key = (id(item), needles)
        value = self._cache.get(key)
        if value is None:
            value = detail_html(highlight(self.source.render(item), list(needles)))
            self.render_count += 1
            self._cache[key] = value
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        self.detail.value = value

    # human review -------------------------------------------------------------------------

    def mark(
        self,
        eval_id: str,
        run_id: int,
        mark: str,
        note: str | None = None,
        metric: str | None = None,
    ) -> Any:
        """Mark case result (``eval_id``, ``run_id``) — or its ``metric`` — ``pass``, ``fail``
        or ``unsure`` (a reviewer from ``ae.config.reviewer``); the table shows the mark."""
        kept = self._reviewable().mark(eval_id, run_id, mark, note, metric)
        self._draw()
        return kept

    def mark_selected(self, mark: str, note: str | None = None) -> Any:
        """Mark the selected case result (the review buttons and keys call this)."""
        item = self.selected
        if item is None:
            raise LookupError("no case result is selected")
        eval_id, run_id = self.source.key(item)
        return self.mark(eval_id, run_id or 1, mark, note)

    def filtered_df(self, backend: str | None = None) -> Any:
        """The rows the table holds now (all pages, shown order): the columns of
        ``cases_df()``, ``score:<metric>`` per metric, ``human_mark``, ``judge_vs_human`` and
        ``samples_disagree``."""
        return to_backend(self._reviewable().frame(self.items), backend)

    def _reviewable(self) -> Reviewable:
        if not hasattr(self.source, "mark"):
            raise TypeError("marks and filtered_df belong to a run's inspector")
        return self.source  # type: ignore[return-value]

    # static view ---------------------------------------------------------------------------

    def static_html(self, limit: int = 10) -> str:
        """A compact HTML summary for views without a live kernel (nbconvert HTML, GitHub):
        the title, the flags and the first ``limit`` items of the list."""
        metric = self.filters.metric.value
        rows = join(
            Markup("<li><code>{}</code></li>").format(text(self.source.label(it, metric)))
            for it in self.items[:limit]
        )
        more = len(self.items) - limit
        tail = Markup("<li>… {} more</li>").format(more) if more > 0 else Markup("")
        return detail_html(
            Markup(
                "<div><b>{}</b> {}</div><ul>{}{}</ul>"
                '<div class="ae-note">inspector widget: run the notebook to browse the cases'
                "</div>"
            ).format(self.title, self.flags, rows, tail)
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.static_html()
            bundle["text/plain"] = f"<inspector: {plain(self.title)}>"
        return bundle
