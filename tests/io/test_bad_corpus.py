"""Every file of the bad-input corpus yields FormatError naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agenteval_nb as ae

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "bad"
CASES = json.loads((CORPUS / "cases.json").read_text())
LOADERS = {
    "evalset": ae.load_evalset,
    "metrics": ae.load_metrics,
    "result": ae.load_result,
    "run": ae.load_run,
}
SUFFIXES = {
    "evalset": (".evalset.json", ".test.json"),
    "metrics": (".metrics.json", ".test_config.json"),
    "result": (".evalset_result.json",),
    "run": (".evalset_result.json",),
}


def test_corpus_is_large_enough():
    assert len(CASES) >= 80


def test_cases_json_lists_every_file_once_with_a_matching_suffix():
    names = [c["file"] for c in CASES]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(p.name for p in CORPUS.iterdir() if p.name != "cases.json")
    for case in CASES:
        assert case["file"].endswith(SUFFIXES[case["kind"]]), case["file"]


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
    if "expect" in case:
        assert case["expect"] in err.expected, message
    assert "sk-" not in message  # a literal key in the file never reaches the message


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_failed_load_writes_nothing(case, tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(ae.FormatError):
        data = LOADERS[case["kind"]](CORPUS / case["file"])
        ae.save_result(data, target)  # never reached
    assert not target.exists() and list(tmp_path.iterdir()) == []
