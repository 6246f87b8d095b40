"""A batch-judged evaluation: ``ae.evaluate(..., batch=True)`` and ``ae.BatchJob`` (JUDGES.md §6).

A job lives in ``<results_dir>/batch_job/`` and goes through three phases:

1. **plan** (:meth:`BatchJob.start`): every judge endpoint of the metrics is probed for the
   batch API (none: :class:`~agenteval_nb.judge.batch.BatchUnsupportedError`, or synchronous
   judging with ``on_unsupported="sync"``); the eval sets and metrics (``apiKey`` never written)
   are saved; one evaluation pass runs the agents (their inferences recorded:
   :mod:`.replay`) with a planning judge (:class:`~agenteval_nb.judge.planning.BatchJudgeClient`)
   that looks every request up in the judge cache and records the misses; the inferences are
   saved;
2. **batch**: the misses go out in shards (one model per file, within the provider's limits);
   before each ``batches.create`` the shard's lines and the manifest naming it are written
   atomically, after it the manifest gets the batch id. Shards are polled with capped backoff;
   at a terminal status both result files are read, every success is written to the judge
   cache and every failed, expired or missing line is sent again ``retry_failed`` times, then
   kept as a failure with the provider's code and message. When the last planning pass may
   have left requests out (a placeholder fed a prompt, or a case failed), a new pass over the
   recorded inferences finds them (a new round, at most ``max_rounds``); none ⇒ the job is
   done. A shard created but not yet in the manifest (a
   crash in between) is found again by its metadata tag, never created twice;
3. **score** (:meth:`BatchJob.result`): the evaluation runs once more over the recorded
   inferences, every answer read from the cache through the normal code path, so the results
   equal a synchronous run's; answers this job fetched count as batch requests at the batch
   price; a failed request fails its invocation's metric with the provider's code and message.
   The result is saved in ``results_dir`` like any run's.

:meth:`BatchJob.load` resumes a job from its directory in any process: it polls the batches the
manifest lists and never runs an agent again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ..errors import ConfigError, FormatError
from ..evalrun import EvalRun
from ..io import (
    as_source,
    load_evalset,
    load_metrics,
    save_evalset,
    save_metrics,
    write_text_atomic,
)
from ..judge import JudgeCache, JudgeClient
from ..judge.batch import (
    POLL_ERRORS,
    BatchConfig,
    BatchUnsupportedError,
    OpenAIBatches,
    outcome,
    poll,
    request_line,
    shards,
)
from ..judge.cache import default_cache_path
from ..judge.planning import BatchJudgeClient, LineFailure, PlannedRequest
from ..judge.request import Endpoint, resolve_endpoint
from ..judge.usage import JudgeUsage
from ..schema import EvalMetric, JudgeModelOptions
from ..testing.heuristic_judge import heuristic_handler
from .replay import RecordingExecutor, ReplayExecutor, read_inferences, write_inferences

JOB_DIR = "batch_job"
MANIFEST = "manifest.json"
INFERENCES = "inferences.jsonl"
METRICS_FILE = "metrics.json"
VERSION = 1

EvaluateFn = Callable[..., Awaitable[Any]]

PERSISTED = (
    "num_runs",
    "case_ids",
    "app_name",
    "judge_concurrency",
    "judge_max_retries",
    "judge_timeout",
    "requests_per_minute",
    "price_table",
)
"""Keywords of ``ae.evaluate`` saved with the job (plain values)."""
IN_PROCESS = ("registry", "callbacks", "case_aggregator", "case_parallelism", "runs_parallel")
"""Keywords kept in this process only (``BatchJob.load`` takes them again)."""
FIRST_PASS = (
    "agent",
    "expected_agent",
    "user_simulator",
    "tool_mock_agent",
    "agent_timeout",
    "session_id_factory",
)
"""Keywords of the first pass only: the agents run once."""
KEPT_INFO = ("agent", "expected_agent", "agent_usage")
"""``EvalRun.info`` entries of the first pass the scored run keeps (the agents ran there)."""


def batch_config(batch: Any) -> BatchConfig:
    """``batch=True`` ⇒ the defaults; a :class:`BatchConfig` as given."""
    if batch is True:
        return BatchConfig()
    if isinstance(batch, BatchConfig):
        return batch
    raise TypeError(f"batch must be True or an ae.BatchConfig, got {batch!r}")


def _judge_endpoints(metrics: Sequence[EvalMetric]) -> dict[str, Endpoint]:
    """The endpoints of the metrics' ``judgeModel`` (those that resolve)."""
    found: dict[str, Endpoint] = {}
    for metric in metrics:
        llm = metric.criterion.llm_judge if metric.criterion is not None else None
        if llm is None or llm.judge_model is None:
            continue
        endpoint = resolve_endpoint(llm.judge_model)
        found.setdefault(endpoint.base_url, endpoint)
    return found


class BatchJob:
    """A batch-judged evaluation (module doc); ``ae.BatchJob`` binds :attr:`evaluate_fn`.

    ``status_df()`` one row per provider batch; ``wait()`` until every batch ended;
    ``result()`` the :class:`EvalRun`; ``cancel()`` the batches still running;
    ``BatchJob.load(results_dir)`` resumes in any process.
    """

    evaluate_fn: ClassVar[EvaluateFn | None] = None
    """``ae.evaluate_async``: set by the front door (the job runs the evaluation it gave)."""

    def __init__(
        self,
        directory: Path,
        manifest: dict[str, Any],
        *,
        metrics: list[EvalMetric],
        evalsets: list[Any],
        options: Mapping[str, Any],
    ) -> None:
        self.directory = directory
        self.manifest = manifest
        self.config = BatchConfig(**manifest["config"])
        self.metrics = metrics
        self.evalsets = evalsets
        self.options = dict(options)
        self.inferences = read_inferences(directory / INFERENCES)
        self._endpoints: dict[str, Endpoint] = _judge_endpoints(metrics)
        self._result: EvalRun | None = None

    def __repr__(self) -> str:
        shards_ = self.manifest["shards"]
        return (
            f"BatchJob({str(self.directory.parent)!r}, state={self.manifest['state']!r}, "
            f"batches={len(shards_)}, answered={len(self.manifest['answered'])}, "
            f"failed={len(self.manifest['failures'])})"
        )

    # the front door's evaluation -------------------------------------------------------------

    @classmethod
    def _evaluate(cls, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        if cls.evaluate_fn is None:
            raise ConfigError("use ae.BatchJob (the front door binds the evaluation)")
        return cls.evaluate_fn(*args, **kwargs)

    # phase 1: plan ----------------------------------------------------------------------------

    @classmethod
    async def start(
        cls,
        evalset: Any,
        metrics: list[EvalMetric],
        *,
        config: BatchConfig,
        results_dir: Any,
        keywords: Mapping[str, Any],
    ) -> BatchJob:
        """Plan, record the inferences and send the first round (module doc, phases 1–2)."""
        if results_dir is None:
            raise ConfigError("batch judging needs results_dir= (the job is kept there)")
        directory = Path(results_dir) / JOB_DIR
        if (directory / MANIFEST).exists():
            raise ConfigError(
                f"{directory / MANIFEST} already holds a batch job: resume it with "
                f"ae.BatchJob.load({str(results_dir)!r}) or choose another results_dir"
            )
        options = _checked_keywords(keywords)
        evalsets = list(evalset) if isinstance(evalset, (list, tuple)) else [evalset]
        endpoints = _judge_endpoints(metrics)
        sync_endpoints = await _probe(endpoints, config)
        directory.mkdir(parents=True, exist_ok=True)
        names = []
        for i, one in enumerate(evalsets):
            name = f"evalset_{i}.json"
            save_evalset(as_source(one).evalset(), directory / name)
            names.append(name)
        save_metrics(metrics, directory / METRICS_FILE)
        manifest: dict[str, Any] = {
            "version": VERSION,
            "job_id": uuid.uuid4().hex[:12],
            "state": "planning",
            "config": config.as_dict(),
            "evalsets": names,
            "options": {k: options[k] for k in PERSISTED if k in options},
            "cache": options["cache"],
            "sync_endpoints": sorted(sync_endpoints),
            "probed": sorted(endpoints),
            "info": {},
            "round": 0,
            "shards": [],
            "attempts": {},
            "answered": [],
            "pending": {},
            "failures": {},
            "replan": True,
        }
        recorder = RecordingExecutor()
        planner = _client(manifest, planning=True)
        try:
            first = await cls._evaluate(
                evalsets if len(evalsets) > 1 else evalsets[0],
                metrics,
                **_pass_options(manifest, options),
                **{k: keywords[k] for k in FIRST_PASS if keywords.get(k) is not None},
                judge=planner,
                executor=recorder,
                progress=keywords.get("progress", True),
            )
        finally:
            await planner.aclose()
        manifest["info"] = {k: first.info[k] for k in KEPT_INFO if k in first.info}
        manifest["replan"] = _needs_replan(planner, first)
        write_inferences(directory / INFERENCES, recorder.inferences)
        _save(directory, manifest)
        job = cls(directory, manifest, metrics=metrics, evalsets=evalsets, options=options)
        job._endpoints.update(planner.endpoints)
        await job._send_round(planner.planned)
        return job

    @classmethod
    def load(
        cls,
        results_dir: Any,
        *,
        metrics: Any = None,
        registry: Any = None,
        callbacks: Any = None,
        case_aggregator: Any = None,
    ) -> BatchJob:
        """The job kept in ``results_dir`` (any process). ``metrics``: the same metrics with
        their ``apiKey`` (the saved copy has none: keys come from ``$OPENAI_API_KEY`` or a
        local endpoint's placeholder otherwise); the other keywords as given to ``evaluate``."""
        directory = Path(results_dir) / JOB_DIR
        path = directory / MANIFEST
        if not path.exists():
            raise FileNotFoundError(f"no batch job in {results_dir!s}: {path} does not exist")
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise FormatError(str(path), "$", f"a JSON batch job manifest ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("version") != VERSION:
            raise FormatError(str(path), "$.version", f"a batch job manifest of version {VERSION}")
        metric_list = load_metrics(metrics if metrics is not None else directory / METRICS_FILE)
        evalsets = [load_evalset(directory / name) for name in manifest["evalsets"]]
        options = dict(manifest["options"])
        options["cache"] = manifest["cache"]
        for name, value in (
            ("registry", registry),
            ("callbacks", callbacks),
            ("case_aggregator", case_aggregator),
        ):
            if value is not None:
                options[name] = value
        return cls(directory, manifest, metrics=metric_list, evalsets=evalsets, options=options)

    # phase 2: batches ---------------------------------------------------------------------------

    def _provider(self, base_url: str) -> OpenAIBatches:
        endpoint = self._endpoints.get(base_url)
        if endpoint is None:  # a loaded job whose metrics name another endpoint
            endpoint = resolve_endpoint(JudgeModelOptions(model_name="batch", base_url=base_url))
        options = self.manifest["options"]
        timeout = options.get("judge_timeout") or 180.0
        return OpenAIBatches(
            endpoint, max_retries=int(options.get("judge_max_retries", 4)), timeout=timeout
        )

    async def _send_round(self, planned: Mapping[str, PlannedRequest]) -> None:
        """Send ``planned`` (minus what is answered, failed or judged synchronously) as a new
        round; nothing to send ⇒ the job is done."""
        manifest = self.manifest
        done = set(manifest["answered"]) | set(manifest["failures"])
        requests = [
            r
            for key, r in planned.items()
            if key not in done and r.base_url not in manifest["sync_endpoints"]
        ]
        new_endpoints = {r.base_url for r in requests} - set(manifest["probed"])
        if new_endpoints:
            found = {url: self._endpoints[url] for url in new_endpoints if url in self._endpoints}
            manifest["sync_endpoints"] += sorted(await _probe(found, self.config))
            manifest["probed"] = sorted(set(manifest["probed"]) | new_endpoints)
            requests = [r for r in requests if r.base_url not in manifest["sync_endpoints"]]
        if not requests:
            manifest["state"] = "done"
            _save(self.directory, manifest)
            return
        if manifest["round"] >= self.config.max_rounds:
            for request in requests:
                manifest["failures"][request.key] = {
                    "code": "max_rounds",
                    "message": f"still unanswered after {self.config.max_rounds} planning rounds",
                }
            manifest["state"] = "done"
            _save(self.directory, manifest)
            return
        manifest["round"] += 1
        manifest["state"] = "batching"
        await self._send(requests)

    async def _send(self, requests: Sequence[PlannedRequest]) -> None:
        """Shard and create: lines and manifest written before each create (module doc)."""
        manifest = self.manifest
        for shard in shards(requests, self.config):
            number = len(manifest["shards"])
            tag = f"{manifest['job_id']}-{number}"
            lines = b"".join(request_line(r) for r in shard)
            (self.directory / "shards").mkdir(exist_ok=True)
            write_text_atomic(self.directory / "shards" / f"{tag}.jsonl", [lines])
            for request in shard:
                manifest["attempts"][request.key] = manifest["attempts"].get(request.key, 0) + 1
            entry: dict[str, Any] = {
                "tag": tag,
                "round": manifest["round"],
                "model": shard[0].model,
                "base_url": shard[0].base_url,
                "keys": [r.key for r in shard],
                "file_id": None,
                "batch_id": None,
                "status": "creating",
                "request_counts": None,
                "done": False,
            }
            manifest["shards"].append(entry)
            _save(self.directory, manifest)
            await self._create(entry, lines)

    async def _create(self, entry: dict[str, Any], lines: bytes) -> None:
        provider = self._provider(entry["base_url"])
        try:
            entry["file_id"], entry["batch_id"] = await provider.submit(lines, entry["tag"])
        finally:
            await provider.aclose()
        entry["status"] = "validating"
        _save(self.directory, self.manifest)

    async def wait_async(self) -> BatchJob:
        """Poll until every batch of every round ended and the plan has nothing left to send
        (module doc, phase 2)."""
        manifest = self.manifest
        while manifest["state"] != "done":
            active = [s for s in manifest["shards"] if not s["done"]]
            if active:
                await asyncio.gather(*(self._finish(s) for s in active))
                continue
            retry = self._retries()
            if retry:
                await self._send(retry)
                continue
            if not manifest["replan"]:
                manifest["state"] = "done"
                _save(self.directory, manifest)
                break
            planner = _client(manifest, planning=True, answered=manifest["answered"])
            planner.failures = _failures(manifest)
            try:
                run = await self._evaluate(
                    self._evalset_arg(),
                    self.metrics,
                    **_pass_options(manifest, self.options),
                    judge=planner,
                    executor=ReplayExecutor(self.inferences),
                    progress=False,
                )
            finally:
                await planner.aclose()
            self._endpoints.update(planner.endpoints)
            manifest["replan"] = _needs_replan(planner, run)
            await self._send_round(planner.planned)
        return self

    def _retries(self) -> list[PlannedRequest]:
        """Failed lines still under ``retry_failed`` resends, read back from their shard files
        (their failure is dropped: the resend decides)."""
        manifest = self.manifest
        pending = manifest["pending"]
        keys = [k for k in pending if manifest["attempts"].get(k, 0) <= self.config.retry_failed]
        for key in pending:
            if key not in keys:
                manifest["failures"][key] = pending[key]
        manifest["pending"] = {}
        if not keys:
            _save(self.directory, manifest)
            return []
        wanted = set(keys)
        found: dict[str, PlannedRequest] = {}
        for entry in manifest["shards"]:
            if not wanted & set(entry["keys"]):
                continue
            path = self.directory / "shards" / f"{entry['tag']}.jsonl"
            for line in path.read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                if item["custom_id"] in wanted:
                    body = item["body"]
                    found[item["custom_id"]] = PlannedRequest(
                        item["custom_id"], entry["base_url"], str(body["model"]), body
                    )
        return [found[k] for k in keys if k in found]

    async def _finish(self, entry: dict[str, Any]) -> None:
        """Poll one shard to its end and take its outcome (module doc)."""
        provider = self._provider(entry["base_url"])
        try:
            if entry["batch_id"] is None:  # created before a crash, or never
                entry["batch_id"] = await provider.find(entry["tag"])
                if entry["batch_id"] is None:
                    path = self.directory / "shards" / f"{entry['tag']}.jsonl"
                    await self._create(entry, path.read_bytes())
            batch_id = entry["batch_id"]

            def seen(batch: dict[str, Any]) -> None:
                entry["status"] = str(batch.get("status"))
                entry["request_counts"] = batch.get("request_counts")

            batch = await poll(lambda: provider.retrieve(batch_id), self.config, on_status=seen)
            if batch is None:
                await self._deadline(provider, entry)
                return
            result = outcome(
                batch,
                entry["keys"],
                await provider.content(batch.get("output_file_id")),
                await provider.content(batch.get("error_file_id")),
            )
        finally:
            await provider.aclose()
        self._store_answers(entry, result.answers)
        pending = self.manifest["pending"]
        for key, failure in result.failures.items():
            pending[key] = {"code": failure.code, "message": failure.message}
        entry["done"] = True
        _save(self.directory, self.manifest)

    async def _deadline(self, provider: OpenAIBatches, entry: dict[str, Any]) -> None:
        """Past the deadline: cancel (best effort); the shard's lines fail, never resent."""
        with contextlib.suppress(*POLL_ERRORS):  # the lines fail either way
            await provider.cancel(entry["batch_id"])
        message = (
            f"batch {entry['batch_id']} still {entry['status']} after the "
            f"{self.config.deadline_s:g} s deadline; cancelled"
        )
        for key in entry["keys"]:
            self.manifest["failures"][key] = {"code": "deadline", "message": message}
        entry["done"] = True
        _save(self.directory, self.manifest)

    def _store_answers(self, entry: dict[str, Any], answers: Mapping[str, dict[str, Any]]) -> None:
        """Write the successes to the judge cache (what scoring reads) and list them."""
        if not answers:
            return
        prices = self.manifest["options"].get("price_table") or {}
        table = {m: tuple(p) for m, p in prices.items()}
        cache = JudgeCache(self.manifest["cache"])
        try:
            for key, response in answers.items():
                usage = JudgeUsage.from_response(response, entry["model"], table, batch=True)
                cache.put(key, response, usage.as_dict(), model=entry["model"])
        finally:
            cache.close()
        answered = self.manifest["answered"]
        known = set(answered)
        answered += [key for key in answers if key not in known]

    # phase 3: score -------------------------------------------------------------------------------

    async def result_async(self) -> EvalRun:
        """The evaluation scored from the cache (module doc, phase 3); waits first if needed."""
        if self._result is not None:
            return self._result
        await self.wait_async()
        manifest = self.manifest
        client = _client(manifest, planning=False, answered=manifest["answered"])
        client.failures = _failures(manifest)
        client.sync_endpoints = set(manifest["sync_endpoints"])
        try:
            run = await self._evaluate(
                self._evalset_arg(),
                self.metrics,
                **_pass_options(manifest, self.options),
                judge=client,
                executor=ReplayExecutor(self.inferences),
                results_dir=self.directory.parent,
                progress=False,
            )
        finally:
            await client.aclose()
        run.info.update(manifest["info"])
        run.info["batch"] = self.summary()
        self._result = run
        return run

    def summary(self) -> dict[str, Any]:
        """Counts of the job: provider batches, requests answered and failed, rounds."""
        manifest = self.manifest
        return {
            "job_id": manifest["job_id"],
            "state": manifest["state"],
            "batches": len(manifest["shards"]),
            "batch_ids": [s["batch_id"] for s in manifest["shards"]],
            "rounds": manifest["round"],
            "answered": len(manifest["answered"]),
            "failed": len(manifest["failures"]),
            "sync_endpoints": list(manifest["sync_endpoints"]),
        }

    def status_df(self) -> Any:
        """One row per provider batch: round, model, ids, status, request counts."""
        import pandas as pd

        rows = []
        for entry in self.manifest["shards"]:
            counts = entry.get("request_counts") or {}
            rows.append(
                {
                    "batch_id": entry["batch_id"],
                    "round": entry["round"],
                    "model": entry["model"],
                    "requests": len(entry["keys"]),
                    "status": entry["status"],
                    "completed": counts.get("completed"),
                    "failed": counts.get("failed"),
                    "done": entry["done"],
                }
            )
        columns = [
            "batch_id",
            "round",
            "model",
            "requests",
            "status",
            "completed",
            "failed",
            "done",
        ]
        return pd.DataFrame(rows, columns=columns)

    async def cancel_async(self) -> None:
        """Cancel the provider batches still running (their lines fail when polled)."""
        for entry in self.manifest["shards"]:
            if entry["done"] or entry["batch_id"] is None:
                continue
            provider = self._provider(entry["base_url"])
            try:
                await provider.cancel(entry["batch_id"])
            finally:
                await provider.aclose()

    def _evalset_arg(self) -> Any:
        return self.evalsets if len(self.evalsets) > 1 else self.evalsets[0]


def _checked_keywords(keywords: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords a batch job can take, with the cache resolved to a file path."""
    judge = keywords.get("judge")
    if judge is not None and not isinstance(judge, JudgeClient):
        raise ConfigError(
            "batch judging sends the metrics' judgeModel requests through the provider's batch "
            "API; an injected judge (judge=callable) has none: leave batch off or drop judge="
        )
    if keywords.get("executor", "local") != "local":
        raise ConfigError("batch judging runs the cases in this process (executor='local')")
    if keywords.get("judge_num_samples") is not None:
        raise ConfigError("judge_num_samples is for an injected judge, not for batch judging")
    if keywords.get("result_store") is not None:
        raise ConfigError("batch judging saves its result in results_dir, not a result_store")
    options = {k: keywords[k] for k in (*PERSISTED, *IN_PROCESS) if keywords.get(k) is not None}
    if isinstance(judge, JudgeClient):
        if judge.cache is None:
            raise ConfigError(
                "batch judging scores from the judge cache: the given client has none"
            )
        options["cache"] = str(judge.cache.path)
        options.setdefault("price_table", dict(judge.price_table))
    else:
        cache = keywords.get("cache", True)
        if cache is None or cache is False:
            raise ConfigError(
                "batch judging scores from the judge cache: cache=False is not possible"
            )
        options["cache"] = str(default_cache_path() if cache is True else cache)
    if "price_table" in options:
        options["price_table"] = {m: list(p) for m, p in options["price_table"].items()}
    return options


def _pass_options(manifest: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``ae.evaluate`` keywords of every pass (the judge and executor are added)."""
    out = {k: v for k, v in options.items() if k in PERSISTED or k in IN_PROCESS}
    if "price_table" in out:
        out["price_table"] = {m: tuple(p) for m, p in out["price_table"].items()}
    return out


def _client(
    manifest: Mapping[str, Any], *, planning: bool, answered: Sequence[str] = ()
) -> BatchJudgeClient:
    options = manifest["options"]
    prices = options.get("price_table")
    return BatchJudgeClient(
        planning=planning,
        placeholder=heuristic_handler if planning else None,
        answered=answered,
        cache=manifest["cache"],
        max_concurrency=int(options.get("judge_concurrency", 32)),
        max_retries=int(options.get("judge_max_retries", 4)),
        timeout=options.get("judge_timeout", 180.0),
        requests_per_minute=options.get("requests_per_minute"),
        price_table=None if prices is None else {m: tuple(p) for m, p in prices.items()},
    )


def _needs_replan(planner: BatchJudgeClient, run: Any) -> bool:
    """Whether a planning pass may have left requests unplanned: a placeholder fed a prompt
    (its turn waits for the real answer), or a case failed (a metric that stopped early, e.g. on
    a placeholder its scorer could not read, planned none of its later calls)."""
    cases = run.result.eval_case_results or ()
    return planner.fed_placeholders > 0 or any(c.error_message for c in cases)


def _failures(manifest: Mapping[str, Any]) -> dict[str, LineFailure]:
    return {k: LineFailure(v["code"], v["message"]) for k, v in manifest["failures"].items()}


async def _probe(endpoints: Mapping[str, Endpoint], config: BatchConfig) -> set[str]:
    """Probe each endpoint's batch API once; the base URLs to judge synchronously
    (``on_unsupported="sync"``), else :class:`BatchUnsupportedError`."""
    sync: set[str] = set()
    for base_url, endpoint in endpoints.items():
        provider = OpenAIBatches(endpoint, max_retries=2, timeout=60.0)
        try:
            await provider.probe()
        except BatchUnsupportedError:
            if config.on_unsupported != "sync":
                raise
            sync.add(base_url)
        finally:
            await provider.aclose()
    return sync


def _save(directory: Path, manifest: Mapping[str, Any]) -> None:
    """The manifest, written atomically."""
    write_text_atomic(directory / MANIFEST, json.dumps(manifest, indent=1))
