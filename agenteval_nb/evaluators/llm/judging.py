"""The judge as one metric evaluation sees it (SPEC §4.1 steps 1–2, §4.2).

Rules:

* the judge is the run's :class:`~agenteval_nb.judge.JudgeClient`, handed over in
  ``EvaluationContext.judge``; without one an LLM metric fails with ``no judge configured``;
* a metric needs ``criterion.llmJudge`` and either an injected judge (``judge=`` callable: the
  "judge runner") or ``judgeModel``; else ``missing required fields in eval metric``;
* ``numSamples``: with an injected judge its own count — ``EvaluationContext.extras
  ["judge_num_samples"]``, else a ``num_samples`` attribute of the callable, else 1 — and
  ``judgeModel.numSamples`` is ignored; otherwise ``judgeModel.numSamples`` or 1. A count
  ``<= 0`` ⇒ ``num samples must be greater than 0``;
* ``sampleParallelism < 0`` ⇒ ``sample parallelism must be non-negative``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...judge import JudgeCall
from ...schema import EvalMetric, JudgeModelOptions, LLMCriterion
from ...schema.extras import JudgeSample
from ..base import EvaluationContext, EvaluatorError
from .operators import PromptMessages
from .records import is_heuristic, response_model, sample_record

__all__ = ["JudgeSession", "judge_criterion", "num_samples", "open_session"]


class JudgeSession:
    """Judge calls of one metric on one case, remembering which models answered."""

    def __init__(
        self,
        client: Any,
        judge_model: JudgeModelOptions | None,
        *,
        request_overrides: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.judge_model = judge_model
        self.request_overrides = dict(request_overrides or {})
        self.models: list[str] = []
        self.heuristic = False

    async def call(
        self,
        messages: PromptMessages,
        *,
        structured_output: Mapping[str, Any] | None = None,
        sample_index: int = 0,
        request_overrides: Mapping[str, Any] | None = None,
    ) -> JudgeCall:
        """One judge completion (raises the client's ``JudgeError`` on failure)."""
        overrides = {**self.request_overrides, **(request_overrides or {})}
        call = await self.client.complete(
            self.judge_model,
            messages,
            structured_output=structured_output,
            sample_index=sample_index,
            request_overrides=overrides or None,
        )
        model = response_model(call)
        if model and model not in self.models:
            self.models.append(model)
        self.heuristic = self.heuristic or is_heuristic(call)
        return call

    def sample_record(self, call: JudgeCall, sample_index: int | None = None) -> JudgeSample:
        return sample_record(call, sample_index)


def judge_criterion(metric: EvalMetric) -> LLMCriterion:
    """``criterion.llmJudge`` or ``missing required fields in eval metric``."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise EvaluatorError("missing required fields in eval metric")
    return metric.criterion.llm_judge


def _injected(client: Any) -> Any:
    return getattr(client, "injected", None)


def num_samples(metric: EvalMetric, client: Any, context: EvaluationContext | None) -> int:
    """The sample count (rules in the module doc); validates it."""
    llm = judge_criterion(metric)
    injected = _injected(client)
    if injected is not None:
        count = context.extras.get("judge_num_samples") if context is not None else None
        if count is None:
            count = getattr(getattr(injected, "judge", injected), "num_samples", None)
        count = 1 if count is None else count
    else:
        configured = llm.judge_model.num_samples if llm.judge_model is not None else None
        count = 1 if configured is None else configured
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        raise EvaluatorError("num samples must be greater than 0")
    return count


def open_session(
    metric: EvalMetric,
    context: EvaluationContext | None,
    *,
    request_overrides: Mapping[str, Any] | None = None,
) -> tuple[JudgeSession, int]:
    """Check the metric and the judge (module rules) and open a session; returns it and
    ``numSamples``."""
    llm = judge_criterion(metric)
    client = context.judge if context is not None else None
    if client is None:
        raise EvaluatorError(
            "no judge configured: LLM metrics need a judge client "
            "(pass judge= or a judgeModel endpoint to evaluate)"
        )
    if _injected(client) is None and llm.judge_model is None:
        raise EvaluatorError("missing required fields in eval metric")
    count = num_samples(metric, client, context)
    if llm.sample_parallelism is not None and llm.sample_parallelism < 0:
        raise EvaluatorError("sample parallelism must be non-negative")
    session = JudgeSession(client, llm.judge_model, request_overrides=request_overrides)
    return session, count
