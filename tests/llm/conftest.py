"""Fixtures of the LLM-judge tests.

Every judge call goes through the real ``openai.AsyncOpenAI`` client (inside ``JudgeClient``)
to the loopback fake server; answers are scripted per test (``server.enqueue``) or produced by
a handler (the heuristic judge).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agenteval_nb.evaluators.base import EvaluateResult, EvaluationContext
from agenteval_nb.evaluators.registry import Registry
from agenteval_nb.judge import JudgeClient
from agenteval_nb.schema import EvalMetric, Invocation
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_server import completion

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def run_eval(
    server: FakeOpenAIServer,
) -> Callable[..., Any]:
    """``await run_eval(evaluator_name, metric, actuals, expecteds, answers=[...], **client)``.

    Scripted ``answers`` (strings or completion dicts) are queued on the server first.
    """

    async def run(
        name: str,
        metric: EvalMetric,
        actuals: list[Invocation],
        expecteds: list[Invocation] | None = None,
        *,
        answers: list[Any] = (),  # type: ignore[assignment]
        extras: dict[str, Any] | None = None,
        registry: Registry | None = None,
        evaluator: Any = None,
        **client_kwargs: Any,
    ) -> EvaluateResult:
        for answer in answers:
            server.enqueue(completion(answer) if isinstance(answer, str) else answer)
        client_kwargs.setdefault("cache", False)
        client_kwargs.setdefault("max_retries", 0)
        reg = registry or Registry.default()
        ev = evaluator or reg.get(name)
        async with JudgeClient(**client_kwargs) as client:
            context = EvaluationContext(judge=client, extras=dict(extras or {}))
            return await ev.evaluate(
                actuals, expecteds if expecteds is not None else actuals, metric, context=context
            )

    return run
