"""``ae.estimate_cost``: the judge calls an evaluation would make, counted and priced before
any call (JUDGES.md §7).

Rules:

* **a dry run**: the eval set is played through the engine's judge phase
  (:func:`~agenteval_nb.rejudging.judge_stand_ins`) with a judge that sends nothing
  (:class:`DryRunJudge`): every judge metric on every turn, ``numSamples`` samples each, and the
  extra calls (the hallucination judge's segmentation, the verifier's swapped order) are asked
  for as ``ae.evaluate`` asks for them. Each request is built exactly as the judge client builds
  it and answered by the offline heuristic judge — an answer every built-in judge can score, so
  later stages and turns are planned too. A custom judge that cannot score those answers stops
  at its first turn, and its calls are under-counted: ``errors`` counts such cases;
* **turns**: trace-mode cases use their recorded turns; a default-mode case's agent answers are
  unknown before the agent runs, so its ``conversation`` stands in for them (expected final
  responses as the answers; ``from_expected`` counts those calls and a warning says so); the
  expected runner is not run (its turns are the ``conversation`` too); ``conversationScenario``
  cases cannot be estimated and are skipped with a warning;
* **tokens in** (:func:`estimated_input_tokens`): ⌈characters / 4⌉ over each message's role and
  content and over the ``response_format`` JSON, plus 4 per message — one fixed rule, the same
  on every machine and offline (tiktoken is not used: encodings differ per model, and it
  downloads them on first use).
  **Tokens out**: the request's ``max_tokens`` (2000 when it sets none, SPEC §1.4), an upper
  bound;
* **cache**: a request already in the judge cache (``cache=``) is a cache hit — counted, free;
* **dollars**: with ``price_table`` ``{model: (input $/1M, output $/1M)}``, ``usd_in`` prices the
  input only (the least the calls cost) and ``usd_max`` adds every output at its bound (the most:
  what a budget reserves); null for a model without a price and for an injected judge;
* **judges**: ``judge=`` as ``ae.evaluate`` / ``ae.rejudge`` take it (None: each metric's own
  ``judgeModel``; a ``judgeModel`` spec; a callable; a ``JudgeClient``), or ``judges={name:
  judge}`` for several; an object with a ``judges`` mapping (a panel) is estimated member by
  member. The frame is :func:`agenteval_nb.analysis.costs.estimate_frame`.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .analysis.costs import estimate_frame
from .analysis.frames import to_backend
from .analysis.record import RunRecord
from .engine.options import positive_int
from .evaluators.base import EvaluationContext
from .evaluators.registry import Registry
from .io import Source, as_source, load_metrics_config
from .judge import CallableJudge, JudgeCall, JudgeClient, JudgeError, JudgeUsage
from .judge.cache import CACHE_ERRORS, JudgeCache, cache_key, open_cache
from .judge.request import build_request, plain_messages, response_format
from .judge.response import completion_content, validate_completion
from .judge.usage import PriceTable, UsageTotals, checked_prices
from .rejudging import (
    StandIns,
    judge_label,
    judge_metric_names,
    judge_stand_ins,
    model_spec,
    with_judge_model,
)
from .schema import EvalCase, EvalMetric, EvalSet, JudgeModelOptions
from .schema.metric import DEFAULT_GENERATION_CONFIG
from .syncio import sync_twin
from .testing.heuristic_judge import HeuristicJudge

__all__ = ["DryRunJudge", "estimate_cost", "estimate_cost_async", "estimated_input_tokens"]

CHARS_PER_TOKEN = 4
"""The estimate's characters per token (English text averages about 4 in OpenAI's tokenizers)."""
TOKENS_PER_MESSAGE = 4
"""Tokens a chat message costs beyond its text (role and delimiters)."""
DEFAULT_MAX_TOKENS = DEFAULT_GENERATION_CONFIG.max_tokens or 2000
"""The output bound of a request that sets no ``max_tokens``."""
INJECTED_MODEL = "injected judge"


def _tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimated_input_tokens(body: Mapping[str, Any]) -> int:
    """Input tokens of a chat-completions body by the module's rule."""
    total = 0
    for message in body.get("messages") or ():
        content = message.get("content")
        text = content if isinstance(content, str) else "" if content is None else str(content)
        total += TOKENS_PER_MESSAGE + _tokens(str(message.get("role") or "")) + _tokens(text)
    if body.get("response_format") is not None:
        total += _tokens(str(body["response_format"]))
    return total


def output_bound(body: Mapping[str, Any]) -> int:
    """The request's ``max_tokens`` (or ``max_completion_tokens``), else the default bound."""
    for name in ("max_tokens", "max_completion_tokens"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_MAX_TOKENS


class DryRunJudge:
    """The judge service of a dry run: the judge client's interface (``complete``), building
    each request as the client does and sending nothing (module rules). A request in ``cache``
    is answered from it (a hit, free); the cache is never written. ``injected``: the candidate
    is an injected judge (its own sample count applies; it is never called)."""

    def __init__(
        self,
        *,
        cache: JudgeCache | None = None,
        price_table: PriceTable | None = None,
        injected: Any = None,
        max_concurrency: int = 32,
    ) -> None:
        self.cache = cache
        self.price_table = checked_prices(price_table)
        self.injected = None if injected is None else CallableJudge(injected)
        self.max_concurrency = max_concurrency
        self.usage = UsageTotals()
        self._heuristic = HeuristicJudge()

    async def complete(
        self,
        judge_model: JudgeModelOptions | None,
        messages: Sequence[Any],
        *,
        structured_output: Mapping[str, Any] | None = None,
        sample_index: int = 0,
        request_overrides: Mapping[str, Any] | None = None,
    ) -> JudgeCall:
        """The heuristic answer to the request the client would send, its usage the estimate."""
        key = ""
        if self.injected is not None:
            config = judge_model.generation_config if judge_model is not None else None
            body: dict[str, Any] = {
                "model": INJECTED_MODEL,
                "messages": plain_messages(messages),
                "max_tokens": (config.max_tokens if config is not None else None)
                or DEFAULT_MAX_TOKENS,
            }
            if structured_output is not None:
                body["response_format"] = response_format(structured_output)
        else:
            if judge_model is None:
                raise JudgeError("no judge configured: judgeModel is missing", kind="config")
            request = build_request(
                judge_model,
                messages,
                structured_output=structured_output,
                request_overrides=request_overrides,
            )
            body = request.body
            key = cache_key(request.endpoint.base_url, request.body, sample_index)
            hit = self._cached(key)
            if hit is not None:
                cached = validate_completion(hit[0], "judge cache")
                return self._call(cached, request.model, True, key, sample_index)
        answer = self._heuristic.handler(body)
        answer["model"] = body["model"]
        answer["usage"] = {
            "prompt_tokens": estimated_input_tokens(body),
            "completion_tokens": output_bound(body),
        }
        return self._call(answer, body["model"], False, key, sample_index)

    def _cached(self, key: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The cached answer of ``key``; an unreadable cache counts as a miss."""
        try:
            return self.cache.get(key) if self.cache is not None else None
        except CACHE_ERRORS:
            return None

    def _call(
        self, response: dict[str, Any], model: str, hit: bool, key: str, sample_index: int
    ) -> JudgeCall:
        usage = JudgeUsage.from_response(response, model, self.price_table)
        self.usage.add(usage, latency_s=0.0, cache_hit=hit)
        return JudgeCall(
            response=response,
            content=completion_content(response),
            usage=usage,
            latency_s=0.0,
            cache_hit=hit,
            cache_key=key,
            sample_index=sample_index,
            model=model,
        )


# -- the eval set as stand-ins -------------------------------------------------------------------


def _stand_in(case: EvalCase) -> EvalCase | None:
    """The trace case whose turns the judges would see (module rules); None for a scenario."""
    if case.conversation_scenario is not None and not case.is_trace:
        return None
    actual = case.actual_conversation if case.is_trace else None
    return case.model_copy(
        update={
            "eval_mode": "trace",
            "actual_conversation": actual or case.conversation,
            "expected_runner_enabled": None,
        }
    )


def _stand_in_sets(evalset: Any, num_runs: int) -> tuple[list[EvalSet], set[str], int]:
    """One stand-in set per run; the ids of the default-mode cases; scenario cases skipped."""
    given = evalset if isinstance(evalset, (list, tuple)) else [evalset]
    sets, from_expected, skipped = [], set(), 0
    for each in given:
        model = as_source(each).evalset()
        cases = []
        for case in model.eval_cases or ():
            stand_in = _stand_in(case)
            if stand_in is None:
                skipped += 1
                continue
            if not case.is_trace:
                from_expected.add(case.eval_id)
            cases.append(stand_in)
        sets.append(model.model_copy(update={"eval_cases": cases}))
    return sets * num_runs if len(sets) == 1 else sets, from_expected, skipped


def _candidates(judge: Any, judges: Mapping[str, Any] | None) -> dict[str, Any]:
    if judges is not None:
        return {str(name): value for name, value in judges.items()}
    members = getattr(judge, "judges", None)
    if isinstance(members, Mapping):
        return {str(name): value for name, value in members.items()}
    return {"judgeModel" if judge is None else judge_label(judge): judge}


def _open(cache: Any) -> JudgeCache | None:
    """The judge cache to look requests up in; one that cannot be opened is a warning and no
    cache (every request then counts as sent)."""
    try:
        return open_cache(cache)
    except CACHE_ERRORS as exc:
        warnings.warn(
            f"judge cache {cache!r} cannot be opened ({type(exc).__name__}: {exc}); the "
            "estimate counts every request as sent",
            stacklevel=3,
        )
        return None


def _dry_judge(
    judge: Any, metrics: list[EvalMetric], cache: Any, prices: PriceTable | None
) -> tuple[list[EvalMetric], DryRunJudge]:
    """The metrics as this candidate runs them and its dry judge."""
    spec = model_spec(judge)
    if spec is not None:
        return with_judge_model(metrics, spec), DryRunJudge(cache=_open(cache), price_table=prices)
    if judge is None:
        return metrics, DryRunJudge(cache=_open(cache), price_table=prices)
    if isinstance(judge, JudgeClient):
        injected = judge.injected.judge if judge.injected is not None else None
        dry = DryRunJudge(
            cache=judge.cache, price_table=prices or judge.price_table, injected=injected
        )
        return metrics, dry
    return metrics, DryRunJudge(price_table=prices, injected=judge)


async def estimate_cost_async(
    evalset: Source | EvalSet | Sequence[Source | EvalSet],
    metrics: Source | Sequence[EvalMetric],
    judge: Any = None,
    *,
    judges: Mapping[str, Any] | None = None,
    price_table: dict[str, tuple[float, float]] | None = None,
    cache: bool | str | os.PathLike[str] = True,
    num_runs: int | None = None,
    judge_num_samples: int | None = None,
    registry: Registry | None = None,
    backend: str | None = None,
) -> Any:
    """Calls, tokens and dollars per judge × model × metric that evaluating ``evalset`` with
    ``metrics`` would cost, before any call (awaitable; rules in
    :mod:`agenteval_nb.cost_estimate`; columns: :data:`~.analysis.costs.ESTIMATE_SCHEMA`).

    ``num_runs`` multiplies the runs (default: the metrics file's, else 1); the judge
    keywords are those of :func:`agenteval_nb.evaluate`.
    """
    metric_list, file_runs = load_metrics_config(metrics)  # type: ignore[arg-type]
    sets, from_expected, skipped = _stand_in_sets(evalset, num_runs or file_runs or 1)
    _warn(len(from_expected), skipped)
    registry = registry or Registry.default()
    extras = {}
    if judge_num_samples is not None:
        extras["judge_num_samples"] = positive_int("judge_num_samples", judge_num_samples)
    dry_runs: dict[str, RunRecord] = {}
    for name, candidate in _candidates(judge, judges).items():
        run_metrics, dry = _dry_judge(candidate, list(metric_list), cache, price_table)
        planned = [m for m in run_metrics if m.metric_name in judge_metric_names(run_metrics)]
        context = EvaluationContext(hooks=registry.hooks(), judge=dry, extras=extras)
        try:
            run = await judge_stand_ins(
                StandIns(sets, planned, run_metrics, []),
                context,
                registry,
                app_name=sets[0].eval_set_id if sets else "",
            )
        finally:
            if dry.cache is not None and not isinstance(candidate, JudgeClient):
                dry.cache.close()
        dry_runs[name] = run.record
    return to_backend(estimate_frame(dry_runs, price_table, from_expected), backend)


@sync_twin(estimate_cost_async)
def estimate_cost() -> Any:  # type: ignore[empty-body]
    """Calls, tokens and dollars per judge × model × metric that evaluating ``evalset`` with
    ``metrics`` would cost, estimated before any call.

    Works in a plain script and inside a running event loop (Jupyter).
    """


def _warn(default_mode: int, scenarios: int) -> None:
    if default_mode:
        warnings.warn(
            f"{default_mode} default-mode case(s): the agent's answers are unknown before it "
            "runs; their judge prompts were estimated with the expected answers of their "
            "conversation (from_expected counts those calls)",
            stacklevel=3,
        )
    if scenarios:
        warnings.warn(
            f"{scenarios} conversationScenario case(s) were left out of the estimate: their "
            "turns exist only once the user simulator and the agent have run",
            stacklevel=3,
        )
