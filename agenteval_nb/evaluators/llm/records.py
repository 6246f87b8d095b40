"""Inspection records of judge calls (``JudgeSample`` / ``PromptMessage``, see ``schema.extras``).

Rules:

* a call's record keeps the raw answer text, cache hit, token usage (prompt, completion, cached,
  reasoning), latency in milliseconds and cost;
* a response whose ``model`` is :data:`HEURISTIC_MODEL` came from the offline heuristic judge
  (:mod:`agenteval_nb.testing.heuristic_judge`); the turn's ``JudgeRecord.heuristic`` is then
  ``True`` so nobody mistakes it for an LLM judgement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...judge import JudgeCall
from ...schema.extras import JudgeSample, PromptMessage

__all__ = ["HEURISTIC_MODEL", "is_heuristic", "prompt_record", "response_model", "sample_record"]

HEURISTIC_MODEL = "agenteval-heuristic-judge"
"""The ``model`` of every completion produced by the heuristic judge."""


def response_model(call: JudgeCall) -> str | None:
    """The ``model`` the endpoint says answered (falls back to the requested model)."""
    model = call.response.get("model")
    return model if isinstance(model, str) and model else call.model


def is_heuristic(call: JudgeCall) -> bool:
    return call.response.get("model") == HEURISTIC_MODEL


def sample_record(call: JudgeCall, sample_index: int | None = None) -> JudgeSample:
    """A :class:`JudgeSample` with the call's raw answer and accounting (no score yet)."""
    return JudgeSample(
        sample_index=call.sample_index if sample_index is None else sample_index,
        raw=call.content,
        cache_hit=call.cache_hit,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        cached_tokens=call.cached_tokens,
        reasoning_tokens=call.reasoning_tokens,
        latency_ms=round(call.latency_s * 1000.0, 3),
        cost_usd=call.cost,
    )


def prompt_record(messages: Iterable[Mapping[str, Any]]) -> list[PromptMessage]:
    """The rendered prompt as stored in ``JudgeRecord.prompt``."""
    return [
        PromptMessage(role=str(m.get("role") or ""), content=str(m.get("content") or ""))
        for m in messages
    ]
