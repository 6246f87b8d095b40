"""Response scorers (SPEC §4.4): every rule and error, via evaluators and scripted answers."""

from __future__ import annotations

import json

import pytest
from _llm_helpers import RUBRICS, inv, make_metric

from agenteval_nb.evaluators.base import EvaluatorError
from agenteval_nb.schema.extras import judge_record
from agenteval_nb.testing.fake_server import completion

pytestmark = pytest.mark.anyio


@pytest.fixture
def score(run_eval, server):
    """``await score(evaluator, answer, **metric_fields)`` → the turn result."""

    async def run(evaluator: str, answer, evaluator_name: str | None = None, **fields):
        metric = make_metric("m", server.base_url, evaluator=evaluator_name, **fields)
        if evaluator == "llm_hallucinations":
            answers = ["<sentence>Paris is big.</sentence>", answer]
        else:
            answers = [answer]
        result = await run_eval(evaluator, metric, [inv()], answers=answers)
        return result.per_invocation_results[0]

    return run


# finalresponse --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected", "reason"),
    [
        ("reasoning: ok\nis_the_agent_response_valid: valid", 1.0, "ok"),
        ("reasoning:  spaced  \nis_the_agent_response_valid:   VALID  ", 1.0, "spaced"),
        ("reasoning: no\nis_the_agent_response_valid: invalid", 0.0, "no"),
        ("reasoning: hmm\nis_the_agent_response_valid: maybe", 0.0, "hmm"),
        ("Intro\nreasoning: a\nb\nis_the_agent_response_valid: valid\nlater", 1.0, "a\nb"),
    ],
)
async def test_final_response_labels(score, answer, expected, reason):
    turn = await score("llm_final_response", answer)
    assert turn.score == expected
    assert turn.details.reason == reason
    assert turn.details.value.kind == "numeric" and turn.details.value.numeric == expected


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("   ", "empty response text"),
        ("valid", "no final response blocks found in response"),
        ("is_the_agent_response_valid: valid", "no final response blocks found in response"),
    ],
)
async def test_final_response_errors(score, answer, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}$"):
        await score("llm_final_response", answer)


# hallucination --------------------------------------------------------------------------------

BLOCKS = """ID: 1
Reason: in the tool output
Label: supported
Verdict: yes

ID: 2
Reason: greeting
Label: Not Applicable
Verdict: yes

ID:
Reason: invented
Label: contradictory
Verdict: no

ID: 4
Reason: no label given
Label:
Verdict: Yes
"""


async def test_hallucination_blocks(score):
    turn = await score("llm_hallucinations", BLOCKS)
    assert turn.score == 0.75
    got = [(r.id, r.score, r.reason) for r in turn.details.rubric_scores]
    assert got == [
        ("1", 1.0, "[supported] in the tool output"),
        ("2", 1.0, "[not_applicable] greeting"),
        ("3", 0.0, "[contradictory] invented"),
        ("4", 1.0, "no label given"),
    ]
    assert turn.details.reason == "in the tool output\ngreeting\ninvented\nno label given"


@pytest.mark.parametrize(
    ("label", "verdict", "expected"),
    [("unsupported", "yes", 0.0), ("disputed", "yes", 0.0), ("", "no", 0.0), ("", " YES ", 1.0)],
)
async def test_hallucination_label_and_verdict(score, label, verdict, expected):
    answer = f"ID: 1\nReason: r\nLabel: {label}\nVerdict: {verdict}"
    assert (await score("llm_hallucinations", answer)).score == expected


async def test_hallucination_unexpected_label(score):
    answer = "ID: 7\nReason: r\nLabel: partially true\nVerdict: no"
    with pytest.raises(
        EvaluatorError,
        match=r'^score based on response: score sentence 7: unexpected label "partially_true"$',
    ):
        await score("llm_hallucinations", answer)


async def test_hallucination_no_blocks(score):
    with pytest.raises(
        EvaluatorError, match=r"^score based on response: no sentence blocks found in response$"
    ):
        await score("llm_hallucinations", "all good")


# rubric_scores ---------------------------------------------------------------------------------


def rubric_json(*items, key="rubricScores"):
    return json.dumps({key: list(items)})


async def test_rubric_scores_mean_and_order(score):
    answer = rubric_json(
        {"id": " r2 ", "score": 0.5, "reason": "half"},
        {"id": "r1", "score": 1, "reason": "yes"},
    )
    turn = await score("llm_rubric_response", answer, rubrics=RUBRICS)
    assert turn.score == 0.75
    assert [(r.id, r.score) for r in turn.details.rubric_scores] == [("r2", 0.5), ("r1", 1.0)]
    assert turn.details.reason == "half\nyes"


async def test_rubric_scores_fences_and_case_insensitive_keys(score):
    body = json.dumps({"RubricScores": [{"ID": "r1", "Score": 1, "REASON": "", "extra": 3}]})
    rubrics = RUBRICS[:1]
    for answer in (f"```json\n{body}\n```", f"```JSON{body}```", f"```\n{body}\n```"):
        turn = await score("llm_rubric_response", answer, rubrics=rubrics)
        assert turn.score == 1.0 and turn.details.rubric_scores[0].reason == ""


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("", "empty response text"),
        ("not-json", "unmarshal response json: invalid character 'o' in literal null"),
        ('{"rubricScores": []}', "rubricScores is empty"),
        ('{"rubricScores": null}', "rubricScores is empty"),
        ('{"rubricScores": "x"}', "unmarshal response json: json: cannot unmarshal string"),
        (rubric_json({"id": "", "score": 1, "reason": "r"}), "rubric score id is empty"),
        (rubric_json({"score": 1, "reason": "r"}), "rubric score id is empty"),
        (rubric_json({"id": "r1", "reason": "r"}), "rubric score is required"),
        (rubric_json({"id": "r1", "score": None, "reason": "r"}), "rubric score is required"),
        (rubric_json({"id": "r1", "score": 1}), "rubric score reason is required"),
        (rubric_json({"id": "r1", "score": 1.5, "reason": "r"}), "rubric score must be between"),
        (rubric_json({"id": "r1", "score": -0.1, "reason": "r"}), "rubric score must be between"),
        (
            rubric_json({"id": "r1", "score": True, "reason": "r"}),
            "unmarshal response json: json: cannot unmarshal bool",
        ),
    ],
)
async def test_rubric_scores_errors_without_configured_rubrics(score, answer, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}"):
        await score(
            "llm_judge_template",
            answer,
            evaluator_name="llm_judge_template",
            template={"prompt": "judge", "responseScorerName": "rubric_scores"},
        )


@pytest.mark.parametrize(
    ("items", "error"),
    [
        (
            [{"id": "r1", "score": 1, "reason": "a"}, {"id": "r9", "score": 1, "reason": "b"}],
            'unexpected rubric score id "r9"',
        ),
        (
            [{"id": "r1", "score": 1, "reason": "a"}, {"id": " r1", "score": 1, "reason": "b"}],
            'duplicate rubric score id "r1"',
        ),
        ([{"id": "r2", "score": 1, "reason": "a"}], 'missing rubric score id "r1"'),
    ],
)
async def test_rubric_scores_id_checks(score, items, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}$"):
        await score("llm_rubric_response", rubric_json(*items), rubrics=RUBRICS)


async def test_rubric_scores_any_unit_value_is_accepted_without_rubrics(score):
    answer = rubric_json({"id": "x", "score": 0.3, "reason": "r"})
    turn = await score(
        "llm_judge_template",
        answer,
        evaluator_name="llm_judge_template",
        template={"prompt": "judge", "responseScorerName": "rubric_scores"},
    )
    assert turn.score == pytest.approx(0.3)


# single_score / boolean / categorical -----------------------------------------------------------


def template(scorer: str, **extra):
    return {"prompt": "judge it", "responseScorerName": scorer, **extra}


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ('{"reason": "r"}', "score is required"),
        ('{"score": 0.5}', "reason is required"),
        ('{"score": 2, "reason": "r"}', "score must be between 0 and 1"),
        ('{"score": "1", "reason": "r"}', "unmarshal response json: json: cannot unmarshal string"),
        ("[1]", "unmarshal response json: json: cannot unmarshal array"),
        ('{"score": 1} {}', "unmarshal response json: "),
    ],
)
async def test_single_score_errors(score, answer, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}"):
        await score(
            "llm_judge_template",
            answer,
            evaluator_name="llm_judge_template",
            template=template("single_score"),
        )


async def test_single_score(score):
    turn = await score(
        "llm_judge_template",
        '{"Score": 0.4, "reason": "close"}',
        evaluator_name="llm_judge_template",
        template=template("single_score"),
        threshold=0.5,
    )
    assert (turn.score, turn.status, turn.details.reason) == (0.4, "failed", "close")
    assert turn.details.value.model_dump(exclude_none=True) == {"kind": "numeric", "numeric": 0.4}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [('{"passed": true, "reason": "r"}', 1.0), ('{"passed": false, "reason": ""}', 0.0)],
)
async def test_boolean(score, answer, expected):
    turn = await score(
        "llm_judge_template",
        answer,
        evaluator_name="llm_judge_template",
        template=template("boolean"),
    )
    assert turn.score == expected
    assert turn.details.value.kind == "boolean"
    assert turn.details.value.boolean is (expected == 1.0)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ('{"reason": "r"}', "passed is required"),
        ('{"passed": true}', "reason is required"),
        ('{"passed": 1, "reason": "r"}', "cannot unmarshal number"),
    ],
)
async def test_boolean_errors(score, answer, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: .*{error}"):
        await score(
            "llm_judge_template",
            answer,
            evaluator_name="llm_judge_template",
            template=template("boolean"),
        )


CATEGORIES = {"categories": [{"label": "good", "score": 1}, {"label": "ok", "score": 0.5}]}


@pytest.mark.parametrize(
    ("answer", "expected", "reason"),
    [
        ('{"category": "ok", "reason": "fine"}', 0.5, "fine"),
        ('{"category": "good", "reason": "great"}', 1.0, "great"),
        ('{"category": "Good", "reason": "x"}', 0.0, 'unknown categorical label "Good": x'),
    ],
)
async def test_categorical(score, answer, expected, reason):
    turn = await score(
        "llm_judge_template",
        answer,
        evaluator_name="llm_judge_template",
        template=template("categorical", responseScorerOptions=CATEGORIES),
    )
    assert (turn.score, turn.details.reason) == (expected, reason)
    assert turn.details.value.kind == "categorical"
    assert turn.details.value.categorical == json.loads(answer)["category"]


@pytest.mark.parametrize(
    ("answer", "error"),
    [('{"reason": "r"}', "category is required"), ('{"category": "ok"}', "reason is required")],
)
async def test_categorical_output_errors(score, answer, error):
    with pytest.raises(EvaluatorError, match=f"^score based on response: {error}$"):
        await score(
            "llm_judge_template",
            answer,
            evaluator_name="llm_judge_template",
            template=template("categorical", responseScorerOptions=CATEGORIES),
        )


async def test_scores_and_statuses_are_recorded_per_sample(run_eval, server):
    metric = make_metric(
        "m",
        server.base_url,
        evaluator="llm_judge_template",
        judge_model={"numSamples": 2},
        template=template("single_score"),
    )
    result = await run_eval(
        "llm_judge_template",
        metric,
        [inv()],
        answers=[completion('{"score": 0.9, "reason": "a"}'), '{"score": 0.1, "reason": "b"}'],
    )
    record = judge_record(result.per_invocation_results[0].details)
    assert [(s.score, s.status, s.reason, s.chosen) for s in record.samples] == [
        (0.9, "passed", "a", False),
        (0.1, "failed", "b", True),
    ]
