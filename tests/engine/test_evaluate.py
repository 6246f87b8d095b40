"""The evaluate phase, runs, callbacks and the sync facade (SPEC §8.1, §8.2, §8.5)."""

from __future__ import annotations

import asyncio
import json

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case, turn

import agenteval_nb as ae
from agenteval_nb.engine.aggregate import default_case_aggregator
from agenteval_nb.engine.case import evaluate_case, plan_metric
from agenteval_nb.engine.inference import InferenceResult
from agenteval_nb.evaluators.base import EvaluationContext


def run(es, metrics=(METRIC,), evaluator=None, **kw):
    evaluator = evaluator or ExactAnswer()
    kw.setdefault("progress", False)
    return ae.evaluate(es, list(metrics), registry=registry_with(evaluator), **kw)


def statuses(r):
    return {(c.run_id, c.eval_id): c.final_eval_status for c in r.result.eval_case_results}


def test_trace_cases_pass_and_fail_with_per_turn_results():
    es = evalset(
        trace_case("ok", ["a", "b"], ["a", "b"]), trace_case("bad", ["a", "b"], ["a", "x"])
    )
    r = run(es)
    assert statuses(r) == {(1, "ok"): "passed", (1, "bad"): "failed"}
    bad = r.result.eval_case_results[1]
    assert bad.score == 0.0 and bad.run_id == 1 and bad.user_id == "user-1"
    overall = bad.overall_eval_metric_results[0]
    assert overall.score == 0.5 and overall.eval_status == "failed" and overall.threshold == 1.0
    assert overall.details.reason == "answers differ"
    per_turn = bad.eval_metric_result_per_invocation
    assert [p.eval_metric_results[0].eval_status for p in per_turn] == ["passed", "failed"]
    assert per_turn[1].actual_invocation.final_response.content == "x"
    assert per_turn[1].expected_invocation.final_response.content == "b"


def test_overall_reason_joins_turn_reasons_with_semicolon():
    r = run(evalset(trace_case("c", ["a", "b"], ["x", "y"])))
    assert r.result.eval_case_results[0].overall_eval_metric_results[0].details.reason == (
        "answers differ;answers differ"
    )


def test_unknown_metric_is_skipped_but_warned_and_recorded():
    es = evalset(trace_case("c", ["a"], ["a"]))
    with pytest.warns(UserWarning, match="typo_metric"):
        r = run(es, metrics=[METRIC, {"metricName": "typo_metric"}])
    assert any("typo_metric" in w for w in r.warnings)
    names = [m.metric_name for m in r.result.eval_case_results[0].overall_eval_metric_results]
    assert names == ["exact_answer"]


def test_all_metrics_unknown_gives_not_evaluated_case():
    with pytest.warns(UserWarning):
        r = run(evalset(trace_case("c", ["a"], ["a"])), metrics=[{"metricName": "nope"}])
    assert r.result.eval_case_results[0].final_eval_status == "not_evaluated"


def test_default_mode_case_without_agent_fails_clearly():
    es = evalset(
        {"evalId": "d", "sessionInput": {"appName": "a"}, "conversation": [turn("hi", "yo")]}
    )
    case = run(es).result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    assert "no agent given" in case.error_message
    assert case.error_message.startswith("inference eval case (evalCaseID=d, sessionID=")


def test_missing_session_input_fails_case_even_in_trace_mode():
    c = trace_case("c", ["a"], ["a"])
    del c["sessionInput"]
    case = run(evalset(c)).result.eval_case_results[0]
    assert case.final_eval_status == "failed" and "session input is nil" in case.error_message


def test_trace_mode_length_mismatch_and_missing_user_content_fail_the_case():
    c1 = trace_case("len", ["a", "b"], ["a"])
    c2 = trace_case("user", ["a"], ["a"])
    del c2["actualConversation"][0]["userContent"]
    r = run(evalset(c1, c2))
    by_id = {c.eval_id: c for c in r.result.eval_case_results}
    assert (
        "actualConversation length 1 does not match conversation length 2"
        in by_id["len"].error_message
    )
    assert "userContent is required" in by_id["user"].error_message


def test_trace_mode_without_expected_conversation_uses_placeholders():
    c = trace_case("c", [], ["a"])
    del c["conversation"]
    ev = ExactAnswer()
    run(evalset(c), evaluator=ev, metrics=[{"metricName": "exact_answer", "threshold": 0}])
    actuals, expecteds, _ = ev.seen[0]
    assert expecteds[0].final_response is None
    assert expecteds[0].user_content.content == actuals[0].user_content.content


def test_trace_mode_with_only_conversation_scores_it_as_actual():
    c = trace_case("c", ["a"], [])
    del c["actualConversation"]
    ev = ExactAnswer()
    run(evalset(c), evaluator=ev, metrics=[{"metricName": "exact_answer", "threshold": 0}])
    actuals, expecteds, _ = ev.seen[0]
    assert actuals[0].final_response.content == "a" and expecteds[0].final_response is None


def _inference(actuals, status="passed"):
    return InferenceResult("c", "sess", "u", ae.EvalStatus(status), inferences=actuals)


def test_turn_count_mismatch_is_a_failed_case_not_a_score():
    es = ae.load_evalset(
        evalset({"evalId": "c", "sessionInput": {}, "conversation": [turn("q", "a")]})
    )
    ev = ExactAnswer()
    plan = [plan_metric(ae.EvalMetric(metric_name="exact_answer", threshold=1), ev)]
    actual = ae.Invocation.model_validate(turn("q", "a"))
    result = asyncio.run(
        evaluate_case(
            app_name="app",
            eval_set_id="set",
            case=es.eval_cases[0],
            inference=_inference([actual, actual]),
            plan=plan,
            context=EvaluationContext(),
            aggregator=default_case_aggregator,
        )
    )
    assert result.final_eval_status == "failed"
    assert result.error_message == "inference count 2 does not match expected conversation length 1"
    assert ev.seen == []


def test_case_context_messages_reach_turns_without_changing_the_evalset():
    ctx = [{"role": "system", "content": "be brief"}]
    own = [{"role": "system", "content": "turn-specific"}]
    c = trace_case("c", ["a", "b"], ["a", "b"], contextMessages=ctx)
    c["actualConversation"][1]["contextMessages"] = own
    es = ae.load_evalset(evalset(c))
    ev = ExactAnswer()
    run(es, evaluator=ev)
    actuals, expecteds, _ = ev.seen[0]
    assert actuals[0].context_messages[0].content == "be brief"
    assert actuals[1].context_messages[0].content == "turn-specific"
    assert expecteds[0].context_messages[0].content == "be brief"
    assert es.eval_cases[0].actual_conversation[0].context_messages is None


def judge_metric(name="exact_answer", rubrics=None):
    return {
        "metricName": name,
        "threshold": 1.0,
        "criterion": {
            "llmJudge": {"rubrics": rubrics or [{"id": "r1", "content": {"text": "base"}}]}
        },
    }


def test_case_rubrics_are_appended_to_a_copy_of_the_metric():
    rubrics = [
        {"metricName": "exact_answer", "content": {"text": "  mentions Paris "}},
        {"metricName": "exact_answer", "id": " own ", "content": {"text": "polite"}, "type": " t "},
    ]
    ev = ExactAnswer()
    metrics = [judge_metric()]
    run(evalset(trace_case("c", ["a"], ["a"], rubrics=rubrics)), metrics=metrics, evaluator=ev)
    seen = ev.seen[0][2].criterion.llm_judge.rubrics
    assert [(r.id, r.content.text, r.type) for r in seen] == [
        ("r1", "base", None),
        ("case_rubric_1", "mentions Paris", None),
        ("own", "polite", "t"),
    ]
    assert len(metrics[0]["criterion"]["llmJudge"]["rubrics"]) == 1


@pytest.mark.parametrize(
    ("rubric", "metric", "message"),
    [
        (
            {"metricName": "exact_answer", "content": {"text": "x"}},
            METRIC,
            "llmJudge criterion is required as rubric container",
        ),
        (
            {"metricName": "exact_answer", "id": "r1", "content": {"text": "x"}},
            judge_metric(),
            "duplicate rubric id r1",
        ),
        (
            {"metricName": "other", "content": {"text": "x"}},
            judge_metric(),
            "metric other is not configured",
        ),
        ({"metricName": " ", "content": {"text": "x"}}, judge_metric(), "metricName is required"),
        (
            {"metricName": "exact_answer", "content": {"text": "  "}},
            judge_metric(),
            "content text is required",
        ),
    ],
)
def test_bad_case_rubrics_fail_the_case(rubric, metric, message):
    r = run(evalset(trace_case("c", ["a"], ["a"], rubrics=[rubric])), metrics=[metric])
    case = r.result.eval_case_results[0]
    assert case.final_eval_status == "failed" and message in case.error_message


class Exploding:
    name = "exploding"
    description = "raises for case 'boom'"

    async def evaluate(self, actuals, expecteds, metric):
        if actuals[0].user_content.content == "boom":
            raise ValueError("judge fell over")
        return ae.EvaluateResult(
            1.0,
            "passed",
            [ae.PerInvocationResult(a, e, 1.0, "passed") for a, e in zip(actuals, expecteds)],
        )


def test_an_evaluator_error_fails_only_that_case():
    c1 = trace_case("boom-case", ["a"], ["a"])
    c1["actualConversation"][0]["userContent"]["content"] = "boom"
    c2 = trace_case("fine", ["a"], ["a"])
    r = ae.evaluate(
        evalset(c1, c2),
        [{"metricName": "exploding"}],
        registry=registry_with(Exploding()),
        progress=False,
    )
    by_id = {c.eval_id: c for c in r.result.eval_case_results}
    assert by_id["boom-case"].final_eval_status == "failed"
    assert (
        by_id["boom-case"].error_message == "run evaluation for metric exploding: judge fell over"
    )
    assert by_id["fine"].final_eval_status == "passed"


class WrongCount:
    name = "wrong_count"
    description = "returns no per-turn results"

    async def evaluate(self, actuals, expecteds, metric):
        return ae.EvaluateResult(0.0, "not_evaluated", [])


def test_per_invocation_count_mismatch_fails_the_case():
    r = ae.evaluate(
        evalset(trace_case("c", ["a", "b"], ["a", "b"])),
        [{"metricName": "wrong_count"}],
        registry=registry_with(WrongCount()),
        progress=False,
    )
    assert (
        r.result.eval_case_results[0].error_message
        == "metric wrong_count returned 0 per-invocation results, expected 2"
    )


def test_threshold_zero_is_a_threshold_of_zero():
    r = run(
        evalset(trace_case("c", ["a"], ["x"])),
        metrics=[{"metricName": "exact_answer", "threshold": 0}],
    )
    assert r.result.eval_case_results[0].final_eval_status == "passed"


def test_extension_reaches_the_evaluator_untouched():
    ext = {"weight": 3, "nested": {"tags": ["a", None]}}
    ev = ExactAnswer()
    run(
        evalset(trace_case("c", ["a"], ["a"])), metrics=[{**METRIC, "extension": ext}], evaluator=ev
    )
    assert ev.seen[0][2].extension == ext


def test_custom_case_aggregator_weights_metrics_by_extension():
    def weighted(data: ae.CaseAggregationInput) -> ae.CaseAggregation:
        weights = [(m.extension or {}).get("weight", 1) for m in data.eval_metrics]
        score = sum(w * (r.score or 0) for w, r in zip(weights, data.metric_results)) / sum(weights)
        return ae.CaseAggregation(score, "passed" if score >= 0.7 else "failed")

    ev1, ev2 = ExactAnswer(), ExactAnswer()
    ev2.name = "second"
    reg = registry_with(ev1, ev2)
    metrics = [
        {**METRIC, "extension": {"weight": 3}},
        {"metricName": "second", "threshold": 1, "extension": {"weight": 1}},
    ]
    r = ae.evaluate(
        evalset(trace_case("c", ["a", "b"], ["a", "b"])),
        metrics,
        registry=reg,
        case_aggregator=weighted,
        progress=False,
    )
    case = r.result.eval_case_results[0]
    assert case.score == 1.0 and case.final_eval_status == "passed"


def test_case_aggregator_with_invalid_status_fails_the_case():
    r = run(
        evalset(trace_case("c", ["a"], ["a"])),
        case_aggregator=lambda d: ae.CaseAggregation(1.0, "unknown"),
    )
    case = r.result.eval_case_results[0]
    assert case.final_eval_status == "failed" and "invalid status" in case.error_message


def test_callbacks_fire_in_order_with_shared_state():
    seen = []

    def record(event: ae.CallbackEvent):
        event.state.setdefault("n", 0)
        event.state["n"] += 1
        seen.append((event.point.value, event.eval_case_id, event.run_id))

    async def async_record(event):
        await asyncio.sleep(0)
        seen.append(("async", event.point.value))

    cbs = ae.Callbacks()
    for point in ae.CallbackPoint:
        cbs.register(point, record)
    cbs.register("AfterEvaluateSet", async_record)
    run(evalset(trace_case("c", ["a"], ["a"])), callbacks=cbs, case_parallelism=1)
    assert seen == [
        ("BeforeInferenceSet", None, 1),
        ("BeforeInferenceCase", "c", 1),
        ("AfterInferenceCase", "c", 1),
        ("AfterInferenceSet", None, 1),
        ("BeforeEvaluateSet", None, 1),
        ("BeforeEvaluateCase", "c", 1),
        ("AfterEvaluateCase", "c", 1),
        ("AfterEvaluateSet", None, 1),
        ("async", "AfterEvaluateSet"),
    ]


def test_inference_case_callback_error_fails_that_case_only():
    def boom(event):
        if event.eval_case_id == "bad":
            raise RuntimeError("no way")

    cbs = ae.Callbacks().register("BeforeInferenceCase", boom, name="guard")
    r = run(
        evalset(trace_case("bad", ["a"], ["a"]), trace_case("good", ["a"], ["a"])), callbacks=cbs
    )
    by_id = {c.eval_id: c for c in r.result.eval_case_results}
    assert by_id["bad"].error_message == "BeforeInferenceCase callback[0] (guard): no way"
    assert by_id["good"].final_eval_status == "passed"


@pytest.mark.parametrize("point", ["BeforeEvaluateSet", "AfterEvaluateCase", "AfterInferenceSet"])
def test_set_level_callback_error_fails_the_evaluation(point):
    def ok(event):
        pass

    def boom(event):
        raise RuntimeError("stop")

    cbs = ae.Callbacks().register(point, ok).register(point, boom, name="stopper")
    with pytest.raises(
        ae.EvaluationError, match=rf"run 1 \w+: {point} callback\[1\] \(stopper\): stop"
    ):
        run(evalset(trace_case("c", ["a"], ["a"])), callbacks=cbs)


def test_parallel_cases_keep_input_order():
    cases = [trace_case(f"c{i:02d}", ["a"], ["a" if i % 3 else "x"]) for i in range(30)]
    r = run(evalset(*cases), evaluator=ExactAnswer(delay=0.001), case_parallelism=8)
    assert [c.eval_id for c in r.result.eval_case_results] == [f"c{i:02d}" for i in range(30)]
    assert [c.final_eval_status for c in r.result.eval_case_results] == [
        "passed" if i % 3 else "failed" for i in range(30)
    ]


def test_num_runs_repeats_the_evalset_with_run_ids():
    r = run(evalset(trace_case("c", ["a"], ["a"])), num_runs=3, runs_parallel=True)
    assert [c.run_id for c in r.result.eval_case_results] == [1, 2, 3]
    assert r.result.summary.num_runs == 3
    assert r.result.summary.run_status_counts.passed == 3


def test_recorded_runs_are_evaluated_as_runs_1_to_n():
    run1 = evalset(trace_case("c", ["a"], ["a"]), trace_case("d", ["a"], ["a"]), set_id="r")
    run2 = evalset(trace_case("c", ["a"], ["x"]), trace_case("d", ["a"], ["a"]), set_id="r")
    r = run([run1, run2])
    assert statuses(r) == {
        (1, "c"): "passed",
        (1, "d"): "passed",
        (2, "c"): "failed",
        (2, "d"): "passed",
    }
    summary = r.result.summary
    assert summary.num_runs == 2
    assert (summary.run_status_counts.passed, summary.run_status_counts.failed) == (1, 1)
    case_c = next(s for s in summary.eval_case_summaries if s.eval_id == "c")
    assert case_c.overall_status == "failed"
    assert case_c.metric_summaries[0].average_score == 0.5


def test_recorded_runs_conflicting_num_runs_is_an_error():
    es = evalset(trace_case("c", ["a"], ["a"]))
    with pytest.raises(ae.ConfigError, match="conflicts"):
        run([es, es], num_runs=3)


def test_unknown_compare_name_fails_the_whole_evaluation():
    metric = {**METRIC, "criterion": {"finalResponse": {"text": {"compareName": "nope"}}}}
    with pytest.raises(ae.EvaluationError, match="'nope' is not registered"):
        run(evalset(trace_case("c", ["a"], ["a"])), metrics=[metric])


def test_evaluate_works_inside_a_running_event_loop():
    async def in_loop():
        return run(evalset(trace_case("c", ["a"], ["a"])))

    r = asyncio.run(in_loop())
    assert r.result.eval_case_results[0].final_eval_status == "passed"


def test_evaluate_async_can_be_awaited():
    r = asyncio.run(
        ae.evaluate_async(
            evalset(trace_case("c", ["a"], ["b"])),
            [METRIC],
            registry=registry_with(ExactAnswer()),
            progress=False,
        )
    )
    assert r.result.eval_case_results[0].final_eval_status == "failed"


def test_progress_bar_counts_every_case(capsys):
    run(
        evalset(trace_case("c", ["a"], ["a"]), trace_case("d", ["a"], ["a"])),
        progress=True,
        num_runs=2,
    )
    err = capsys.readouterr().err
    assert "4/4" in err


def test_result_json_is_loadable_and_repr_is_short():
    r = run(evalset(trace_case("c", ["a"], ["b"])))
    from agenteval_nb.io import dumps, load_result

    text = dumps(r.result)
    again = load_result(text)
    assert again == r.result
    assert json.loads(text)["evalCaseResults"][0]["finalEvalStatus"] == "failed"
    assert repr(r).startswith(
        "EvalRun(eval_set='set', runs=1, cases=1, case_results=1, passed=0, failed=1"
    )
    assert "<table>" in r._repr_html_()


def test_results_dir_saves_the_result_through_the_local_store(tmp_path):
    r = run(evalset(trace_case("c", ["a"], ["a"])), results_dir=tmp_path)
    saved_id = r.info["saved_result_id"]
    path = tmp_path / "app" / f"{saved_id}.evalset_result.json"
    assert path.exists()
    from agenteval_nb.io import load_result

    assert load_result(path).eval_case_results[0].final_eval_status == "passed"


def _two_case_set():
    return evalset(trace_case("c1", ["a"], ["a"]), trace_case("c2", ["a"], ["b"]))


def test_results_dir_writes_the_bytes_run_save_writes(tmp_path):
    r = run(_two_case_set(), results_dir=tmp_path / "store")
    saved = tmp_path / "store" / "app" / f"{r.info['saved_result_id']}.evalset_result.json"
    assert saved.read_bytes() == r.save(tmp_path / "again.json").read_bytes()


class _TextsOnlyStore(ae.stores.LocalResultStore):
    """A local store that refuses whole models: a streamed run must hand it case texts."""

    def save(self, app_name, result):
        raise AssertionError("a streamed run was stored as a whole model")


def test_a_result_store_gets_a_streamed_runs_case_texts_not_a_whole_model(tmp_path):
    store = _TextsOnlyStore(tmp_path)
    r = run(_two_case_set(), result_store=store)
    assert r.record.streaming
    saved = store.path("app", r.info["saved_result_id"])
    assert saved.read_bytes() == r.save(tmp_path / "again.json").read_bytes()


def test_a_store_of_models_gets_the_whole_result_from_case_texts():
    store = ae.stores.InMemoryResultStore()
    r = run(_two_case_set(), result_store=store)
    stored = store.get("app", r.info["saved_result_id"])
    assert stored.model_dump(by_alias=True) == r.result.model_dump(by_alias=True)
