"""A cache written by an earlier layout of the judge stack still answers every call.

``data/judge_cache.sqlite`` was written by ``_judge_cache.py`` at the commit named in
``data/judge_cache.json`` (one metric per built-in judge and template scorer, two samples each,
the verifier with ``swap: report``). Re-running the same evaluation on today's code must send no
request (cache keys unchanged) and give the same per-turn results (prompts, scores, details).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from _judge_cache import BASE_URL, EVALSET, PORT, metrics, per_invocation

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.heuristic_judge import heuristic_handler

DATA = Path(__file__).parent / "data"
VOLATILE = {"cacheHit", "latencyMs"}


def stable(value: Any) -> Any:
    """``value`` without the fields that differ between a live call and a cache hit."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def test_cached_rerun_sends_no_request_and_gives_the_same_results(tmp_path: Path) -> None:
    recorded = json.loads((DATA / "judge_cache.json").read_text())
    assert recorded["base_url"] == BASE_URL
    cache = tmp_path / "judge.sqlite"
    shutil.copyfile(DATA / "judge_cache.sqlite", cache)
    with FakeOpenAIServer(handler=heuristic_handler, port=PORT) as srv:
        run = ae.evaluate(EVALSET, metrics(), progress=False, cache=cache)
        assert srv.request_count == 0
    assert stable(per_invocation(run)) == stable(recorded["perInvocation"])
