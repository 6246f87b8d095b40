"""The bulk case — trace mode, deterministic metrics, an eval set file — over a varied corpus:
the streamed path (cases split from the file, results kept as text, tables built per batch,
the file written from the texts and the case outcomes) writes the bytes and builds the tables
of the model path (the whole result model, written by pydantic, tables built from it); and the
bulk path (plain cases scored without models, :mod:`agenteval_nb.engine.bulk`) gives the
bytes and tables of a run that takes the model path for every case. The corpus (less the case
that does not validate) run as an ``EvalSet`` in hand and as a dict gives the same bytes and
tables as its file, on the bulk path too."""

from __future__ import annotations

import copy
import itertools
import json
import re

import pytest
from _builders import evalset, trace_case

import agenteval_nb as ae
from agenteval_nb.analysis.frames import BUILDERS
from agenteval_nb.analysis.record import RecordBuilder, RunRecord, whole_result
from agenteval_nb.engine.aggregate import default_case_aggregator
from agenteval_nb.engine.bulk import bulk_case, bulk_metrics, takes
from agenteval_nb.engine.callbacks import Callbacks
from agenteval_nb.engine.case import plan_metric
from agenteval_nb.engine.options import EngineOptions
from agenteval_nb.evaluators.base import EvaluationContext
from agenteval_nb.evaluators.registry import Registry
from agenteval_nb.io import ModelCases, as_source, open_evalset, save_result

METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {
                "defaultStrategy": {"name": {}, "arguments": {"ignoreTree": {"request_id": True}}}
            }
        },
    },
    {
        "metricName": "final_response_avg_score",
        "threshold": 0.5,
        "criterion": {
            "finalResponse": {"text": {"matchStrategy": "contains", "caseInsensitive": True}}
        },
    },
]


def _tool(i: int, **arguments) -> dict:
    return {
        "id": f"call-{i}",
        "name": f"tool_{i % 3}",
        "arguments": {"query": f"q{i}", "request_id": f"r{i}", **arguments},
        "result": {"value": i / 7, "items": [i, i + 1]},
    }


def _with_tools(case: dict, expected: list[list[dict]], actual: list[list[dict]]) -> dict:
    for turn, tools in zip(case["conversation"], expected, strict=True):
        turn["tools"] = tools
    for turn, tools in zip(case["actualConversation"], actual, strict=True):
        turn["tools"] = tools
    return case


def _corpus() -> list[dict]:
    """Passing, failing, reordered, changed arguments, missing fields, odd types, unicode, huge
    ints, context messages, multi-turn and a case that does not validate."""
    tools = [_tool(1), _tool(2, options={"unit": "c", "tags": ["a", "b"]})]
    cases = [
        _with_tools(trace_case("pass", ["The answer"], ["the ANSWER."]), [tools], [tools]),
        _with_tools(trace_case("fail", ["yes"], ["no"]), [tools], [tools[:1]]),
        _with_tools(
            trace_case("reordered", ["a"], ["a"]), [tools], [list(reversed(copy.deepcopy(tools)))]
        ),
        _with_tools(
            trace_case("changed-args", ["a"], ["a"]),
            [[_tool(1)]],
            [[_tool(1, query="other")]],
        ),
        _with_tools(
            trace_case("ignored-arg", ["a"], ["a"]),
            [[_tool(4)]],
            [[{**_tool(4), "arguments": {**_tool(4)["arguments"], "request_id": "x"}}]],
        ),
        trace_case("no-final", [None], ["something"]),  # expected turn without finalResponse
        _with_tools(
            trace_case("odd-types", ["1"], ["1"]),
            [[{"id": "t", "name": "n", "arguments": [1, 2.5, None, True, {}], "result": None}]],
            [[{"id": "t", "name": "n", "arguments": [1, 2.5, None, True, {}], "result": None}]],
        ),
        _with_tools(
            trace_case("unicode", ["héllo <b>&</b> \u2028 😀"], ["HÉLLO <b>&</b> \u2028 😀!"]),
            [[_tool(5, text='é\u2029<>&\x1f"\\')]],
            [[_tool(5, text='é\u2029<>&\x1f"\\')]],
        ),
        _with_tools(
            trace_case("huge-ints", ["n"], ["n"]),
            [[_tool(6, big=123456789012345678901234567890, exp=1e21, tiny=5e-324)]],
            [[_tool(6, big=123456789012345678901234567890, exp=1e21, tiny=5e-324)]],
        ),
        trace_case(
            "context",
            ["ok"],
            ["ok"],
            contextMessages=[{"role": "system", "content": "be brief"}],
        ),
        _with_tools(
            trace_case("multi-turn", ["one", "two", "three"], ["one", "2", "three"]),
            [[_tool(7)], [], [_tool(8), _tool(9)]],
            [[_tool(7)], [], [_tool(9), _tool(8)]],
        ),
        trace_case("count-mismatch", ["a", "b"], ["a"]),
        trace_case("extra-keys", ["a"], ["a"], metaData={"owner": "qa", "n": 3}),
        {**trace_case("bad", ["a"], ["a"]), "conversation": "not a list"},
    ]
    cases[5]["conversation"][0].pop("finalResponse", None)
    return cases


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("bulk") / "corpus.evalset.json"
    path.write_text(json.dumps(evalset(*_corpus())), encoding="utf-8")
    return path


def _numbered_sessions():
    counter = itertools.count()
    return lambda: f"session-{next(counter)}"


def _evaluated(src, **options):
    """``src`` evaluated with the corpus metrics, two runs and numbered sessions unless
    ``options`` say otherwise."""
    options = {"num_runs": 2, "session_id_factory": _numbered_sessions(), **options}
    return ae.evaluate(src, ae.load_metrics(METRICS), progress=False, **options)


@pytest.fixture(scope="module")
def run(corpus_path):
    return _evaluated(corpus_path)


@pytest.fixture(scope="module")
def model_run(corpus_path):
    """The same evaluation on the model path for every case (a case aggregator of its own
    keeps the bulk path out)."""
    return _evaluated(corpus_path, case_aggregator=lambda data: default_case_aggregator(data))


_PER_RUN = re.compile(rb'"(evalSetResultId|evalSetResultName|creationTimestamp)": [^\n]*')


def test_the_bulk_path_writes_the_bytes_of_the_model_path(run, model_run, tmp_path):
    bulk = run.save(tmp_path / "bulk.evalset_result.json").read_bytes()
    model = model_run.save(tmp_path / "model.evalset_result.json").read_bytes()
    assert _PER_RUN.sub(b"", bulk) == _PER_RUN.sub(b"", model)


def test_the_bulk_path_builds_the_tables_of_the_model_path(run, model_run):
    for kind in BUILDERS:
        assert run.record.table(kind).equals(model_run.record.table(kind), null_equal=True), kind


def test_the_bulk_path_takes_the_plain_cases_and_leaves_the_others(corpus_path):
    source = open_evalset(corpus_path)
    metrics = ae.load_metrics(METRICS)
    registry = Registry.default()
    plan = [plan_metric(m, registry.lookup(m)) for m in metrics]
    options = EngineOptions(registry=registry, context=EvaluationContext(), sink=RecordBuilder())
    chosen = bulk_metrics(options, plan)
    assert chosen is not None
    taken = {
        eval_id
        for index, eval_id in enumerate(source.eval_ids)
        if bulk_case(chosen, source.plain(index), "set", 1, "s", options.context.hooks)
    }
    # not taken: an int beyond 64 bits, case contextMessages, turn counts that differ, an
    # unknown key, a case that does not validate
    assert taken == {
        "pass", "fail", "reordered", "changed-args", "ignored-arg", "no-final", "odd-types",
        "unicode", "multi-turn",
    }  # fmt: skip
    without_sink = EngineOptions(registry=registry, context=EvaluationContext())
    assert bulk_metrics(without_sink, plan) is None


def test_the_corpus_covers_passing_failing_and_broken_cases(run):
    statuses = dict(zip(run.record.table("cases")["eval_id"], run.record.table("cases")["status"]))
    assert statuses["pass"] == statuses["reordered"] == "passed"  # unordered by default
    assert statuses["fail"] == statuses["changed-args"] == statuses["count-mismatch"] == "failed"
    assert statuses["bad"] == "failed"
    assert run.streaming


def test_the_streamed_file_is_the_bytes_of_the_model_path(run, tmp_path):
    streamed = run.save(tmp_path / "streamed.evalset_result.json").read_bytes()
    model = save_result(whole_result(run.record), tmp_path / "model.evalset_result.json")
    assert streamed == model.read_bytes()


def test_the_streamed_tables_are_the_model_paths_tables(run):
    record = run.record  # (its eval sets hold a case that does not validate; only case
    # rubrics are read from them, and the corpus has none)
    model = RunRecord(result=whole_result(record), metrics=record.metrics)
    for kind in BUILDERS:
        assert record.table(kind).equals(model.table(kind), null_equal=True), kind


def _plan(metrics):
    registry = Registry.default()
    return [plan_metric(m, registry.lookup(m)) for m in metrics]


def _options(**fields) -> EngineOptions:
    fields.setdefault("sink", RecordBuilder())
    return EngineOptions(registry=Registry.default(), context=EvaluationContext(), **fields)


def _with_compare_name(metrics):
    changed = [m.model_copy(deep=True) for m in metrics]
    changed[1].criterion.final_response.compare_name = "mine"
    return changed


def _callbacks():
    callbacks = Callbacks()
    callbacks.register("BeforeEvaluateCase", lambda event: None)
    return callbacks


@pytest.mark.parametrize(
    ("options", "metrics"),
    [
        (lambda: _options(callbacks=_callbacks()), lambda m: m),
        (lambda: _options(case_aggregator=lambda data: default_case_aggregator(data)), lambda m: m),
        (lambda: _options(), _with_compare_name),
        (lambda: _options(), lambda m: [*m, ae.EvalMetric(metric_name="llm_final_response")]),
    ],
    ids=["callbacks", "own-case-aggregator", "compare-name", "an-llm-metric"],
)
def test_the_bulk_path_is_not_chosen_when_a_rule_only_the_model_path_applies(options, metrics):
    chosen = metrics(ae.load_metrics(METRICS))
    assert bulk_metrics(options(), _plan(chosen)) is None
    assert bulk_metrics(_options(), _plan(ae.load_metrics(METRICS))) is not None


# -- the same corpus in hand: an EvalSet a user loaded (and edited), a dict ------------------


def _valid_corpus() -> list[dict]:
    return [case for case in _corpus() if case["evalId"] != "bad"]


@pytest.fixture(scope="module")
def valid_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("bulk") / "valid.evalset.json"
    path.write_text(json.dumps(evalset(*_valid_corpus())), encoding="utf-8")
    return path


def _saved(src, tmp_path, name: str, **options) -> bytes:
    """The result file of ``src`` evaluated with the corpus metrics (two runs, numbered
    sessions), without its per-run fields."""
    run = _evaluated(src, **options)
    return _PER_RUN.sub(b"", run.save(tmp_path / f"{name}.evalset_result.json").read_bytes())


def _model_path() -> dict:
    return {"case_aggregator": lambda data: default_case_aggregator(data)}


IN_HAND = {
    "evalset": lambda path: ae.load_evalset(path),
    "dict": lambda path: json.loads(path.read_text("utf-8")),
}


@pytest.mark.parametrize("in_hand", IN_HAND.values(), ids=IN_HAND.keys())
def test_an_evalset_or_dict_in_hand_writes_the_bytes_of_its_file(in_hand, valid_path, tmp_path):
    from_file = _saved(valid_path, tmp_path, "file")
    assert _saved(in_hand(valid_path), tmp_path, "in-hand") == from_file
    assert _saved(in_hand(valid_path), tmp_path, "in-hand-model", **_model_path()) == from_file


@pytest.mark.parametrize("in_hand", IN_HAND.values(), ids=IN_HAND.keys())
def test_an_evalset_or_dict_in_hand_builds_the_tables_of_its_file(in_hand, valid_path):
    def tables(src):
        run = _evaluated(src)
        return {kind: run.record.table(kind) for kind in BUILDERS}

    from_file, from_hand = tables(valid_path), tables(in_hand(valid_path))
    for kind in BUILDERS:
        assert from_hand[kind].equals(from_file[kind], null_equal=True), kind


def test_an_evalset_in_hand_takes_the_bulk_path_for_the_cases_its_file_does(valid_path):
    chosen = bulk_metrics(_options(), _plan(ae.load_metrics(METRICS)))
    assert chosen is not None
    hooks = EvaluationContext().hooks

    def taken(source) -> list[str]:
        return [
            eval_id
            for index, eval_id in enumerate(source.eval_ids)
            if bulk_case(chosen, source.plain(index), "set", 1, "s", hooks)
        ]

    in_hand = as_source(ae.load_evalset(valid_path))
    assert isinstance(in_hand, ModelCases)
    assert taken(in_hand) == taken(open_evalset(valid_path))
    assert "pass" in taken(in_hand)


def test_a_case_in_hand_the_bulk_path_cannot_take_is_not_written_out(valid_path, monkeypatch):
    """The model says which cases the bulk path may take (``bulk.takes`` reads models too):
    the others never have their text built and decoded for nothing."""
    evalset = ae.load_evalset(valid_path)
    taken = {c.eval_id for c in evalset.eval_cases if takes(c)}
    assert taken and len(taken) < len(evalset.eval_cases)
    asked: list[str] = []
    plain = ModelCases.plain

    def counted(self, index):
        asked.append(self.eval_ids[index])
        return plain(self, index)

    monkeypatch.setattr(ModelCases, "plain", counted)
    ae.evaluate(evalset, ae.load_metrics(METRICS), progress=False)
    assert set(asked) == taken


def _edited(path):
    """The corpus in hand, case ``pass`` edited to answer something else."""
    evalset = ae.load_evalset(path)
    case = next(c for c in evalset.eval_cases if c.eval_id == "pass")
    case.actual_conversation[0].final_response.content = "something else"
    return evalset


def test_an_edited_evalset_is_scored_as_edited(valid_path, tmp_path):
    run = _evaluated(_edited(valid_path), num_runs=1)
    statuses = dict(zip(run.record.table("cases")["eval_id"], run.record.table("cases")["status"]))
    assert statuses["pass"] == "failed"
    turn = run.result.eval_case_results[0].eval_metric_result_per_invocation[0]
    assert turn.actual_invocation.final_response.content == "something else"
    model = _evaluated(_edited(valid_path), num_runs=1, **_model_path())
    saved = run.save(tmp_path / "edited.json").read_bytes()
    assert _PER_RUN.sub(b"", saved) == _PER_RUN.sub(
        b"", model.save(tmp_path / "model.json").read_bytes()
    )


def test_run_result_is_the_saved_files_result_and_the_model_paths(valid_path, tmp_path):
    """``run.result`` decodes the bulk path's texts without key folding and the others with
    it: either way it is what loading the saved file gives, and the model path's result."""
    es = ae.load_evalset(valid_path)
    odd = trace_case("odd-key", ["a"], ["a"])
    odd["actualConversation"][0]["FinalResponse"] = odd["actualConversation"][0].pop(
        "finalResponse"
    )  # kept as an unknown key in hand; folded when the saved file is loaded
    es.eval_cases.append(ae.EvalCase.model_validate(odd))

    run = _evaluated(es)
    assert 0 < len(run.record._details.plain) < len(run.record._details)
    path = run.save(tmp_path / "run.evalset_result.json")
    result = run.result
    assert result == ae.load_result(path)
    model = _evaluated(es, **_model_path()).result
    assert result.eval_case_results == model.eval_case_results
    assert result.summary == model.summary
