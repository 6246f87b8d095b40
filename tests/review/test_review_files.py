"""Review files: marks beside a result file, merged per mark, safe under concurrent writers."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import polars as pl
import pytest
from _review_builders import result

import agenteval_nb as ae
from agenteval_nb.analysis.columns import SCHEMAS
from agenteval_nb.errors import FormatError
from agenteval_nb.io.reviews import Mark, merge_marks, read_marks, review_path, write_marks


def _mark(eval_id: str, mark: str, ts: str, reviewer: str = "ana", metric=None) -> Mark:
    return Mark("set", eval_id, 1, metric, mark, None, reviewer, ts)


@pytest.fixture
def saved(tmp_path):
    rows = [("a", 1, {"m1": 1.0, "m2": 0.0}), ("b", 1, {"m1": 0.0, "m2": 0.0})]
    path = tmp_path / "r.evalset_result.json"
    ae.EvalRun(result=result(rows)).save(path)
    return path


def test_review_path_sits_beside_the_result(tmp_path):
    assert review_path(tmp_path / "x.evalset_result.json") == (
        tmp_path / "x.evalset_result.review.json"
    )


def test_the_later_mark_wins_per_key_not_per_file():
    old = [
        _mark("a", "pass", "2026-01-01T00:00:02.000000Z"),
        _mark("b", "fail", "2026-01-01T00:00:00.000000Z"),
    ]
    new = [
        _mark("a", "fail", "2026-01-01T00:00:01.000000Z"),
        _mark("b", "pass", "2026-01-01T00:00:03.000000Z"),
    ]
    merged = {m.eval_id: m.mark for m in merge_marks(old, new)}
    assert merged == {"a": "pass", "b": "pass"}


def test_marks_come_back_when_the_run_is_loaded_again(saved):
    run = ae.load_run(saved)
    run.mark("a", 1, "pass", note="looks right")
    run.mark("b", 1, "fail", metric="m2")
    again = ae.load_run(saved).reviews_df("polars")
    assert again.select("eval_id", "metric", "mark", "note").rows() == [
        ("a", None, "pass", "looks right"),
        ("b", "m2", "fail", None),
    ]
    assert again.schema == pl.Schema(SCHEMAS["reviews"])
    assert set(again["reviewer"]) == {ae.config.reviewer}
    assert review_path(saved).is_file()


def test_a_mark_of_an_unknown_case_or_metric_or_value_is_refused(saved):
    run = ae.load_run(saved)
    with pytest.raises(KeyError, match="no case result 'zz' in run 1"):
        run.mark("zz", 1, "pass")
    with pytest.raises(KeyError, match="no metric 'nope'"):
        run.mark("a", 1, "pass", metric="nope")
    with pytest.raises(ValueError, match="mark must be one of pass, fail, unsure"):
        run.mark("a", 1, "good")


def test_a_run_without_a_file_keeps_marks_in_memory_until_saved(tmp_path):
    run = ae.EvalRun(result=result([("a", 1, {"m1": 1.0})]))
    run.mark("a", 1, "unsure")
    assert run.reviews_df("polars")["mark"].to_list() == ["unsure"]
    path = run.save(tmp_path / "fresh.evalset_result.json")
    ae.review.save_marks(run.record, path)
    assert ae.load_run(path).reviews_df("polars")["mark"].to_list() == ["unsure"]


def test_saving_a_run_writes_the_marks_it_holds_beside_the_result(tmp_path):
    run = ae.EvalRun(result=result([("a", 1, {"m1": 1.0}), ("b", 1, {"m1": 0.0})]))
    run.mark("a", 1, "fail", note="wrong city")
    path = run.save(tmp_path / "fresh.evalset_result.json")
    assert review_path(path).is_file()
    run.mark("b", 1, "pass")  # the saved file is now the home of later marks too
    again = ae.load_run(path).reviews_df("polars").sort("eval_id")
    assert again.select("eval_id", "mark", "note").rows() == [
        ("a", "fail", "wrong city"),
        ("b", "pass", None),
    ]


def test_saving_a_run_without_marks_writes_no_review_file(saved):
    assert not review_path(saved).exists()


def test_the_reviewer_comes_from_config(saved, monkeypatch):
    monkeypatch.setattr(ae.config, "reviewer", "bo")
    assert ae.load_run(saved).mark("a", 1, "pass").reviewer == "bo"
    with pytest.raises(ValueError, match="reviewer"):
        ae.config.reviewer = ""


def test_a_bad_review_file_names_file_path_and_expectation(tmp_path):
    path = tmp_path / "r.review.json"
    path.write_text(json.dumps({"version": 1, "marks": [{"eval_id": 3}]}), encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_marks(path)
    assert info.value.source == str(path)
    assert info.value.json_path == "$.marks[0].eval_set_id"


def test_merge_combines_two_reviewers_and_reports_conflicts(tmp_path):
    a, b = tmp_path / "a.review.json", tmp_path / "b.review.json"
    write_marks(
        a,
        [
            _mark("x", "pass", "2026-01-01T00:00:01.000000Z", "ana"),
            _mark("y", "fail", "2026-01-01T00:00:01.000000Z", "ana"),
        ],
    )
    write_marks(
        b,
        [
            _mark("x", "fail", "2026-01-01T00:00:02.000000Z", "bo"),
            _mark("z", "pass", "2026-01-01T00:00:02.000000Z", "bo"),
        ],
    )
    merged = ae.review.merge(a, b)
    assert [(m.eval_id, m.mark) for m in merged.marks] == [
        ("x", "fail"),
        ("y", "fail"),
        ("z", "pass"),
    ]
    assert merged.conflicts.select(
        "eval_id", "mark_a", "reviewer_a", "mark_b", "reviewer_b", "kept"
    ).rows() == [("x", "pass", "ana", "fail", "bo", "fail")]
    out = merged.save(tmp_path / "merged.review.json")
    assert len(read_marks(out)) == 3


# -- files written by someone else (issue 31 §2) -------------------------------------------

_THEIRS = {"eval_set_id": "set", "eval_id": "a", "run_id": 1, "metric": None, "mark": "pass"}


def _their_mark(**more) -> dict:
    stamp = "2026-01-01T00:00:00.000000Z"
    return {**_THEIRS, "note": None, "reviewer": "ana", "timestamp": stamp, **more}


def test_a_newer_review_file_is_read_but_never_rewritten(saved):
    path = review_path(saved)
    document = {"version": 2, "scale": "5-point", "marks": [_their_mark(confidence=0.9)]}
    path.write_text(json.dumps(document), encoding="utf-8")
    before = path.read_bytes()
    run = ae.load_run(saved)
    assert run.reviews_df("polars")["mark"].to_list() == ["pass"]
    with pytest.raises(FormatError) as info:
        run.mark("b", 1, "fail")
    text = str(info.value)
    assert str(path) in text
    assert "version 2" in text and "version 1" in text
    with pytest.raises(FormatError, match="version 2"):
        write_marks(path, [_mark("b", "fail", "2026-01-02T00:00:00.000000Z")])
    assert path.read_bytes() == before


def test_a_newer_review_file_this_version_cannot_read_names_both_versions(tmp_path):
    path = tmp_path / "r.review.json"
    document = {"version": 3, "marks": [_their_mark(mark="maybe")]}
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_marks(path)
    assert info.value.json_path == "$.marks[0].mark"
    assert "a version 3 file; this toolkit reads version 1" in str(info.value)


def test_a_review_file_version_that_is_not_a_positive_integer_is_refused(tmp_path):
    path = tmp_path / "r.review.json"
    for version in ("2", 0, True):
        path.write_text(json.dumps({"version": version, "marks": []}), encoding="utf-8")
        with pytest.raises(FormatError) as info:
            read_marks(path)
        assert info.value.json_path == "$.version"


def test_unknown_fields_are_kept_when_marks_are_merged(tmp_path):
    path = tmp_path / "r.review.json"
    kept = _their_mark(eval_id="kept", confidence=0.8, labels=["tone"])
    replaced = _their_mark(eval_id="replaced", confidence=0.2)
    document = {"version": 1, "tool": {"name": "labeler"}, "marks": [kept, replaced]}
    path.write_text(json.dumps(document), encoding="utf-8")
    write_marks(path, [_mark("replaced", "fail", "2026-01-02T00:00:00.000000Z")])
    again = json.loads(path.read_text(encoding="utf-8"))
    assert again["tool"] == {"name": "labeler"}
    by_id = {m["eval_id"]: m for m in again["marks"]}
    assert by_id["kept"] == kept
    assert by_id["replaced"]["mark"] == "fail"
    assert "confidence" not in by_id["replaced"]  # the newer mark brings its own fields
    assert read_marks(path)[0].extra == {"confidence": 0.8, "labels": ["tone"]}
    merged = ae.review.merge(path, [_mark("other", "pass", "2026-01-03T00:00:00.000000Z")])
    out = merged.save(tmp_path / "merged.review.json")
    assert {"confidence": 0.8, "labels": ["tone"]}.items() <= json.loads(
        out.read_text(encoding="utf-8")
    )["marks"][0].items()


_WRITER = textwrap.dedent(
    """
    import sys
    from agenteval_nb.io.reviews import Mark, now_timestamp, write_marks
    path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        write_marks(path, [Mark("set", f"{who}-{i}", 1, None, "pass", None, who, now_timestamp())])
    """
)


def test_two_processes_writing_one_file_lose_no_mark(tmp_path):
    path = tmp_path / "shared.review.json"
    n = 40
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), who, str(n)])
        for who in ("left", "right")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    ids = {m.eval_id for m in read_marks(path)}
    assert ids == {f"{who}-{i}" for who in ("left", "right") for i in range(n)}
