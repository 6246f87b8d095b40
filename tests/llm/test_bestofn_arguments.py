"""``best_of_n`` / ``best_of_n_async`` reject bad arguments before evaluating anything, with a
``TypeError`` (wrong type) or ``ValueError`` (wrong value) naming the argument and what was
expected."""

from __future__ import annotations

import pytest

import agenteval_nb as ae
from agenteval_nb.bestofn import best_of_n, best_of_n_async, check_arguments


class Counting:
    """A comparing evaluator (custom, so pairwise accepts it) that counts its calls."""

    name = "counting"
    description = "test evaluator"

    def __init__(self):
        self.calls = 0

    async def evaluate(self, actuals, expecteds, metric):
        self.calls += 1
        turn = ae.PerInvocationResult(actuals[0], expecteds[0], 1.0, "passed")
        return ae.EvaluateResult(1.0, "passed", [turn])


METRICS = [{"metricName": "counting", "threshold": 0.5}]
VERIFIER = {
    "metricName": "v",
    "evaluatorName": "llm_verifier_pairwise",
    "threshold": 0.5,
    "criterion": {"llmJudge": {"judgeModel": {"modelName": "j", "baseURL": "http://127.0.0.1:9"}}},
}
FINAL = {
    "metricName": "final",
    "evaluatorName": "llm_final_response",
    "threshold": 0.5,
    "criterion": {"llmJudge": {"judgeModel": {"modelName": "j", "baseURL": "http://127.0.0.1:9"}}},
}
GOOD = {"user_content": "q?", "candidates": ["a", "b"], "metrics": METRICS}

BAD = [
    # candidates
    ({"candidates": []}, ValueError, r"candidate attempts are empty: candidates must hold"),
    ({"candidates": [None, None]}, ValueError, r"no usable candidate attempts"),
    ({"candidates": "one answer"}, TypeError, r"candidates must be a list.*single str: wrap it"),
    (
        {"candidates": ae.Invocation.model_validate({"invocationId": "x"})},
        TypeError,
        r"candidates must be a list.*single Invocation",
    ),
    ({"candidates": RuntimeError("x")}, TypeError, r"candidates must be a list.*single Runtime"),
    ({"candidates": 3}, TypeError, r"candidates must be a list of candidates.*got int"),
    ({"candidates": ["a", 7]}, TypeError, r"candidates\[1\] must be a final-response string.*int"),
    (
        {"candidates": ["a", {"userContent": 5}]},
        ValueError,
        r"candidates\[1\] is not a valid invocation mapping",
    ),
    # mode
    ({"mode": "listwise"}, ValueError, r'unsupported selection mode "listwise": mode must be'),
    ({"mode": "Pairwise "}, ValueError, r"unsupported selection mode"),
    ({"mode": None}, TypeError, r'mode must be "pairwise" or "pointwise", got NoneType'),
    # metrics
    ({"metrics": []}, ValueError, r"eval metrics are empty: metrics must list at least one"),
    ({"metrics": None}, ValueError, r"eval metrics are empty"),
    (
        {"metrics": [{"metricName": "nobody_registered_this", "threshold": 0.5}]},
        ValueError,
        r"metric 'nobody_registered_this' has no evaluator registered",
    ),
    # other options
    ({"require_passing": True}, ValueError, r"not supported in pairwise selection mode"),
    ({"require_passing": "yes", "mode": "pointwise"}, TypeError, r"require_passing must be"),
    ({"user_content": 42}, TypeError, r"user_content must be a string, a Message or a message"),
    ({"user_content": {"role": 1}}, ValueError, r"user_content is not a valid message"),
    ({"context_messages": "ctx"}, TypeError, r"context_messages must be a list of messages"),
    ({"context_messages": [3]}, TypeError, r"context_messages\[0\] must be a Message"),
    ({"app_name": ""}, ValueError, r"app_name must not be empty"),
    ({"app_name": 5}, TypeError, r"app_name must be a string"),
]


@pytest.mark.parametrize(("change", "error", "message"), BAD, ids=[str(b[0])[:40] for b in BAD])
def test_bad_arguments_are_rejected_before_evaluating(change, error, message):
    evaluator = Counting()
    registry = ae.Registry.default()
    registry.register("counting", evaluator)
    args = {**GOOD, **change}
    with pytest.raises(error, match=message) as info:
        best_of_n(
            args.pop("user_content"),
            args.pop("candidates"),
            args.pop("metrics"),
            registry=registry,
            **args,
        )
    assert str(info.value).startswith("bestofn: ")
    assert evaluator.calls == 0


@pytest.mark.anyio
async def test_async_form_checks_the_same_way():
    with pytest.raises(TypeError, match="candidates must be a list"):
        await best_of_n_async("q", "just one", METRICS)
    with pytest.raises(ValueError, match="unsupported selection mode"):
        await best_of_n_async("q", ["a", "b"], METRICS, mode="best")


def test_accepted_shapes():
    evaluator = Counting()
    registry = ae.Registry.default()
    registry.register("counting", evaluator)
    one = best_of_n("q", ["only"], METRICS, registry=registry)  # one candidate: returned as is
    assert one.index == 0 and evaluator.calls == 0
    from_tuple = best_of_n("q", ("a", None, "b"), METRICS, registry=registry)
    assert from_tuple.index in (0, 2) and evaluator.calls == 1
    from_generator = best_of_n("q", (c for c in ["a", "b"]), METRICS, registry=registry)
    assert from_generator.n_comparisons == 1
    verifier_ok = check_arguments(
        "q",
        ["a", "b"],
        [VERIFIER, FINAL],
        mode="pairwise",
        registry=None,
        require_passing=False,
        context_messages=[{"role": "system", "content": "ctx"}],
        app_name="app",
    )
    assert len(verifier_ok[1]) == 2 and verifier_ok[3][0].content == "ctx"
