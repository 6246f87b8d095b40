"""``llm_judge_template`` (SPEC §6): bindings, JSONPath, rendering, operators, materialisation."""

from __future__ import annotations

import json

import pytest
from _llm_helpers import RUBRICS, inv, make_metric

import agenteval_nb as ae
from agenteval_nb.evaluators.base import EvaluatorError
from agenteval_nb.evaluators.llm import (
    LLMJudgeTemplateEvaluator,
    OperatorRegistry,
    ScoreResult,
)
from agenteval_nb.evaluators.llm.template_judge import (
    BindingError,
    JSONPathError,
    RenderError,
    extract,
    render_template,
    resolve_bindings,
)
from agenteval_nb.schema import EvalMetric, VariableBinding
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_server import completion

# JSONPath ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "path", "value"),
    [
        ('{"payload":{"answer":"Paris"}}', "$.payload.answer", "Paris"),
        ('{"payload":{"evidence":{"city":"Paris"}}}', "payload.evidence", '{"city":"Paris"}'),
        ('{"items":[{"name":"first"},{"name":"second"}]}', "$.items[1].name", "second"),
        ('{"b":1,"a":[true,null]}', "$", '{"a":[true,null],"b":1}'),
        ('{"ok":true}', "$.ok", "true"),
        ('{"value":null}', "$.value", "null"),
        ('{"id":9007199254740993}', "$.id", "9007199254740993"),
        ('{"x":1.50e3}', "$.x", "1.50e3"),
        ('{"n":[1.0, 2]}', "n", "[1.0,2]"),
        ('{"rule":{"text":"x < y > z & a"}}', "$.rule", '{"text":"x < y > z & a"}'),
        ('{"t":"line\\nnext \\u2028 é"}', "$", '{"t":"line\\nnext \\u2028 é"}'),
        ("[[1,2],[3]]", "[1][0]", "3"),
        ('{"a":[5]}', "$.a[+0]", "5"),
        ('"plain"', "$", "plain"),
    ],
)
def test_jsonpath_values(raw, path, value):
    assert extract(raw, path) == value


@pytest.mark.parametrize(
    ("raw", "path", "error"),
    [
        ("plain text", "$.a", "parse source json for path \"$.a\": invalid character 'p'"),
        ("", "$", 'parse source json for path "$": EOF'),
        ('{"a":', "$.a", "unexpected EOF"),
        ('{"a":1} {"b":2}', "$.a", 'parse source json for path "$.a": multiple JSON values'),
        ('{"a":1}', "$a", 'json path "$a" has invalid root selector'),
        ('{"a":1}', "$.a.*", 'json path "$.a.*" contains unsupported wildcard'),
        ('{"a":1}', "$.", 'json path "$." missing key'),
        ('{"a":1}', "$..a", 'json path "$..a" missing key'),
        ('{"a":1}', "$.a]", 'json path "$.a]" has unexpected ]'),
        ('{"a":[1]}', "$.a[0", 'json path "$.a[0" missing ]'),
        ('{"a":[1]}', "$.a[]", 'json path "$.a[]" missing index'),
        ('{"a":[1]}', "$.a[x]", 'json path "$.a[x]" has invalid index "x"'),
        ('{"a":[1]}', "$.a[ 0]", 'has invalid index " 0"'),
        ('{"a":[1]}', "$.a[1_0]", 'has invalid index "1_0"'),
        ('{"a":[{"b":1}]}', "$.a[0]b", 'json path "$.a[0]b" missing delimiter before key'),
        ('{"a":1}', "$.a.b", 'json path "$.a.b" expects object before key "b"'),
        ('{"a":{}}', "$.a.b", 'json path "$.a.b" key "b" not found'),
        ('{"a":{}}', "$.a[0]", 'json path "$.a[0]" expects array before index 0'),
        ('{"a":[]}', "$.a[0]", 'json path "$.a[0]" index 0 out of range'),
        ('{"a":[1]}', "$.a[-1]", 'json path "$.a[-1]" index -1 out of range'),
    ],
)
def test_jsonpath_errors(raw, path, error):
    with pytest.raises(JSONPathError) as info:
        extract(raw, path)
    assert error in str(info.value)


# rendering -----------------------------------------------------------------------------------


def test_render_placeholders():
    values = {"a": "A{{b}}", "b": "B", "x-y.z": "dotted"}
    text = '{{a}} {{ b }} {{x-y.z}} {{opt?}} {{ opt2? }} {{ a b }} {single} {{"q"}}'
    assert render_template(text, values) == 'A{{b}} B dotted   {{ a b }} {single} {{"q"}}'


def test_render_unresolved_sorted_unique():
    with pytest.raises(RenderError) as info:
        render_template("{{zeta}} {{alpha}} {{zeta}} {{ok}}", {"ok": ""})
    assert str(info.value) == "prompt: unresolved placeholders: {{alpha}}, {{zeta}}"


def test_render_non_ascii_positions():
    assert render_template("été {{x}} ü {{y?}}!", {"x": "ok"}) == "été ok ü !"


# bindings ------------------------------------------------------------------------------------

TRACE = {
    "Steps": [
        {"NodeID": "fetch", "Input": {"Text": "old"}, "Output": {"Text": "first"}},
        {
            "NodeID": "fetch",
            "Input": {"Text": "in"},
            "Output": {"Text": '{"answer": {"city": "Paris", "n": 10.0}}'},
            "Tools": [
                {"ID": "t1", "Name": "search", "Arguments": {"q": "<x>"}, "Result": [1]},
                {"Name": "noop", "Error": "boom"},
            ],
            "Skills": [{"Name": "plan"}, {}],
        },
        {"NodeID": "empty", "Output": {"Text": ""}},
    ]
}


def binding(var, scope, field, node=None, path=None):
    source = {"scope": scope, "field": field}
    if node is not None:
        source["selector"] = {"nodeID": node}
    if path is not None:
        source["path"] = path
    return VariableBinding.model_validate({"templateVariable": var, "source": source})


def rubric_metric(rubrics=RUBRICS):
    return EvalMetric.model_validate(
        {"metricName": "m", "criterion": {"llmJudge": {"rubrics": rubrics}}}
    )


def test_binding_sources():
    actual = inv("the question", "the answer", executionTrace=TRACE)
    expected = inv("q", "reference")
    rubrics = [{"id": "r1", "content": {"text": "t"}, "type": "x"}, {"content": {}}, {"id": "h"}]
    values = resolve_bindings(
        [
            binding("u", "actual", "userContent"),
            binding("f", "actual", "finalResponse"),
            binding("in", "actual", "traceStepInput", "fetch"),
            binding("out", "actual", "traceStepOutput", "fetch"),
            binding("city", "actual", "traceStepOutput", "fetch", "$.answer.city"),
            binding("n", "actual", "traceStepOutput", "fetch", "answer.n"),
            binding("tools", "actual", "traceStepTools", "fetch"),
            binding("skills", "actual", "traceStepSkills", "fetch"),
            binding("exp", "expected", "finalResponse"),
            binding("rubrics", "metric", "rubrics"),
        ],
        [inv(), actual],
        [inv(), expected],
        rubric_metric(rubrics),
    )
    assert values == {
        "u": "the question",
        "f": "the answer",
        "in": "in",
        "out": '{"answer": {"city": "Paris", "n": 10.0}}',
        "city": "Paris",
        "n": "10.0",
        "tools": '[{"id":"t1","name":"search","arguments":{"q":"<x>"},"result":[1]},'
        '{"name":"noop","error":"boom"}]',
        "skills": '[{"name":"plan"},{}]',
        "exp": "reference",
        "rubrics": '[{"id":"r1","content":{"text":"t"},"type":"x"},{"content":{}}]',
    }


def test_binding_tools_and_skills_empty_lists():
    trace = {"Steps": [{"NodeID": "n"}]}
    values = resolve_bindings(
        [
            binding("t", "actual", "traceStepTools", "n"),
            binding("s", "actual", "traceStepSkills", "n"),
        ],
        [inv(executionTrace=trace)],
        [inv()],
        rubric_metric(),
    )
    assert values == {"t": "[]", "s": "[]"}


@pytest.mark.parametrize(
    ("bindings", "actuals", "expecteds", "error"),
    [
        ([None], [inv()], [inv()], "template binding is nil"),
        ([{"templateVariable": ""}], [inv()], [inv()], "templateVariable is empty"),
        (
            [binding("x", "actual", "userContent"), binding("x", "actual", "finalResponse")],
            [inv()],
            [inv()],
            'templateVariable "x" is duplicated',
        ),
        (
            [{"templateVariable": "x"}],
            [inv()],
            [inv()],
            'resolve template variable "x": source is nil',
        ),
        (
            [binding("x", "expected", "userContent")],
            [inv()],
            [inv()],
            "unsupported source expected.userContent",
        ),
        (
            [binding("x", "metric", "finalResponse")],
            [inv()],
            [inv()],
            "unsupported source metric.finalResponse",
        ),
        ([binding("x", "session", "state")], [inv()], [inv()], "unsupported source session.state"),
        ([binding("x", "actual", "tools")], [inv()], [inv()], "unsupported source actual.tools"),
        ([binding("x", "actual", "userContent")], [], [inv()], "actuals is empty"),
        ([binding("x", "actual", "userContent")], [None], [inv()], "actual invocation is nil"),
        ([binding("x", "expected", "finalResponse")], [inv()], [], "expecteds is empty"),
        (
            [binding("x", "expected", "finalResponse")],
            [inv()],
            [None],
            "expected invocation is nil",
        ),
        (
            [binding("x", "expected", "finalResponse")],
            [inv()],
            [inv(answer=None)],
            "expected finalResponse is empty",
        ),
        (
            [binding("x", "actual", "traceStepInput")],
            [inv()],
            [inv()],
            "trace selector nodeID is required",
        ),
        (
            [binding("x", "actual", "traceStepInput", "fetch")],
            [inv(), inv()],
            [inv()],
            "executionTrace is empty for actual.traceStepInput at invocation index 1",
        ),
        (
            [binding("x", "actual", "traceStepOutput", "missing")],
            [inv(executionTrace=TRACE)],
            [inv()],
            'trace step not found for actual.traceStepOutput nodeID "missing" at invocation index 0',
        ),
        (
            [binding("x", "actual", "traceStepOutput", " fetch")],
            [inv(executionTrace=TRACE)],
            [inv()],
            'trace step not found for actual.traceStepOutput nodeID " fetch"',
        ),
        (
            [binding("x", "actual", "traceStepOutput", "empty")],
            [inv(executionTrace=TRACE)],
            [inv()],
            'trace snapshot is empty for actual.traceStepOutput nodeID "empty" at invocation index 0',
        ),
        (
            [binding("x", "actual", "traceStepInput", "empty")],
            [inv(executionTrace=TRACE)],
            [inv()],
            "trace snapshot is empty for actual.traceStepInput",
        ),
        (
            [binding("x", "actual", "finalResponse", path="$.a")],
            [inv(answer="not json")],
            [inv()],
            'resolve template variable "x": parse source json for path "$.a"',
        ),
    ],
)
def test_binding_errors(bindings, actuals, expecteds, error):
    parsed = [
        b if b is None or isinstance(b, VariableBinding) else VariableBinding.model_validate(b)
        for b in bindings
    ]
    with pytest.raises(BindingError) as info:
        resolve_bindings(parsed, actuals, expecteds, rubric_metric())
    assert error in str(info.value)


def test_metric_rubrics_binding_needs_visible_rubrics():
    with pytest.raises(BindingError, match="metric rubrics are empty"):
        resolve_bindings(
            [binding("r", "metric", "rubrics")], [inv()], [inv()], rubric_metric([{"id": "x"}])
        )


# the evaluator through the fake server ------------------------------------------------------


def template_metric(server, **template):
    return make_metric(
        "tmpl", server.base_url, evaluator="llm_judge_template", rubrics=RUBRICS, template=template
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("template", "error"),
    [
        ({}, "^construct messages: template prompt is empty$"),
        ({"prompt": "p"}, "^construct messages: template responseScorerName is empty$"),
        (
            {"prompt": "{{x}}", "responseScorerName": "single_score"},
            "^construct messages: render template prompt: prompt: unresolved placeholders: {{x}}$",
        ),
        (
            {"prompt": "p", "responseScorerName": "nope"},
            '^resolve structured output: unsupported response scorer "nope"$',
        ),
        (
            {"prompt": "p", "responseScorerName": "single_score", "sampleAggregatorName": "x"},
            '^resolve structured output: unsupported samples aggregator "x"$',
        ),
        (
            {"prompt": "p", "responseScorerName": "single_score", "invocationAggregatorName": "y"},
            '^resolve structured output: unsupported invocations aggregator "y"$',
        ),
        (
            {"prompt": "p", "responseScorerName": "single_score", "structuredOutputName": "z"},
            '^resolve structured output: unsupported structured output "z"$',
        ),
        (
            {"prompt": "p", "responseScorerName": "categorical"},
            "^resolve structured output: responseScorerOptions is required$",
        ),
        (
            {"prompt": "p", "responseScorerName": "categorical", "responseScorerOptions": {}},
            "^resolve structured output: categorical response scorer categories are required$",
        ),
        (
            {
                "prompt": "p",
                "responseScorerName": "categorical",
                "responseScorerOptions": {"categories": [None]},
            },
            "^resolve structured output: categorical category is nil$",
        ),
        (
            {
                "prompt": "p",
                "responseScorerName": "categorical",
                "responseScorerOptions": {"categories": [{"score": 1}]},
            },
            "^resolve structured output: categorical category label is empty$",
        ),
        (
            {
                "prompt": "p",
                "responseScorerName": "categorical",
                "responseScorerOptions": {"categories": [{"label": "a", "score": 1.5}]},
            },
            '^resolve structured output: categorical category "a" score must be between 0 and 1$',
        ),
        (
            {
                "prompt": "p",
                "responseScorerName": "categorical",
                "responseScorerOptions": {
                    "categories": [{"label": "a", "score": 1}, {"label": "a", "score": 0}]
                },
            },
            '^resolve structured output: duplicate categorical category label "a"$',
        ),
    ],
)
async def test_template_errors(run_eval, server, template, error):
    metric = template_metric(server, **template)
    with pytest.raises(EvaluatorError, match=error):
        await run_eval("llm_judge_template", metric, [inv()])
    assert server.request_count == 0


@pytest.mark.anyio
async def test_template_without_template_object(run_eval, server):
    metric = make_metric("t", server.base_url, evaluator="llm_judge_template")
    with pytest.raises(EvaluatorError, match=r"^construct messages: template is nil$"):
        await run_eval("llm_judge_template", metric, [inv()])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("scorer", "extra", "name", "properties"),
    [
        ("single_score", {}, "single_score_result", ["score", "reason"]),
        ("rubric_scores", {}, "rubric_scores_result", ["rubricScores"]),
        ("boolean", {}, "boolean_result", ["passed", "reason"]),
        (
            "categorical",
            {
                "responseScorerOptions": {
                    "categories": [{"label": "b", "score": 0}, {"label": "a", "score": 1}]
                }
            },
            "categorical_result",
            ["category", "reason"],
        ),
    ],
)
async def test_template_structured_outputs(run_eval, server, scorer, extra, name, properties):
    metric = template_metric(server, prompt="judge", responseScorerName=scorer, **extra)
    server.handler = lambda request: completion("{}")
    with pytest.raises(EvaluatorError):
        await run_eval("llm_judge_template", metric, [inv()])
    fmt = server.chat_requests[0]["response_format"]
    assert fmt["json_schema"]["name"] == name and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert list(schema["properties"]) == properties
    assert schema["required"] == properties and schema["additionalProperties"] is False
    if scorer == "categorical":
        assert schema["properties"]["category"]["enum"] == ["b", "a"]
    if scorer == "single_score":
        assert schema["properties"]["score"] == {"type": "number", "minimum": 0, "maximum": 1}
    if scorer == "rubric_scores":
        items = schema["properties"]["rubricScores"]["items"]
        assert "enum" not in items["properties"]["id"]
        assert "minItems" not in schema["properties"]["rubricScores"]


@pytest.mark.anyio
async def test_custom_scorer_and_structured_output_by_name(run_eval, server):
    ops = OperatorRegistry.default()
    seen = {}

    def length_scorer(response, metric):
        content = response["choices"][0]["message"]["content"]
        return ScoreResult(score=min(1.0, len(content) / 10), reason="by length")

    def provider(turn):
        seen["turn"] = turn.index
        return {"type": "json_schema", "json_schema": {"name": "free", "schema": {}}}

    ops.register_scorer("length", length_scorer)
    ops.register_structured_output("free_form", provider)
    ops.register_samples_aggregator("last", lambda samples, metric: samples[-1])
    evaluator = LLMJudgeTemplateEvaluator(operators=ops)
    metric = template_metric(
        server,
        prompt="Rate: {{answer}}",
        responseScorerName="length",
        structuredOutputName="free_form",
        sampleAggregatorName="last",
        variableBindings=[
            {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}}
        ],
    )
    result = await run_eval(
        "llm_judge_template", metric, [inv(answer="short")], answers=["12345"], evaluator=evaluator
    )
    assert result.overall_score == 0.5
    assert seen == {"turn": 0}
    assert server.chat_requests[0]["response_format"]["json_schema"]["name"] == "free"
    # the default registry does not know these names
    with pytest.raises(EvaluatorError, match='unsupported response scorer "length"'):
        await run_eval("llm_judge_template", metric, [inv()])


@pytest.mark.anyio
async def test_scorer_without_structured_output_sends_none(run_eval, server):
    ops = OperatorRegistry.default()
    ops.register_scorer("fixed", lambda response, metric: 1.0)
    metric = template_metric(server, prompt="p", responseScorerName="fixed")
    await run_eval(
        "llm_judge_template",
        metric,
        [inv()],
        answers=["x"],
        evaluator=LLMJudgeTemplateEvaluator(operators=ops),
    )
    assert "response_format" not in server.chat_requests[0]


@pytest.mark.anyio
async def test_template_rubric_scores_validate_metric_rubrics(run_eval, server):
    metric = template_metric(server, prompt="p", responseScorerName="rubric_scores")
    answer = json.dumps({"rubricScores": [{"id": "r1", "score": 1, "reason": "x"}]})
    with pytest.raises(EvaluatorError, match='missing rubric score id "r2"'):
        await run_eval("llm_judge_template", metric, [inv()], answers=[answer])


def test_rendered_prompt_per_turn_in_stored_criterion(tmp_path):
    """End to end through ae.evaluate: each turn's criterion holds its rendered prompt."""
    evalset = {
        "evalSetId": "tmpl",
        "evalCases": [
            {
                "evalId": "c1",
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": "q1"},
                        "finalResponse": {"role": "assistant", "content": "e1"},
                    },
                    {
                        "userContent": {"role": "user", "content": "q2"},
                        "finalResponse": {"role": "assistant", "content": "e2"},
                    },
                ],
                "actualConversation": [
                    {
                        "userContent": {"role": "user", "content": "q1"},
                        "finalResponse": {"role": "assistant", "content": "a1"},
                    },
                    {
                        "userContent": {"role": "user", "content": "q2"},
                        "finalResponse": {"role": "assistant", "content": "a2"},
                    },
                ],
            }
        ],
    }
    raw = "Q: {{q}}\nA: {{a}}\nRef: {{ref}}{{note?}}"
    with FakeOpenAIServer(handler=lambda r: completion('{"score": 1, "reason": "ok"}')) as srv:
        metrics = [
            {
                "metricName": "tmpl",
                "evaluatorName": "llm_judge_template",
                "threshold": 0.5,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": {"modelName": "j", "baseURL": srv.base_url},
                        "template": {
                            "prompt": raw,
                            "responseScorerName": "single_score",
                            "variableBindings": [
                                {
                                    "templateVariable": "q",
                                    "source": {"scope": "actual", "field": "userContent"},
                                },
                                {
                                    "templateVariable": "a",
                                    "source": {"scope": "actual", "field": "finalResponse"},
                                },
                                {
                                    "templateVariable": "ref",
                                    "source": {"scope": "expected", "field": "finalResponse"},
                                },
                            ],
                        },
                    }
                },
            }
        ]
        run = ae.evaluate(evalset, metrics, progress=False, cache=False)
    case = run.result.eval_case_results[0]
    assert case.final_eval_status == "passed", case.error_message
    per_turn = [
        p.eval_metric_results[0].criterion.llm_judge.template.prompt
        for p in case.eval_metric_result_per_invocation
    ]
    assert per_turn == ["Q: q1\nA: a1\nRef: e1", "Q: q2\nA: a2\nRef: e2"]
    assert case.overall_eval_metric_results[0].criterion.llm_judge.template.prompt == raw
