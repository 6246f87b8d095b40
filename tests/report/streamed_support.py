"""A streamed run of the benchmarks' synthetic eval set, and counters of what gets decoded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import agenteval_nb as ae
from agenteval_nb.io import CaseDetails, StreamedCases

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _synthetic import METRICS, evalset


def streamed_run(directory: Path, n: int) -> ae.EvalRun:
    """``ae.evaluate`` of ``n`` synthetic trace cases (two deterministic metrics), streamed."""
    path = directory / "synthetic.evalset.json"
    path.write_text(json.dumps(evalset(n)))
    run = ae.evaluate(path, METRICS, progress=False)
    assert run.streaming and run.num_case_results == n
    return run


class Decodes:
    """Counts case results decoded (``CaseDetails._decode``) and eval cases validated
    (``StreamedCases.case``) while installed with ``monkeypatch``."""

    def __init__(self, monkeypatch) -> None:
        self.results = 0
        self.cases = 0
        decode, case = CaseDetails._decode, StreamedCases.case

        def counted_decode(details, index):
            self.results += 1
            return decode(details, index)

        def counted_case(source, index):
            self.cases += 1
            return case(source, index)

        monkeypatch.setattr(CaseDetails, "_decode", counted_decode)
        monkeypatch.setattr(StreamedCases, "case", counted_case)
