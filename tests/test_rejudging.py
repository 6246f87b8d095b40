"""ae.rejudge: judge metrics scored again from the recorded turns; the agent is never called,
other metrics are copied, the cache makes a repeat free."""

from __future__ import annotations

import pytest
from _builders import (
    EXACT_METRIC,
    judge_metric,
    numbered_agent,
    numbered_cases,
    scripted_handler,
    verdict_content,
)

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_server import FakeResponse, error_body, route_by_model

N = 12


def mini(k: int) -> bool:
    return k % 2 == 0


def big(k: int) -> bool:
    return k % 3 != 0


@pytest.fixture
def srv():
    routes = {"mini": scripted_handler(mini, "mini"), "big": scripted_handler(big, "big")}
    with FakeOpenAIServer(handler=route_by_model(routes)) as server:
        yield server


@pytest.fixture
def recorded(srv):
    """A default-mode run judged by ``mini``, with the agent's calls counted."""
    calls: list[str] = []
    answer = numbered_agent(calls)

    def agent(text):  # c1's answer is right for the judges, not word for word
        return answer(text) + (" roughly" if text == "q-1" else "")

    run = ae.evaluate(
        numbered_cases(N),
        [judge_metric(srv.base_url), EXACT_METRIC],
        agent=agent,
        progress=False,
    )
    assert len(calls) == N and srv.request_count == N
    return run, calls


def statuses(run, metric="fr"):
    df = run.metrics_df(backend="polars")
    return dict(df.filter(df["metric_name"] == metric).select("eval_id", "status").rows())


def test_a_new_judge_model_scores_the_recorded_turns_and_the_agent_is_not_called(srv, recorded):
    run, calls = recorded
    rejudged = ae.rejudge(run, {"modelName": "big"})
    assert len(calls) == N  # the agent was never called again
    assert srv.request_count == 2 * N
    assert {body["model"] for body in srv.chat_requests[N:]} == {"big"}
    assert statuses(run) == {f"c{k}": "passed" if mini(k) else "failed" for k in range(N)}
    assert statuses(rejudged) == {f"c{k}": "passed" if big(k) else "failed" for k in range(N)}
    # the case status is aggregated again from the new verdict and the copied metric
    cases = dict(rejudged.cases_df(backend="polars").select("eval_id", "status").rows())
    assert cases == {f"c{k}": "passed" if big(k) and k != 1 else "failed" for k in range(N)}
    assert big(1) and statuses(rejudged, "final_response_avg_score")["c1"] == "failed"
    # ids, sessions and the metric list stay; the judge model of the metric is the new one
    old, new = run.cases_df(backend="polars"), rejudged.cases_df(backend="polars")
    assert new["session_id"].to_list() == old["session_id"].to_list()
    judge_model = rejudged.metrics[0].criterion.llm_judge.judge_model
    assert (judge_model.model_name, judge_model.base_url) == ("big", srv.base_url)
    assert rejudged.info["rejudged"]["judge"] == "big"
    assert rejudged.info["rejudged"]["metrics"] == ["fr"]


def test_other_metrics_are_copied_as_they_are(recorded):
    run, _ = recorded
    rejudged = ae.rejudge(run, {"modelName": "big"})
    for old, new in zip(run.case_results(), rejudged.case_results(), strict=True):
        names = [m.metric_name for m in new.overall_eval_metric_results]
        assert names == ["fr", "final_response_avg_score"]  # the run's metric order
        assert new.overall_eval_metric_results[1] == old.overall_eval_metric_results[1]
        for t_old, t_new in zip(
            old.eval_metric_result_per_invocation,
            new.eval_metric_result_per_invocation,
            strict=True,
        ):
            assert t_new.eval_metric_results[1] == t_old.eval_metric_results[1]
            assert t_new.actual_invocation == t_old.actual_invocation


def test_a_repeat_is_answered_by_the_cache(srv, recorded):
    run, _ = recorded
    first = ae.rejudge(run, {"modelName": "big"})
    sent = srv.request_count
    again = ae.rejudge(run, {"modelName": "big"})
    assert srv.request_count == sent
    assert again.info["judge_usage"]["cache_hits"] == N
    assert statuses(again) == statuses(first)
    # the run's own judge again: its answers are in the cache since the run
    same = ae.rejudge(run)
    assert srv.request_count == sent and statuses(same) == statuses(run)


def test_an_injected_judge_is_called_once_per_turn(recorded):
    run, calls = recorded
    seen: list[str] = []

    def judge(messages):
        text = messages[-1]["content"]
        seen.append(text)
        k = int(text.rsplit("ans-", 1)[1].split()[0].strip("<>/.\"'"))
        return verdict_content(k, k < 3)

    rejudged = ae.rejudge(run, judge)
    assert len(seen) == N and len(calls) == N
    assert statuses(rejudged) == {f"c{k}": "passed" if k < 3 else "failed" for k in range(N)}


def test_a_case_the_run_could_not_score_is_copied_and_a_judge_error_fails_its_case(srv):
    def agent(text):
        if text == "q-1":
            raise RuntimeError("agent broke")
        return "ans-" + text.split("-")[1]

    run = ae.evaluate(numbered_cases(3), [judge_metric(srv.base_url)], agent=agent, progress=False)
    broken = run.case_result(1)
    assert broken.error_message and "agent broke" in broken.error_message

    def flaky(request):
        text = request["messages"][-1]["content"]
        if "ans-2" in text:
            return FakeResponse(400, error_body("bad request for item 2"))
        return scripted_handler(mini, "flaky")(request)

    with FakeOpenAIServer(handler=flaky) as other:
        rejudged = ae.rejudge(run, {"modelName": "flaky", "baseURL": other.base_url})
    assert rejudged.case_result(1) == broken
    failed = rejudged.case_result(2)
    assert failed.final_eval_status == "failed"
    assert "bad request for item 2" in failed.error_message
    assert rejudged.case_result(0).final_eval_status == "passed"


def test_runs_keep_their_ids_and_marks_travel(srv):
    run = ae.evaluate(
        numbered_cases(3),
        [judge_metric(srv.base_url)],
        agent=numbered_agent([]),
        num_runs=2,
        progress=False,
    )
    run.mark("c1", 2, "fail", note="wrong")
    rejudged = ae.rejudge(run, {"modelName": "big"})
    keys = rejudged.cases_df(backend="polars").select("run_id", "eval_id").rows()
    assert keys == run.cases_df(backend="polars").select("run_id", "eval_id").rows()
    marks = rejudged.reviews_df(backend="polars")
    assert marks.select("eval_id", "run_id", "mark").rows() == [("c1", 2, "fail")]
    # a record holding run 2 only keeps its run id (the engine numbers its runs from 1)
    second = [r for r in run.result.eval_case_results if r.run_id == 2]
    partial = ae.EvalRun(
        result=run.result.model_copy(update={"eval_case_results": second}),
        evalsets=run.evalsets,
        metrics=run.metrics,
    )
    again = ae.rejudge(partial.record, {"modelName": "big"})
    assert again.cases_df(backend="polars")["run_id"].to_list() == [2, 2, 2]


def test_metric_choice_and_bad_input(srv, recorded):
    run, _ = recorded
    with pytest.raises(ae.ConfigError, match="not judge metrics of the run"):
        ae.rejudge(run, {"modelName": "big"}, metrics="final_response_avg_score")
    bare = ae.EvalRun(result=run.result)
    with pytest.raises(ae.ConfigError, match="needs the run's metrics"):
        ae.rejudge(bare, {"modelName": "big"})
    with pytest.raises(TypeError, match="takes a run"):
        ae.rejudge(42)


def test_a_run_read_back_from_its_file(srv, recorded, tmp_path):
    run, calls = recorded
    path = run.save(tmp_path / "r.evalset_result.json")
    loaded = ae.load_run(path, evalset=numbered_cases(N), metrics=run.metrics)
    loaded.mark("c2", 1, "fail")
    rejudged = ae.rejudge(loaded, {"modelName": "big"}, progress=False)
    assert statuses(rejudged) == {f"c{k}": "passed" if big(k) else "failed" for k in range(N)}
    assert rejudged.reviews_df(backend="polars")["eval_id"].to_list() == ["c2"]
    assert len(calls) == N


def test_case_rubrics_reach_the_new_judge():
    from agenteval_nb.testing.heuristic_judge import heuristic_handler

    evalset = numbered_cases(2, trace=True)
    evalset["evalCases"][1]["rubrics"] = [
        {"id": "own", "metricName": "rubric", "content": {"text": "names the item number"}}
    ]
    with FakeOpenAIServer(handler=heuristic_handler) as server:
        metric = {
            "metricName": "rubric",
            "evaluatorName": "llm_rubric_response",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {"modelName": "mini", "baseURL": server.base_url},
                    "rubrics": [{"id": "r1", "content": {"text": "answers the question"}}],
                }
            },
        }
        run = ae.evaluate(evalset, [metric], progress=False)
        ae.rejudge(run, {"modelName": "big"}, progress=False)
        prompts = {
            (body["model"], i): str(body["messages"]) for i, body in enumerate(server.chat_requests)
        }
    with_rubric = sorted(model for (model, _), text in prompts.items() if "item number" in text)
    assert with_rubric == ["big", "mini"]  # case c1, in the run and in the rejudge
