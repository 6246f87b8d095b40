"""``tool_trajectory_avg_score`` and ``final_response_avg_score`` end to end (SPEC §2)."""

import anyio
import pytest

from agenteval_nb.criteria import Hooks
from agenteval_nb.evaluators.base import EvaluationContext, EvaluatorError
from agenteval_nb.evaluators.deterministic import FinalResponseEvaluator, ToolTrajectoryEvaluator
from agenteval_nb.schema import EvalMetric, EvalStatus, Invocation


def run(evaluator, actuals, expecteds, metric, **kwargs):
    return anyio.run(lambda: evaluator.evaluate(actuals, expecteds, metric, **kwargs))


def turn(answer=None, tools=()):
    data = {"userContent": {"role": "user", "content": "q"}, "tools": list(tools)}
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    return Invocation.model_validate(data)


def call(name, **arguments):
    return {"id": f"id-{name}", "name": name, "arguments": arguments}


def metric(criterion=None, threshold=None, name="m"):
    data = {"metricName": name}
    if criterion is not None:
        data["criterion"] = criterion
    if threshold is not None:
        data["threshold"] = threshold
    return EvalMetric.model_validate(data)


def test_trajectory_scores_each_turn_and_averages():
    actuals = [turn(tools=[call("a", x=1)]), turn(tools=[call("b", x=1)])]
    expecteds = [turn(tools=[call("a", x=1)]), turn(tools=[call("b", x=2)])]
    result = run(ToolTrajectoryEvaluator(), actuals, expecteds, metric({"toolTrajectory": {}}, 0.5))
    assert result.overall_score == 0.5
    assert result.overall_status == EvalStatus.PASSED
    first, second = result.per_invocation_results
    # an empty reason is held as None (absent), as Go's omitempty writes it (schema/result.py)
    assert (first.score, first.status, first.details.reason) == (1.0, EvalStatus.PASSED, None)
    assert (second.score, second.status) == (0.0, EvalStatus.FAILED)
    assert second.details.reason.startswith("tool trajectory mismatch: match tools: ")
    assert second.details.value.kind == "numeric"
    assert second.details.value.numeric == 0.0
    assert second.details.score == 0.0
    assert first.actual_invocation is actuals[0]
    assert first.expected_invocation is expecteds[0]


def test_threshold_rule_is_greater_or_equal():
    actuals = [turn(tools=[call("a")]), turn(tools=[call("b")])]
    expecteds = [turn(tools=[call("a")]), turn(tools=[call("c")])]
    m = metric({"toolTrajectory": {}}, 0.75)
    result = run(ToolTrajectoryEvaluator(), actuals, expecteds, m)
    assert (result.overall_score, result.overall_status) == (0.5, EvalStatus.FAILED)
    exact = run(
        ToolTrajectoryEvaluator(), actuals[:1], expecteds[:1], metric({"toolTrajectory": {}}, 1.0)
    )
    assert exact.overall_status == EvalStatus.PASSED


def test_missing_threshold_means_zero():
    result = run(
        ToolTrajectoryEvaluator(),
        [turn(tools=[call("a")])],
        [turn()],
        metric({"toolTrajectory": {}}),
    )
    assert result.overall_score == 0.0
    assert result.overall_status == EvalStatus.PASSED  # 0 >= 0
    assert result.per_invocation_results[0].details.reason == (
        "tool trajectory mismatch: validate tool counts: number of tool calls mismatch: "
        "actual(1) != expected(0)"
    )


def test_no_turns_is_not_evaluated():
    result = run(ToolTrajectoryEvaluator(), [], [], metric({"toolTrajectory": {}}, 1))
    assert (result.overall_score, result.overall_status, result.per_invocation_results) == (
        0.0,
        EvalStatus.NOT_EVALUATED,
        [],
    )
    result = run(FinalResponseEvaluator(), [], [], metric({"finalResponse": {"text": {}}}, 1))
    assert result.overall_status == EvalStatus.NOT_EVALUATED


@pytest.mark.parametrize(
    ("evaluator", "criterion", "message"),
    [
        (ToolTrajectoryEvaluator(), None, "tool trajectory criterion not configured"),
        (
            ToolTrajectoryEvaluator(),
            {"finalResponse": {}},
            "tool trajectory criterion not configured",
        ),
        (FinalResponseEvaluator(), None, "final response criterion not configured"),
        (
            FinalResponseEvaluator(),
            {"toolTrajectory": {}},
            "final response criterion not configured",
        ),
    ],
)
def test_criterion_not_configured(evaluator, criterion, message):
    with pytest.raises(EvaluatorError, match=message):
        run(evaluator, [turn()], [turn()], metric(criterion, 1))


def test_count_mismatch_errors():
    with pytest.raises(EvaluatorError) as info:
        run(ToolTrajectoryEvaluator(), [turn()], [], metric({"toolTrajectory": {}}))
    assert str(info.value) == (
        "tooltrajectory: actual invocations (1) and expected invocations (0) count mismatch"
    )
    with pytest.raises(EvaluatorError) as info:
        run(FinalResponseEvaluator(), [], [turn(), turn()], metric({"finalResponse": {"text": {}}}))
    assert str(info.value) == (
        "finalresponse: actual invocations (0) and expected invocations (2) count mismatch"
    )


def test_final_response_reasons():
    m = metric({"finalResponse": {"text": {}, "json": {}}}, 1)
    result = run(FinalResponseEvaluator(), [turn("x"), turn("1")], [turn("y"), turn("1")], m)
    bad, good = result.per_invocation_results
    assert bad.details.reason == (
        "final response mismatch: json mismatch: parse actual raw json: invalid character 'x' "
        "looking for beginning of value; text mismatch: source x and target y do not match"
    )
    assert (good.score, good.details.reason) == (1.0, None)
    assert result.overall_score == 0.5
    assert result.overall_status == EvalStatus.FAILED


def test_hooks_come_from_the_context():
    hooks = Hooks(compare={"never": lambda a, e: False, "always": lambda a, e: True})
    context = EvaluationContext(hooks=hooks)
    m = metric({"finalResponse": {"compareName": "never"}}, 1)
    result = run(FinalResponseEvaluator(), [turn("a")], [turn("a")], m, context=context)
    assert result.per_invocation_results[0].details.reason == "final response mismatch"
    # the trajectory evaluator leaves the reason empty for a mismatch without error
    m = metric({"toolTrajectory": {"compareName": "never"}}, 1)
    result = run(ToolTrajectoryEvaluator(), [turn()], [turn()], m, context=context)
    assert (result.overall_score, result.per_invocation_results[0].details.reason) == (0.0, None)
    m = metric({"toolTrajectory": {"compareName": "always"}}, 1)
    result = run(ToolTrajectoryEvaluator(), [turn(tools=[call("a")])], [turn()], m, context=context)
    assert result.overall_score == 1.0
    # without context, the unresolved name is ignored and the built-in rules apply
    result = run(ToolTrajectoryEvaluator(), [turn(tools=[call("a")])], [turn()], m)
    assert result.overall_score == 0.0


def test_evaluators_from_metrics_file_json():
    metrics = [
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {
                "toolTrajectory": {
                    "orderSensitive": False,
                    "defaultStrategy": {
                        "name": {"matchStrategy": "exact"},
                        "arguments": {"matchStrategy": "exact", "numberTolerance": 0.01},
                    },
                }
            },
        },
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {
                "finalResponse": {
                    "text": {"matchStrategy": "contains", "caseInsensitive": True},
                    "rouge": {"rougeType": "rouge1", "threshold": {"recall": 0.5}},
                }
            },
        },
    ]
    tm, fm = (EvalMetric.model_validate(m) for m in metrics)
    actual = turn(
        "The weather in Paris is sunny",
        [call("weather", city="Paris", days=1.001), call("search", q="x")],
    )
    expected = turn(
        "paris is sunny", [call("search", q="x"), call("weather", city="Paris", days=1)]
    )
    assert (
        run(ToolTrajectoryEvaluator(), [actual], [expected], tm).overall_status == EvalStatus.PASSED
    )
    assert (
        run(FinalResponseEvaluator(), [actual], [expected], fm).overall_status == EvalStatus.PASSED
    )


def test_evaluator_names():
    assert ToolTrajectoryEvaluator().name == "tool_trajectory_avg_score"
    assert FinalResponseEvaluator().name == "final_response_avg_score"
    assert ToolTrajectoryEvaluator().description


def test_registry_builds_these_evaluators():
    from agenteval_nb.evaluators.registry import Registry

    registry = Registry.default()
    assert isinstance(registry.get("tool_trajectory_avg_score"), ToolTrajectoryEvaluator)
    assert isinstance(registry.get("final_response_avg_score"), FinalResponseEvaluator)
