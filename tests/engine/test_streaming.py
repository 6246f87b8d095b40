"""The streamed run core: eval sets split and validated case by case, case results kept as their
file text, tables built while cases stream, and nothing decoded that nobody asked for."""

from __future__ import annotations

import asyncio
import json
import warnings

import polars as pl
import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case

import agenteval_nb as ae
from agenteval_nb.analysis.frames import BUILDERS
from agenteval_nb.analysis.record import RecordBuilder, RunRecord, whole_result
from agenteval_nb.errors import FormatError
from agenteval_nb.io import (
    CaseDetails,
    ModelCases,
    StreamedCases,
    case_result_texts,
    load_result,
    open_evalset,
    save_result,
)
from agenteval_nb.schema import CaseSummary, EvalSetResult

N = 40


def _cases(n: int = N) -> dict:
    return evalset(
        *(trace_case(f"c{i}", [f"a{i}", "b"], [f"a{i}", "b" if i % 3 else "x"]) for i in range(n))
    )


@pytest.fixture
def es_path(tmp_path):
    path = tmp_path / "big.evalset.json"
    path.write_text(json.dumps(_cases()))
    return path


class Staggered(ExactAnswer):
    """ExactAnswer whose early cases take longest, so results finish out of case order."""

    async def evaluate(self, actuals, expecteds, metric):
        case_no = int(expecteds[0].final_response.content[1:])  # answers are "a<case number>"
        await asyncio.sleep(0.001 * (N - case_no) / 4)
        return await super().evaluate(actuals, expecteds, metric)


class Counter:
    """Counts calls of a method while delegating to it."""

    def __init__(self, monkeypatch, cls, name):
        self.calls = 0
        original = getattr(cls, name)

        def counted(obj, *args, **kwargs):
            self.calls += 1
            return original(obj, *args, **kwargs)

        monkeypatch.setattr(cls, name, counted)


def _evaluate(source, **kwargs):
    kwargs.setdefault("registry", registry_with(ExactAnswer()))
    return ae.evaluate(source, [METRIC], progress=False, **kwargs)


def _without_sessions(table: pl.DataFrame) -> pl.DataFrame:
    return table.drop("session_id") if "session_id" in table.columns else table


def test_a_go_file_is_split_not_loaded(es_path):
    source = open_evalset(es_path)
    assert isinstance(source, StreamedCases)
    assert source.eval_ids == [f"c{i}" for i in range(N)]
    assert source.app_name == "app" and source.header.eval_set_id == "set"
    whole = ae.load_evalset(es_path)
    assert source.case(7) == whole.eval_cases[7]
    assert source.evalset() == whole


def test_other_shapes_are_loaded_whole(tmp_path):
    snake = tmp_path / "adk.json"
    snake.write_text(json.dumps({"eval_set_id": "s", "eval_cases": []}))
    assert isinstance(open_evalset(snake), ModelCases)
    bad = tmp_path / "bad.json"
    bad.write_text('{"evalSetId": "s", "evalCases": [}')
    with pytest.raises(FormatError, match=r"bad\.json"):
        open_evalset(bad)  # the loader's own error: file and what was expected


def test_each_case_is_validated_once_and_the_set_never_whole(es_path, monkeypatch):
    validated = Counter(monkeypatch, StreamedCases, "case")

    def whole(self):
        raise AssertionError("the engine must not load the whole eval set")

    monkeypatch.setattr(StreamedCases, "evalset", whole)
    run = _evaluate(es_path, case_parallelism=4)
    assert validated.calls == N
    assert run.streaming


def test_a_streamed_run_equals_the_model_run(es_path):
    streamed = _evaluate(es_path, case_parallelism=4)
    model = _evaluate(ae.load_evalset(es_path), case_parallelism=1)
    for kind in BUILDERS:
        assert _without_sessions(streamed.table(kind)).equals(
            _without_sessions(model.table(kind)), null_equal=True
        ), kind
    assert streamed.header.summary == model.header.summary
    strip = {"session_id": None}
    assert [c.model_copy(update=strip) for c in streamed.result.eval_case_results] == [
        c.model_copy(update=strip) for c in model.result.eval_case_results
    ]


def test_out_of_order_results_land_in_case_order(es_path):
    run = _evaluate(es_path, case_parallelism=8, registry=registry_with(Staggered()), num_runs=2)
    cases = run.cases_df(backend="polars")
    expected = [(r, f"c{i}") for r in (1, 2) for i in range(N)]
    assert list(zip(cases["run_id"], cases["eval_id"], strict=True)) == expected
    invocations = run.invocations_df(backend="polars")
    assert invocations["eval_id"].to_list() == [e for _, e in expected for _ in range(2)]
    assert [(c.run_id, c.eval_id) for c in run.case_results()] == expected


def test_the_builder_orders_rows_whatever_the_arrival_order(es_path):
    run = _evaluate(es_path)
    results = list(run.case_results())
    builder = RecordBuilder(run.metrics, batch=7)
    for position in reversed(range(len(results))):
        builder.add(position, None, results[position])
    reordered = builder.tables()
    plain = RunRecord(result=run.result, metrics=run.metrics)
    for kind in BUILDERS:
        assert reordered[kind].equals(plain.table(kind), null_equal=True), kind
    encoded = CaseDetails.of(results[:3])
    assert [builder.details().text(i) for i in range(3)] == [encoded.text(i) for i in range(3)]


def test_statistics_and_frames_decode_nothing(es_path, monkeypatch):
    run = _evaluate(es_path, num_runs=2)
    decoded = Counter(monkeypatch, CaseDetails, "_decode")
    run.cases_df()
    run.metrics_df(backend="polars")
    run.invocations_df()
    run.summary_df()
    run.pass_at_k_df()
    run.compare(run)
    repr(run)
    run.summary_text()
    run._repr_html_()
    assert run.num_runs == 2 and run.case_status_counts()["passed"] > 0
    assert decoded.calls == 0 and run.streaming
    assert run.case_result(5).eval_id == "c5"
    assert decoded.calls == 1


def test_the_run_headline_counts_cases_without_a_summary_model(es_path, monkeypatch):
    run = _evaluate(es_path, num_runs=2)
    from_models = [s.overall_status or "" for s in run.record.case_summaries()]
    built = Counter(monkeypatch, CaseSummary, "model_validate")
    assert list(run.record.case_overall_statuses()) == from_models
    assert f"passed={from_models.count('passed')}, failed={from_models.count('failed')}" in repr(
        run
    )
    assert built.calls == 0


def test_save_writes_the_texts_as_they_are(es_path, tmp_path):
    run = _evaluate(es_path)
    streamed = run.save(tmp_path / "streamed.evalset_result.json").read_bytes()
    assert run.streaming
    model = save_result(run.result, tmp_path / "model.evalset_result.json").read_bytes()
    assert streamed == model
    assert load_result(tmp_path / "streamed.evalset_result.json") == run.result


@pytest.mark.parametrize(
    "odd",
    [
        {"big": 123456789012345678901234567890, "tiny": 5e-324, "exp": 1e21, "neg": -0.0},
        {"text": '<&> é \u2028 \x1f "q" \\ /', "empty": [], "obj": {}},
    ],
    ids=["numbers beyond 64 bits", "escapes"],
)
def test_save_of_odd_content_writes_the_model_paths_bytes(odd, tmp_path):
    """Re-indenting a kept case text changes whitespace only: an int beyond 64 bits (which
    orjson cannot read) is indented like the rest, numbers and escapes keep their spelling."""
    tool = {"id": "t1", "name": "lookup", "arguments": odd, "result": odd}
    cases = [trace_case(f"c{i}", ["a"], ["a"], **{"metaData": odd} if i else {}) for i in range(3)]
    for case in cases:
        for conversation in (case["conversation"], case["actualConversation"]):
            conversation[0]["tools"] = [tool]
    path = tmp_path / "odd.evalset.json"
    path.write_text(json.dumps(evalset(*cases)))
    run = _evaluate(path)
    streamed = run.save(tmp_path / "streamed.evalset_result.json").read_bytes()
    model = save_result(run.result, tmp_path / "model.evalset_result.json").read_bytes()
    assert streamed == model


def test_a_case_that_does_not_validate_fails_alone(tmp_path):
    doc = _cases(5)
    doc["evalCases"][2]["conversation"] = "not a list"
    path = tmp_path / "one_bad.evalset.json"
    path.write_text(json.dumps(doc))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = _evaluate(path)
    cases = run.cases_df(backend="polars")
    scored = ["failed" if i % 3 == 0 else "passed" for i in range(5)]  # c0, c3 answer "x"
    assert cases["status"].to_list() == [*scored[:2], "failed", *scored[3:]]
    assert cases["error"].is_null().sum() == 4  # the others were scored, not errored
    error = cases["error"][2]
    assert str(path) in error and "$.evalCases[2].conversation" in error
    assert any("could not be loaded" in str(w.message) for w in caught)


def test_load_run_streams_a_result_file(es_path, tmp_path, monkeypatch):
    path = _evaluate(es_path, num_runs=2).save(tmp_path / "r.evalset_result.json")
    decoded = Counter(monkeypatch, CaseDetails, "_decode")
    loaded = ae.load_run(path)
    assert loaded.streaming
    whole = ae.EvalRun(result=load_result(path))
    for kind in BUILDERS:
        assert loaded.table(kind).equals(whole.table(kind), null_equal=True), kind
    assert loaded.pass_at_k_df(backend="polars").equals(
        whole.pass_at_k_df(backend="polars"), null_equal=True
    )
    assert decoded.calls == 0
    assert loaded.save(tmp_path / "again.evalset_result.json").read_bytes() == path.read_bytes()


@pytest.mark.parametrize("summary", ["absent", "null"])
def test_a_result_without_summary_streams_to_the_run_of_the_file_with_it(
    es_path, tmp_path, monkeypatch, summary
):
    with_summary = _evaluate(es_path, num_runs=2).save(tmp_path / "r.evalset_result.json")
    doc = json.loads(with_summary.read_text(encoding="utf-8"))
    written = doc.pop("summary")
    if summary == "null":
        doc["summary"] = None
    path = tmp_path / "old" / "r.evalset_result.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    decoded = Counter(monkeypatch, CaseDetails, "_decode")
    loaded, reference = ae.load_run(path), ae.load_run(with_summary)
    assert loaded.streaming and loaded.info["summary_computed"]
    for kind in BUILDERS:
        assert loaded.table(kind).equals(reference.table(kind), null_equal=True), kind
    again = loaded.save(tmp_path / "again.evalset_result.json")
    assert again.read_bytes() == with_summary.read_bytes()
    assert decoded.calls == 0
    assert loaded.result.summary.model_dump(by_alias=True, exclude_none=True) == written


def test_a_result_without_summary_or_run_ids_is_loaded_whole_as_run_one(tmp_path):
    result = _evaluate(ae.load_evalset(_cases(4))).result
    path = tmp_path / "old.evalset_result.json"
    cases = [c.model_copy(update={"run_id": None}) for c in result.eval_case_results]
    save_result(result.model_copy(update={"summary": None, "eval_case_results": cases}), path)
    loaded = ae.load_run(path)
    assert not loaded.streaming and loaded.info["summary_computed"]
    assert loaded.result.summary == result.summary
    assert loaded.warnings == ["4 case result(s) without runId read as run 1"]


def test_load_run_refuses_run_ids_the_file_cannot_back(tmp_path):
    result = _evaluate(ae.load_evalset(_cases(2))).result
    cases = [c.model_copy(update={"run_id": 9}) for c in result.eval_case_results]
    path = tmp_path / "forged.evalset_result.json"
    save_result(result.model_copy(update={"eval_case_results": cases}), path)
    with pytest.raises(FormatError, match=r"evalCaseResults\[0\]\.runId"):
        ae.load_run(path)


def test_reading_result_turns_a_streamed_record_into_a_model_record(es_path):
    run = _evaluate(es_path)
    tables = {kind: run.table(kind) for kind in BUILDERS}
    result = run.result
    assert not run.streaming and isinstance(result, EvalSetResult)
    assert all(run.table(kind) is tables[kind] for kind in BUILDERS)  # no rebuild
    cases = run.result.eval_case_results
    cases[0] = cases[0].model_copy(update={"final_eval_status": "not_evaluated"})
    assert run.cases_df(backend="polars")["status"][0] == "not_evaluated"


def test_case_summaries_are_built_on_request_not_kept(es_path, tmp_path):
    run = _evaluate(es_path, num_runs=2)
    assert run.header.summary.eval_case_summaries is None  # 600k models at 100k cases
    assert run.header.summary.num_runs == 2 and run.header.summary.run_summaries
    built = list(run.case_summaries())
    assert [c.eval_id for c in built] == sorted(f"c{i}" for i in range(N))
    whole = whole_result(run.record)
    assert run.streaming and whole.summary.eval_case_summaries == built
    path = run.save(tmp_path / "r.evalset_result.json")
    loaded = ae.load_run(path)
    assert loaded.streaming and loaded.header.summary.eval_case_summaries is None
    assert list(loaded.case_summaries()) == built
    assert loaded.result.summary == run.result.summary == whole.summary


def test_save_result_of_a_run_writes_its_case_texts_without_models(es_path, tmp_path, monkeypatch):
    run = _evaluate(ae.load_evalset(es_path))  # an eval set in hand streams like its file
    decoded = Counter(monkeypatch, CaseDetails, "_decode")
    path = ae.save_result(run, tmp_path / "run.evalset_result.json")
    assert decoded.calls == 0 and run.record.streaming
    whole = ae.save_result(run.result, tmp_path / "model.evalset_result.json")
    assert path.read_bytes() == whole.read_bytes()


def test_a_loaded_result_keeps_compact_case_texts_not_the_files_indented_ones(es_path, tmp_path):
    path = _evaluate(es_path).save(tmp_path / "r.evalset_result.json")
    loaded = ae.load_run(path)
    texts = [loaded.record._details.text(i) for i in range(loaded.record.num_case_results)]
    assert texts == case_result_texts(list(load_result(path).eval_case_results))
    assert loaded.save(tmp_path / "again.evalset_result.json").read_bytes() == path.read_bytes()
