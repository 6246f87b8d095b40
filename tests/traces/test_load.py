"""build_evalset / ae.load_traces: classified spans → trace-mode eval set + report; and the
rule that a turn without content is never scored as a pass on a text metric."""

from __future__ import annotations

import math

import polars as pl
import pytest
from _trace_spans import agent, llm, other, span, tool, usage

import agenteval_nb as ae
from agenteval_nb.engine.bulk import takes
from agenteval_nb.steps.records import Content, OtherStep, ToolUse
from agenteval_nb.traces import load as load_module
from agenteval_nb.traces.dialects import Classified
from agenteval_nb.traces.load import build_evalset, default_eval_set_id
from agenteval_nb.traces.load_report import REPORT_COLUMNS
from agenteval_nb.traces.read import ReadProblem

SWITCH = {
    "otel_genai": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only",
    "unclaimed": "",  # no switch to name
}


def weather_turn(trace, conv, *, content=True, start=0):
    """One turn: ask, call the weather tool, answer (content captured or not)."""
    c = Content.PRESENT if content else Content.MISSING
    txt = (lambda s: s) if content else (lambda s: None)
    return [
        agent(trace, f"{trace}-a", None, start, start + 100, conv=conv, content=c),
        llm(
            trace,
            f"{trace}-m1",
            f"{trace}-a",
            start + 1,
            start + 10,
            user=txt("weather in Paris?"),
            tools=[ToolUse("call_1", "weather", {"city": "Paris"})] if content else [],
            usage=usage(50, 10),
            content=c,
        ),
        tool(
            trace,
            f"{trace}-t",
            f"{trace}-a",
            start + 11,
            start + 20,
            call_id="call_1",
            name="weather",
            args={"city": "Paris"} if content else None,
            result="sunny" if content else None,
            has_result=content,
            content=c,
        ),
        llm(
            trace,
            f"{trace}-m2",
            f"{trace}-a",
            start + 21,
            start + 30,
            out=txt("It is sunny."),
            usage=usage(70, 5),
            content=c,
        ),
    ]


def test_one_case_per_conversation_trace_mode_with_provenance():
    pairs = (
        weather_turn("t1", "c-1")
        + weather_turn("t2", "c-1", start=200)
        + weather_turn("t3", None, start=400)
    )
    es, report = build_evalset(pairs, eval_set_id="prod", switches=SWITCH)
    assert es.eval_set_id == "prod"
    assert [c.eval_id for c in es.eval_cases] == ["c-1", "t3"]
    case = es.eval_cases[0]
    assert case.is_trace and case.session_input.app_name == "prod"
    assert case.conversation is None and len(case.actual_conversation) == 2
    first = case.actual_conversation[0]
    assert first.invocation_id == "t1-a"
    assert first.user_content.content == "weather in Paris?"
    assert first.final_response.content == "It is sunny."
    assert [(t.id, t.name, t.result) for t in first.tools] == [("call_1", "weather", "sunny")]
    assert first.source.trace_id == "t1" and first.source.span_ids == [
        "t1-a",
        "t1-m1",
        "t1-t",
        "t1-m2",
    ]
    # the file round trip keeps the provenance
    again = ae.load_evalset(es.model_dump_json(by_alias=True, exclude_none=True))
    assert again.eval_cases[0].actual_conversation[0].source == first.source
    frame = report.df(backend="polars")
    assert frame.columns == [c.name for c in REPORT_COLUMNS]
    row = frame.row(0, named=True)
    assert (row["turns"], row["traces"], row["spans"], row["tool_calls"], row["model_calls"]) == (
        2,
        2,
        8,
        2,
        4,
    )
    assert (row["input_tokens"], row["output_tokens"]) == (240, 30)
    assert row["content_switch"] is None and row["gaps"] == ""


def test_report_names_gaps_and_the_content_switch():
    pairs = weather_turn("t1", "c-1", content=False)
    pairs.append(other("t1", "h", "t1-a", 5, None, dropped=3))
    _, report = build_evalset(pairs, switches=SWITCH)
    row = report.df(backend="polars").row(0, named=True)
    assert row["content_missing"] == 1 and row["no_final_response"] == 1
    assert row["open_span_spans"] == 1 and row["dropped_attributes_spans"] == 1
    assert row["unclaimed_spans"] == 1
    assert row["content_switch"] == "otel_genai: " + SWITCH["otel_genai"]
    assert "content_missing" in row["gaps"]
    assert "content_missing: 1 turn(s)" in report.summary()
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in report.summary()
    pandas_frame = report.df()  # the default backend
    assert list(pandas_frame["case_id"]) == ["c-1"]


def test_empty_input_gives_an_empty_set_and_frame():
    es, report = build_evalset([])
    assert es.eval_cases == []
    assert report.df(backend="polars").height == 0
    assert report.problems_df(backend="polars").columns == ["file", "where", "message"]


# -- a turn without content is never scored as a pass on a text metric ---------------------------

METRICS = [
    {
        "metricName": "answer",
        "evaluatorName": "final_response_avg_score",
        "threshold": 1.0,
        # contains "" matches any text, the empty one too: a content-less turn would pass
        "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}},
    },
    {
        "metricName": "tools",
        "evaluatorName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {"toolTrajectory": {"defaultStrategy": {"name": {}}}},
    },
]


def _rows(run):
    frame = run.invocations_df(backend="polars").sort(
        ["eval_id", "invocation_index", "metric_name"]
    )
    return frame.select("eval_id", "invocation_index", "metric_name", "status", "reason").rows()


def test_content_less_turns_are_not_evaluated_by_text_metrics_through_ae_evaluate():
    pairs = weather_turn("t1", "mixed") + weather_turn("t2", "mixed", start=200, content=False)
    pairs += weather_turn("t3", "dark", start=400, content=False)
    es, _ = build_evalset(pairs)
    # expected turns: the same tool names, an answer that "contains" ""
    for case in es.eval_cases:
        case.conversation = [
            ae.Invocation(
                user_content=ae.Message(role="user", content="q"),
                final_response=ae.Message(role="assistant", content=""),
                tools=[ae.Tool(name="weather")],
            )
            for _ in case.actual_conversation
        ]
    run = ae.evaluate(es, METRICS, progress=False)
    rows = _rows(run)
    text = {(r[0], r[1]): r for r in rows if r[2] == "answer"}
    tools = {(r[0], r[1]): r[3] for r in rows if r[2] == "tools"}
    assert text[("mixed", 0)][3] == "passed"
    assert text[("mixed", 1)][3] == "not_evaluated"
    assert (
        "content_missing" in text[("mixed", 1)][4] and "no_final_response" in text[("mixed", 1)][4]
    )
    assert text[("dark", 0)][3] == "not_evaluated"
    # names and ids survive without content: the trajectory is scored on every turn
    assert set(tools.values()) == {"passed"}
    metrics = run.metrics_df(backend="polars").sort(["eval_id", "metric_name"])
    by = {(r["eval_id"], r["metric_name"]): r for r in metrics.iter_rows(named=True)}
    assert by[("dark", "answer")]["status"] == "not_evaluated"
    assert by[("mixed", "answer")]["status"] == "passed"  # over the one turn it could score
    assert "not evaluated" in by[("mixed", "answer")]["reason"]


def test_go_files_without_the_marker_are_scored_as_before():
    pairs = weather_turn("t3", "dark", content=False)
    es, _ = build_evalset(pairs)
    case = es.eval_cases[0]
    for inv in case.actual_conversation:
        inv.source = None  # a Go-written turn: no gap marker
    # trace mode without expected turns: placeholders with no final response
    run = ae.evaluate(es, METRICS[:1], progress=False)
    # the reference's rule: no actual and no expected final response is a match
    assert [r[3] for r in _rows(run)] == ["passed"]


def test_without_expected_turns_text_metrics_still_refuse_content_less_turns():
    es, _ = build_evalset(weather_turn("t3", "dark", content=False))
    run = ae.evaluate(es, METRICS[:1], progress=False)
    ((_, _, _, status, reason),) = _rows(run)
    assert status == "not_evaluated" and "content_missing" in reason
    score = run.metrics_df(backend="polars")["score"][0]
    assert score == 0 or math.isnan(score)


# -- the load_traces wrapper -------------------------------------------------------------------


def test_load_traces_wires_readers_dialects_and_problems(monkeypatch):
    """Stand-ins for the readers and dialects (t-env / t-dia write the real ones)."""
    seen = {}

    def read_spans(source, *, format="auto", problems=None):
        seen["read"] = (source, format)
        problems.append(ReadProblem("spans.jsonl", "line 3", "expected a JSON object"))
        yield span("t1", "s1", None, 0, 10, "root")

    def classify(s, *, group_by=None):
        seen["group_by"] = group_by
        return Classified(
            "unclaimed", OtherStep(s.span_id, s.name, s.start_ns, s.end_ns), None, set()
        )

    monkeypatch.setattr(load_module, "read_spans", read_spans)
    monkeypatch.setattr(load_module, "classify", classify)
    es, report = ae.load_traces("data/spans.otlp.jsonl", format="otlp", group_by="user.id")
    assert seen == {"read": ("data/spans.otlp.jsonl", "otlp"), "group_by": "user.id"}
    assert es.eval_set_id == "spans" and [c.eval_id for c in es.eval_cases] == ["t1"]
    assert [p.where for p in report.problems] == ["line 3"]
    assert report.problems_df(backend="polars").row(0) == (
        "spans.jsonl",
        "line 3",
        "expected a JSON object",
    )
    assert "1 problem(s)" in report.summary()


@pytest.mark.parametrize(
    ("source", "expected"),
    [("a/b/run1.otlp.jsonl", "run1"), ('{"resourceSpans": []}', "traces"), ([{"x": 1}], "traces")],
)
def test_default_eval_set_id(source, expected):
    assert default_eval_set_id(source) == expected


def test_report_frame_schema_is_declared_once():
    _, report = build_evalset(weather_turn("t1", "c"))
    frame = report.df(backend="polars")
    assert dict(frame.schema) == {c.name: c.dtype for c in REPORT_COLUMNS}
    assert frame.schema["turns"] == pl.Int64


def test_the_bulk_path_leaves_turns_with_a_text_gap_to_the_model_path():
    es, _ = build_evalset(weather_turn("t3", "dark", content=False))
    case = es.eval_cases[0]
    case.conversation = [ae.Invocation(user_content=ae.Message(role="user", content="q"))]
    assert not takes(case)
    for inv in case.actual_conversation:
        inv.source = None
    assert takes(case)


def test_execution_trace_can_be_left_out_for_large_loads():
    pairs = weather_turn("t1", "c-1")
    with_trace, _ = build_evalset(pairs)
    without, report = build_evalset(pairs, execution_trace=False)
    full, lean = (
        with_trace.eval_cases[0].actual_conversation[0],
        without.eval_cases[0].actual_conversation[0],
    )
    assert full.execution_trace is not None and lean.execution_trace is None
    assert lean.model_copy(update={"execution_trace": None}) == lean
    assert full.model_copy(update={"execution_trace": None}) == lean
    # usage is still reported without the trace
    assert report.df(backend="polars")["input_tokens"][0] == 120
