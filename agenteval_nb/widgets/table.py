"""The inspector's case table: a small ``anywidget`` that draws one page of rows, sorts by a
clicked header and takes review keys, in Jupyter and in voilà alike.

Python holds the rows and decides everything; the browser only draws ``columns`` × ``rows``,
reports a clicked row (``index``), a clicked header and the keys below as messages, and keeps
two things of its own: the note field and the key help. Keys work while the table has the
focus (click a row, or tab to it) and never while typing in a text field:

``j``/``k`` next/previous row · ``p``/``f``/``u`` mark pass/fail/unsure · ``n`` note (Enter
saves it with the mark) · ``?`` the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

KEYS = {
    "j": "next row",
    "k": "previous row",
    "p": "mark pass",
    "f": "mark fail",
    "u": "mark unsure",
    "n": "note (Enter saves it with the mark)",
    "?": "show or hide these keys",
}
"""The table's keys and what they do (the ``?`` help lists them)."""

_ESM = r"""
function cell(tag, text, cls, title) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  if (title) el.title = title;
  return el;
}

function scrollToMetric(root, metric) {
  const box = root.closest(".ae-inspector");
  const detail = box && box.querySelector(".ae-detail");
  if (!detail || !metric) return;
  const named = [...detail.querySelectorAll("h4 code, td code")].filter(
    (c) => c.textContent === metric);
  const target = named.find((c) => c.closest("h4")) || named[0];
  if (!target) return;
  const top = target.getBoundingClientRect().top - detail.getBoundingClientRect().top;
  detail.scrollTop += top - 4;
}

function render({ model, el }) {
  el.classList.add("ae-table");
  el.tabIndex = 0;
  // JupyterLab's own shortcuts (j/k move between cells) stay out of the table
  el.dataset.lmSuppressShortcuts = "true";
  const scroller = document.createElement("div");
  scroller.className = "ae-table-scroll";
  const table = document.createElement("table");
  const head = document.createElement("thead");
  const body = document.createElement("tbody");
  table.append(head, body);
  scroller.append(table);
  const note = document.createElement("input");
  note.className = "ae-table-note";
  note.placeholder = "note for the selected row · Enter saves, Esc cancels";
  note.hidden = true;
  const help = document.createElement("div");
  help.className = "ae-table-help";
  help.hidden = true;
  const keys = model.get("help_keys");
  for (const [key, what] of Object.entries(keys)) {
    const line = document.createElement("div");
    line.append(cell("kbd", key), document.createTextNode(" " + what));
    help.append(line);
  }
  el.append(scroller, note, help);

  function drawHead() {
    head.replaceChildren();
    const tr = document.createElement("tr");
    const sort = model.get("sort");
    for (const col of model.get("columns")) {
      const arrow = sort === col.key ? " ▲" : sort === "-" + col.key ? " ▼" : "";
      const th = cell("th", "", col.numeric ? "ae-num" : "", col.title || col.label);
      th.append(cell("span", col.label, "ae-th-label"), document.createTextNode(arrow));
      th.dataset.key = col.key;
      th.addEventListener("click", () => model.send({ kind: "sort", column: col.key }));
      tr.append(th);
    }
    head.append(tr);
  }

  function drawBody() {
    body.replaceChildren();
    const index = model.get("index");
    const columns = model.get("columns");
    model.get("rows").forEach((row, i) => {
      const tr = document.createElement("tr");
      if (i === index) tr.className = "ae-selected";
      row.forEach(([text, cls], c) => {
        const numeric = columns[c] && columns[c].numeric ? "ae-num " : "";
        tr.append(cell("td", text, numeric + (cls || "")));
      });
      tr.addEventListener("click", () => {
        model.set("index", i);
        model.save_changes();
        el.focus();
      });
      body.append(tr);
    });
    if (!model.get("rows").length) {
      const tr = document.createElement("tr");
      const td = cell("td", model.get("empty"), "ae-muted");
      td.colSpan = Math.max(columns.length, 1);
      tr.append(td);
      body.append(tr);
    }
    const chosen = body.querySelector("tr.ae-selected");
    if (chosen) chosen.scrollIntoView({ block: "nearest" });
  }

  el.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target !== el) return; // typing in the note field (or anything else): no keys
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key === "?") {
      help.hidden = !help.hidden;
    } else if (key === "n") {
      note.hidden = false;
      note.focus();
    } else if (key in keys) {
      model.send({ kind: "key", key: key });
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  });
  note.addEventListener("keydown", (event) => {
    event.stopPropagation(); // the notebook's own shortcuts stay out of the note too
    if (event.key === "Enter") {
      model.send({ kind: "note", text: note.value });
      note.value = "";
      note.hidden = true;
      el.focus();
    } else if (event.key === "Escape") {
      note.hidden = true;
      el.focus();
    }
  });

  let watched = null;
  const observer = new MutationObserver(() => scrollToMetric(el, model.get("focus_metric")));
  function watchDetail() {
    const box = el.closest(".ae-inspector");
    const detail = box && box.querySelector(".ae-detail");
    if (detail && detail !== watched) {
      observer.observe(detail, { childList: true, subtree: true, characterData: true });
      watched = detail;
    }
  }

  drawHead();
  drawBody();
  requestAnimationFrame(watchDetail);
  model.on("change:columns", () => { drawHead(); drawBody(); });
  model.on("change:sort", drawHead);
  model.on("change:rows", drawBody);
  model.on("change:index", drawBody);
  model.on("change:focus_metric", () => {
    watchDetail();
    scrollToMetric(el, model.get("focus_metric"));
  });
  return () => observer.disconnect();
}

export default { render };
"""

_CSS = """
.ae-table { outline: none; font-size: 12px; }
.ae-table:focus-visible .ae-table-scroll, .ae-table:focus .ae-table-scroll {
  box-shadow: 0 0 0 2px #0969da55; }
.ae-table-scroll { max-height: 70vh; overflow: auto; border: 1px solid #d0d7de; }
.ae-table table { border-collapse: collapse; width: 100%;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.ae-table th { position: sticky; top: 0; background: #f6f8fa; cursor: pointer; text-align: left;
  padding: 3px 5px; border-bottom: 1px solid #d0d7de; white-space: nowrap; user-select: none; }
.ae-table .ae-th-label { display: inline-block; max-width: 72px; overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
.ae-table td { padding: 2px 5px; border-bottom: 1px solid #eaeef2; white-space: nowrap;
  max-width: 220px; overflow: hidden; text-overflow: ellipsis; cursor: pointer; }
.ae-table .ae-num { text-align: right; }
.ae-table tr.ae-selected td { background: #ddf4ff; }
.ae-table tbody tr:hover td { background: #f3f6f9; }
.ae-table tr.ae-selected:hover td { background: #cbe9fc; }
.ae-table td.ae-pass { color: #1a7f37; }
.ae-table td.ae-fail { color: #cf222e; font-weight: 600; }
.ae-table td.ae-other, .ae-table td.ae-muted, .ae-table td.ae-ne, .ae-table td.ae-unk {
  color: #57606a; }
.ae-table td.ae-flag { color: #9a6700; font-weight: 600; }
.ae-table-note { width: 100%; box-sizing: border-box; margin-top: 4px; font-size: 12px; }
.ae-table-help { margin-top: 4px; padding: 4px 8px; background: #f6f8fa;
  border: 1px solid #d0d7de; font-size: 12px; }
.ae-table-help kbd { display: inline-block; min-width: 1.2em; text-align: center;
  border: 1px solid #8c959f; border-radius: 3px; padding: 0 3px; background: #fff; }
"""


_MESSAGE_FIELDS = {"sort": "column", "key": "key", "note": "text"}
"""Browser message kind → the field that carries its value."""


class CaseTable(anywidget.AnyWidget):  # type: ignore[misc]
    """One page of the inspector's rows: ``columns`` (``key``, ``label``, ``numeric``,
    ``title``), ``rows`` (per column a ``[text, css class]`` cell), ``index`` (the selected row
    of the page, -1 for none), ``sort`` (the sorted column's key, ``-`` first when descending),
    ``focus_metric`` (the metric whose section the detail pane scrolls to).

    ``on_sort(key)``, ``on_key(key)`` and ``on_note(text)`` set what a header click, a review
    key and a saved note do."""

    _esm = _ESM
    _css = _CSS
    columns = traitlets.List(traitlets.Dict()).tag(sync=True)
    rows = traitlets.List(traitlets.List()).tag(sync=True)
    index = traitlets.Int(-1).tag(sync=True)
    sort = traitlets.Unicode("").tag(sync=True)
    focus_metric = traitlets.Unicode("").tag(sync=True)
    empty = traitlets.Unicode("no case matches").tag(sync=True)
    help_keys = traitlets.Dict(KEYS).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._handlers: dict[str, Callable[[str], Any]] = {}
        self.on_msg(self._on_message)

    def on_sort(self, handler: Callable[[str], Any]) -> None:
        self._handlers["sort"] = handler

    def on_key(self, handler: Callable[[str], Any]) -> None:
        self._handlers["key"] = handler

    def on_note(self, handler: Callable[[str], Any]) -> None:
        self._handlers["note"] = handler

    def send_event(self, kind: str, value: str) -> None:
        """What a browser event does, from Python: ``sort`` (a column key), ``key`` or
        ``note`` (the text) — the tests drive the table through this."""
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(value)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("kind"), str):
            return
        kind = content["kind"]
        value = content.get(_MESSAGE_FIELDS.get(kind, ""))
        if isinstance(value, str):
            self.send_event(kind, value)
