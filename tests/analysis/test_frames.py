"""Frames of a run: one row per level, ids, values from the wire model and the extras."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from _analysis_builders import LABELS, RUBRICS, rich_run

import agenteval_nb as ae
from agenteval_nb.analysis import frames
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.runs import load_run
from agenteval_nb.schema import EvalSetResult

KINDS = ["cases", "metrics", "invocations", "rubrics", "samples", "logprobs"]


def df(run: EvalRun, kind: str) -> pl.DataFrame:
    return getattr(run, f"{kind}_df")(backend="polars")


@pytest.fixture(scope="module")
def run() -> EvalRun:
    return rich_run()


def test_row_counts_per_level(run):
    # 2 runs × 3 cases; turns 2+2+1 per run; 3 metrics; judge: 2 rubrics, 3 samples (+1 extra
    # call once); verifier: 2 samples × 2 candidates × 20 labels per turn
    assert {kind: df(run, kind).height for kind in KINDS} == {
        "cases": 6,
        "metrics": 18,
        "invocations": 30,
        "rubrics": 20,
        "samples": 31,
        "logprobs": 800,
    }


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_the_documented_one(run, kind):
    assert df(run, kind).schema == pl.Schema(frames.SCHEMAS[kind])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_empty_run_has_columns_and_no_rows(kind, backend):
    empty = EvalRun(result=EvalSetResult())
    out = getattr(empty, f"{kind}_df")(backend=backend)
    assert len(out) == 0
    assert list(out.columns) == list(frames.SCHEMAS[kind])
    if backend == "polars":
        assert out.schema == pl.Schema(frames.SCHEMAS[kind])
    else:
        expected = pl.DataFrame(schema=frames.SCHEMAS[kind]).to_pandas().dtypes
        assert out.dtypes.equals(expected)


def test_backend_default_follows_config(run, monkeypatch):
    monkeypatch.setattr(ae.config, "backend", "polars")
    assert isinstance(run.cases_df(), pl.DataFrame)
    monkeypatch.setattr(ae.config, "backend", "pandas")
    assert isinstance(run.cases_df(), pd.DataFrame)
    with pytest.raises(ValueError, match="backend"):
        run.cases_df(backend="arrow")


def test_pandas_view_has_the_same_values(run):
    pandas_df = run.invocations_df(backend="pandas")
    polars_df = run.invocations_df(backend="polars")
    assert list(pandas_df.columns) == polars_df.columns
    assert pandas_df["score"].tolist() == polars_df["score"].to_list()
    assert [list(x) for x in pandas_df["expected_tools"]] == polars_df["expected_tools"].to_list()


def test_cases_df_values(run):
    cases = df(run, "cases")
    first = cases.row(0, named=True)
    assert first["run_id"] == 1 and first["eval_id"] == "c1" and first["eval_set_id"] == "set"
    assert first["n_turns"] == 2 and first["n_metrics"] == 3
    assert first["session_id"] == "session-c1-1" and first["user_id"] == "user-1"
    assert cases.filter(pl.col("eval_id") == "c3")["n_turns"].to_list() == [1, 1]
    # the builders leave the case score unset: read as the default aggregator's 1 / 0
    expected = [1.0 if s == "passed" else 0.0 for s in cases["status"]]
    assert cases["score"].to_list() == expected
    assert set(cases["status"]) <= {"passed", "failed", "not_evaluated"}


def test_metrics_df_values(run):
    metrics = df(run, "metrics").filter((pl.col("run_id") == 1) & (pl.col("eval_id") == "c1"))
    assert metrics["metric_name"].to_list() == ["exact", "judge", "verifier"]
    assert metrics["evaluator"].to_list() == [
        "final_response_avg_score",
        "llm_rubric_response",
        "llm_verifier_pairwise",
    ]
    # c1 run 1: turn 0 good, turn 1 bad → exact mean 0.5 < 1.0, judge mean 0.5 ≥ 0.5
    assert metrics["score"].to_list() == [0.5, 0.5, 0.6]
    assert metrics["threshold"].to_list() == [1.0, 0.5, 0.5]
    assert metrics["status"].to_list() == ["failed", "passed", "passed"]


def test_invocations_df_turn_and_judge_columns(run):
    inv = df(run, "invocations")
    turn0 = inv.filter(
        (pl.col("run_id") == 1) & (pl.col("eval_id") == "c1") & (pl.col("invocation_index") == 0)
    )
    assert turn0["metric_name"].to_list() == ["exact", "judge", "verifier"]
    row = turn0.row(1, named=True)
    assert row["invocation_id"] == "c1-0"
    assert (row["user_text"], row["actual_text"], row["expected_text"]) == ("q0", "ok", "ok")
    assert row["actual_tools"] == ["search"] and row["expected_tools"] == ["search", "calc"]
    assert (row["score"], row["status"], row["threshold"]) == (0.75, "passed", 0.5)
    assert row["reason"] == "judge says 0.75"
    assert (row["judge_model"], row["heuristic"]) == ("judge-model", False)
    assert (row["n_samples"], row["cache_hits"]) == (3, 1)
    # token and latency sums include the extra (segmentation) call of the first judgement
    assert (row["prompt_tokens"], row["completion_tokens"]) == (100 + 101 + 102 + 7, 33 + 3)
    assert row["latency_ms"] == pytest.approx(5 + 10 + 15 + 1.5)
    exact = turn0.row(0, named=True)
    assert exact["judge_model"] is None and exact["n_samples"] is None
    assert exact["reason"] is None


def test_invocations_df_token_sums_match_samples_df(run):
    inv = df(run, "invocations").filter(pl.col("metric_name") == "judge")
    per_turn = (
        df(run, "samples")
        .group_by(["run_id", "eval_id", "invocation_index"])
        .agg(pl.col("prompt_tokens").sum(), pl.col("latency_ms").sum())
    )
    joined = inv.join(per_turn, on=["run_id", "eval_id", "invocation_index"], suffix="_s")
    assert joined.height == inv.height == 10
    assert joined["prompt_tokens"].to_list() == joined["prompt_tokens_s"].to_list()
    assert joined["latency_ms"].to_list() == pytest.approx(joined["latency_ms_s"].to_list())


def test_rubrics_df_has_scores_and_texts(run):
    rubrics = df(run, "rubrics")
    assert set(rubrics["rubric_id"]) == {"r1", "r2"}
    assert dict(zip(rubrics["rubric_id"], rubrics["rubric_text"], strict=True)) == dict(RUBRICS)
    assert rubrics.filter(pl.col("rubric_id") == "r2")["score"].unique().to_list() == [1.0]
    assert set(rubrics["reason"]) == {"r1 reason", "r2 reason"}


def test_rubric_text_is_null_when_the_metric_is_unknown():
    rubrics = df(rich_run(with_metrics=False), "rubrics")
    assert rubrics.height == 20
    assert rubrics["rubric_text"].null_count() == 20
    assert rubrics["evaluator"].null_count() == 20


def test_samples_df_one_row_per_judge_sample(run):
    samples = df(run, "samples")
    scored = samples.filter(pl.col("call") == "sample")
    assert scored.height == 30
    assert scored.group_by(["run_id", "eval_id", "invocation_index"]).len()[
        "len"
    ].unique().to_list() == [3]
    assert scored["chosen"].sum() == 10 and scored["cache_hit"].sum() == 10
    first = scored.row(0, named=True)
    assert (first["sample_index"], first["score"], first["status"]) == (0, 0.0, "failed")
    assert (first["tokens"], first["raw"], first["reason"]) == (110, "raw 0", "sample 0")
    assert scored.row(1, named=True)["error"] == "timeout"
    assert set(samples["evaluator"]) == {"llm_rubric_response"}
    assert samples.filter(pl.col("call") == "extra")["tokens"].to_list() == [10]


def test_logprobs_df_one_row_per_label(run):
    lp = df(run, "logprobs")
    one = lp.filter(
        (pl.col("run_id") == 1)
        & (pl.col("eval_id") == "c2")
        & (pl.col("invocation_index") == 1)
        & (pl.col("sample_index") == 1)
    )
    assert one.height == 40
    a = one.filter(pl.col("candidate") == "A")
    b = one.filter(pl.col("candidate") == "B")
    assert a["label"].to_list() == LABELS
    assert a["prob"].sum() == pytest.approx(1.0)
    assert dict(zip(b["label"], b["prob"], strict=True))["C"] == pytest.approx(0.7)
    assert set(a["expected_score"]) == {0.98} and set(b["expected_score"]) == {0.88}
    assert set(a["sampled_label"]) == {"A"} and set(b["sampled_label"]) == {"C"}
    row = a.row(0, named=True)
    assert (row["valid_mass"], row["entropy"], row["from_logprobs"]) == (0.98, 0.61, True)
    assert (row["sample_score"], row["swapped_score"], row["swap_gap"]) == (0.6, 0.55, 0.05)
    assert row["evaluator"] == "llm_verifier_pairwise"


def test_frames_survive_a_save_and_load(tmp_path, run):
    path = run.save(tmp_path / "app" / "r.evalset_result.json")
    loaded = load_run(path, metrics=run.metrics)
    assert loaded.app_name == "app"
    for kind in KINDS:
        assert df(loaded, kind).equals(df(run, kind)), kind


GO_RESULT = """{
  "evalSetResultId": "go_result",
  "evalSetId": "calc",
  "evalCaseResults": [
    {
      "evalSetId": "calc", "evalId": "add", "runId": 1, "finalEvalStatus": "passed",
      "overallEvalMetricResults": [
        {"metricName": "tool_trajectory_avg_score", "score": 1, "evalStatus": "passed",
         "threshold": 1, "details": {"score": 1}},
        {"metricName": "llm_final_response", "score": 1, "evalStatus": "passed",
         "threshold": 0.5, "criterion": {"llmJudge": {"judgeModel": {"modelName": "m-1"}}},
         "details": {"reason": "fine", "score": 1}}
      ],
      "evalMetricResultPerInvocation": [
        {
          "actualInvocation": {"invocationId": "add-1",
            "userContent": {"role": "user", "content": "2+3?"},
            "finalResponse": {"role": "assistant", "content": "5"},
            "tools": [{"id": "t1", "name": "calculator", "arguments": {"a": 2, "b": 3}}]},
          "expectedInvocation": {"invocationId": "add-1",
            "userContent": {"role": "user", "content": "2+3?"},
            "finalResponse": {"role": "assistant", "content": "5"},
            "tools": [{"name": "calculator"}]},
          "evalMetricResults": [
            {"metricName": "tool_trajectory_avg_score", "score": 1, "evalStatus": "passed",
             "threshold": 1, "details": {"score": 1}},
            {"metricName": "llm_final_response", "score": 1, "evalStatus": "passed",
             "threshold": 0.5,
             "criterion": {"llmJudge": {"judgeModel": {"modelName": "m-1"},
               "rubrics": [{"id": "1", "content": {"text": "Correct sum."}}]}},
             "details": {"reason": "fine", "score": 1,
               "rubricScores": [{"id": "1", "reason": "yes", "score": 1}]}}
          ]
        }
      ],
      "sessionId": "s-1", "userId": "u-1"
    },
    {
      "evalSetId": "calc", "evalId": "mul", "runId": 1, "finalEvalStatus": "failed",
      "overallEvalMetricResults": [
        {"metricName": "tool_trajectory_avg_score", "evalStatus": "failed", "threshold": 1},
        {"metricName": "llm_final_response", "evalStatus": "failed", "threshold": 0.5,
         "details": {"reason": "wrong"}}
      ],
      "evalMetricResultPerInvocation": [
        {
          "actualInvocation": {"userContent": {"role": "user", "content": "6*7?"},
            "finalResponse": {"role": "assistant", "content": "13"}},
          "evalMetricResults": [
            {"metricName": "tool_trajectory_avg_score", "evalStatus": "failed", "threshold": 1},
            {"metricName": "llm_final_response", "evalStatus": "failed", "threshold": 0.5,
             "details": {"reason": "wrong", "rubricScores": [{"id": "1", "reason": "no"}]}}
          ]
        }
      ]
    },
    {
      "evalSetId": "calc", "evalId": "down", "runId": 1, "finalEvalStatus": "failed",
      "errorMessage": "inference failed: connection refused"
    }
  ]
}
"""


@pytest.fixture
def go_run(tmp_path: Path) -> EvalRun:
    path = tmp_path / "calc-app" / "go_result.evalset_result.json"
    path.parent.mkdir()
    path.write_text(GO_RESULT, encoding="utf-8")
    return load_run(path)


def test_go_file_without_extras_or_summary(go_run):
    assert go_run.info["summary_computed"] is True
    assert go_run.result.summary is not None
    assert go_run.app_name == "calc-app"

    cases = df(go_run, "cases")
    assert cases["eval_id"].to_list() == ["add", "mul", "down"]
    # absent case scores: 1 for passed, 0 for failed (default aggregator, Go omits 0)
    assert cases["score"].to_list() == [1.0, 0.0, 0.0]
    assert cases["error"].to_list() == [None, None, "inference failed: connection refused"]
    assert cases["n_turns"].to_list() == [1, 1, 0]
    assert cases["n_metrics"].to_list() == [2, 2, 0]

    metrics = df(go_run, "metrics")
    # omitted zero scores read as 0; no metric definitions ⇒ evaluator unknown
    assert metrics["score"].to_list() == [1.0, 1.0, 0.0, 0.0]
    assert metrics["reason"].to_list() == [None, "fine", None, "wrong"]
    assert metrics["evaluator"].null_count() == 4

    inv = df(go_run, "invocations")
    assert inv.height == 4
    assert inv["invocation_id"].to_list() == ["add-1", "add-1", None, None]
    assert inv["actual_tools"].to_list() == [["calculator"]] * 2 + [[], []]
    assert inv["expected_tools"].to_list() == [["calculator"]] * 2 + [None, None]
    assert inv["expected_text"].to_list() == ["5", "5", None, None]
    assert inv["actual_text"].to_list() == ["5", "5", "13", "13"]
    # judge model from the stored criterion; no judge record ⇒ null sample columns
    assert inv["judge_model"].to_list() == [None, "m-1", None, None]
    assert inv["n_samples"].null_count() == 4

    rubrics = df(go_run, "rubrics")
    assert rubrics["score"].to_list() == [1.0, 0.0]
    assert rubrics["rubric_text"].to_list() == ["Correct sum.", None]
    assert df(go_run, "samples").height == 0 and df(go_run, "logprobs").height == 0


def test_unknown_frame_kind_is_rejected(run):
    with pytest.raises(ValueError, match="unknown frame kind"):
        frames.frame(run.record, "turns")


# -- documentation: one declaration (analysis/columns.py), docs/frames.md generated from it ------

DOCUMENTED_KINDS = [*KINDS, "reviews", "capture"]
_ROW = re.compile(r"^([a-z_]+)\s+(\S+)\s+([CMIRSLVK]+)\s+\S")
_LETTERS = dict(zip("CMIRSLVK", DOCUMENTED_KINDS, strict=True))


def _documented(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {kind: set() for kind in DOCUMENTED_KINDS}
    for line in text.splitlines():
        line = line.strip().strip("|").replace("|", " ").replace("`", "").strip()
        match = _ROW.match(line)
        if match:
            for letter in match.group(3):
                out[_LETTERS[letter]].add(match.group(1))
    return out


def test_docs_page_holds_the_table_generated_from_the_column_specs():
    from agenteval_nb.analysis.columns import columns_markdown

    page = Path(__file__).parents[2] / "docs" / "frames.md"
    assert columns_markdown() in page.read_text(encoding="utf-8")


def test_frame_schemas_are_the_column_specs():
    from agenteval_nb.analysis.columns import COLUMNS, FRAME_COLUMNS

    for kind in KINDS:
        assert list(frames.SCHEMAS[kind]) == list(FRAME_COLUMNS[kind])
        assert all(frames.SCHEMAS[kind][n] == COLUMNS[n].dtype for n in FRAME_COLUMNS[kind])


def test_docs_page_table_matches_the_schemas():
    page = Path(__file__).parents[2] / "docs" / "frames.md"
    documented = _documented(page.read_text(encoding="utf-8"))
    assert documented == {kind: set(frames.SCHEMAS[kind]) for kind in DOCUMENTED_KINDS}


def test_nan_never_stands_for_missing_ids(run):
    for kind in KINDS:
        out = df(run, kind)
        assert out["run_id"].null_count() == 0 and out["eval_id"].null_count() == 0
        if "score" in out.columns and out.height:
            assert not any(isinstance(v, float) and math.isnan(v) for v in out["score"])
