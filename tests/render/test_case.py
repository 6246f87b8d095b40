"""The shared case view (render/case.py): a fresh run and the same run loaded look alike."""

from __future__ import annotations

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case, turn

import agenteval_nb as ae
from agenteval_nb.render import render_case
from agenteval_nb.views import report_html

CASE_CONTEXT = [{"role": "system", "content": "CASE-CONTEXT-MARKER"}]


def fresh_run() -> ae.EvalRun:
    case = trace_case("c", ["a"], ["a"], contextMessages=CASE_CONTEXT)
    return ae.evaluate(
        evalset(case), [METRIC], registry=registry_with(ExactAnswer()), progress=False
    )


def shown(run: ae.EvalRun) -> list[str]:
    """The case view as the inspector builds it, and the report."""
    (case,) = run.case_results()
    return [str(render_case(case, evalset_case=run.eval_case(case.eval_id))), report_html(run)]


@pytest.mark.parametrize("with_evalset", [False, True])
def test_context_messages_are_shown_once_fresh_and_loaded(tmp_path, with_evalset):
    run = fresh_run()
    path = run.save(tmp_path / "r.evalset_result.json")
    loaded = ae.load_run(path, evalset=run.evalset if with_evalset else None)
    for html in [*shown(run), *shown(loaded)]:
        assert html.count("CASE-CONTEXT-MARKER") == 1


def test_a_turn_with_its_own_context_shows_only_its_own():
    own = [{"role": "system", "content": "TURN-CONTEXT-MARKER"}]
    case = trace_case("c", ["a"], ["a"], contextMessages=CASE_CONTEXT)
    case["conversation"] = [turn("q0", "a", contextMessages=own)]
    case["actualConversation"] = [turn("q0", "a", contextMessages=own)]
    run = ae.evaluate(
        evalset(case), [METRIC], registry=registry_with(ExactAnswer()), progress=False
    )
    for html in shown(run):
        assert html.count("TURN-CONTEXT-MARKER") == 1
        assert "CASE-CONTEXT-MARKER" not in html
