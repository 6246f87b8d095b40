"""The run's repr and summary say how many cases errored and flag offline stand-ins."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "report"))

from report_builders import build_run

from agenteval_nb.offline_flags import HEURISTIC_LABEL, SCRIPTED_AGENT_LABEL
from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL


def test_repr_counts_errors_and_flags_the_heuristic_judge():
    run = build_run()
    text = repr(run)
    assert "errored=1" in text
    assert f"offline=['{HEURISTIC_LABEL}']" in text
    assert f"note: {HEURISTIC_LABEL}" in run.summary_text()
    assert "(1 with an error)" in run.summary_text()
    assert HEURISTIC_LABEL in run._repr_html_()


def test_scripted_agent_is_flagged():
    run = build_run()
    run.info["agent"] = f"OpenAIAgent({SCRIPTED_AGENT_MODEL})"
    assert SCRIPTED_AGENT_LABEL in repr(run)
    assert f"note: {SCRIPTED_AGENT_LABEL}" in run.summary_text()
