"""Experiments: many variants (agents, prompts, models, last week's results) on one eval set,
side by side — ``ae.experiment``, ``ae.experiment_async``, ``ae.load_experiment`` and
:class:`Experiment`, the front door whose methods are one line into
:mod:`agenteval_nb.analysis.experiment`.

A variant is an agent (anything ``ae.evaluate(agent=…)`` takes), evaluated here, or a recorded
run (an ``EvalRun``, a result file, or a result-store key), taken as it is. Every variant is
scored against the experiment's eval set and metrics: a recorded run of another eval set, other
cases or other metrics is refused, naming the difference. Agent variants run one after another,
each with its own progress bars, and share one judge client (its cache, limits and usage).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from .analysis import experiment as analysis
from .analysis.frames import to_backend
from .analysis.load import metrics_of, path_of
from .analysis.paired import Comparison, compare_records
from .api import (
    EvalSetInput,
    close_judge,
    evaluate_async,
    judge_settings,
    open_judge,
    open_judge_panel,
)
from .engine.callbacks import CallbackEvent, CallbackPoint, Callbacks
from .errors import FormatError
from .evalrun import EvalRun
from .io import Source, as_source, load_metrics, save_metrics, write_text_atomic
from .judge.usage import checked_prices
from .render.board import OVERVIEW_COLUMNS, leaderboard_table
from .render.text import html
from .runs import as_run, load_run
from .schema import EvalMetric, EvalSetResult
from .stores.base import ResultStore
from .stores.locator import inside
from .syncio import sync_twin

__all__ = [
    "Experiment",
    "experiment",
    "experiment_async",
    "experiment_of_runs",
    "load_experiment",
]

MANIFEST = "experiment.json"
METRICS_FILE = "metrics.json"
RESULT_SUFFIX = ".evalset_result.json"


class Experiment(Mapping[str, EvalRun]):
    """Named runs of one eval set and metrics, in the given order; ``exp["name"]`` is a run.

    ``num_runs`` is the k of the leaderboard's pass@k; ``price_table`` prices agent and judge
    tokens (``{model: (input $/1M, output $/1M)}``).
    """

    def __init__(
        self,
        runs: Mapping[str, EvalRun],
        *,
        num_runs: int | None = None,
        price_table: Mapping[str, tuple[float, float]] | None = None,
        metrics: Sequence[EvalMetric] = (),
    ) -> None:
        self.runs = dict(runs)
        self.num_runs = num_runs
        self.price_table = checked_prices(price_table) or None
        self.metrics = list(metrics)

    @property
    def variants(self) -> list[str]:
        """Variant names, in the given order."""
        return list(self.runs)

    @property
    def records(self) -> dict[str, Any]:
        """Variant name → run record (what the analysis functions take)."""
        return {name: run.record for name, run in self.runs.items()}

    def __getitem__(self, name: str) -> EvalRun:
        if name not in self.runs:
            raise KeyError(f"no variant {name!r}; variants: {', '.join(self.runs)}")
        return self.runs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    # -- analysis (agenteval_nb.analysis.experiment) --------------------------------------------

    def leaderboard_df(self, level: float = 0.95, backend: str | None = None) -> Any:
        """One row per (variant, metric) and an ``"overall"`` row per variant
        (:data:`~.analysis.experiment.LEADERBOARD_SCHEMA`), best first."""
        return to_backend(analysis.leaderboard_of(self, level), backend)

    def pairwise_df(
        self,
        metric: str | None = None,
        *,
        alpha: float = 0.05,
        backend: str | None = None,
        **compare_options: Any,
    ) -> Any:
        """Per metric and pair (a before b in variant order) the statistics of
        ``ae.compare(exp[a], exp[b])`` with Holm's ``p_holm`` and ``significant``."""
        table = analysis.pairwise_frame(self.records, metric, alpha=alpha, **compare_options)
        return to_backend(table, backend)

    def compare(self, a: str, b: str, **options: Any) -> Comparison:
        """``ae.compare(exp[a], exp[b])`` labelled with the variant names (same options)."""
        return compare_records(self[a].record, self[b].record, labels=(a, b), **options)

    def matrix_df(self, metric: str | None = None, backend: str | None = None) -> Any:
        """Rows: eval_id; columns: variants; values: the case's pass rate over runs."""
        return to_backend(analysis.matrix_frame(self.records, metric), backend)

    def frame_df(self, kind: str, backend: str | None = None) -> Any:
        """Run frame ``kind`` of every variant with a leading ``variant`` column."""
        return to_backend(analysis.stacked_frame(self.records, kind), backend)

    def cases_df(self, backend: str | None = None) -> Any:
        return self.frame_df("cases", backend)

    def metrics_df(self, backend: str | None = None) -> Any:
        return self.frame_df("metrics", backend)

    def invocations_df(self, backend: str | None = None) -> Any:
        return self.frame_df("invocations", backend)

    def rubrics_df(self, backend: str | None = None) -> Any:
        return self.frame_df("rubrics", backend)

    def samples_df(self, backend: str | None = None) -> Any:
        return self.frame_df("samples", backend)

    def logprobs_df(self, backend: str | None = None) -> Any:
        return self.frame_df("logprobs", backend)

    # -- files ----------------------------------------------------------------------------------

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write every variant's result file, the metrics and a small manifest
        (``experiment.json``: variant names → files, num_runs, price table) into ``directory``;
        every file is replaced atomically."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        files = variant_files(self.variants)
        for name, run in self.runs.items():
            run.save(out / files[name])
        metrics = self.metrics or next((r.metrics for r in self.runs.values() if r.metrics), [])
        if metrics:
            save_metrics(metrics, out / METRICS_FILE)
        manifest = {
            "variants": [
                {"name": name, "file": files[name], **_kept_info(run)}
                for name, run in self.runs.items()
            ],
            "num_runs": self.num_runs,
            "metrics": METRICS_FILE if metrics else None,
            "price_table": self.price_table,
        }
        write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")
        return out

    def __repr__(self) -> str:
        return f"Experiment({len(self)} variants: {', '.join(self.variants)})"

    def _repr_html_(self) -> str:
        board = analysis.leaderboard_of(self).filter(pl.col("metric_name") == analysis.OVERALL)
        return str(
            html("<div><b>Experiment</b>{}</div>", leaderboard_table(board, OVERVIEW_COLUMNS))
        )


def experiment_of_runs(runs: Mapping[str, Any], **options: Any) -> Experiment:
    """An :class:`Experiment` of recorded runs (anything ``ae.load_run`` accepts, by name),
    all of the first one's eval set, cases and metrics — another is a ``ValueError`` naming
    the difference. ``options``: ``num_runs`` (default: the largest run count),
    ``price_table``."""
    named = {name: as_run(run, f"variant {name!r}") for name, run in runs.items()}
    if not named:
        raise ValueError("an experiment needs at least one variant")
    first_name, first = next(iter(named.items()))
    set_ids, eval_ids, metrics = analysis.evaluation_of(first.record)
    for name, run in named.items():
        difference = analysis.evaluation_difference(run.record, set_ids, eval_ids, metrics)
        if difference is not None:
            raise ValueError(
                f"variant {name!r} was scored differently from {first_name!r}: {difference}"
            )
    options.setdefault("num_runs", max(run.num_runs for run in named.values()))
    return Experiment(named, **options)


def variant_files(names: Sequence[str]) -> dict[str, str]:
    """Variant name → a result file name of it: unsafe characters become ``_``, a name taken
    twice gets ``-2``, ``-3`` …"""
    files: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        stem = re.sub(r"[^A-Za-z0-9._+-]", "_", name).strip(".") or "variant"
        candidate, n = stem, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate.lower())
        files[name] = candidate + RESULT_SUFFIX
    return files


KEPT_INFO = ("agent", "agent_model", "agent_usage", "judge_usage", "case_latency_s")
"""Run information the manifest keeps (result files do not hold it)."""


def _kept_info(run: EvalRun) -> dict[str, Any]:
    info = {key: run.info[key] for key in KEPT_INFO if key in run.info}
    return {"info": info, "elapsed_s": run.elapsed_s}


def load_experiment(directory: str | os.PathLike[str]) -> Experiment:
    """The experiment :meth:`Experiment.save` wrote to ``directory``. The files its manifest
    names are read only from inside the folder (:func:`~agenteval_nb.stores.locator.inside`):
    an entry that leaves it (``..``, an absolute name, a symbolic link out) is a
    :class:`FormatError` naming the entry."""
    folder = Path(directory)
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        entries = [(v["name"], v["file"]) for v in manifest["variants"]]
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(
            f"{manifest_path}: expected {{'variants': [{{'name', 'file'}}, …]}} ({exc})"
        ) from exc
    metrics_file = manifest.get("metrics")
    metrics = load_metrics(_own_file(folder, metrics_file, "$.metrics")) if metrics_file else []
    runs = {
        name: as_run(
            load_run(_own_file(folder, file, f"$.variants[{i}].file"), metrics=metrics or None)
        )
        for i, (name, file) in enumerate(entries)
    }
    for entry in manifest["variants"]:
        run = runs[entry["name"]]
        run.info.update(entry.get("info") or {})
        run.elapsed_s = entry.get("elapsed_s")
    price_table = manifest.get("price_table")
    return Experiment(
        runs,
        num_runs=manifest.get("num_runs"),
        price_table={k: tuple(v) for k, v in price_table.items()} if price_table else None,
        metrics=metrics,
    )


def _own_file(folder: Path, name: Any, entry: str) -> Path:
    """The file ``name`` of manifest ``entry``, which must lie inside the experiment folder."""
    path = folder / name if isinstance(name, str) and name else None
    if path is None or not inside(folder, path):
        raise FormatError(
            str(folder / MANIFEST),
            entry,
            f"a file name inside the experiment folder {folder} (got {name!r})",
        )
    return path


# -- running one --------------------------------------------------------------------------------


def is_recorded(variant: Any) -> bool:
    """True when ``variant`` is a recorded run (a run, a result model or dict, a path or store
    key) rather than an agent."""
    return isinstance(variant, (EvalRun, EvalSetResult, Mapping, str, os.PathLike))


def recorded_run(variant: Any, name: str, result_store: Any, app_name: str | None) -> EvalRun:
    """A recorded variant as a run: an ``EvalRun`` or result as is, a path read, else (with a
    ``result_store``) a store key ``"app/result_id"``, or ``result_id`` of ``app_name``."""
    path = path_of(variant) if isinstance(variant, (str, os.PathLike)) else None
    if path is not None and not path.exists() and isinstance(result_store, ResultStore):
        key = str(variant)
        app, _, result_id = key.rpartition("/")
        app = app or app_name or ""
        if not app:
            raise ValueError(f"variant {name!r}: store key {key!r} needs app_name= or 'app/id'")
        return as_run(load_run(result_store, app, result_id), f"variant {name!r}")
    return as_run(variant, f"variant {name!r}")


def _reference(
    evalset: EvalSetInput | Sequence[EvalSetInput], case_ids: Any
) -> tuple[list[str], list[str]]:
    """The experiment's eval set ids and case ids (``case_ids`` kept when given)."""
    sets: Sequence[Any] = evalset if isinstance(evalset, (list, tuple)) else [evalset]
    sources = [as_source(s) for s in sets]
    set_ids = sorted({s.header.eval_set_id for s in sources if s.header.eval_set_id})
    ids: list[str] = []
    for source in sources:
        ids.extend(i for i in source.eval_ids if i not in ids)
    if case_ids is not None:
        keep = [case_ids] if isinstance(case_ids, str) else list(case_ids)
        ids = [i for i in ids if i in keep]
    return set_ids, ids


class InferenceTimer:
    """Times each case's inference, from its last BeforeInferenceCase callback to its last
    AfterInferenceCase callback: the seconds per case-run, in the order they finish."""

    def __init__(self) -> None:
        self.started: dict[tuple[int, str | None], float] = {}
        self.seconds: list[float] = []

    def start(self, event: CallbackEvent) -> None:
        self.started[(event.run_id, event.eval_case_id)] = time.perf_counter()

    def stop(self, event: CallbackEvent) -> None:
        began = self.started.pop((event.run_id, event.eval_case_id), None)
        if began is not None:
            self.seconds.append(time.perf_counter() - began)

    def around(self, user: Callbacks | None) -> Callbacks:
        """``user``'s callbacks (same order, same indices) followed by the timer's."""
        merged = Callbacks()
        for point, entries in (user._points if user is not None else {}).items():
            for name, fn in entries:
                merged.register(point, fn, name)
        merged.register(CallbackPoint.BEFORE_INFERENCE_CASE, self.start, "experiment timer")
        merged.register(CallbackPoint.AFTER_INFERENCE_CASE, self.stop, "experiment timer")
        return merged


async def experiment_async(
    evalset: EvalSetInput | Sequence[EvalSetInput],
    metrics: Source | Sequence[EvalMetric],
    *,
    variants: Mapping[str, Any],
    num_runs: int = 1,
    judge: Any = None,
    cache: bool | str | os.PathLike[str] = True,
    judge_concurrency: int = 32,
    judge_max_retries: int = 4,
    judge_timeout: float | None = 180.0,
    requests_per_minute: float | None = None,
    price_table: dict[str, tuple[float, float]] | None = None,
    result_store: Any = None,
    app_name: str | None = None,
    case_ids: str | Sequence[str] | None = None,
    progress: bool = True,
    callbacks: Callbacks | None = None,
    **evaluate_options: Any,
) -> Experiment:
    """Evaluate each agent variant with ``ae.evaluate_async`` (same keywords: ``num_runs``,
    ``executor``, ``case_parallelism``, ``callbacks``, ``results_dir`` / ``result_store`` — one
    result per variant …), take each recorded variant as it is, and return the
    :class:`Experiment` (variants in the given order).

    Recorded variants are checked first: one of another eval set, other cases or other metrics
    is a ``ValueError`` naming the difference, before any agent runs. Agent variants run one
    after another, each with its progress bars labelled by its name (``progress``), and share
    one judge client, opened once from the judge keywords; each run's ``info["judge_usage"]``
    is its own share of the client's usage. Each agent variant's inference time per case-run
    (``callbacks`` run as given, a timer after them) is its run's ``info["case_latency_s"]``:
    the leaderboard's latency columns.
    """
    if not variants:
        raise ValueError("an experiment needs at least one variant")
    metric_list = metrics_of(metrics)  # type: ignore[arg-type]
    metric_names = [m.metric_name for m in metric_list]
    set_ids, eval_ids = _reference(evalset, case_ids)
    recorded: dict[str, EvalRun] = {}
    for name, variant in variants.items():
        if is_recorded(variant):
            run = recorded_run(variant, name, result_store, app_name)
            difference = analysis.evaluation_difference(run.record, set_ids, eval_ids, metric_names)
            if difference is not None:
                raise ValueError(f"variant {name!r} was scored differently: {difference}")
            recorded[name] = run
    settings = judge_settings(
        judge=judge,
        cache=cache,
        judge_concurrency=judge_concurrency,
        judge_max_retries=judge_max_retries,
        judge_timeout=judge_timeout,
        requests_per_minute=requests_per_minute,
        price_table=price_table,
    )
    client, owns_client = open_judge(settings, metric_list)
    panel = open_judge_panel(settings, client)
    runs: dict[str, EvalRun] = {}
    try:
        for name, variant in variants.items():
            if name in recorded:
                runs[name] = recorded[name]
                continue
            before = client.usage.as_dict() if client is not None else None
            timer = InferenceTimer()
            run = await evaluate_async(
                evalset,
                metric_list,
                agent=variant,
                num_runs=num_runs,
                judge=client if panel is None else panel,
                cache=cache,
                price_table=price_table,
                result_store=result_store,
                app_name=app_name,
                case_ids=case_ids,
                progress=name if progress else False,
                callbacks=timer.around(callbacks),
                **evaluate_options,
            )
            run.info["case_latency_s"] = timer.seconds
            if before is not None:
                run.info["judge_usage"] = _usage_since(before, client.usage.as_dict())
            model = getattr(variant, "model", None)
            if isinstance(model, str):
                run.info["agent_model"] = model
            runs[name] = run
    finally:
        if owns_client:
            await close_judge(client, True)
    return Experiment(runs, num_runs=num_runs, price_table=price_table, metrics=metric_list)


@sync_twin(experiment_async)
def experiment() -> Experiment:  # type: ignore[empty-body]
    """Run an experiment (see :func:`experiment_async`); works in scripts and in Jupyter."""


def _usage_since(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The usage counters added between two snapshots of a client's usage."""
    return {key: value - before.get(key, 0) for key, value in after.items()}
