"""The inspector of a run still going on: the same master–detail view, its table growing as
case-runs land, with the run's progress and a stop button above it.

It takes data and callables, never the live handle: ``snapshot()`` (the record of what finished
so far), ``version()`` (changes when more finished, and once more when the run ended),
``progress()`` (the header line), ``done()`` and ``cancel()`` (None for a run another
process writes: no stop button). On the event loop running when it
is built (Jupyter's and voilà's kernels run one), it looks every :data:`REFRESH_S` seconds — at
most five updates a second, whatever the run's pace — and swaps in a new snapshot when the
version moved, keeping the filters, the sort and the selected case (``MasterDetail
.replace_source``); the last swap, after the end, shows the final run. Without a running loop
(a script) :meth:`LiveInspector.update` does one step by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..analysis.record import RunRecord, record_flags
from ..render.flags import flags_badges
from ..render.text import plain
from .entries import PAGE_SIZE
from .inspector import RunSource
from .master import MasterDetail

REFRESH_S = 0.2
"""Seconds between two looks at the run: at most five table updates a second."""


def _title(record: RunRecord, state: str) -> str:
    set_id = plain(record.header.eval_set_id)
    return f"eval set {set_id} · {record.num_case_results} case results ({state})"


class LiveInspector(MasterDetail):
    """:class:`MasterDetail` over a run still going on (module docstring)."""

    def __init__(
        self,
        snapshot: Callable[[], RunRecord],
        version: Callable[[], int],
        progress: Callable[[], str],
        done: Callable[[], bool],
        cancel: Callable[[], None] | None,
        *,
        page_size: int = PAGE_SIZE,
    ) -> None:
        self._snapshot, self._version, self._progress = snapshot, version, progress
        self._done, self._cancel = done, cancel
        self.seen = version()
        record = snapshot()
        super().__init__(
            RunSource(record),
            page_size=page_size,
            title=_title(record, "running"),
            flags=flags_badges(record_flags(record)),
        )
        self.add_class("ae-live-inspector")
        self.progress_label = w.Label(progress())
        self.stop_button = w.Button(description="stop", tooltip="no new case starts")
        self.stop_button.add_class("ae-live-stop")
        self.stop_button.on_click(lambda _b: self.stop())
        controls = [self.stop_button] if cancel is not None else []
        self.children = (w.HBox([*controls, self.progress_label]), *self.children)
        self.updates = 0
        self._handle: asyncio.TimerHandle | None = None
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self._schedule()

    def stop(self) -> None:
        """Cancel the run: no new case starts; what finished stays."""
        if self._cancel is None:
            return
        self._cancel()
        self.stop_button.disabled = True
        self.stop_button.description = "stopping"

    def update(self) -> bool:
        """Show what finished since the last look; False once the run ended and was shown."""
        ended = self._done()
        version = self._version()
        self.progress_label.value = self._progress()
        if version != self.seen:
            self.seen = version
            record = self._snapshot()
            state = "finished" if ended else "running"
            self.replace_source(RunSource(record), _title(record, state))
            self.updates += 1
        if ended:
            self.stop_button.disabled = True
            self.stop_button.description = "ended"
        return not ended

    def _tick(self) -> None:
        self._handle = None
        try:
            going = self.update()
        except Exception as exc:  # a failed snapshot must not kill the kernel's loop
            self.progress_label.value = f"live view stopped: {type(exc).__name__}: {exc}"
            return
        if going:
            self._schedule()

    def _schedule(self) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._handle = self._loop.call_later(REFRESH_S, self._tick)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        super().close()


def inspect_live(*callables: Any, page_size: int = PAGE_SIZE) -> LiveInspector:
    """:class:`LiveInspector` of ``snapshot, version, progress, done, cancel``."""
    return LiveInspector(*callables, page_size=page_size)
