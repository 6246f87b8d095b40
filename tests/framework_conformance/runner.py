"""Running one framework module in one mode against the loopback server, and what "conforms"
means: every case passes, every turn's tool uses carry ids and the expected arguments, their
results are captured, the final answer is the expected one, and the agent usage equals what the
server issued (re-scored from the recorded requests) over as many calls as it answered.

The assertions come in parts so that a :class:`~framework_conformance.contract.Gap`'s
``check`` can assert the parts that hold and the exact shortfall of the others.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import agenteval_nb as ae
from agenteval_nb.schema.evalset import Invocation
from agenteval_nb.testing import wire_forms
from agenteval_nb.testing.fake_server import FakeOpenAIServer

from . import frameworks
from .cases import METRICS, TOOLS, TURNS, evalset, expected_result, scripted_model
from .contract import MODES, Gap

TESTS = Path(__file__).resolve().parents[1]


def framework_modules() -> list[ModuleType]:
    """Every module under ``framework_conformance/frameworks/``, by file name."""
    names = sorted(info.name for info in pkgutil.iter_modules(frameworks.__path__))
    return [importlib.import_module(f"{frameworks.__name__}.{name}") for name in names]


def installed(module: ModuleType) -> bool:
    """The module's ``PACKAGE`` (a dotted name: its parents too) is installed: found outside
    ``tests/`` (whose ``agents/`` folder is a namespace package named like the Agents SDK)."""
    try:
        spec = importlib.util.find_spec(module.PACKAGE)
    except ModuleNotFoundError:
        return False
    if spec is None:
        return False
    places = [spec.origin] if spec.origin not in (None, "namespace") else []
    places += list(spec.submodule_search_locations or ())
    return any(not Path(place).resolve().is_relative_to(TESTS) for place in places)


@dataclass(frozen=True)
class Outcome:
    """One table cell: ``ok`` with the numbers, or the gap's reason (its check passed)."""

    framework: str
    mode: str
    cell: str


def conformance(module: ModuleType, mode: str, server: FakeOpenAIServer) -> Outcome:
    """Build ``module``'s agent for ``mode``, run the cases, assert conformance (or the gap's
    check); raises ``AssertionError`` naming the framework and mode when it does not hold."""
    assert mode in MODES, mode
    built = module.make(server.base_url, mode, TOOLS)
    where = f"{module.FRAMEWORK} {mode}"
    if isinstance(built, Gap):
        assert built.reason and built.check is not None, (
            f"{where}: a gap needs a reason and a check"
        )
        run = None
        if built.agent is not None:
            run, requests = run_cases(built.agent, server)
            if mode == "streaming":
                assert_streamed(requests, where)
        built.check(run)
        return Outcome(module.FRAMEWORK, mode, f"gap: {built.reason}")
    run, requests = run_cases(built, server)
    if mode == "streaming":
        assert_streamed(requests, where)
    assert_cases_passed(run, where)
    assert_tool_uses(run, where)
    assert_tool_results(run, where)
    assert_final_answers(run, where)
    assert_usage(run, requests, where)
    assert_no_capture_gaps(run, where)
    turns = sum(len(t) for t in TURNS.values())
    return Outcome(module.FRAMEWORK, mode, f"cases_ok {len(TURNS)}/{len(TURNS)} ({turns} turns)")


def run_cases(agent: Any, server: FakeOpenAIServer) -> tuple[ae.EvalRun, list[dict[str, Any]]]:
    """The evaluation of the conformance cases, and the model requests the server got for it
    (``{"path", "json"}``)."""
    before = len(server.requests)
    run = ae.evaluate(evalset(), METRICS, agent=agent, progress=False, cache=False)
    requests = [
        {"path": r.path, "json": r.json}
        for r in server.requests[before:]
        if r.method == "POST" and r.path.endswith(("/chat/completions", "/responses"))
    ]
    return run, requests


# -- the parts ---------------------------------------------------------------------------------


def turns_of(run: ae.EvalRun) -> list[tuple[str, int, Invocation]]:
    """``(case id, turn index, actual invocation)`` of every scored turn, in case order."""
    out = []
    for case in sorted(run.result.eval_case_results, key=lambda c: c.eval_id):
        for index, scored in enumerate(case.eval_metric_result_per_invocation or ()):
            out.append((case.eval_id, index, scored.actual_invocation))
    return out


def failures(run: ae.EvalRun) -> list[str]:
    """Each case's error, or its failed metrics."""
    out = []
    for case in run.result.eval_case_results:
        if getattr(case, "error_message", None):
            out.append(f"{case.eval_id}: {case.error_message}")
    frame = run.metrics_df()
    for row in frame.itertuples(index=False):
        if row.status != "passed":
            out.append(f"{row.eval_id}: {row.metric_name} {row.status} (score {row.score})")
    return out


def assert_cases_passed(run: ae.EvalRun, where: str) -> None:
    scored = {case for case, _, _ in turns_of(run)}
    assert scored == set(TURNS), f"{where}: cases scored {sorted(scored)}; {failures(run)}"
    assert not failures(run), f"{where}: {failures(run)}"


def framework_tools(inv: Invocation) -> list[Any]:
    """The tool uses of the conformance tools (a framework's own, like ``final_answer``, left out)."""
    names = {tool.__name__ for tool in TOOLS}
    return [t for t in inv.tools or () if t.name in names]


def assert_tool_uses(run: ae.EvalRun, where: str) -> None:
    """Each turn used its one expected tool, with an id and the expected arguments."""
    for case, index, inv in turns_of(run):
        _, _, tool, city = TURNS[case][index]
        uses = [(t.name, t.arguments) for t in framework_tools(inv)]
        assert uses == [(tool, {"city": city})], f"{where} {case}[{index}]: tool uses {uses}"
        assert all(t.id for t in framework_tools(inv)), (
            f"{where} {case}[{index}]: a tool id is missing"
        )


def decoded(result: Any) -> Any:
    """A tool result as data: JSON text or a Python literal (the ``str`` of a dict) decoded."""
    if not isinstance(result, str):
        return result
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(result)
        except (ValueError, SyntaxError):
            continue
    return result


def assert_tool_results(run: ae.EvalRun, where: str) -> None:
    for case, index, inv in turns_of(run):
        _, _, tool, city = TURNS[case][index]
        results = [decoded(t.result) for t in framework_tools(inv)]
        expected = [expected_result(tool, city)]
        assert results == expected, f"{where} {case}[{index}]: results {results} != {expected}"


def assert_final_answers(run: ae.EvalRun, where: str) -> None:
    for case, index, inv in turns_of(run):
        answer = inv.final_response.content if inv.final_response else None
        expected = TURNS[case][index][1]
        assert answer == expected, f"{where} {case}[{index}]: final answer {answer!r}"


def issued_usage(requests: list[dict[str, Any]]) -> dict[str, int]:
    """What the scripted model issued for these requests (it is deterministic: re-answering a
    recorded request gives the same usage)."""
    model = scripted_model()
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
    for request in requests:
        body = request["json"]
        if request["path"].endswith("/responses"):
            body = wire_forms.responses_request_as_chat(body)
        usage = model(body)["usage"]
        totals["prompt_tokens"] += usage["prompt_tokens"]
        totals["completion_tokens"] += usage["completion_tokens"]
        totals["calls"] += 1
    return totals


def assert_usage(run: ae.EvalRun, requests: list[dict[str, Any]], where: str) -> None:
    got = run.info.get("agent_usage") or {}
    want = issued_usage(requests)
    assert want["prompt_tokens"] > 0, f"{where}: the agent made no model call"
    assert got == want, f"{where}: agent usage {got}, the server issued {want}"


def assert_no_capture_gaps(run: ae.EvalRun, where: str) -> None:
    for case, index, inv in turns_of(run):
        gaps = inv.source.gaps if inv.source else ["no wire capture"]
        assert not gaps, f"{where} {case}[{index}]: capture gaps {gaps}"


def assert_streamed(requests: list[dict[str, Any]], where: str) -> None:
    """Every model call of a streaming run asked for server-sent events."""
    assert requests, f"{where}: no model request"
    plain = [r["path"] for r in requests if r["json"].get("stream") is not True]
    assert not plain, f"{where}: {len(plain)} of {len(requests)} requests not streamed"
