"""Local-file stores: layout, file contents, locators, legacy files (SPEC §1.7)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenteval_nb import io
from agenteval_nb.errors import FormatError
from agenteval_nb.schema import EvalMetric
from agenteval_nb.stores import (
    LocalEvalSetStore,
    LocalMetricStore,
    LocalResultStore,
    Locator,
    NotFoundError,
    SuffixLocator,
)
from agenteval_nb.stores.locator import MAX_NAME_BYTES, inside, original_name, safe_name


def _all_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_default_layout_and_loadable_files(local, now):
    local.evalsets.create("app", "math")
    local.evalsets.add_case(
        "app",
        "math",
        {
            "evalId": "c1",
            "conversation": [{"userContent": {"role": "user", "content": "1+1<2 & 3>2"}}],
        },
    )
    local.metrics.add("app", "math", EvalMetric(metricName="final_response_avg_score", threshold=1))
    result_id = local.results.save("app", {"evalSetId": "math"})

    root = local.base_dir
    assert _all_files(root) == sorted(
        [
            "app/math.evalset.json",
            "app/math.metrics.json",
            f"app/{result_id}.evalset_result.json",
        ]
    )
    evalset = io.load_evalset(root / "app" / "math.evalset.json")
    assert evalset.eval_cases[0].conversation[0].creation_timestamp == now
    assert evalset == local.evalsets.get("app", "math")
    metrics = io.load_metrics(root / "app" / "math.metrics.json")
    assert [m.metric_name for m in metrics] == ["final_response_avg_score"]
    result = io.load_result(root / "app" / f"{result_id}.evalset_result.json")
    assert result.eval_set_result_id == result_id


def test_files_are_written_like_go(local):
    local.evalsets.create("app", "s")
    local.evalsets.add_case("app", "s", {"evalId": "<c&>"})
    text = (local.base_dir / "app" / "s.evalset.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert '\n  "evalSetId": "s"' in text  # 2-space indent
    assert "\\u003cc\\u0026\\u003e" in text  # Go's HTML escaping
    data = json.loads(text)
    assert data["evalCases"][0]["evalId"] == "<c&>"
    assert "description" not in data  # None is never written


def test_metrics_file_is_a_json_array(local):
    local.metrics.add("app", "s", EvalMetric(metricName="a", threshold=0.5))
    local.metrics.add("app", "s", EvalMetric(metricName="b"))
    data = json.loads((local.base_dir / "app" / "s.metrics.json").read_text())
    assert data == [{"metricName": "a", "threshold": 0.5}, {"metricName": "b"}]
    local.metrics.save_all("app", "s", [])
    assert json.loads((local.base_dir / "app" / "s.metrics.json").read_text()) == []


def test_api_key_is_never_written_by_the_metric_store(local):
    metric = {
        "metricName": "judge",
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m", "apiKey": "sk-do-not-write"}}},
    }
    local.metrics.add("app", "s", metric)
    local.metrics.update("app", "s", metric)
    local.metrics.save_all("other", "s", [metric])
    for path in local.base_dir.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "sk-do-not-write" not in text
            assert "apiKey" not in text
    assert local.metrics.get("app", "s", "judge").criterion.llm_judge.judge_model.api_key is None


def test_no_temp_files_are_left(local):
    local.evalsets.create("app", "s")
    for i in range(5):
        local.evalsets.add_case("app", "s", {"evalId": f"c{i}"})
    local.evalsets.update_case("app", "s", {"evalId": "c0"})
    local.evalsets.delete_case("app", "s", "c1")
    local.evalsets.save("app", {"evalSetId": "t"})
    local.metrics.add("app", "s", {"metricName": "m"})
    local.results.save("app", {"evalSetId": "s", "evalSetResultId": "r"})
    assert _all_files(local.base_dir) == [
        "app/r.evalset_result.json",
        "app/s.evalset.json",
        "app/s.metrics.json",
        "app/t.evalset.json",
    ]


def test_failed_write_leaves_the_old_file_and_no_temp_file(local, monkeypatch):
    local.evalsets.create("app", "s")
    path = local.base_dir / "app" / "s.evalset.json"
    before = path.read_text()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("rename failed")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="rename failed"):
        local.evalsets.add_case("app", "s", {"evalId": "c1"})
    monkeypatch.undo()
    assert path.read_text() == before
    assert _all_files(local.base_dir) == ["app/s.evalset.json"]
    assert local.evalsets.get("app", "s").eval_cases == []


def test_null_eval_cases_load_as_empty(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    (folder / "s.evalset.json").write_text('{"evalSetId": "s", "evalCases": null}')
    assert local.evalsets.get("app", "s").eval_cases == []
    local.evalsets.add_case("app", "s", {"evalId": "c1"})
    assert [c.eval_id for c in local.evalsets.get("app", "s").eval_cases] == ["c1"]


def test_go_written_files_are_readable(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    (folder / "s.evalset.json").write_text(
        json.dumps(
            {
                "evalSetId": "s",
                "name": "s",
                "evalCases": [
                    {
                        "evalId": "trace_calc_add",
                        "evalMode": "trace",
                        "actualConversation": [
                            {
                                "invocationId": "i1",
                                "userContent": {"role": "user", "content": "calc add 1 2"},
                                "tools": [{"id": "t", "name": "calc", "arguments": {"a": 1}}],
                                "creationTimestamp": 1760000000.123,
                            }
                        ],
                        "sessionInput": {"appName": "app", "userId": "u"},
                        "creationTimestamp": 1760000000.123,
                    }
                ],
                "creationTimestamp": 1760000000,
            },
            indent=2,
        )
    )
    (folder / "s.metrics.json").write_text(
        json.dumps([{"metricName": "tool_trajectory_avg_score", "threshold": 1}])
    )
    case = local.evalsets.get_case("app", "s", "trace_calc_add")
    assert case.is_trace
    assert case.actual_conversation[0].tools[0].arguments == {"a": 1}
    assert local.metrics.list("app", "s") == ["tool_trajectory_avg_score"]


def test_legacy_result_file_holding_a_json_string(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    inner = {"evalSetResultId": "old", "evalSetId": "math", "evalCaseResults": []}
    (folder / "old.evalset_result.json").write_text(json.dumps(json.dumps(inner)))
    assert local.results.list("app") == ["old"]
    result = local.results.get("app", "old")
    assert (result.eval_set_result_id, result.eval_set_id) == ("old", "math")


def test_malformed_file_is_a_format_error_not_not_found(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    (folder / "bad.evalset.json").write_text("{not json")
    with pytest.raises(FormatError) as info:
        local.evalsets.get("app", "bad")
    assert not isinstance(info.value, NotFoundError)
    assert "bad.evalset.json" in str(info.value)
    with pytest.raises(FormatError):
        local.evalsets.add_case("app", "bad", {"evalId": "x"})


def test_create_refuses_an_existing_file_even_if_malformed(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    (folder / "bad.evalset.json").write_text("{not json")
    with pytest.raises(ValueError):
        local.evalsets.create("app", "bad")
    assert (folder / "bad.evalset.json").read_text() == "{not json"


def test_list_rules_of_the_default_locator(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    for name in ("a.evalset.json", "a-b.evalset.json", "b.evalset.json"):
        (folder / name).write_text('{"evalSetId": "x"}')
    (folder / "dir.evalset.json").mkdir()  # directories are skipped
    (folder / "c.metrics.json").write_text("[]")  # other suffix
    (folder / "d.evalset.json.tmp").write_text("{}")  # temp file
    (folder / ".evalset.json").write_text("{}")  # nothing before the suffix
    # sorted by file name: "a-b.evalset.json" < "a.evalset.json" ('-' < '.')
    assert local.evalsets.list("app") == ["a-b", "a", "b"]
    assert local.metrics.list("app", "c") == []  # an empty array


def test_list_of_a_missing_folder_is_empty(tmp_path):
    assert SuffixLocator(".evalset.json").list(tmp_path / "nowhere", "app") == []
    assert LocalEvalSetStore(tmp_path / "nowhere").list("app") == []


UNSAFE_NAMES = ["a/b", "..", ".", "a\\b", "/etc/passwd", "../../x", "x\x00y", "tab\there", "\ud83d"]


@pytest.mark.parametrize("bad", UNSAFE_NAMES)
def test_unsafe_ids_and_app_names_stay_inside_the_folder_and_round_trip(local, bad):
    """Ids are data: they are escaped into one file name (with a warning), never refused after
    the work is done, and never leave the store folder."""
    with pytest.warns(UserWarning, match="not a safe file name"):
        local.evalsets.create("app", bad)
    with pytest.warns(UserWarning, match="not a safe file name"):
        local.evalsets.create(bad, "s")
    with pytest.warns(UserWarning, match="not a safe file name"):
        saved = local.results.save(bad, {"evalSetId": bad, "evalSetResultId": bad})
    assert saved == bad
    assert local.evalsets.list("app") == [bad]
    assert local.evalsets.get("app", bad).eval_set_id == bad
    assert local.evalsets.list(bad) == ["s"]
    assert local.results.list(bad) == [bad]
    assert local.results.get(bad, bad).eval_set_result_id == bad
    written = [p for p in local.base_dir.parent.rglob("*") if p.is_file()]
    assert written and all(p.resolve().is_relative_to(local.base_dir.resolve()) for p in written)
    assert all(p.parent.parent == local.base_dir for p in written)  # <base>/<app>/<file>


def test_generated_result_id_from_an_unsafe_eval_set_id_is_saved(local):
    with pytest.warns(UserWarning):
        result_id = local.results.save("../app", {"evalSetId": "../../etc/x"})
    assert local.results.list("../app") == [result_id]
    assert local.results.get("../app", result_id).eval_set_id == "../../etc/x"


def test_safe_name_is_reversible_and_keeps_plain_names():
    for value in ["plain-id_1.v2", "a%41", "a%zz", "é😀", "a/b", "%2F", "..", "\x7f"]:
        assert original_name(safe_name(value)) == value
    for value in ["plain-id_1.v2", "a%zz", "é😀", "calc_trace"]:
        assert safe_name(value) == value  # names Go writes for plain ids are unchanged
    long = "x" * 500
    assert len(safe_name(long).encode()) <= MAX_NAME_BYTES
    assert safe_name(long) != safe_name(long + "y")
    with pytest.raises(ValueError):
        safe_name("")


def test_a_custom_locator_cannot_place_files_outside_the_folder(tmp_path):
    class Escaping:
        def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
            return base_dir / ".." / f"{item_id}.json"

        def list(self, base_dir: Path, app_name: str) -> list[str]:
            return []

    store = LocalResultStore(tmp_path / "store", locator=Escaping())
    with pytest.raises(ValueError, match="outside the store folder"):
        store.save("app", {"evalSetId": "s", "evalSetResultId": "r"})
    assert not list(tmp_path.rglob("*.json"))


def test_inside_is_below_the_folder_once_links_and_dots_are_followed(tmp_path):
    folder = tmp_path / "exp"
    (folder / "sub").mkdir(parents=True)
    (folder / "out").symlink_to(tmp_path)
    (folder / "in").symlink_to(folder / "sub")
    assert inside(folder, folder / "sub" / "a.json")
    assert inside(folder, folder / "in" / "a.json")
    assert inside(folder, folder / "sub" / ".." / "a.json")
    for escaping in ("../a.json", str(tmp_path / "a.json"), "out/a.json", ".", "sub/../.."):
        assert not inside(folder, folder / escaping), escaping
    assert not inside(folder, tmp_path / "exp2" / "a.json")  # a sibling sharing the prefix


class CustomLocator:
    """``<base>/<app>/custom-<id>.evalset.json``, as in the framework's documentation."""

    prefix = "custom-"
    suffix = ".evalset.json"

    def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
        return base_dir / app_name / f"{self.prefix}{item_id}{self.suffix}"

    def list(self, base_dir: Path, app_name: str) -> list[str]:
        folder = base_dir / app_name
        if not folder.is_dir():
            return []
        return [
            p.name[len(self.prefix) : -len(self.suffix)]
            for p in sorted(folder.iterdir())
            if p.is_file() and p.name.startswith(self.prefix) and p.name.endswith(self.suffix)
        ]


def test_custom_locator(tmp_path, now):
    locator = CustomLocator()
    assert isinstance(locator, Locator)
    store = LocalEvalSetStore(tmp_path, locator=locator)
    assert store.list("app") == []
    store.create("app", "s1")
    store.add_case("app", "s1", {"evalId": "c1"})
    (tmp_path / "app" / "plain.evalset.json").write_text('{"evalSetId": "plain"}')
    assert (tmp_path / "app" / "custom-s1.evalset.json").is_file()
    assert store.path("app", "s1") == tmp_path / "app" / "custom-s1.evalset.json"
    assert store.list("app") == ["s1"]
    assert [c.eval_id for c in store.get("app", "s1").eval_cases] == ["c1"]
    store.delete("app", "s1")
    assert store.list("app") == []
    assert LocalEvalSetStore(tmp_path).list("app") == ["plain"]


def test_custom_locator_for_results(tmp_path):
    class ResultsElsewhere:
        def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
            return base_dir / "results" / app_name / f"{item_id}.json"

        def list(self, base_dir: Path, app_name: str) -> list[str]:
            folder = base_dir / "results" / app_name
            return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []

    store = LocalResultStore(tmp_path, locator=ResultsElsewhere())
    result_id = store.save("app", {"evalSetId": "s"})
    assert (tmp_path / "results" / "app" / f"{result_id}.json").is_file()
    assert store.list("app") == [result_id]


def test_base_dir_defaults_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = LocalEvalSetStore()
    store.create("app", "s")
    assert (tmp_path / "app" / "s.evalset.json").is_file()
    assert LocalMetricStore().list("app", "s") == []
    assert LocalResultStore().list("app") == []


def test_two_stores_on_one_folder_see_each_others_writes(tmp_path):
    first, second = LocalEvalSetStore(tmp_path), LocalEvalSetStore(str(tmp_path))
    first.create("app", "s")
    second.add_case("app", "s", {"evalId": "c1"})
    assert [c.eval_id for c in first.get("app", "s").eval_cases] == ["c1"]


def test_deleting_a_file_behind_the_store_is_not_found(local):
    local.evalsets.create("app", "s")
    (local.base_dir / "app" / "s.evalset.json").unlink()
    with pytest.raises(NotFoundError):
        local.evalsets.get("app", "s")
    assert local.evalsets.list("app") == []


def test_repr_names_the_folder(local):
    assert str(local.base_dir) in repr(local.evalsets)


def test_case_edits_go_back_to_the_file_that_was_read(local):
    folder = local.base_dir / "app"
    folder.mkdir(parents=True)
    (folder / "renamed.evalset.json").write_text('{"evalSetId": "original", "evalCases": []}')
    local.evalsets.add_case("app", "renamed", {"evalId": "c1"})
    assert _all_files(local.base_dir) == ["app/renamed.evalset.json"]
    stored = local.evalsets.get("app", "renamed")
    assert stored.eval_set_id == "original"  # content is not rewritten
    assert [c.eval_id for c in stored.eval_cases] == ["c1"]
