"""ae.experiment: agent and recorded variants side by side, refusal of a recorded run of
another evaluation, save / load, the front door's frames."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest
from _builders import METRIC, ExactAnswer, registry_with, turn

import agenteval_nb as ae

ANSWERS = {"q1": "a1", "q2": "a2", "q3": "a3"}


def default_case(eval_id: str, question: str) -> dict:
    return {
        "evalId": eval_id,
        "sessionInput": {"appName": "app", "userId": "u"},
        "conversation": [turn(question, ANSWERS[question])],
    }


EVALSET = {
    "evalSetId": "qa",
    "evalCases": [default_case(f"c{i}", f"q{i}") for i in (1, 2, 3)],
}


def right(text: str) -> str:
    return ANSWERS[text]


def half_right(text: str) -> str:
    return ANSWERS[text] if text != "q3" else "no idea"


class Counting:
    """An agent that counts its turns."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> str:
        self.calls += 1
        return "no idea"


def run_experiment(variants: dict, **kwargs):
    kwargs.setdefault("progress", False)
    return ae.experiment(
        EVALSET, [METRIC], variants=variants, registry=registry_with(ExactAnswer()), **kwargs
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    run = ae.evaluate(
        EVALSET, [METRIC], agent=half_right, registry=registry_with(ExactAnswer()), progress=False
    )
    return run.save(tmp_path_factory.mktemp("rec") / "last_week.evalset_result.json")


@pytest.fixture(scope="module")
def exp(recorded):
    return run_experiment(
        {"right": right, "last_week": str(recorded), "wrong": Counting()}, num_runs=2
    )


def test_variants_keep_their_order_and_are_runs(exp):
    assert exp.variants == ["right", "last_week", "wrong"]
    assert isinstance(exp["right"], ae.EvalRun)
    assert exp["right"].num_runs == 2
    assert exp["last_week"].num_runs == 1
    with pytest.raises(KeyError, match="no variant 'nope'"):
        exp["nope"]


def test_leaderboard_ranks_the_variants(exp):
    board = exp.leaderboard_df(backend="polars")
    overall = board.filter(pl.col("metric_name") == "overall")
    assert overall["variant"].to_list() == ["right", "last_week", "wrong"]
    assert overall["pass_rate"].to_list() == pytest.approx([1.0, 2 / 3, 0.0])
    assert overall["case_runs"].to_list() == [6, 3, 6]
    # k is the experiment's num_runs: the recorded run of one run has no pass@2
    assert math.isnan(overall.filter(pl.col("variant") == "last_week")["pass_at_k"][0])


def test_stacked_frames_and_matrix(exp):
    cases = exp.cases_df(backend="polars")
    assert cases.columns[0] == "variant"
    assert cases.group_by("variant", maintain_order=True).len().rows() == [
        ("right", 6),
        ("last_week", 3),
        ("wrong", 6),
    ]
    assert exp.metrics_df(backend="polars")["variant"].n_unique() == 3
    matrix = exp.matrix_df(backend="polars")
    assert matrix.rows() == [("c1", 1.0, 1.0, 0.0), ("c2", 1.0, 1.0, 0.0), ("c3", 1.0, 0.0, 0.0)]


def test_pairwise_is_compare_with_holm(exp):
    table = exp.pairwise_df(backend="polars")
    assert table.height == 3
    direct = ae.compare(exp["right"], exp["wrong"], backend="polars").stats
    row = table.filter(pl.col("variant_a") == "right", pl.col("variant_b") == "wrong")
    assert row["n_flipped"][0] == direct["n_flipped"][0] == 3
    assert row["mcnemar_exact_p"][0] == direct["mcnemar_exact_p"][0] == pytest.approx(0.25)


def test_a_recorded_run_of_another_eval_set_is_refused_before_any_agent_runs(tmp_path):
    other = dict(EVALSET, evalSetId="other")
    run = ae.evaluate(
        other, [METRIC], agent=right, registry=registry_with(ExactAnswer()), progress=False
    )
    agent = Counting()
    with pytest.raises(ValueError, match="variant 'old' was scored differently: eval set other"):
        run_experiment({"new": agent, "old": run})
    assert agent.calls == 0


def test_a_recorded_run_of_other_metrics_or_cases_is_refused(recorded):
    renamed = [{**METRIC, "metricName": "exact_answer"}, {"metricName": "x", "threshold": 1}]
    with pytest.raises(ValueError, match="metrics exact_answer"):
        ae.experiment(EVALSET, renamed, variants={"old": str(recorded)}, progress=False)
    with pytest.raises(ValueError, match="has cases not in the eval set: c3"):
        run_experiment({"old": str(recorded)}, case_ids=["c1", "c2"])


def test_save_and_load_round_trip(exp, tmp_path):
    exp["right"].info["agent_usage"] = {"prompt_tokens": 7, "completion_tokens": 3}
    folder = exp.save(tmp_path / "exp")
    manifest = json.loads((folder / "experiment.json").read_text())
    assert [v["file"] for v in manifest["variants"]] == [
        "right.evalset_result.json",
        "last_week.evalset_result.json",
        "wrong.evalset_result.json",
    ]
    loaded = ae.load_experiment(folder)
    assert loaded.variants == exp.variants
    before = exp.leaderboard_df(backend="polars")
    after = loaded.leaderboard_df(backend="polars")
    assert after.equals(before)
    assert after["agent_tokens"][0] == 10


def test_load_experiment_names_a_bad_manifest(tmp_path):
    (tmp_path / "experiment.json").write_text('{"variants": 3}')
    with pytest.raises(ValueError, match=r"experiment\.json: expected"):
        ae.load_experiment(tmp_path)


def test_load_experiment_reads_no_file_outside_its_folder(exp, tmp_path):
    folder = exp.save(tmp_path / "exp")
    manifest = json.loads((folder / "experiment.json").read_text())
    first = manifest["variants"][0]["file"]
    outside = tmp_path / "elsewhere.evalset_result.json"
    (folder / first).rename(outside)
    link = folder / "link.evalset_result.json"
    link.symlink_to(outside)
    for name in ("../elsewhere.evalset_result.json", str(outside), link.name):
        manifest["variants"][0]["file"] = name
        (folder / "experiment.json").write_text(json.dumps(manifest))
        with pytest.raises(ae.FormatError) as info:
            ae.load_experiment(folder)
        text = str(info.value)
        assert info.value.json_path == "$.variants[0].file", name
        assert str(folder / "experiment.json") in text and repr(name) in text


def test_load_experiment_reads_no_metrics_file_outside_its_folder(exp, tmp_path):
    folder = exp.save(tmp_path / "exp")
    manifest = json.loads((folder / "experiment.json").read_text())
    assert manifest.get("metrics"), "the saved experiment names its metrics file"
    (folder / manifest["metrics"]).rename(tmp_path / "metrics.json")
    manifest["metrics"] = "../metrics.json"
    (folder / "experiment.json").write_text(json.dumps(manifest))
    with pytest.raises(ae.FormatError, match=r"\$\.metrics.*'\.\./metrics\.json'"):
        ae.load_experiment(folder)


def test_a_negative_or_nan_price_is_refused_before_any_agent_runs(tmp_path, exp):
    agent = Counting()
    with pytest.raises(ValueError, match=r"price_table\['mini'\]"):
        run_experiment({"new": agent}, price_table={"mini": (-1.0, 1.0)})
    assert agent.calls == 0
    with pytest.raises(ValueError, match=r"price_table\['mini'\]"):
        ae.evaluate(EVALSET, [METRIC], agent=agent, price_table={"mini": (1.0, math.nan)})
    assert agent.calls == 0
    with pytest.raises(ValueError, match=r"price_table\['mini'\]"):
        ae.Experiment(exp.runs, price_table={"mini": (math.inf, 0.0)})
    folder = exp.save(tmp_path / "exp")
    manifest = json.loads((folder / "experiment.json").read_text())
    manifest["price_table"] = {"mini": [0.1, -0.2]}
    (folder / "experiment.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"price_table\['mini'\]"):
        ae.load_experiment(folder)


def test_variant_files_are_safe_and_distinct():
    from agenteval_nb.experiments import variant_files

    assert variant_files(["a/b", "a?b", "mini+cot"]) == {
        "a/b": "a_b.evalset_result.json",
        "a?b": "a_b-2.evalset_result.json",
        "mini+cot": "mini+cot.evalset_result.json",
    }


def test_agent_variants_share_one_judge_client_each_with_its_own_usage(server):
    from agenteval_nb.testing.heuristic_judge import HEURISTIC_MODEL, heuristic_handler

    server.handler = heuristic_handler
    judged = {
        "metricName": "llm_final_response",
        "threshold": 1,
        "criterion": {
            "llmJudge": {
                "judgeModel": {
                    "providerName": "openai",
                    "modelName": HEURISTIC_MODEL,
                    "baseURL": server.base_url,
                    "apiKey": "test-key",
                }
            }
        },
    }
    exp = ae.experiment(
        EVALSET,
        [judged],
        variants={"right": right, "half": half_right},
        num_runs=2,
        cache=False,
        progress=False,
        price_table={HEURISTIC_MODEL: (1.0, 1.0)},
    )
    usages = [exp[name].info["judge_usage"] for name in exp.variants]
    assert [u["requests"] for u in usages] == [6, 6]  # each its own share, not the running total
    assert sum(u["requests"] for u in usages) == len(server.requests)
    board = exp.leaderboard_df(backend="polars").filter(pl.col("metric_name") == "overall")
    tokens = [u["prompt_tokens"] + u["completion_tokens"] for u in usages]
    assert board["judge_tokens"].to_list() == tokens
    assert board["cost"].to_list() == pytest.approx([t / 1e6 for t in tokens])


def test_export_html_of_an_experiment_is_one_offline_file(exp, tmp_path):
    path = ae.export_html(exp, tmp_path / "exp.html")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    for heading in ("Leaderboard", "Pairwise (Holm", "Figures", "Cases that differ"):
        assert heading in page
    assert page.count("<svg") == 3
    # c1, c2 fail only for "wrong", c3 also for "last_week": three differing cases, side by side
    assert page.count('class="ae-case-block"') == 3
    assert "<script" not in page and "http://" not in page and "https://" not in page
    few = ae.export_html(exp, tmp_path / "few.html", max_cases=1).read_text(encoding="utf-8")
    assert few.count('class="ae-case-block"') == 1
    assert "1 of 3 differing cases shown" in few


def test_inspect_an_experiment_shows_the_board_and_compares_two_variants(exp):
    inspector = ae.inspect(exp)
    assert "Leaderboard" in inspector.board.value
    assert all(name in inspector.board.value for name in exp.variants)
    # the two best variants first: "right" and "last_week" differ on c3 only
    assert (inspector.picker_a.value, inspector.picker_b.value) == ("right", "last_week")
    assert inspector.comparison.title.startswith("right vs last_week")
    assert inspector.comparison.visible[0].eval_id == "c3"
    view = inspector.choose("last_week", "wrong")
    assert view is inspector.children[2]
    assert view.title.startswith("last_week vs wrong")
    # flipped cases first: c1 and c2 pass for last_week and fail for wrong
    assert [row.eval_id for row in view.visible[:2]] == ["c1", "c2"]
    inspector.picker_b.value = "right"
    assert inspector.comparison.title.startswith("last_week vs right")
    with pytest.raises(KeyError, match="no variant 'x'"):
        inspector.choose("x", "right")


def test_the_experiment_inspector_has_a_static_view(exp):
    inspector = ae.inspect(exp)
    bundle = inspector._repr_mimebundle_()
    assert bundle["text/plain"] == "<experiment inspector: right vs last_week>"
    assert "Leaderboard" in bundle["text/html"] and "c3" in bundle["text/html"]


def test_repr_of_an_experiment(exp):
    assert repr(exp) == "Experiment(3 variants: right, last_week, wrong)"
    page = exp._repr_html_()
    assert page.index("right") < page.index("last_week") < page.index("wrong")
    # passed cases of all cases (3 cases × 2 runs each): the unit is said beside them
    assert "<td>right</td><td>3</td><td>3</td>" in page
    assert "<td>wrong</td><td>0</td><td>3</td>" in page
    assert "cases passed, runs averaged per case" in page


def test_each_agent_variant_has_its_own_labelled_progress_bars(capsys):
    run_experiment({"first": right, "second": half_right}, progress=True)
    err = capsys.readouterr().err
    assert "first: cases" in err and "first: inference" in err
    assert "second: cases" in err and "second: inference" in err


def test_agent_variants_report_inference_latency_and_keep_the_users_callbacks():
    seen: list[str] = []
    callbacks = ae.Callbacks().register(
        "AfterInferenceCase", lambda event: seen.append(event.eval_case_id)
    )
    exp = run_experiment({"a": right, "b": half_right}, num_runs=2, callbacks=callbacks)
    assert sorted(seen) == sorted(["c1", "c2", "c3"] * 4)  # 2 variants × 2 runs
    for name in exp.variants:
        assert len(exp[name].info["case_latency_s"]) == 6
    board = exp.leaderboard_df(backend="polars")
    assert (board["latency_p50_s"] <= board["latency_p95_s"]).all()
    assert board["latency_p50_s"].is_not_nan().all()


def test_recorded_variants_from_a_store_key_and_a_result_dict(recorded):
    from agenteval_nb.stores import InMemoryResultStore

    store = InMemoryResultStore()
    run = ae.load_run(recorded)
    result_id = store.save("app", run.result)
    as_dict = run.result.model_dump(by_alias=True, exclude_none=True)
    exp = run_experiment(
        {"by_id": result_id, "by_path": f"app/{result_id}", "as_dict": as_dict},
        result_store=store,
        app_name="app",
    )
    board = exp.leaderboard_df(backend="polars").filter(pl.col("metric_name") == "overall")
    assert board["pass_rate"].to_list() == pytest.approx([2 / 3] * 3)
    with pytest.raises(ValueError, match="needs app_name= or 'app/id'"):
        run_experiment({"x": "no-such-id"}, result_store=store)


def test_an_experiment_needs_a_variant():
    with pytest.raises(ValueError, match="at least one variant"):
        run_experiment({})


def test_compare_two_variants_by_name(exp):
    comparison = exp.compare("right", "wrong", backend="polars")
    assert (comparison.label_a, comparison.label_b) == ("right", "wrong")
    direct = ae.compare(exp["right"], exp["wrong"], backend="polars")
    assert comparison.stats.equals(direct.stats)
    with pytest.raises(KeyError, match="no variant"):
        exp.compare("right", "nope")


def test_inspect_a_one_variant_experiment_shows_that_variant():
    """A grid built one variant at a time: its first variant is inspected on its own."""
    single = run_experiment({"only": half_right})
    inspector = ae.inspect(single)
    assert "only" in inspector.board.value
    assert inspector.pickers.layout.display == "none"
    assert inspector.comparison.title == ae.inspect(single["only"]).title
    assert inspector.comparison.visible[0].eval_id == "c3"  # its failure first
    assert inspector._repr_mimebundle_()["text/plain"] == "<experiment inspector: only>"


def test_picking_one_variant_twice_shows_its_run(exp):
    inspector = ae.inspect(exp)
    view = inspector.choose("right", "right")
    assert view.title == ae.inspect(exp["right"]).title


def test_every_view_of_the_board_names_its_unit(exp, tmp_path):
    unit = "cases passed, runs averaged per case"
    page = ae.export_html(exp, tmp_path / "exp.html").read_text(encoding="utf-8")
    assert unit in page and unit in ae.inspect(exp).board.value and unit in exp._repr_html_()
    assert "<th>pass_rate_case_runs</th>" in page


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-2, ValueError), (1.5, TypeError)])
def test_judge_keywords_are_checked_alike_by_evaluate_and_experiment(bad, error):
    """One builder turns the judge keywords into settings for both front doors."""
    counting = Counting()
    with pytest.raises(error, match="judge_concurrency") as from_experiment:
        run_experiment({"a": counting}, judge_concurrency=bad)
    assert counting.calls == 0  # refused before any agent ran
    with pytest.raises(error, match="judge_concurrency") as from_evaluate:
        ae.evaluate(
            EVALSET,
            [METRIC],
            agent=counting,
            registry=registry_with(ExactAnswer()),
            judge_concurrency=bad,
            progress=False,
        )
    assert str(from_experiment.value) == str(from_evaluate.value)
