"""A run that goes on in the background (``ae.start``), or one another process writes
(``ae.watch``): read it while it fills, stop it cleanly, resume what is missing.

* ``ae.start(evalset, metrics, **keywords)`` takes ``ae.evaluate``'s keywords and returns at
  once: the same engine runs ``evaluate_async`` on the process's long-lived event loop
  (:func:`~agenteval_nb.syncio.shared_loop`, a daemon thread: a notebook's loop stays free,
  and an agent's loop-bound clients serve ``ae.start`` and ``ae.evaluate`` alike). Its
  observer (:class:`Progress`) journals each finished case-run (:mod:`.journal`, in
  ``results_dir`` when given) with the text the record builder encodes anyway — within
  :data:`FLUSH_EVERY_S` seconds, or every :data:`FLUSH_BATCH` case-runs when they finish
  faster — and decides which case-runs start.
* ``live.cancel()``: no case-run starts any more; those running finish (or time out). The
  result holds the finished ones, with ``info["partial"]`` saying how many of how many.
* ``live.result()`` blocks for the :class:`~agenteval_nb.evalrun.EvalRun` (``await live`` in
  async code); it is saved to ``results_dir`` and the journal ends with its id. Ctrl-C while
  waiting cancels the run, waits for the running case-runs, then raises.
* ``ae.start(..., resume="runs/x")`` reads that folder's journal, checks it is the same
  evaluation (eval set, runs, cases, metrics), runs only the case-runs it lacks and returns the
  whole run: nothing finished is run twice. A run killed at any point (even SIGKILL) leaves a
  journal of what finished: ``ae.watch(dir).snapshot()`` loads it, ``resume=`` finishes it.
* ``live.snapshot()`` (and anything that takes a run: ``ae.inspect(live)``, frames, reports)
  is the run of the case-runs finished so far, its summary computed over them.

Progress, in the repr: case-runs done of the total, passed / failed / not evaluated among them
(the unit: finished case-runs, each run of a case on its own), errors, judge and agent tokens
(and the judge's cost, with a price table) so far, elapsed time and the ETA (remaining
case-runs at the mean pace so far).
"""

from __future__ import annotations

import asyncio
import html
import math
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from ..api import evaluate_async, save_run
from ..engine.options import ResultSink, RunPlan
from ..errors import ConfigError
from ..evalrun import EvalRun
from ..io.reviews import merge_marks, read_marks
from ..runs import load_run
from ..schema import EvalCase, EvalCaseResult
from ..syncio import shared_loop
from .journal import (
    Entries,
    Head,
    JournalWriter,
    journal_path,
    read_journal,
    read_lines,
    result_text,
)

FLUSH_EVERY_S = 0.2
"""The longest a finished case-run waits before it is journalled (and shown)."""
REVIEW_NAME = "live.review.json"
"""Where marks set on a live run's snapshots are kept until the run ends (then they move to
where the final run's marks live)."""
FLUSH_BATCH = 256
"""Case-runs journalled at once when they finish faster than that."""


# -- the observer: journal, progress and admission -----------------------------------------------


class Progress:
    """What a live run knows as it goes: the journal entries (earlier ones of a resumed run
    included), the status of each finished case-run, errors, when it started. Its ``sink``
    wraps the engine's record builder, whose encoded case texts it journals; its ``admit``
    keeps finished and cancelled case-runs from starting."""

    def __init__(self, results_dir: Path | None, earlier: Entries | None) -> None:
        self.entries = earlier or Entries()
        self.earlier = set(self.entries.done)
        self.results_dir = results_dir
        self.writer: JournalWriter | None = None
        self.cancelled = threading.Event()
        self.started = time.monotonic()
        self.finished_at: float | None = None
        self.errors = 0
        self.new_done = 0
        self.lock = threading.Lock()
        self._builder: Any = None
        self.usage: Callable[[], dict[str, Any]] | None = None
        home = results_dir or Path(tempfile.mkdtemp(prefix="agenteval-live-"))
        self.review_file = home / REVIEW_NAME
        self._flush_scheduled = False
        self._pending = 0  # case-runs the builder has to encode
        self._direct: list[tuple[int, bytes]] = []  # case-runs with their text at hand

    # RunObserver
    def begin(self, plan: RunPlan) -> None:
        head = Head(plan.eval_set_id, plan.num_runs, plan.case_ids, plan.metrics, plan.total)
        if self.entries.head is not None:
            difference = self.entries.head.difference(head)
            if difference is not None:
                raise ConfigError(
                    f"resume: {self.results_dir} journals another evaluation ({difference})"
                )
        self.entries.head = head
        self.usage = plan.usage
        if self.results_dir is not None:
            path = journal_path(self.results_dir)
            self.writer = JournalWriter(path, head, resume=bool(self.earlier))

    def admit(self, run_id: int, eval_id: str) -> bool:
        return not self.cancelled.is_set() and (run_id, eval_id) not in self.earlier

    def sink(self, inner: ResultSink) -> ResultSink:
        """``inner`` (the engine's record builder) with this run's bookkeeping beside it."""
        self._builder = inner
        inner.listen(self.journal)  # type: ignore[attr-defined]
        return _Tee(inner, self)

    # on the engine's loop
    def finished(self, position: int, result: Any, text: bytes | None = None) -> None:
        """A case-run finished: counted now, journalled within :data:`FLUSH_EVERY_S` — its
        ``text`` as it is when the engine already encoded it (the bulk path), else the text
        the record builder encodes."""
        with self.lock:
            self.entries.done[(int(result.run_id or 1), str(result.eval_id))] = position
            self.entries.statuses[position] = str(result.final_eval_status or "")
            self.errors += bool(getattr(result, "error_message", None))
            self.new_done += 1
            if text is None:
                self._pending += 1
            else:
                self._direct.append((position, text))
            urgent = self._pending + len(self._direct) >= FLUSH_BATCH
        if urgent:
            self.flush()
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_later(FLUSH_EVERY_S, self.flush)

    def flush(self) -> None:
        """Journal the texts at hand; have the builder encode the others (its listener
        journals them). The builder runs its frame builders only when it holds results of
        its own to encode."""
        with self.lock:
            self._flush_scheduled = False
            direct, self._direct = self._direct, []
            encode, self._pending = self._pending, 0
        if direct:
            self.journal(direct)
        if encode and self._builder is not None:
            self._builder.flush()

    def journal(self, items: list[tuple[int, bytes]]) -> None:
        """Journal a batch of encoded case-runs (the builder's listener too: what was
        journalled already is skipped)."""
        with self.lock:
            items = [(p, text) for p, text in items if p not in self.entries.texts]
            self.entries.texts.update(items)
        if self.writer is not None:
            self.writer.cases(items)

    def end(self, status: str, result_id: str | None) -> None:
        self.finished_at = time.monotonic()
        if self.writer is not None:
            self.writer.end(status, result_id)
            self.writer.close()


class _Tee:
    """The engine's sink with the live run's bookkeeping beside it (a text sink, as the record
    builder is: the bulk path stays open)."""

    def __init__(self, inner: Any, progress: Progress) -> None:
        self.inner = inner
        self.progress = progress

    def add(self, position: int, case: EvalCase | None, result: EvalCaseResult) -> None:
        self.inner.add(position, case, result)
        self.progress.finished(position, result)

    def add_text(
        self, position: int, case: Any, result: Any, text: bytes | None, encoded: bool = False
    ) -> None:
        self.inner.add_text(position, case, result, text, encoded)
        self.progress.finished(position, result, text if encoded else None)


# -- reading a live run ----------------------------------------------------------------------


def snapshot_of(progress: Progress, result_id: str = "live") -> EvalRun:
    """The run of the case-runs journalled so far (summary computed over them)."""
    with progress.lock:
        text = result_text(progress.entries, result_id)
    run: EvalRun = load_run(text.decode("utf-8"))  # type: ignore[assignment]
    run.record.info["review_file"] = str(progress.review_file)
    return run


def progress_line(progress: Progress, state: str) -> str:
    """``running · 12/100 case-runs · passed 9 · failed 2 · … · ETA 0:05:10``."""
    with progress.lock:
        statuses = list(progress.entries.statuses.values())
        head = progress.entries.head
        new_done = progress.new_done
        errors = progress.errors
    if head is None:
        return f"{state} · starting (the evaluation is being planned)"
    total = head.total
    done = len(statuses)
    counts = {s: statuses.count(s) for s in ("passed", "failed", "not_evaluated")}
    end = progress.finished_at or time.monotonic()
    elapsed = end - progress.started
    parts = [state, f"{done}/{total} case-runs done"]
    if done:
        parts.append(
            f"passed {counts['passed']} of {done} finished case-runs "
            f"({counts['passed'] / done:.0%}) · failed {counts['failed']} · "
            f"not evaluated {counts['not_evaluated']}"
        )
    parts.append(f"errors {errors}")
    parts.extend(_spend(progress))
    parts.append(f"elapsed {_clock(elapsed)}")
    if state == "running" and new_done and total > done:
        parts.append(f"ETA {_clock(elapsed / new_done * (total - done))}")
    return " · ".join(parts)


def _spend(progress: Progress) -> list[str]:
    """``judge 1,234 tokens ($0.0123)`` and ``agent 567 tokens`` so far (those that spent)."""
    usage = progress.usage() if progress.usage is not None else {}
    parts = []
    for who in ("judge", "agent"):
        spent = usage.get(who) or {}
        tokens = int(spent.get("prompt_tokens") or 0) + int(spent.get("completion_tokens") or 0)
        if tokens:
            cost = spent.get("cost")
            parts.append(f"{who} {tokens:,} tokens" + (f" (${cost:.4f})" if cost else ""))
    return parts


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


# -- the handles ------------------------------------------------------------------------------


class LiveRun:
    """A run going on in the background; see the module docstring."""

    def __init__(self, progress: Progress, future: Future[EvalRun]) -> None:
        self.progress = progress
        self.future = future

    @property
    def state(self) -> str:
        if not self.future.done():
            return "cancelling" if self.progress.cancelled.is_set() else "running"
        if self.future.exception() is not None:
            return "failed"
        return "cancelled" if self.progress.cancelled.is_set() else "finished"

    def done(self) -> bool:
        return self.future.done()

    def cancel(self) -> None:
        """No new case-run starts; running ones finish; the result keeps what finished."""
        self.progress.cancelled.set()

    def result(self, timeout: float | None = None) -> EvalRun:
        """The run (blocks). Ctrl-C while waiting cancels it and waits for its running
        case-runs before raising."""
        try:
            return self.future.result(timeout)
        except KeyboardInterrupt:
            self.cancel()
            self.future.exception()  # wait: what finished is saved
            raise

    def version(self) -> int:
        """Grows when more case-runs were journalled, and once more when the run ended."""
        with self.progress.lock:
            return len(self.progress.entries.texts) + self.future.done()

    def progress_text(self) -> str:
        return progress_line(self.progress, self.state)

    def __await__(self) -> Generator[Any, None, EvalRun]:
        return asyncio.wrap_future(self.future).__await__()

    def snapshot(self) -> EvalRun:
        """The run of the case-runs finished so far."""
        if self.future.done() and self.future.exception() is None:
            return self.future.result()
        return snapshot_of(self.progress)

    def __repr__(self) -> str:
        return f"LiveRun({progress_line(self.progress, self.state)})"

    def _repr_html_(self) -> str:
        line = html.escape(progress_line(self.progress, self.state))
        return f'<div class="ae-live"><b>live run</b> · {line}</div>'


class WatchedRun:
    """A run another process journals in ``results_dir`` (``ae.watch``): each read takes the
    journal's new complete lines; before the journal exists it is a run about to start."""

    def __init__(self, results_dir: Path) -> None:
        self.path = journal_path(results_dir)
        self.progress = Progress(None, None)
        self.progress.review_file = Path(results_dir) / REVIEW_NAME  # the writer's
        self._offset = 0
        self._line = 1
        self.refresh()

    def refresh(self) -> None:
        """Read the journal's new complete lines (none yet while the run has not begun)."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
        consumed = read_lines(self.progress.entries, data, self.path, self._line)
        self._line += data[:consumed].count(b"\n")
        self._offset += consumed
        with self.progress.lock:
            self.progress.new_done = len(self.progress.entries.texts)
        if self.progress.entries.end is not None and self.progress.finished_at is None:
            self.progress.finished_at = time.monotonic()

    @property
    def state(self) -> str:
        self.refresh()
        return self.progress.entries.end or "running"

    def version(self) -> int:
        self.refresh()
        return len(self.progress.entries.texts) + (self.progress.entries.end is not None)

    def progress_text(self) -> str:
        return progress_line(self.progress, self.state)

    def done(self) -> bool:
        return self.state != "running"

    def snapshot(self) -> EvalRun:
        self.refresh()
        return snapshot_of(self.progress, self.progress.entries.result_id or "watched")

    def result(self, timeout: float | None = None, poll_s: float = 0.5) -> EvalRun:
        """The run once its journal ends (polling; ``TimeoutError`` after ``timeout``)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.state == "running":
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{self.path}: the run has not ended after {timeout} s")
            time.sleep(poll_s)
        return self.snapshot()

    def __repr__(self) -> str:
        return f"WatchedRun({progress_line(self.progress, self.state)})"

    def _repr_html_(self) -> str:
        line = html.escape(progress_line(self.progress, self.state))
        return f'<div class="ae-live"><b>watched run</b> · {line}</div>'


# -- the doors --------------------------------------------------------------------------------


def _final(progress: Progress, engine_run: EvalRun) -> EvalRun:
    """The engine's run, or — when the journal holds more (a resume) or less (a cancel) than a
    whole run — the journalled case-runs as one run, the engine's info kept."""
    head = progress.entries.head
    whole = head is not None and len(progress.entries.texts) == head.total
    if not progress.earlier and whole:
        return _with_live_marks(engine_run, progress)
    run = snapshot_of(progress, engine_run.header.eval_set_result_id or str(uuid.uuid4()))
    run.app_name = engine_run.app_name
    run.info.update({k: v for k, v in engine_run.info.items() if k != "summary_computed"})
    if progress.earlier:
        run.info["resumed"] = f"{len(progress.earlier)} case-runs from an earlier run"
    if not whole:
        total = head.total if head is not None else 0
        run.info["partial"] = f"cancelled: {len(progress.entries.texts)} of {total} case-runs"
    run.record.info.pop("review_file", None)
    return _with_live_marks(run, progress)


def _with_live_marks(run: EvalRun, progress: Progress) -> EvalRun:
    """``run`` holding the marks set during the run (saving it moves them beside it)."""
    if progress.review_file.exists():
        run.record.marks = merge_marks(run.record.marks, read_marks(progress.review_file))
    return run


def start(
    evalset: Any,
    metrics: Any,
    *,
    results_dir: str | os.PathLike[str] | None = None,
    resume: str | os.PathLike[str] | None = None,
    **keywords: Any,
) -> LiveRun:
    """Start ``ae.evaluate(evalset, metrics, **keywords)`` in the background and return its
    :class:`LiveRun` at once. ``results_dir`` keeps the journal and, at the end, the result;
    ``resume`` (a folder with a journal; the default ``results_dir``) runs only the case-runs
    the journal lacks. ``progress`` bars are off unless asked for."""
    if resume is not None:
        results_dir = results_dir or resume
        path = journal_path(resume)
        if not path.exists():
            raise FileNotFoundError(f"resume: no journal at {path}")
        earlier: Entries | None = read_journal(path)
    else:
        earlier = None
    folder = None if results_dir is None else Path(results_dir)
    progress = Progress(folder, earlier)
    keywords.setdefault("progress", False)

    async def main() -> EvalRun:
        try:
            engine_run = await evaluate_async(evalset, metrics, observer=progress, **keywords)
        except BaseException:
            progress.flush()
            progress.end("failed", None)
            raise
        run = _final(progress, engine_run)
        saved = save_run(run.record, folder, None, run.app_name) if folder else None
        progress.end("cancelled" if "partial" in run.info else "finished", saved)
        if saved is not None:
            run.info["saved_result_id"] = saved
        return run

    # on the process's one long-lived loop (syncio), in the caller's context: an agent's
    # loop-bound clients serve ae.start and ae.evaluate alike
    future = asyncio.run_coroutine_threadsafe(main(), shared_loop())
    return LiveRun(progress, future)


def watch(results_dir: str | os.PathLike[str]) -> WatchedRun:
    """Follow the run journalled in ``results_dir`` by another process, a CLI job or workers."""
    return WatchedRun(Path(results_dir))


__all__: Sequence[str] = ["LiveRun", "WatchedRun", "start", "watch"]
