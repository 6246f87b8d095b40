"""Spans written by the REAL instrumentation packages load back into the turn the agent had.

Each run (tests/traces/_live_loop.py, one fresh interpreter per run: the instrumentors patch
``openai`` process-wide and the semconv opt-in is read once per process) instruments the real
``openai`` client with the official OTel package (opentelemetry-instrumentation-openai-v2) or
OpenInference's, drives a tool loop against the loopback fake server, exports what was emitted
to OTLP/JSON (and console JSON), and ``ae.load_traces`` must give back the loop's own turn:
one case (the conversation key on the turn roots) of two turns, each with its user text, final
text and tool id/name/arguments/result; turn 2's model input resends turn 1, so its user text
must be the LAST user message. With content capture off, the text is absent and the load report
says why (these package versions keep no tool names either).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import _live_loop
from _expected import assert_matches, report_text

import agenteval_nb as ae

RUNS = [
    ("openai-v2", "on"),
    ("openai-v2", "events"),
    ("openai-v2", "off"),
    ("openinference", "on"),
    ("openinference", "off"),
]


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, str], dict[str, Any]]:
    """Every live run once (each ~1-2 s in its own interpreter)."""
    return {run: _live_loop.run_in_subprocess(*run) for run in RUNS}


def _written(tmp_path: Path, run: dict[str, Any]) -> list[Path]:
    paths = [tmp_path / "spans.json"]
    paths[0].write_text(json.dumps(run["traces"]), encoding="utf-8")
    if run["logs"]["resourceLogs"]:
        paths.append(tmp_path / "logs.json")
        paths[1].write_text(json.dumps(run["logs"]), encoding="utf-8")
    return paths


@pytest.mark.slow
@pytest.mark.parametrize("package,mode", RUNS, ids=[f"{p}-{m}" for p, m in RUNS])
def test_live_spans_load_into_the_turn_the_loop_had(
    runs: dict[tuple[str, str], dict[str, Any]], package: str, mode: str, tmp_path: Path
) -> None:
    run = runs[(package, mode)]
    expected = _live_loop.expected_for(package, mode, run["loop"])
    paths = _written(tmp_path, run)
    evalset, report = ae.load_traces(paths if len(paths) > 1 else paths[0])
    assert_matches(evalset, report_text(report), expected, f"{package}/{mode} (live)")


SPAN_ONLY_RUNS = [run for run in RUNS if run[1] != "events"]
"""Runs whose content (if any) is on the spans: the console span form carries no log records."""


@pytest.mark.slow
@pytest.mark.parametrize(
    "package,mode", SPAN_ONLY_RUNS, ids=[f"{p}-{m}" for p, m in SPAN_ONLY_RUNS]
)
def test_live_console_json_loads_the_same(
    runs: dict[tuple[str, str], dict[str, Any]], package: str, mode: str, tmp_path: Path
) -> None:
    """The SDK's console form (``span.to_json()``) of the same spans gives the same turn."""
    run = runs[(package, mode)]
    path = tmp_path / "console.json"
    path.write_text(json.dumps(run["console"]), encoding="utf-8")
    evalset, report = ae.load_traces(path)
    expected = _live_loop.expected_for(package, mode, run["loop"])
    assert_matches(evalset, report_text(report), expected, f"{package}/{mode} (console)")


def test_the_loop_really_called_the_tool(runs: dict[tuple[str, str], dict[str, Any]]) -> None:
    """The ground truth is what the loop did, not constants: every run held two turns, the
    first with one tool call of the scripted id, each ending on the scripted answer (checks the
    loop, not the loader)."""
    for run in runs.values():
        first, second = run["loop"]["turns"]
        assert (first["user_content"], second["user_content"]) == (
            _live_loop.USER_TEXT,
            _live_loop.SECOND_USER_TEXT,
        )
        assert first["final_response"] == _live_loop.FINAL_TEXT
        assert second["final_response"] == _live_loop.SECOND_FINAL_TEXT
        assert [t["id"] for t in first["tools"]] == [_live_loop.TOOL_CALL_ID]
        assert first["tools"][0]["result"] == _live_loop.TOOL_RESULT
        assert second["tools"] == []
