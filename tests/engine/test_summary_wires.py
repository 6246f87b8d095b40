"""Case summaries written from the case outcomes (plain dicts, one orjson pass a batch) are the
same bytes as their models written by pydantic, and a saved run builds no case summary model."""

from __future__ import annotations

import json

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case
from hypothesis import given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb import io
from agenteval_nb.engine.summary import (
    CaseOutcome,
    MetricOutcome,
    _case_summary,
    _model,
    summary_parts,
)
from agenteval_nb.io import gowriter
from agenteval_nb.schema import CaseSummary, EvalSetResult

CASE_STATUSES = st.sampled_from(["passed", "failed", "not_evaluated"])
STATUSES = st.sampled_from(["passed", "failed", "not_evaluated", None])
SCORES = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**40), 2**40),
    st.sampled_from([0.0, -0.0, 1e-7, 1e16, 1e21, 5e-324, 0.1 + 0.2]),
)
TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["<&>", "é\u2028\u2029", "\x00\x1f\x7f", "\ud800 lone", "tab\tnl\n"]),
)


@st.composite
def outcomes(draw):
    num_runs = draw(st.integers(1, 3))
    eval_ids = draw(st.lists(TEXTS.filter(bool), min_size=1, max_size=6, unique=True))
    names = st.one_of(st.none(), st.sampled_from(["m1", "m2", "zz", "é"]))
    metric = st.builds(MetricOutcome, names, SCORES, STATUSES, SCORES)
    out = []
    for eval_id in eval_ids:
        for run_id in draw(st.sets(st.integers(1, num_runs), min_size=1)):
            metrics = draw(st.lists(metric, max_size=3))
            error = draw(st.one_of(st.none(), TEXTS))
            out.append(CaseOutcome(eval_id, run_id, draw(CASE_STATUSES), error, tuple(metrics)))
    return draw(st.permutations(out)), num_runs


def _file(parts, case_summaries) -> str:
    head = EvalSetResult(eval_set_result_id="r", eval_set_id="s", summary=parts.head)
    chunks = gowriter.result_file_chunks(head, [], case_summaries)
    return "".join(io.go_escape(c) if isinstance(c, str) else c.decode() for c in chunks)


@settings(max_examples=150, deadline=None)
@given(drawn=outcomes(), batch=st.sampled_from([1, 2, 256]))
def test_case_summaries_from_outcomes_are_the_bytes_of_their_models(drawn, batch):
    cases, num_runs = drawn
    parts = summary_parts(cases, num_runs)
    original = gowriter._BATCH
    gowriter._BATCH = batch
    try:
        from_models = _file(parts, parts.case_summaries())
        from_wires = _file(parts, parts.case_summary_wires())
    finally:
        gowriter._BATCH = original
    assert from_wires == from_models
    if "\\ud" in from_wires:
        return  # a lone surrogate: dumps writes the whole document with the fallback encoder
    whole = EvalSetResult(
        eval_set_result_id="r", eval_set_id="s", eval_case_results=[], summary=parts.whole()
    )
    assert from_wires == io.dumps(whole)


@settings(max_examples=150, deadline=None)
@given(drawn=outcomes())
def test_case_summary_models_are_the_models_built_field_by_field(drawn):
    """Validated from shared field values, each case summary equals the model built with its
    constructors (repr too: NaN is not equal to itself, and an int must not pass for a float)
    and shares no part with another case's."""
    cases, num_runs = drawn
    parts = summary_parts(cases, num_runs)
    built = [_case_summary(eval_id, runs, num_runs, _model) for eval_id, runs in parts.groups]
    validated = list(parts.case_summaries())
    assert [repr(m) for m in validated] == [repr(m) for m in built]
    seen: set[int] = set()
    for summary in validated:
        for part in (summary.run_status_counts, *summary.run_summaries):
            assert id(part) not in seen
            seen.add(id(part))


def test_equal_outcomes_give_case_summaries_of_their_own():
    cases = [
        CaseOutcome(f"c{i}", 1, "failed", None, (MetricOutcome("m", 0.0, "failed", 1.0),))
        for i in range(2)
    ]
    first, second = summary_parts(cases, 1).case_summaries()
    assert first.metric_summaries[0].average_score == 0.0  # a zero the file form leaves out
    first.run_summaries[0].metric_results[0].score = 0.5
    assert second.run_summaries[0].metric_results[0].score == 0.0


def test_the_wire_dicts_are_what_the_models_write():
    cases = [
        CaseOutcome("b", 1, "passed", None, (MetricOutcome("m", 1, "passed", 0.5),)),
        CaseOutcome("a", 1, "failed", "boom", (MetricOutcome("m", 0.25, "failed", None),)),
        CaseOutcome("a", 2, "not_evaluated", None, ()),
    ]
    parts = summary_parts(cases, 2)
    models = list(parts.case_summaries())
    wires = list(parts.case_summary_wires())
    assert wires == [
        json.loads(m.model_dump_json(by_alias=True, exclude_none=True)) for m in models
    ]
    assert wires[1]["metricSummaries"][0]["averageScore"] == 1.0  # an int score reads as float


@pytest.fixture
def es_path(tmp_path):
    cases = [trace_case(f"c{i}", [f"a{i}"], [f"a{i}" if i % 2 else "x"]) for i in range(30)]
    path = tmp_path / "set.evalset.json"
    path.write_text(json.dumps(evalset(*cases)))
    return path


def test_saving_a_streamed_run_builds_no_case_summary_model(es_path, tmp_path, monkeypatch):
    run = ae.evaluate(
        es_path, [METRIC], progress=False, num_runs=2, registry=registry_with(ExactAnswer())
    )
    expected = io.dumps(whole := run.record.result.model_copy())  # the model path, whole
    run = ae.evaluate(
        es_path, [METRIC], progress=False, num_runs=2, registry=registry_with(ExactAnswer())
    )
    built = []
    original = CaseSummary.__init__

    def spy(self, **values):
        built.append(values.get("eval_id"))
        original(self, **values)

    monkeypatch.setattr(CaseSummary, "__init__", spy)
    path = run.save(tmp_path / "r.evalset_result.json")
    assert built == []
    saved = json.loads(path.read_text())
    assert [c["evalId"] for c in saved["summary"]["evalCaseSummaries"]] == sorted(
        f"c{i}" for i in range(30)
    )
    assert (
        saved["summary"]["evalCaseSummaries"]
        == json.loads(expected)["summary"]["evalCaseSummaries"]
    )
    assert whole.summary.eval_case_summaries


def test_equal_outcomes_share_their_wire_form_but_minus_zero_keeps_its_sign():
    """Wire parts of equal outcomes are built once; ``-0.0 == 0.0`` must not make them one."""
    cases = [
        CaseOutcome(f"c{i}", 1, "failed", None, (MetricOutcome("m", score, "failed", 1.0),))
        for i, score in enumerate([0.0, -0.0, 0.0, -0.0])
    ]
    parts = summary_parts(cases, 1)
    assert _file(parts, parts.case_summary_wires()) == _file(parts, parts.case_summaries())
    wires = list(parts.case_summary_wires())
    assert wires[0]["metricSummaries"] is wires[2]["metricSummaries"]
