"""Every file of the bad-input corpus yields FormatError naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agenteval_nb as ae

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "bad"
CASES = json.loads((CORPUS / "cases.json").read_text())
LOADERS = {"evalset": ae.load_evalset, "metrics": ae.load_metrics, "result": ae.load_result}


def test_corpus_is_large_enough():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_bad_file_gives_format_error_with_file_and_path(case):
    path = CORPUS / case["file"]
    with pytest.raises(ae.FormatError) as info:
        LOADERS[case["kind"]](path)
    err = info.value
    message = str(err)
    assert err.source == str(path) and str(path) in message
    assert err.json_path == case["json_path"], message
    assert f": {case['json_path']}: " in message
    if "line" in case:
        assert err.line == case["line"]
    assert err.expected and len(err.expected) > 5


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_failed_load_writes_nothing(case, tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(ae.FormatError):
        data = LOADERS[case["kind"]](CORPUS / case["file"])
        ae.save_result(data, target)  # never reached
    assert not target.exists() and list(tmp_path.iterdir()) == []
