"""MetricStore rules, run against every backend (SPEC §1.4, §1.7)."""

from __future__ import annotations

import pytest

from agenteval_nb.schema import EvalMetric
from agenteval_nb.stores import AlreadyExistsError, MetricStore, NotFoundError


def _metric(name: str, threshold: float = 0.5, **fields: object) -> EvalMetric:
    return EvalMetric.model_validate({"metricName": name, "threshold": threshold, **fields})


def _judge_metric(name: str, api_key: str) -> EvalMetric:
    return EvalMetric.model_validate(
        {
            "metricName": name,
            "threshold": 1,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "openai",
                        "modelName": "judge-1",
                        "baseURL": "http://localhost:1/v1",
                        "apiKey": api_key,
                        "numSamples": 3,
                    }
                }
            },
        }
    )


def test_backend_is_a_metric_store(backend):
    assert isinstance(backend.metrics, MetricStore)


def test_nothing_stored_lists_empty(backend):
    assert backend.metrics.list("app", "s") == []
    assert backend.metrics.get_all("app", "s") == []
    with pytest.raises(NotFoundError):
        backend.metrics.get("app", "s", "m")


def test_add_keeps_file_order(backend):
    for name in ("zeta", "alpha", "mid"):
        backend.metrics.add("app", "s", _metric(name))
    assert backend.metrics.list("app", "s") == ["zeta", "alpha", "mid"]
    assert [m.metric_name for m in backend.metrics.get_all("app", "s")] == ["zeta", "alpha", "mid"]


def test_metrics_are_scoped_by_eval_set_and_app(backend):
    backend.metrics.add("app", "s1", _metric("a"))
    backend.metrics.add("app", "s2", _metric("b"))
    backend.metrics.add("other", "s1", _metric("c"))
    assert backend.metrics.list("app", "s1") == ["a"]
    assert backend.metrics.list("app", "s2") == ["b"]
    assert backend.metrics.list("other", "s1") == ["c"]


def test_add_rejects_duplicates_and_empty_names(backend):
    backend.metrics.add("app", "s", _metric("m", 0.1))
    with pytest.raises(AlreadyExistsError):
        backend.metrics.add("app", "s", _metric("m", 0.9))
    with pytest.raises(ValueError) as info:
        backend.metrics.add("app", "s", _metric(""))
    assert not isinstance(info.value, AlreadyExistsError)
    assert backend.metrics.get("app", "s", "m").threshold == 0.1


def _save_with_a_duplicate(backend) -> bool:
    """Save ``m, x, m``; False when the backend refuses duplicates (SQL unique key)."""
    duplicated = [_metric("m", 0.1), _metric("x"), _metric("m", 0.9)]
    if backend.unique_keys:
        backend.metrics.save_all("app", "s", [_metric("kept")])
        with pytest.raises(AlreadyExistsError, match="'m'"):
            backend.metrics.save_all("app", "s", duplicated)
        assert backend.metrics.list("app", "s") == ["kept"]  # nothing written
        return False
    backend.metrics.save_all("app", "s", duplicated)
    return True


def test_get_returns_the_first_match(backend):
    if not _save_with_a_duplicate(backend):
        return
    assert backend.metrics.list("app", "s") == ["m", "x", "m"]
    assert backend.metrics.get("app", "s", "m").threshold == 0.1


def test_update_replaces_the_first_match(backend):
    if not _save_with_a_duplicate(backend):
        return
    backend.metrics.update("app", "s", _metric("m", 0.3))
    assert [m.threshold for m in backend.metrics.get_all("app", "s")] == [0.3, 0.5, 0.9]
    with pytest.raises(NotFoundError):
        backend.metrics.update("app", "s", _metric("absent"))
    with pytest.raises(NotFoundError):
        backend.metrics.update("app", "other-set", _metric("m"))


def test_delete_removes_the_first_match(backend):
    if not _save_with_a_duplicate(backend):
        return
    backend.metrics.delete("app", "s", "m")
    assert [(m.metric_name, m.threshold) for m in backend.metrics.get_all("app", "s")] == [
        ("x", 0.5),
        ("m", 0.9),
    ]
    backend.metrics.delete("app", "s", "x")
    backend.metrics.delete("app", "s", "m")
    assert backend.metrics.list("app", "s") == []
    with pytest.raises(NotFoundError):
        backend.metrics.delete("app", "s", "m")


@pytest.mark.parametrize("error", [KeyError, FileNotFoundError])
def test_metric_not_found_is_catchable_both_ways(backend, error):
    backend.metrics.add("app", "s", _metric("m"))
    with pytest.raises(error):
        backend.metrics.get("app", "s", "nope")


def test_save_all_replaces_and_accepts_dicts(backend):
    backend.metrics.add("app", "s", _metric("old"))
    backend.metrics.save_all("app", "s", [{"metricName": "new", "threshold": 0.7}])
    assert backend.metrics.list("app", "s") == ["new"]
    assert backend.metrics.get("app", "s", "new").threshold == 0.7
    backend.metrics.save_all("app", "s", [])
    assert backend.metrics.list("app", "s") == []


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.list("", "s"),
        lambda s: s.list("app", ""),
        lambda s: s.get("app", "s", ""),
        lambda s: s.delete("app", "s", ""),
        lambda s: s.save_all("", "s", []),
    ],
)
def test_empty_ids_are_rejected(backend, call):
    with pytest.raises(ValueError):
        call(backend.metrics)


def test_reads_and_writes_are_deep_copies(backend):
    metric = _metric("m", criterion={"toolTrajectory": {"orderSensitive": True}})
    backend.metrics.add("app", "s", metric)
    metric.threshold = 0.99
    metric.criterion.tool_trajectory.order_sensitive = False
    got = backend.metrics.get("app", "s", "m")
    got.threshold = 0.01
    got.criterion.tool_trajectory.order_sensitive = False
    everything = backend.metrics.get_all("app", "s")
    everything[0].threshold = 0.02
    everything.clear()
    many = [_metric("a")]
    backend.metrics.save_all("app", "t", many)
    many[0].threshold = 0.03

    fresh = backend.metrics.get("app", "s", "m")
    assert fresh.threshold == 0.5
    assert fresh.criterion.tool_trajectory.order_sensitive is True
    assert backend.metrics.get("app", "t", "a").threshold == 0.5


def test_api_key_is_never_in_a_repr(backend):
    backend.metrics.add("app", "s", _judge_metric("judge", "sk-very-secret"))
    got = backend.metrics.get("app", "s", "judge")
    assert "sk-very-secret" not in repr(got)
    assert "sk-very-secret" not in repr(backend.metrics.get_all("app", "s"))
    assert got.criterion.llm_judge.judge_model.model_name == "judge-1"


def test_memory_store_keeps_the_api_key_for_the_judge():
    from agenteval_nb.stores import InMemoryMetricStore

    store = InMemoryMetricStore()
    store.add("app", "s", _judge_metric("judge", "sk-in-memory"))
    assert store.get("app", "s", "judge").criterion.llm_judge.judge_model.api_key == "sk-in-memory"
