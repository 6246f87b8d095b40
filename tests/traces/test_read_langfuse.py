"""Langfuse exports: a trace download {trace, observations}, a session list, a trace with its
observations embedded, bare observation rows; every field kept under ``langfuse.*``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenteval_nb.traces.read import ReadProblem, read_spans

TRACE_ID = "7f3c2a9e-1b2d-4c5e-8f90-a1b2c3d4e5f6"


def _trace(trace_id: str = TRACE_ID, session: str = "sess-1") -> dict[str, Any]:
    return {
        "id": trace_id,
        "name": "support-agent",
        "timestamp": "2025-03-01T12:00:00.000Z",
        "input": {"messages": [{"role": "user", "content": "Refund order A1"}]},
        "output": "Refunded.",
        "sessionId": session,
        "userId": "u-9",
        "metadata": {"env": "prod"},
        "tags": ["beta"],
        "latency": 2.5,
    }


def _observations(trace_id: str = TRACE_ID) -> list[dict[str, Any]]:
    return [
        {
            "id": "obs-agent",
            "traceId": trace_id,
            "type": "AGENT",
            "name": "support-agent",
            "startTime": "2025-03-01T12:00:00.000Z",
            "endTime": "2025-03-01T12:00:02.500Z",
            "parentObservationId": None,
            "input": "Refund order A1",
            "output": "Refunded.",
            "level": "DEFAULT",
        },
        {
            "id": "obs-gen",
            "traceId": trace_id,
            "type": "GENERATION",
            "name": "chat",
            "startTime": "2025-03-01T12:00:00.100Z",
            "endTime": "2025-03-01T12:00:01.000Z",
            "completionStartTime": "2025-03-01T12:00:00.400Z",
            "parentObservationId": "obs-agent",
            "model": "gpt-4o",
            "modelParameters": {"temperature": 0},
            "input": [{"role": "user", "content": "Refund order A1"}],
            "output": {"role": "assistant", "tool_calls": [{"id": "c1", "name": "refund"}]},
            "usageDetails": {"input": 30, "output": 8, "total": 38},
            "costDetails": {"total": 0.0002},
            "level": "DEFAULT",
        },
        {
            "id": "obs-tool",
            "traceId": trace_id,
            "type": "TOOL",
            "name": "refund",
            "startTime": "2025-03-01T12:00:01.100Z",
            "endTime": "2025-03-01T12:00:01.300Z",
            "parentObservationId": "obs-agent",
            "input": {"order": "A1"},
            "output": None,
            "level": "ERROR",
            "statusMessage": "payment gateway down",
        },
    ]


def test_a_trace_download_maps_each_observation_to_a_span() -> None:
    problems: list[ReadProblem] = []
    doc = {"trace": _trace(), "observations": _observations(), "scores": []}
    spans = list(read_spans(doc, problems=problems))
    assert problems == []
    agent, generation, tool = spans
    assert [s.span_id for s in spans] == ["obs-agent", "obs-gen", "obs-tool"]
    assert {s.trace_id for s in spans} == {TRACE_ID}
    assert [s.parent_id for s in spans] == [None, "obs-agent", "obs-agent"]
    assert (generation.start_ns, generation.end_ns) == (1740830400100000000, 1740830401000000000)
    assert generation.attributes == {
        "langfuse.type": "GENERATION",
        "langfuse.completionStartTime": "2025-03-01T12:00:00.400Z",
        "langfuse.model": "gpt-4o",
        "langfuse.modelParameters": {"temperature": 0},
        "langfuse.input": [{"role": "user", "content": "Refund order A1"}],
        "langfuse.output": {"role": "assistant", "tool_calls": [{"id": "c1", "name": "refund"}]},
        "langfuse.usageDetails": {"input": 30, "output": 8, "total": 38},
        "langfuse.costDetails": {"total": 0.0002},
        "langfuse.level": "DEFAULT",
    }
    assert (tool.status, tool.status_message) == ("error", "payment gateway down")
    assert generation.status is None
    # the trace's fields are on the root only
    assert agent.attributes["langfuse.trace.sessionId"] == "sess-1"
    assert agent.attributes["langfuse.trace.input"] == _trace()["input"]
    assert agent.attributes["langfuse.trace.output"] == "Refunded."
    assert agent.attributes["langfuse.trace.userId"] == "u-9"
    assert agent.attributes["langfuse.trace.id"] == TRACE_ID
    assert not any(k.startswith("langfuse.trace.") for k in generation.attributes)
    assert {s.source for s in spans} == {"langfuse"}


def test_a_session_list_a_trace_with_embedded_observations_and_a_bare_trace(
    tmp_path: Path,
) -> None:
    embedded = {**_trace("t-2", "sess-1"), "observations": _observations("t-2")}
    bare = _trace("t-3", "sess-1")
    path = tmp_path / "session.json"
    path.write_text(
        json.dumps([{"trace": _trace(), "observations": _observations()}, embedded, bare])
    )
    problems: list[ReadProblem] = []
    spans = list(read_spans(path, format="langfuse", problems=problems))
    assert problems == []
    assert [s.trace_id for s in spans] == [TRACE_ID] * 3 + ["t-2"] * 3 + ["t-3"]
    lone = spans[-1]
    assert (lone.span_id, lone.parent_id, lone.name) == ("t-3", None, "support-agent")
    assert lone.attributes["langfuse.type"] == "TRACE"
    assert lone.attributes["langfuse.trace.output"] == "Refunded."
    assert lone.end_ns - lone.start_ns == 2_500_000_000


def test_observation_rows_one_per_line_and_id_only_observation_lists(tmp_path: Path) -> None:
    path = tmp_path / "observations.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in _observations()))
    assert [s.span_id for s in read_spans(path)] == ["obs-agent", "obs-gen", "obs-tool"]
    listed = {"data": [{**_trace(), "observations": ["obs-agent", "obs-gen"]}]}
    problems: list[ReadProblem] = []
    (lone,) = list(read_spans(listed, problems=problems))
    assert lone.span_id == TRACE_ID
    (problem,) = problems
    assert problem.where == "$.data[0].observations"
    assert problem.message.startswith("2 observation(s) are ids only")
