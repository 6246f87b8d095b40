"""The result of one judge call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .usage import JudgeUsage


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """One judge answer.

    ``response`` is the validated chat completion as a plain dict: the JSON object the endpoint
    sent (for an injected judge, the ``model_dump(mode="json")`` of what it returned), with
    ``choices[0]["logprobs"]`` always present. Scorers read
    ``response["choices"][0]["message"]["content"]`` (= ``content``) and
    ``response["choices"][0]["logprobs"]["content"]`` (= :attr:`logprobs`).
    ``latency_s``: the request's wall time, retries included (a cache hit takes about nothing).
    ``cache_key`` is ``""`` for injected judges, which are never cached.
    ``retries``: how many times the openai client retried the request.
    """

    response: dict[str, Any] = field(repr=False)
    content: str | None
    usage: JudgeUsage
    latency_s: float
    cache_hit: bool
    cache_key: str
    sample_index: int = 0
    model: str | None = None
    retries: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.usage.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        return self.usage.completion_tokens

    @property
    def cached_tokens(self) -> int:
        return self.usage.cached_tokens

    @property
    def reasoning_tokens(self) -> int:
        return self.usage.reasoning_tokens

    @property
    def cost(self) -> float | None:
        return self.usage.cost

    @property
    def logprobs(self) -> list[dict[str, Any]] | None:
        """``choices[0].logprobs.content`` (``None`` when the judge sent no logprobs)."""
        logprobs = self.response["choices"][0].get("logprobs")
        return logprobs.get("content") if isinstance(logprobs, dict) else None
