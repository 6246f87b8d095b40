"""``agenteval convert`` of trace files: detection, the report on stderr, exit 2 when nothing
could be read. The readers and dialects are stand-ins here (t-env / t-dia write the real ones;
the merged end-to-end tests run them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _trace_spans import agent, llm

import agenteval_nb as ae
from agenteval_nb.cli import main
from agenteval_nb.errors import FormatError
from agenteval_nb.traces import load as load_module
from agenteval_nb.traces.load import looks_like_traces
from agenteval_nb.traces.read import ReadProblem

SAMPLES = Path(__file__).parents[1] / "io" / "samples"

OTLP = {"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}


@pytest.fixture
def stand_ins(monkeypatch):
    """read_spans yields two spans of one turn per file (a problem for a file named bad*);
    classify hands back the prepared classification."""
    prepared = [
        agent("t1", "a", None, 0, 100, conv="c-1", inp="hi", out="hello"),
        llm("t1", "m", "a", 1, 99, user="hi", out="hello"),
    ]
    by_span = {s.span_id: c for s, c in prepared}

    def read_spans(source, *, format="auto", problems=None):
        if Path(source).name.startswith("bad"):
            problems.append(ReadProblem(str(source), "line 1", "expected a JSON object"))
            return
        if Path(source).name.startswith("unknown"):
            raise FormatError(str(source), "$", "expected a trace envelope")
        yield from (s for s, _ in prepared)

    monkeypatch.setattr(load_module, "read_spans", read_spans)
    monkeypatch.setattr(load_module, "classify", lambda s, group_by=None: by_span[s.span_id])


def write(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_a_trace_file_becomes_a_trace_mode_eval_set(tmp_path, stand_ins, capsys):
    src = write(tmp_path / "spans.json", OTLP)
    out = tmp_path / "out.evalset.json"
    assert main(["convert", str(src), str(out)]) == 0
    captured = capsys.readouterr()
    assert "1 conversation(s), 1 turn(s), 0 tool call(s); 0 problem(s)" in captured.err
    assert "from traces" in captured.out
    es = ae.load_evalset(out)
    assert es.eval_set_id == "spans"
    (case,) = es.eval_cases
    assert case.eval_id == "c-1" and case.is_trace
    assert case.actual_conversation[0].final_response.content == "hello"
    assert case.actual_conversation[0].source.span_ids == ["a", "m"]


def test_nothing_read_exits_2_with_one_line(tmp_path, stand_ins, capsys):
    src = write(tmp_path / "bad.json", OTLP)
    assert main(["convert", str(src), str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {src}: no spans could be read (line 1: expected a JSON object)"]
    assert not (tmp_path / "o.json").exists()


def test_an_unreadable_envelope_exits_2_with_one_line(tmp_path, stand_ins, capsys):
    src = write(tmp_path / "unknown.json", OTLP)
    assert main(["convert", str(src), str(tmp_path / "o.json"), "--kind", "traces"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {src}: $: expected a trace envelope"
    ]


@pytest.mark.parametrize(
    "value",
    [
        OTLP,
        {"resourceLogs": []},
        {"batches": []},
        {"data": [{"traceID": "ab", "spans": []}]},
        {"trace": {"id": "x"}, "observations": []},
        [{"name": "chat", "context": {"trace_id": "0xab", "span_id": "0x1"}}],
        {"traceId": "ab", "spanId": "cd", "name": "x"},
    ],
)
def test_trace_shapes_are_detected(tmp_path, value):
    assert looks_like_traces(write(tmp_path / "x.json", value))


def test_eval_sets_tables_and_metrics_are_not_traces(tmp_path):
    assert not looks_like_traces(SAMPLES / "roll_dice.test.json")
    assert not looks_like_traces(write(tmp_path / "m.json", [{"metricName": "m"}]))
    table = tmp_path / "cases.jsonl"
    table.write_text('{"question": "q", "answer": "a"}\n{"question": "r"}\n', encoding="utf-8")
    assert not looks_like_traces(table)
    assert not looks_like_traces(write(tmp_path / "e.json", {"evalSetId": "s", "evalCases": []}))
    lines = tmp_path / "spans.jsonl"
    lines.write_text(json.dumps(OTLP) + "\n" + json.dumps(OTLP) + "\n", encoding="utf-8")
    assert looks_like_traces(lines)
    assert looks_like_traces(tmp_path)


def test_large_documents_are_sniffed_by_their_keys(tmp_path):
    filler = ["x" * 100] * 12000  # more than the 1 MiB peek
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"resourceSpans": [{"scopeSpans": []}], "pad": filler}, indent=2))
    assert looks_like_traces(big)
    evalset = tmp_path / "big.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "traceId": "x", "pad": filler}, indent=2))
    assert not looks_like_traces(evalset)
