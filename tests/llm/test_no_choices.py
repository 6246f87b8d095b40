"""A judge answer with an empty ``choices`` list gives the reference's ``no choices in response``
(SPEC §4.4) for every LLM evaluator, the hallucination validator included."""

from __future__ import annotations

import pytest
from _llm_helpers import EVALUATOR_CASES, inv, make_metric

from agenteval_nb.evaluators.base import EvaluatorError
from agenteval_nb.testing.fake_server import completion, no_choices

pytestmark = pytest.mark.anyio

ACTUAL = inv("What is the capital of France?", "Paris.")
EXPECTED = inv("What is the capital of France?", "Paris is the capital of France.")


@pytest.mark.parametrize(
    ("evaluator", "fields"), EVALUATOR_CASES, ids=[c[0] for c in EVALUATOR_CASES]
)
@pytest.mark.parametrize("body", [no_choices(), {"id": "x", "object": "chat.completion"}])
async def test_no_choices_for_every_evaluator(run_eval, server, evaluator, fields, body):
    name = evaluator if evaluator.startswith("llm_") else "llm_judge_template"
    metric = make_metric("m", server.base_url, evaluator=name, **fields)
    server.enqueue(body)
    with pytest.raises(EvaluatorError, match="no choices in response"):
        await run_eval(name, metric, [ACTUAL], [EXPECTED])
    assert server.request_count == 1


@pytest.mark.parametrize("body", [no_choices(), {"id": "x", "object": "chat.completion"}])
async def test_no_choices_from_the_hallucination_validator(run_eval, server, body):
    metric = make_metric("m", server.base_url, evaluator="llm_hallucinations")
    server.enqueue(completion("<sentence>Paris.</sentence>"), body)  # segmentation, validator
    with pytest.raises(EvaluatorError, match="no choices in response") as info:
        await run_eval("llm_hallucinations", metric, [ACTUAL], [EXPECTED])
    assert server.request_count == 2
    assert "segment" not in str(info.value)  # the validator's call failed, not the segmentation
