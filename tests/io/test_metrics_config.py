"""trpc-agent-python's newer test_config.json: {"metrics": [snake_case metrics], "num_runs": N}."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _builders import evalset, trace_case

import agenteval_nb as ae

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "trpc-agent-python"


def test_deterministic_metrics_get_go_keys_and_num_runs():
    metrics, num_runs = ae.load_metrics_config(CORPUS / "pass_at_k.test_config.json")
    assert num_runs == 5
    trajectory, final = (m.to_wire() for m in metrics)
    assert trajectory == {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 0.8,
        "criterion": {
            "toolTrajectory": {
                "defaultStrategy": {
                    "name": {"matchStrategy": "exact", "caseInsensitive": False},
                    "arguments": {"matchStrategy": "exact"},
                },
                "orderSensitive": False,
                "subsetMatching": False,
            }
        },
    }
    assert final["criterion"] == {
        "finalResponse": {"text": {"matchStrategy": "contains", "caseInsensitive": True}}
    }


def test_load_metrics_reads_the_shape_too():
    metrics = ae.load_metrics(CORPUS / "ci_integration.test_config.json")
    assert [m.metric_name for m in metrics] == ["final_response_avg_score"]
    assert ae.load_metrics_config(CORPUS / "ci_integration.test_config.json")[1] == 1


def test_judge_options_are_renamed_and_expanded(monkeypatch):
    monkeypatch.setenv("TRPC_AGENT_MODEL_NAME", "judge-1")
    monkeypatch.setenv("TRPC_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TRPC_AGENT_API_KEY", "sk-secret")
    (metric,) = ae.load_metrics(CORPUS / "llm_rubric_knowledge_recall.test_config.json")
    judge = metric.criterion.llm_judge
    assert judge.judge_model.model_name == "judge-1"
    assert judge.judge_model.base_url == "http://127.0.0.1:9/v1"
    assert [r.id for r in judge.rubrics] == ["coverage", "relevance"]
    wire = json.dumps(metric.to_wire())
    assert "sk-secret" not in wire
    assert "knowledge_search" in wire  # a key Go lacks is kept, not lost


def test_generation_config_keys_stay_snake_case():
    config = {
        "metrics": [
            {
                "metric_name": "llm_final_response",
                "threshold": 1,
                "criterion": {
                    "llm_judge": {
                        "judge_model": {
                            "model_name": "m",
                            "generation_config": {"max_tokens": 50, "temperature": 0.2},
                        }
                    }
                },
            }
        ]
    }
    (metric,) = ae.load_metrics(config)
    generation = metric.criterion.llm_judge.judge_model.generation_config
    assert generation.max_tokens == 50


@pytest.mark.parametrize("runs", [0, "5", 2.5, True])
def test_a_bad_num_runs_is_named(runs):
    with pytest.raises(ae.FormatError, match=r"\$\.num_runs"):
        ae.load_metrics_config({"metrics": [], "num_runs": runs})


def test_a_bad_metric_is_named_at_its_path_in_the_object():
    with pytest.raises(ae.FormatError, match=r"\$\.metrics\[0\]\.threshold"):
        ae.load_metrics({"metrics": [{"metric_name": "m", "threshold": "high"}]})


def test_an_unknown_object_reads_well():
    with pytest.raises(ae.FormatError) as info:
        ae.load_metrics({"foo": 1})
    text = str(info.value)
    assert "got an object has" not in text
    assert "got an object that has none of the expected keys (has foo)" in text


def test_a_metrics_config_given_as_an_eval_set_is_named():
    with pytest.raises(ae.FormatError, match=r"trpc-agent-python test_config\.json"):
        ae.load_evalset(CORPUS / "pass_at_k.test_config.json")


def _exact_config(tmp_path: Path, num_runs: int) -> Path:
    path = tmp_path / "test_config.json"
    metric = {
        "metric_name": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"final_response": {"text": {"match": "exact"}}},
    }
    path.write_text(json.dumps({"metrics": [metric], "num_runs": num_runs}), encoding="utf-8")
    return path


def test_num_runs_of_the_file_is_the_default_for_evaluate(tmp_path):
    es = ae.load_evalset(evalset(trace_case("a", ["x"], ["x"]), set_id="s"))
    config = _exact_config(tmp_path, 3)
    assert ae.evaluate(es, config, progress=False).num_runs == 3
    assert ae.evaluate(es, config, num_runs=1, progress=False).num_runs == 1
