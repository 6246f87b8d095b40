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


def _file_of_texts(result: EvalSetResult, own_texts: bool) -> bytes:
    """The file :func:`~agenteval_nb.io.gowriter.result_file_chunks` writes from the result's
    compact case texts."""
    texts = gowriter.case_result_texts(result.eval_case_results or [])
    head = result.model_copy(update={"eval_case_results": None})
    pieces = gowriter.result_file_chunks(head, texts, own_texts=own_texts)
    return b"".join(p if isinstance(p, bytes) else io.go_escape(p).encode() for p in pieces)


@pytest.mark.parametrize("own_texts", [True, False])
@pytest.mark.parametrize("batch", [1, 3, 256])
@pytest.mark.parametrize("lone_surrogate", [False, True])
def test_case_texts_are_written_as_dumps_writes_their_result(
    monkeypatch, batch, own_texts, lone_surrogate
):
    """Case texts re-indented a batch at a time (own texts) or one by one (read from a file)
    give the bytes of the whole result's :func:`~agenteval_nb.io.dumps` (Go's HTML escapes
    and empty containers included); a batch holding a text msgspec cannot format (a lone
    surrogate escape) is written text by text, the same JSON."""
    monkeypatch.setattr(gowriter, "_BATCH", batch)
    result = _result(7)
    cases = result.eval_case_results
    cases[4].error_message = "half an emoji \ud83d <tag> & {}" if lone_surrogate else "{} []"
    cases[5].overall_eval_metric_results = []
    written, expected = _file_of_texts(result, own_texts), io.dumps(result).encode()
    if lone_surrogate:  # (that case result's text cannot be re-indented: the same JSON)
        assert json.loads(written) == json.loads(expected)
    else:
        assert written == expected
    assert _file_of_texts(_result(0), own_texts) == io.dumps(_result(0)).encode()
