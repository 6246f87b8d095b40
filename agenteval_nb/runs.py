"""Getting runs: ``ae.load_run``, :class:`RunCollection` and :func:`as_run`, the one coercion of
every door that takes a run.

``ae.save_result`` writes a run's result file (:func:`save_result`) as the run holds it.

``load_run`` accepts whatever the Go framework (or this package) writes — a result file, JSON
text, a dict, an ``EvalSetResult`` (read by :func:`~agenteval_nb.analysis.load.load_record`) —
and an ``EvalRun``; a directory gives a :class:`RunCollection` of every result file under it; a
result store (``ae.load_run(store, app, result_id)``) gives the stored result, or every result
of the app as a :class:`RunCollection` without a result id.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, overload, runtime_checkable

import polars as pl

from .analysis.frames import SCHEMAS, frame, to_backend
from .analysis.load import (
    EvalSetArg,
    MetricsArg,
    check_runs,
    evalsets_of,
    is_dir,
    load_record,
    metrics_of,
    result_files,
)
from .analysis.paired import compare_records
from .analysis.record import RunRecord
from .analysis.reviews import keep_marks_in_store, reviews_frame
from .evalrun import EvalRun
from .io import save_result as save_result_model
from .schema import EvalSetResult
from .stores.base import ResultStore

__all__ = ["RunCollection", "RunLike", "as_run", "load_run", "save_result"]


def save_result(result: EvalSetResult | EvalRun | RunRecord, path: str | os.PathLike[str]) -> Path:
    """Write a result file atomically, in the Go format.

    A run (``ae.evaluate``'s, ``ae.load_run``'s) is written as ``run.save(path)`` writes it:
    a streamed run's case results as the file texts it holds, so no case result model is
    built (``run.result`` builds every one: a 100k-case result is gigabytes of models). A
    result model is written one case result at a time.
    """
    if isinstance(result, (EvalRun, RunRecord)):
        return result.save(path)
    return save_result_model(result, path)


@overload
def load_run(
    path_or_result: EvalSetResult | Mapping[str, Any] | EvalRun,
    evalset: EvalSetArg = None,
    metrics: MetricsArg = None,
) -> EvalRun: ...


@overload
def load_run(
    path_or_result: str | os.PathLike[str],
    evalset: EvalSetArg = None,
    metrics: MetricsArg = None,
) -> EvalRun | RunCollection: ...


@overload
def load_run(
    path_or_result: ResultStore,
    evalset: str | None = None,
    metrics: str | None = None,
    *,
    app_name: str | None = None,
    result_id: str | None = None,
) -> EvalRun | RunCollection: ...


def load_run(
    path_or_result: Any,
    evalset: Any = None,
    metrics: Any = None,
    *,
    app_name: str | None = None,
    result_id: str | None = None,
) -> EvalRun | RunCollection:
    """An :class:`EvalRun` from a result (file, text, dict, model or run), or a
    :class:`RunCollection` from a directory of ``*.evalset_result.json`` files.

    ``evalset`` (one or a list) and ``metrics`` are what was evaluated; they add rubric texts
    and evaluator names to the frames. A missing ``summary`` is computed (the returned run's
    ``info["summary_computed"]`` is True); the file itself is not changed.

    From a :class:`~agenteval_nb.stores.ResultStore` (memory, local files, SQL):
    ``load_run(store, app_name, result_id)`` — the two positions after the store are the app
    and the result id (or give them as keywords, with ``evalset=`` / ``metrics=``); without a
    result id, every result of the app as a :class:`RunCollection` keyed by result id. Marks
    set on such a run are kept in the store, beside the result (``docs/review.md``).
    """
    if isinstance(path_or_result, ResultStore):
        if app_name is None:  # positional form: load_run(store, app, result_id)
            app_name, result_id, evalset, metrics = evalset, result_id or metrics, None, None
        if not isinstance(app_name, str) or not app_name:
            raise TypeError("load_run(store, app_name, result_id=None) needs an app name")
        if result_id is None:
            return RunCollection.from_store(path_or_result, app_name, evalset, metrics)
        run = load_run(path_or_result.get(app_name, result_id), evalset, metrics)
        run.app_name = app_name  # type: ignore[union-attr]
        run.info["source"] = f"{path_or_result!r}: {app_name}/{result_id}"  # type: ignore[union-attr]
        keep_marks_in_store(run.record, path_or_result, app_name, result_id)  # type: ignore[union-attr]
        return run
    if is_dir(path_or_result):
        return RunCollection.from_dir(path_or_result, evalset=evalset, metrics=metrics)
    if isinstance(path_or_result, EvalRun):
        path_or_result = path_or_result.record
    record = load_record(path_or_result, evalsets_of(evalset), metrics_of(metrics))
    return EvalRun(record=record)


RunLike = EvalRun | EvalSetResult | Mapping[str, Any] | str | os.PathLike[str]
"""What :func:`load_run` and every function taking a run accept."""


@runtime_checkable
class HoldsSnapshot(Protocol):
    """A run still going on (``ae.start``, ``ae.watch``): taken as what finished so far."""

    def snapshot(self) -> EvalRun: ...


def as_run(value: Any, what: str = "this function") -> EvalRun:
    """``value`` as one :class:`EvalRun`, with a summary: an ``EvalRun`` (itself when it has a
    consistent summary), a live run's snapshot (:class:`HoldsSnapshot`), an ``EvalSetResult``,
    a result dict, JSON text, a result file, or a folder / :class:`RunCollection` holding
    exactly one result.

    Anything else is a ``TypeError`` naming ``what`` and the accepted kinds; a folder with
    several results is a ``TypeError`` listing their keys.
    """
    if isinstance(value, HoldsSnapshot):
        value = value.snapshot()
    if isinstance(value, EvalRun) and value.header.summary is not None:
        if not value.streaming:  # a streamed run was checked when it was built
            check_runs(value.result, "<EvalRun>")
        return value
    if isinstance(value, (EvalRun, EvalSetResult, Mapping, str, os.PathLike)):
        value = load_run(value)
    if isinstance(value, RunCollection):
        if len(value) != 1:
            keys = ", ".join(map(repr, value.keys()[:5])) + (" …" if len(value) > 5 else "")
            raise TypeError(
                f"{what} takes one run, got {len(value)} results ({keys}); pick one, e.g. "
                "runs[key] of ae.load_run(folder)"
            )
        return value[0]
    if isinstance(value, EvalRun):
        return value
    raise TypeError(
        f"{what} takes a run: an EvalRun, an EvalSetResult, a result dict or JSON text, a "
        f".evalset_result.json path or a folder of them; got {type(value).__name__}"
    )


def _polars_frame(record: RunRecord, kind: str) -> pl.DataFrame:
    """Frame ``kind`` of one run: its marks for ``"reviews"`` (read from the review file, not
    a table of the record), else the record's table."""
    if kind == "reviews":
        return reviews_frame(record, "polars")
    return frame(record, kind, "polars")


class RunCollection(Sequence[EvalRun]):
    """Runs keyed by result id, in key order: index by position or by key.

    ``concat_df(kind)`` stacks one frame kind of every run with a leading ``result_id`` column;
    ``compare(a, b)`` compares two runs given by key or position.
    """

    def __init__(self, runs: Mapping[str, EvalRun]) -> None:
        self._runs = dict(runs)
        self._keys = list(self._runs)

    @classmethod
    def from_dir(
        cls,
        directory: str | os.PathLike[str],
        evalset: EvalSetArg = None,
        metrics: MetricsArg = None,
    ) -> RunCollection:
        """Every ``*.evalset_result.json`` under ``directory`` (recursively), sorted by path,
        keyed as :func:`~agenteval_nb.analysis.load.result_files` says."""
        sets, metric_list = evalsets_of(evalset), metrics_of(metrics)
        return cls(
            {
                key: EvalRun(record=load_record(path, sets, metric_list))
                for key, path in result_files(directory).items()
            }
        )

    @classmethod
    def from_store(
        cls,
        store: ResultStore,
        app_name: str,
        evalset: EvalSetArg = None,
        metrics: MetricsArg = None,
    ) -> RunCollection:
        """Every result of ``app_name`` in a result store, keyed by result id (sorted)."""
        sets, metric_list = evalsets_of(evalset), metrics_of(metrics)
        runs: dict[str, EvalRun] = {}
        for result_id in store.list(app_name):
            record = load_record(store.get(app_name, result_id), sets, metric_list)
            record.app_name = app_name
            keep_marks_in_store(record, store, app_name, result_id)
            runs[result_id] = EvalRun(record=record)
        return cls(runs)

    def keys(self) -> list[str]:
        return list(self._keys)

    def items(self) -> list[tuple[str, EvalRun]]:
        return [(k, self._runs[k]) for k in self._keys]

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[EvalRun]:
        return (self._runs[k] for k in self._keys)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self._runs
        return any(item is run for run in self._runs.values())

    @overload
    def __getitem__(self, key: int | str) -> EvalRun: ...

    @overload
    def __getitem__(self, key: slice) -> RunCollection: ...

    def __getitem__(self, key: int | str | slice) -> EvalRun | RunCollection:
        if isinstance(key, slice):
            return RunCollection({k: self._runs[k] for k in self._keys[key]})
        if isinstance(key, str):
            return self._runs[key]
        return self._runs[self._keys[key]]

    def concat_df(self, kind: str, backend: str | None = None) -> Any:
        """One frame kind (``"cases"``, ``"metrics"``, ``"reviews"`` …) of every run,
        stacked, with a leading ``result_id`` column (the collection key)."""
        if kind not in SCHEMAS:
            raise ValueError(f"unknown frame kind {kind!r}; expected one of {sorted(SCHEMAS)}")
        parts = [
            _polars_frame(run.record, kind).select(
                pl.lit(key, dtype=pl.String).alias("result_id"), pl.all()
            )
            for key, run in self.items()
        ]
        if not parts:
            parts = [pl.DataFrame(schema={"result_id": pl.String, **SCHEMAS[kind]})]
        return to_backend(pl.concat(parts, how="vertical"), backend)

    def compare(self, a: int | str, b: int | str, **kwargs: Any) -> Any:
        """Paired comparison of runs ``a`` and ``b`` (keys or positions); see ``ae.compare``."""
        return compare_records(self[a].record, self[b].record, **kwargs)

    def __repr__(self) -> str:
        shown = ", ".join(self._keys[:5]) + (" …" if len(self) > 5 else "")
        return f"RunCollection({len(self)} runs: {shown})"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(key)}</td><td>{html.escape(repr(run))}</td></tr>"
            for key, run in self.items()
        )
        return f"<table><tr><th>result id</th><th>run</th></tr>{rows}</table>"
