"""Judge panels end to end (JUDGES.md §1): ``ae.evaluate(..., judge=ae.JudgePanel(...))`` and a
metric's ``judgeModels``; each judge reduces its own samples first, then the panel votes;
abstentions stay in the denominator; per-judge records in ``details`` survive the result file;
``samples_df`` has one row per judge × sample; the verifier pools the judges' distributions.

Deterministic injected judges (``CallableJudge``) drive most cases; the judge-model panels go
through the real openai client to the loopback server."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from _builders import evalset, trace_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.render import judge_section
from agenteval_nb.schema import EvalMetric
from agenteval_nb.schema.extras import judge_record, panel_record, verifier_record
from agenteval_nb.testing.fake_server import FakeResponse, completion, route_by_model

LN = math.log
VALID = "reasoning: fine\nis_the_agent_response_valid: valid"
INVALID = "reasoning: wrong\nis_the_agent_response_valid: invalid"


def says(*answers: str):
    """A judge answering ``answers`` in turn (cycling): one answer per call."""
    state = {"i": 0}

    def judge(messages):
        answer = answers[state["i"] % len(answers)]
        state["i"] += 1
        return answer

    judge.num_samples = 1  # type: ignore[attr-defined]
    return judge


def sampled(n: int, *answers: str):
    judge = says(*answers)
    judge.num_samples = n  # type: ignore[attr-defined]
    return judge


def down(messages):
    raise RuntimeError("judge is down")


def metric(**llm) -> list[dict]:
    return [
        {
            "metricName": "fr",
            "evaluatorName": "llm_final_response",
            "threshold": 1.0,
            "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}, **llm}},
        }
    ]


ONE_CASE = evalset(trace_case("c1", ["Paris"], ["Paris"]))


def turn_details(run: ae.EvalRun, case: int = 0, turn: int = 0):
    per = run.result.eval_case_results[case].eval_metric_result_per_invocation[turn]
    return per.eval_metric_results[0]


def test_no_majority_is_not_evaluated_listing_every_vote():
    panel = ae.JudgePanel({"mini": says(VALID), "haiku": says(INVALID), "local": down})
    run = ae.evaluate(ONE_CASE, metric(), judge=panel, progress=False)
    result = turn_details(run)
    assert result.eval_status == "not_evaluated"
    reason = result.details.reason
    assert reason.startswith("no majority of 3: 1 pass, 1 fail, 1 abstain (")
    assert "haiku: fail 0" in reason and "mini: pass 1" in reason
    assert (
        "local: abstain (judge response: injected judge failed: RuntimeError: judge is down)"
        in (reason)
    )
    record = panel_record(result.details)
    assert (record.vote, record.size, record.min_votes, record.status) == (
        "majority",
        3,
        2,
        "not_evaluated",
    )
    assert [(v.judge, v.vote) for v in record.votes] == [
        ("haiku", "fail"),
        ("local", "abstain"),
        ("mini", "pass"),
    ]
    assert "judge is down" in record.votes[1].error
    shown = str(judge_section([result]))  # the inspector / report name each sample's judge
    assert "haiku #0" in shown and "mini #0" in shown and "judge is down" in shown
    # the case is not evaluated, never an error, and its metric keeps the turn and its reason
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "not_evaluated" and not case.error_message
    assert case.overall_eval_metric_results[0].details.reason == reason


def test_an_abstention_stays_in_the_denominator():
    two_of_three = ae.JudgePanel({"a": says(VALID), "b": says(VALID), "c": down})
    run = ae.evaluate(ONE_CASE, metric(), judge=two_of_three, progress=False)
    assert turn_details(run).eval_status == "passed"
    one_of_three = ae.JudgePanel({"a": says(VALID), "b": down, "c": down})
    run = ae.evaluate(ONE_CASE, metric(), judge=one_of_three, progress=False)
    assert turn_details(run).eval_status == "not_evaluated"  # 1 of 1 answered is no majority


def test_each_judge_reduces_its_own_samples_before_the_vote():
    # flattened, the six samples tie 3 : 3; per judge (SPEC §4.5 majority_vote) they are
    # a: 1 pass 2 fail -> fail, b: pass, c: 1 : 1 -> the first failing sample -> fail
    panel = ae.JudgePanel(
        {
            "a": sampled(3, VALID, INVALID, INVALID),
            "b": sampled(1, VALID),
            "c": sampled(2, VALID, INVALID),
        }
    )
    run = ae.evaluate(ONE_CASE, metric(), judge=panel, progress=False)
    result = turn_details(run)
    assert result.eval_status == "failed" and result.score == 0.0
    assert [(v.judge, v.vote, v.n_samples) for v in panel_record(result.details).votes] == [
        ("a", "fail", 3),
        ("b", "pass", 1),
        ("c", "fail", 2),
    ]
    samples = run.samples_df(backend="polars")
    assert samples.height == 6
    assert samples.group_by("judge").agg(pl.len()).sort("judge").rows() == [
        ("a", 3),
        ("b", 1),
        ("c", 2),
    ]
    chosen = samples.filter(pl.col("chosen")).select("judge", "sample_index", "status").rows()
    assert sorted(chosen) == [("a", 1, "failed"), ("b", 0, "passed"), ("c", 1, "failed")]


def test_a_lone_judge_has_its_model_in_the_judge_column():
    run = ae.evaluate(ONE_CASE, metric(), judge=says(VALID), progress=False)
    samples = run.samples_df(backend="polars")
    assert samples["judge"].to_list() == ["injected-judge"]
    assert panel_record(turn_details(run).details) is None


def test_other_vote_rules_through_evaluate():
    judges = {"a": says(VALID), "b": says(INVALID), "c": says(VALID)}
    mean = ae.evaluate(ONE_CASE, metric(), judge=ae.JudgePanel(judges, vote="mean"), progress=False)
    assert turn_details(mean).score == pytest.approx(2 / 3)
    assert turn_details(mean).eval_status == "failed"  # threshold 1.0
    judges = {"a": says(VALID), "b": says(INVALID), "c": says(VALID)}
    any_ = ae.evaluate(ONE_CASE, metric(), judge=ae.JudgePanel(judges, vote="any"), progress=False)
    assert turn_details(any_).eval_status == "passed"


def test_a_metric_error_is_not_an_abstention():
    # an error before any judge is asked (no rubrics) fails the case as for a lone judge
    ms = [
        {
            "metricName": "rr",
            "evaluatorName": "llm_rubric_response",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}}},
        }
    ]
    panel = ae.JudgePanel({"a": says(VALID), "b": says(VALID), "c": says(VALID)})
    run = ae.evaluate(ONE_CASE, ms, judge=panel, progress=False)
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "failed"
    assert "llm judge rubrics are required" in case.error_message


def _comparable(run: ae.EvalRun) -> list:
    """Every turn result as written, without the timings that differ between runs."""
    out = []
    for case in run.result.eval_case_results:
        for per in case.eval_metric_result_per_invocation:
            for m in per.eval_metric_results:
                wire = m.to_wire()
                for sample in wire["details"]["judge"]["samples"]:
                    sample.pop("latencyMs", None)
                out.append(wire)
    return out


BEHAVIOURS = {
    "valid": lambda: says(VALID),
    "invalid": lambda: says(INVALID),
    "down": lambda: down,
    "garbled": lambda: says("no verdict here"),
    "mixed3": lambda: sampled(3, VALID, INVALID, VALID),
}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kinds=st.lists(st.sampled_from(sorted(BEHAVIOURS)), min_size=2, max_size=4),
    rule=st.sampled_from(["majority", "mean", "median", "all", "any"]),
    data=st.data(),
)
def test_any_permutation_of_the_panel_gives_the_same_results(kinds, rule, data):
    es = evalset(trace_case("c1", ["a", "b"], ["a", "x"]), trace_case("c2", ["a"], ["a"]))
    names = [f"j{i}" for i in range(len(kinds))]
    order = data.draw(st.permutations(range(len(kinds))))
    first = ae.JudgePanel({n: BEHAVIOURS[k]() for n, k in zip(names, kinds, strict=True)}, rule)
    second = ae.JudgePanel({names[i]: BEHAVIOURS[kinds[i]]() for i in order}, rule)
    a = ae.evaluate(es, metric(), judge=first, progress=False)
    b = ae.evaluate(es, metric(), judge=second, progress=False)
    assert _comparable(a) == _comparable(b)


def test_per_judge_details_round_trip_through_the_result_file(tmp_path):
    panel = ae.JudgePanel({"mini": says(VALID), "haiku": says(INVALID), "local": says(VALID)})
    run = ae.evaluate(ONE_CASE, metric(), judge=panel, progress=False)
    path = run.save(tmp_path / "panel.evalset_result.json")
    loaded = ae.load_run(path)
    assert panel_record(turn_details(loaded).details) == panel_record(turn_details(run).details)
    cols = ["judge", "sample_index", "status", "chosen", "raw"]
    assert (
        loaded.samples_df(backend="polars")
        .select(cols)
        .equals(run.samples_df(backend="polars").select(cols))
    )
    # Go readers: the panel lives under extra keys; the same file without them still loads
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    for case in data["evalCaseResults"]:
        for per in case["evalMetricResultPerInvocation"]:
            for m in per["evalMetricResults"]:
                assert set(m["details"]) >= {"reason", "score", "judge", "panel"}
                m["details"].pop("panel")
                m["details"].pop("judge")
    go_file = tmp_path / "go.evalset_result.json"
    go_file.write_text(json.dumps(data), encoding="utf-8")
    plain = ae.load_run(go_file)
    assert turn_details(plain).eval_status == "passed"
    assert plain.samples_df(backend="polars").height == 0


# judge models through the openai client -------------------------------------------------------


def test_judge_models_call_through_the_client_and_a_missing_model_abstains(server):
    server.handler = route_by_model(
        {
            "mini": lambda r: completion(VALID, model="mini"),
            "haiku": lambda r: completion(VALID, model="haiku"),
        }
    )
    ms = metric()
    ms[0]["criterion"]["llmJudge"]["judgeModel"]["baseURL"] = server.base_url
    panel = ae.JudgePanel({"a": "mini", "b": {"modelName": "haiku"}, "c": "gone"})
    run = ae.evaluate(ONE_CASE, ms, judge=panel, progress=False, judge_max_retries=0)
    result = turn_details(run)
    assert result.eval_status == "passed"
    assert sorted(r["model"] for r in server.chat_requests) == ["gone", "haiku", "mini"]
    votes = panel_record(result.details).votes
    assert [(v.judge, v.vote) for v in votes] == [("a", "pass"), ("b", "pass"), ("c", "abstain")]
    assert "HTTP 404" in votes[2].error
    assert judge_record(result.details).model == "haiku, mini"
    assert run.info["judge_usage"]["requests"] == 2
    costs = run.cost_df()  # one row per panel member
    assert costs[["judge", "calls", "requests"]].values.tolist() == [
        ["a", 1, 1],
        ["b", 1, 1],
        ["c", 1, 1],
    ]


def test_metric_judge_models_make_a_panel_and_round_trip(server):
    server.handler = route_by_model(
        {
            "m1": lambda r: completion(VALID, model="m1"),
            "m2": lambda r: completion(INVALID, model="m2"),
            "m3": lambda r: completion(VALID, model="m3"),
        }
    )
    raw = {
        "metricName": "fr",
        "evaluatorName": "llm_final_response",
        "threshold": 0.5,
        "extension": {"panel": {"vote": "mean"}},
        "criterion": {
            "llmJudge": {
                "judgeModel": {"modelName": "m1", "baseURL": server.base_url},
                "judgeModels": [
                    {"modelName": "m1"},
                    {"modelName": "m2", "apiKey": "sk-panel-secret"},
                    {"modelName": "m3"},
                ],
            }
        },
    }
    parsed = EvalMetric.model_validate(raw)
    wire = parsed.to_wire()
    assert [m["modelName"] for m in wire["criterion"]["llmJudge"]["judgeModels"]] == [
        "m1",
        "m2",
        "m3",
    ]
    assert "sk-panel-secret" not in json.dumps(wire)
    assert parsed.criterion.llm_judge.judge_models[1].api_key == "sk-panel-secret"
    run = ae.evaluate(ONE_CASE, [parsed], progress=False)
    result = turn_details(run)
    assert result.score == pytest.approx(2 / 3) and result.eval_status == "passed"
    assert panel_record(result.details).vote == "mean"
    assert sorted(r["model"] for r in server.chat_requests) == ["m1", "m2", "m3"]
    keys = {
        r.headers.get("authorization")
        for r in server.requests
        if r.path.endswith("/chat/completions")
    }
    assert "Bearer sk-panel-secret" in keys  # m2's own key, the others the default


def _verifier_answer(a: tuple[float, float], b: tuple[float, float], model: str):
    """Candidate A: P(A) = a[0], P(T) = a[1]; candidate B: P(T) = b[0], P(A) = b[1]."""
    return completion(
        "analysis\n<score_A>A</score_A>\n<score_B>T</score_B>",
        model=model,
        logprobs=[
            ("analysis\n<score_A>", -0.05),
            ("A", LN(a[0]), [("A", LN(a[0])), ("T", LN(a[1]))]),
            ("</score_A>\n<score_B>", -0.05),
            ("T", LN(b[0]), [("T", LN(b[0])), ("A", LN(b[1]))]),
            ("</score_B>", -0.01),
        ],
    )


def test_verifier_panel_pools_the_label_distributions(server):
    server.handler = route_by_model(
        {
            "v1": lambda r: _verifier_answer((0.7, 0.3), (0.8, 0.2), "v1"),  # sA .7, sB .2
            "v2": lambda r: _verifier_answer((0.5, 0.5), (0.4, 0.6), "v2"),  # sA .5, sB .6
            "v3": lambda r: completion("no logprobs at all", model="v3"),
        }
    )
    ms = [
        {
            "metricName": "ver",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {"modelName": "v1", "baseURL": server.base_url},
                    "rubrics": [{"id": "r1", "content": {"text": "correct"}}],
                }
            },
        }
    ]
    es = evalset(trace_case("c1", ["Lyon"], ["Paris"]))
    panel = ae.JudgePanel({"one": "v1", "two": "v2", "three": "v3"})
    run = ae.evaluate(es, ms, judge=panel, progress=False)
    result = turn_details(run)
    # pooled sA = (.7 + .5)/2 = .6, sB = (.2 + .6)/2 = .4 -> 0.5 + (.6 - .4)/2 = .6
    assert result.score == pytest.approx(0.6)
    assert result.eval_status == "passed"
    record = verifier_record(result.details)
    by_judge = {s.judge: s for s in record.samples}
    assert set(by_judge) == {"one", "two"}
    assert by_judge["one"].a.expected_score == pytest.approx(0.7)
    assert by_judge["two"].b.expected_score == pytest.approx(0.6)
    assert by_judge["one"].score == pytest.approx(0.75)
    pooled = dict(zip(record.pooled.a.labels, record.pooled.a.probs, strict=True))
    assert pooled["A"] == pytest.approx(0.6) and pooled["T"] == pytest.approx(0.4)
    assert record.pooled.score == pytest.approx(0.6)
    votes = {v.judge: v for v in panel_record(result.details).votes}
    assert votes["three"].vote == "abstain" and "logprobs are missing" in votes["three"].error
    assert result.details.reason.startswith("pooled of 3: passed 0.6 (")
    logprobs = run.logprobs_df(backend="polars")
    assert set(logprobs["judge"].unique().to_list()) == {"one", "two"}


def test_verifier_panel_without_a_quorum_is_not_evaluated(server):
    server.handler = route_by_model(
        {
            "v1": lambda r: _verifier_answer((0.7, 0.3), (0.8, 0.2), "v1"),
            "bad": lambda r: FakeResponse(500, {"error": {"message": "boom"}}),
        }
    )
    ms = [
        {
            "metricName": "ver",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {"modelName": "v1", "baseURL": server.base_url},
                    "rubrics": [{"id": "r1", "content": {"text": "correct"}}],
                }
            },
        }
    ]
    es = evalset(trace_case("c1", ["Lyon"], ["Paris"]))
    panel = ae.JudgePanel({"one": "v1", "two": "bad", "three": "bad"})
    run = ae.evaluate(es, ms, judge=panel, progress=False, judge_max_retries=0)
    result = turn_details(run)
    assert result.eval_status == "not_evaluated"
    assert result.details.reason.startswith("no quorum to pool: 1 of 3 judges voted, 2 needed")
    assert verifier_record(result.details).pooled is None


def test_an_experiment_shares_one_panel_across_its_variants(server):
    server.handler = route_by_model(
        {
            "mini": lambda r: completion(VALID, model="mini"),
            "haiku": lambda r: completion(INVALID, model="haiku"),
        }
    )
    ms = metric()
    ms[0]["criterion"]["llmJudge"]["judgeModel"]["baseURL"] = server.base_url
    es = {
        "evalSetId": "qa",
        "evalCases": [
            {
                "evalId": "c1",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [{"userContent": {"role": "user", "content": "q"}}],
            }
        ],
    }
    panel = ae.JudgePanel({"a": "mini", "b": "haiku", "c": says(VALID)})
    exp = ae.experiment(
        es,
        ms,
        variants={"x": lambda text: "x", "y": lambda text: "y"},
        judge=panel,
        progress=False,
        cache=False,
    )
    for name in ("x", "y"):
        result = turn_details(exp[name])
        assert [v.vote for v in panel_record(result.details).votes] == ["pass", "fail", "pass"]
        assert exp[name].info["judge_usage"]["requests"] == 3  # 2 HTTP + 1 injected, per variant
    assert len(server.chat_requests) == 4


def hallucination_judge(segments: str, label: str):
    """Answers the segmentation call with ``segments`` and the validation with ``label``."""

    def judge(messages):
        prompt = messages[-1]["content"]
        if prompt.startswith("Split the final answer"):
            return segments
        return f"ID: 1\nReason: seen\nLabel: {label}\nVerdict: yes"

    return judge


def test_each_judge_segments_for_itself_and_a_failed_segmentation_abstains():
    ms = [
        {
            "metricName": "hal",
            "evaluatorName": "llm_hallucinations",
            "threshold": 1.0,
            "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}}},
        }
    ]
    panel = ae.JudgePanel(
        {
            "a": hallucination_judge("<sentence>Paris</sentence>", "supported"),
            "b": hallucination_judge("<sentence>Paris is big</sentence>", "supported"),
            "c": hallucination_judge("no sentences at all", "supported"),
        }
    )
    run = ae.evaluate(ONE_CASE, ms, judge=panel, progress=False)
    result = turn_details(run)
    assert result.eval_status == "passed"
    votes = {v.judge: v for v in panel_record(result.details).votes}
    assert votes["c"].vote == "abstain"
    assert "no segmented sentences found in response" in votes["c"].error
    # each judge validated its own segmentation: b's prompt differs from a's and is kept
    record = judge_record(result.details)
    assert "\nParis\n</sentence>" in record.prompt[0].content
    assert votes["b"].prompt is not None and "Paris is big" in votes["b"].prompt[0].content
    assert votes["a"].prompt is None
    assert sorted((c.judge, c.reason) for c in record.extra_calls) == [
        ("a", "segmentation"),
        ("b", "segmentation"),
        ("c", "segmentation"),
    ]


def test_judge_models_count_their_own_samples_and_use_the_cache(server):
    server.handler = route_by_model(
        {
            "mini": lambda r: completion(VALID, model="mini"),
            "mini-2": lambda r: completion(VALID, model="mini-2"),
            "haiku": lambda r: completion(INVALID, model="haiku"),
        }
    )
    ms = metric()
    ms[0]["criterion"]["llmJudge"]["judgeModel"].update(baseURL=server.base_url, numSamples=2)
    # c asks another model than a: two judges asking the same model the same prompt at once
    # may or may not meet in the cache (timing), which this test is not about
    panel = ae.JudgePanel(
        {"a": {"modelName": "mini", "numSamples": 3}, "b": "haiku", "c": "mini-2"}
    )
    run = ae.evaluate(ONE_CASE, ms, judge=panel, progress=False)
    models = sorted(r["model"] for r in server.chat_requests)
    assert models == ["haiku"] * 2 + ["mini"] * 3 + ["mini-2"] * 2  # a: its 3; b, c: the metric's 2
    votes = panel_record(turn_details(run).details).votes
    assert [(v.judge, v.n_samples) for v in votes] == [("a", 3), ("b", 2), ("c", 2)]
    again = ae.evaluate(ONE_CASE, ms, judge=panel, progress=False)
    assert len(server.chat_requests) == 7  # every answer came from the judge cache
    assert again.info["judge_usage"]["cache_hits"] == 7
    assert _comparable(again)[0]["evalStatus"] == _comparable(run)[0]["evalStatus"]


class _Elsewhere:
    """A case executor that would run cases in other processes (never reached here)."""

    def in_flight(self, default: int) -> int:
        return default

    async def open(self, job, context):
        raise AssertionError("a panel must be refused before any case runs")


def test_a_panel_is_refused_on_another_executor():
    panel = ae.JudgePanel({"a": says(VALID), "b": says(VALID), "c": says(VALID)})
    with pytest.raises(ValueError, match="local executor only"):
        ae.evaluate(ONE_CASE, metric(), judge=panel, executor=_Elsewhere(), progress=False)
