"""The streamed result file equals the one-piece text of the same result."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from agenteval_nb import io
from agenteval_nb.analysis.record import with_summary
from agenteval_nb.io import gowriter
from agenteval_nb.schema import EvalSetResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
from report_builders import case_result


def _result(n: int) -> EvalSetResult:
    cases = [case_result(f"case_{i:03d}", 1 + i % 2, ok=i % 3 != 0) for i in range(n)]
    bare = EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=cases)
    return with_summary(bare)[0]


@pytest.mark.parametrize("batch", [1, 2, 256])
def test_streamed_pieces_concatenate_to_dumps(monkeypatch, batch):
    monkeypatch.setattr(gowriter, "_BATCH", batch)
    result = _result(7)
    streamed = "".join(io.go_escape(piece) for piece in gowriter.result_chunks(result))
    assert streamed == io.dumps(result)
    assert len(json.loads(streamed)["summary"]["evalCaseSummaries"]) == 7


def test_a_nan_score_is_written_as_null_in_both(monkeypatch):
    result = _result(2)
    result.eval_case_results[0].overall_eval_metric_results[0].score = math.nan
    streamed = "".join(io.go_escape(piece) for piece in gowriter.result_chunks(result))
    assert streamed == io.dumps(result)
