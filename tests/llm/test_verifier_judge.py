"""``llm_verifier_pairwise`` (SPEC §5) end to end: real openai client, fake server, logprobs."""

from __future__ import annotations

import math

import pytest
from _llm_helpers import RUBRICS, inv, make_metric

from agenteval_nb.evaluators.base import EvaluatorError
from agenteval_nb.schema.extras import judge_record, verifier_record
from agenteval_nb.testing.fake_server import FakeResponse, completion
from agenteval_nb.testing.heuristic_judge import HeuristicJudge

pytestmark = pytest.mark.anyio

LN = math.log


def worked_example(a=(0.7, 0.3), b=(0.8, 0.2)) -> dict:
    """SPEC §11: sA = .7, sB = .2 ⇒ score .75."""
    return completion(
        "analysis\n<score_A>A</score_A>\n<score_B>T</score_B>",
        logprobs=[
            ("analysis\n<score_A>", -0.05),
            ("A", LN(a[0]), [("A", LN(a[0])), ("T", LN(a[1]))]),
            ("</score_A>\n<score_B>", -0.05),
            ("T", LN(b[0]), [("T", LN(b[0])), ("A", LN(b[1]))]),
            ("</score_B>", -0.01),
        ],
    )


def verifier_metric(server, **kw):
    kw.setdefault("rubrics", RUBRICS)
    return make_metric("v", server.base_url, **kw)


ACTUAL = [inv("Capital of France?", "Paris")]
EXPECTED = [inv("Capital of France?", "Lyon")]


async def test_worked_example_scores_075(run_eval, server):
    result = await run_eval(
        "llm_verifier_pairwise",
        verifier_metric(server),
        ACTUAL,
        EXPECTED,
        answers=[worked_example()],
    )
    turn = result.per_invocation_results[0]
    assert turn.score == pytest.approx(0.75)
    assert turn.status == "passed"
    assert (
        turn.details.reason == "Computed from score_A 0.7000 and score_B 0.2000 log probabilities."
    )
    assert turn.details.value.kind == "numeric"
    assert turn.details.rubric_scores is None
    body = server.chat_requests[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert "response_format" not in body
    record = verifier_record(turn.details)
    sample = record.samples[0]
    assert sample.score == pytest.approx(0.75) and record.swap_mode is None
    assert sample.a.labels == list("ABCDEFGHIJKLMNOPQRST")
    probs_a = dict(zip(sample.a.labels, sample.a.probs, strict=True))
    probs_b = dict(zip(sample.b.labels, sample.b.probs, strict=True))
    assert probs_a["A"] == pytest.approx(0.7) and probs_a["T"] == pytest.approx(0.3)
    assert probs_b["T"] == pytest.approx(0.8) and probs_b["A"] == pytest.approx(0.2)
    assert sum(sample.a.probs) == pytest.approx(1.0)
    assert sample.a.expected_score == pytest.approx(0.7)
    assert sample.b.expected_score == pytest.approx(0.2)
    assert (sample.a.sampled_label, sample.b.sampled_label) == ("A", "T")
    assert sample.a.from_logprobs and sample.b.from_logprobs
    assert judge_record(turn.details).samples[0].chosen is True


async def test_verifier_prompt_sections(run_eval, server):
    await run_eval(
        "llm_verifier_pairwise",
        verifier_metric(server),
        ACTUAL,
        EXPECTED,
        answers=[worked_example()],
    )
    prompt = server.chat_requests[0]["messages"][0]["content"]
    headings = [
        "## Mission",
        "## Score Scale",
        "## Evaluation Criteria",
        "## Evaluation Rules",
        "## Output Format",
        "## User Request",
        "## Candidate A",
        "## Candidate B",
    ]
    positions = [prompt.index(h) for h in headings]
    assert positions == sorted(positions)
    assert "<criteria>\nr1: mentions Paris\nr2: gives the population\n</criteria>" in prompt
    assert "<candidate_a>\nParis\n</candidate_a>" in prompt
    assert "<candidate_b>\nLyon\n</candidate_b>" in prompt
    assert "<score_A>LETTER</score_A>" in prompt and "<score_B>LETTER</score_B>" in prompt


async def test_top_logprobs_from_generation_config_and_extension(run_eval, server):
    metric = verifier_metric(server, judge_model={"generationConfig": {"top_logprobs": 5}})
    await run_eval("llm_verifier_pairwise", metric, ACTUAL, EXPECTED, answers=[worked_example()])
    assert server.chat_requests[-1]["top_logprobs"] == 5
    assert server.chat_requests[-1]["logprobs"] is True
    metric = verifier_metric(server, extension={"verifier": {"topLogprobs": 3}})
    await run_eval("llm_verifier_pairwise", metric, ACTUAL, EXPECTED, answers=[worked_example()])
    assert server.chat_requests[-1]["top_logprobs"] == 3


async def test_missing_logprobs_is_a_clear_error(run_eval, server):
    with pytest.raises(EvaluatorError) as info:
        await run_eval(
            "llm_verifier_pairwise",
            verifier_metric(server),
            ACTUAL,
            EXPECTED,
            answers=["<score_A>A</score_A><score_B>B</score_B>"],
        )
    message = str(info.value)
    assert message.startswith("score based on response: logprobs are missing: ")
    assert "returned no token logprobs" in message and "textFallback" in message


@pytest.mark.parametrize(
    ("tokens", "error"),
    [
        ([("no tags at all", -0.1)], "score_A: score tag is missing"),
        ([("<score_A>", -0.1)], "score_A: score token is missing after tag"),
        ([("<score_A>", -0.1), ("A", -0.1), ("</score_A>", -0.1)], "score_B: score tag is missing"),
        (
            [("<score_A>", -0.1), ("x", -0.1, [("y", -0.2)])],
            "score_A: score token logprobs are missing",
        ),
    ],
)
async def test_scoring_errors(run_eval, server, tokens, error):
    answer = completion("".join(t[0] for t in tokens), logprobs=tokens)
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}"):
        await run_eval(
            "llm_verifier_pairwise", verifier_metric(server), ACTUAL, EXPECTED, answers=[answer]
        )


@pytest.mark.parametrize(
    ("actual", "expected", "rubrics", "error"),
    [
        (
            inv(),
            inv(answer=None),
            RUBRICS,
            "expected final response is required for llm_verifier_pairwise",
        ),
        (
            inv(answer=None),
            inv(),
            RUBRICS,
            "actual final response is required for llm_verifier_pairwise",
        ),
        (inv(answer=None), inv(answer=None), RUBRICS, "expected final response is required"),
        (inv(), inv(), [{"id": "x"}], "llm judge rubrics are required"),
    ],
)
async def test_precondition_errors(run_eval, server, actual, expected, rubrics, error):
    metric = verifier_metric(server, rubrics=rubrics)
    with pytest.raises(EvaluatorError, match=f"^construct messages: {error}"):
        await run_eval("llm_verifier_pairwise", metric, [actual], [expected])


async def test_samples_combined_by_majority_vote(run_eval, server):
    metric = verifier_metric(server, judge_model={"numSamples": 3})
    answers = [worked_example(), worked_example(a=(0.2, 0.8), b=(0.3, 0.7)), worked_example()]
    result = await run_eval("llm_verifier_pairwise", metric, ACTUAL, EXPECTED, answers=answers)
    turn = result.per_invocation_results[0]
    assert turn.score == pytest.approx(0.75)  # representative sample, not a mean
    record = verifier_record(turn.details)
    assert [round(s.score, 4) for s in record.samples] == [0.75, 0.25, 0.75]
    assert [s.chosen for s in judge_record(turn.details).samples] == [True, False, False]


@pytest.mark.parametrize(
    ("extension", "error"),
    [
        ({"verifier": {"swap": "both"}}, 'swap must be "report" or "mean"'),
        ({"verifier": {"textFallback": "yes"}}, "textFallback must be true or false"),
        ({"verifier": {"mode": "listwise"}}, 'mode must be "pairwise" or "pointwise"'),
        ({"verifier": {"topLogprobs": -1}}, "topLogprobs must be a non-negative integer"),
        ({"verifier": []}, "verifier extension: must be an object"),
    ],
)
async def test_extension_validation(run_eval, server, extension, error):
    metric = verifier_metric(server, extension=extension)
    with pytest.raises(EvaluatorError, match=error):
        await run_eval("llm_verifier_pairwise", metric, ACTUAL, EXPECTED)


# options beyond the reference, with the heuristic judge --------------------------------------

ANSWER_GOOD = "Paris is the capital of France and has about 2 million people"
ANSWER_WEAK = "I think it might be Lyon"
CASE = (
    [inv("What is the capital of France and its population?", ANSWER_GOOD)],
    [inv("What is the capital of France and its population?", ANSWER_WEAK)],
)
CRITERIA = [
    {"id": "c1", "content": {"text": "names Paris as the capital of France"}},
    {"id": "c2", "content": {"text": "gives the population"}},
]


async def test_swap_report_keeps_the_score_and_records_the_gap(run_eval, server):
    server.handler = HeuristicJudge(position_bias=0.2).handler
    plain = await run_eval(
        "llm_verifier_pairwise", verifier_metric(server, rubrics=CRITERIA), *CASE
    )
    metric = verifier_metric(server, rubrics=CRITERIA, extension={"verifier": {"swap": "report"}})
    reported = await run_eval("llm_verifier_pairwise", metric, *CASE)
    assert reported.overall_score == plain.overall_score
    details = reported.per_invocation_results[0].details
    record = verifier_record(details)
    assert record.swap_mode == "report"
    sample = record.samples[0]
    assert sample.swapped_score is not None
    assert sample.swap_gap == pytest.approx(sample.score - sample.swapped_score)
    assert sample.swap_gap > 0  # the judge favours slot A: the order moved the score
    extra = judge_record(details).extra_calls
    assert len(extra) == 1 and extra[0].sample_index == 0
    assert extra[0].score == pytest.approx(sample.swapped_score)
    swapped_prompt = server.chat_requests[-1]["messages"][0]["content"]
    assert f"<candidate_a>\n{ANSWER_WEAK}\n</candidate_a>" in swapped_prompt


async def test_swap_mean_averages_both_orders(run_eval, server):
    server.handler = HeuristicJudge(position_bias=0.2).handler
    metric = verifier_metric(server, rubrics=CRITERIA, extension={"verifier": {"swap": "mean"}})
    result = await run_eval("llm_verifier_pairwise", metric, *CASE)
    sample = verifier_record(result.per_invocation_results[0].details).samples[0]
    raw = sample.swapped_score + sample.swap_gap
    assert sample.score == pytest.approx((raw + sample.swapped_score) / 2)
    assert result.overall_score == pytest.approx(sample.score)
    assert "Mean of both candidate orders" in result.per_invocation_results[0].details.reason


async def test_swap_without_bias_shows_no_gap(run_eval, server):
    server.handler = HeuristicJudge().handler
    metric = verifier_metric(server, rubrics=CRITERIA, extension={"verifier": {"swap": "report"}})
    result = await run_eval("llm_verifier_pairwise", metric, *CASE)
    sample = verifier_record(result.per_invocation_results[0].details).samples[0]
    assert sample.swap_gap == pytest.approx(0.0)
    assert result.overall_score > 0.5  # the good answer wins


async def test_text_fallback_is_flagged(run_eval, server):
    server.handler = HeuristicJudge(logprobs=False).handler
    with pytest.raises(EvaluatorError, match="logprobs are missing"):
        await run_eval("llm_verifier_pairwise", verifier_metric(server, rubrics=CRITERIA), *CASE)
    metric = verifier_metric(
        server, rubrics=CRITERIA, extension={"verifier": {"textFallback": True}}
    )
    result = await run_eval("llm_verifier_pairwise", metric, *CASE)
    turn = result.per_invocation_results[0]
    sample = verifier_record(turn.details).samples[0]
    assert sample.a.from_logprobs is False and sample.b.from_logprobs is False
    assert sorted(sample.a.probs)[-1] == 1.0 and sample.a.entropy == 0.0
    expected = 0.5 + (sample.a.expected_score - sample.b.expected_score) / 2
    assert turn.score == pytest.approx(expected)
    assert "answer text (no logprobs)" in turn.details.reason


async def test_text_fallback_unused_when_logprobs_exist(run_eval, server):
    metric = verifier_metric(server, extension={"verifier": {"textFallback": True}})
    result = await run_eval(
        "llm_verifier_pairwise", metric, ACTUAL, EXPECTED, answers=[worked_example()]
    )
    assert result.overall_score == pytest.approx(0.75)
    assert verifier_record(result.per_invocation_results[0].details).samples[0].a.from_logprobs


async def test_pointwise_mode(run_eval, server):
    metric = verifier_metric(server, extension={"verifier": {"mode": "pointwise", "swap": "mean"}})
    answer = completion(
        "fine\n<score_A>B</score_A>",
        logprobs=[
            ("fine\n<score_A>", -0.1),
            ("B", LN(0.5), [("B", LN(0.5)), ("C", LN(0.5))]),
            ("</score_A>", -0.1),
        ],
    )
    result = await run_eval(
        "llm_verifier_pairwise",
        metric,
        [inv("q", "answer")],
        [inv("q", answer=None)],
        answers=[answer],
    )
    assert server.request_count == 1  # no swap in pointwise mode
    assert result.overall_score == pytest.approx((18 / 19 + 17 / 19) / 2)
    record = verifier_record(result.per_invocation_results[0].details)
    assert record.swap_mode is None and record.samples[0].b is None
    prompt = server.chat_requests[0]["messages"][0]["content"]
    assert "<score_B>" not in prompt and "## Candidate B" not in prompt


@pytest.mark.parametrize(
    ("swapped_answer", "error"),
    [
        (
            FakeResponse(400, {"error": {"message": "context too long"}}),
            "^judge response: swapped candidates: judge endpoint returned HTTP 400: "
            "context too long",
        ),
        (
            completion("<score_A>A</score_A><score_B>B</score_B>"),
            "^score based on response: swapped candidates: logprobs are missing: ",
        ),
    ],
    ids=["call", "score"],
)
async def test_swapped_order_errors_name_the_swapped_call(run_eval, server, swapped_answer, error):
    """The swapped call goes through the contract's sample step: same texts, with a prefix."""
    metric = verifier_metric(server, extension={"verifier": {"swap": "report"}})
    with pytest.raises(EvaluatorError, match=error):
        await run_eval(
            "llm_verifier_pairwise",
            metric,
            ACTUAL,
            EXPECTED,
            answers=[worked_example(), swapped_answer],
        )
    assert len(server.chat_requests) == 2


async def test_swapped_call_is_recorded_with_its_raw_score(run_eval, server):
    metric = verifier_metric(server, extension={"verifier": {"swap": "report"}})
    swapped = worked_example(a=(0.6, 0.4), b=(0.9, 0.1))  # raw score .5 + (.6 - .1) / 2 = .75
    result = await run_eval(
        "llm_verifier_pairwise",
        metric,
        ACTUAL,
        EXPECTED,
        answers=[worked_example(), swapped],
    )
    details = result.per_invocation_results[0].details
    (extra,) = judge_record(details).extra_calls
    assert extra.sample_index == 0 and extra.score == pytest.approx(0.25)
    assert extra.reason == (
        "swapped candidates (raw score 0.7500): Computed from score_A 0.6000 and score_B "
        "0.1000 log probabilities."
    )
    assert extra.raw == "analysis\n<score_A>A</score_A>\n<score_B>T</score_B>"
    assert extra.cache_hit is False and extra.prompt_tokens > 0
    assert verifier_record(details).samples[0].swapped_score == pytest.approx(0.25)
