"""ae.compare_judges over a recorded run: exact κ and confusion against human marks, no agent
call, and a repeat answered by the judge cache (JUDGES.md §2 worked example)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from _builders import judge_metric, numbered_agent, numbered_cases, scripted_handler

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_server import route_by_model

N = 1000


def human(k: int) -> bool:
    """95 % pass per the humans."""
    return k < 950


def mini(k: int) -> bool:
    """The prevalence paradox: 940 pass/pass, 10 judge-fail/human-pass, 10 fail/fail, 40
    judge-pass/human-fail."""
    return k < 940 or k >= 960


def big(k: int) -> bool:
    """Agrees with the humans but on 4 items."""
    return human(k) != (k in (3, 4, 955, 956))


@pytest.fixture(scope="module")
def srv():
    routes = {"mini": scripted_handler(mini, "mini"), "big": scripted_handler(big, "big")}
    with FakeOpenAIServer(handler=route_by_model(routes)) as server:
        yield server


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("choice-cache")


@pytest.fixture(scope="module")
def recorded(srv, cache):
    """1,000 invocations answered by a counting agent, judged by ``mini``, marked by a human."""
    calls: list[str] = []
    run = ae.evaluate(
        numbered_cases(N),
        [judge_metric(srv.base_url)],
        agent=numbered_agent(calls),
        cache=cache,
        progress=False,
    )
    for k in range(N):
        run.mark(f"c{k}", 1, "pass" if human(k) else "fail")
    assert len(calls) == N and srv.request_count == N
    return run, calls


class CountingJudge:
    """An injected judge that passes everything and counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, messages):
        self.calls += 1
        return "reasoning: always\nis_the_agent_response_valid: valid"


def row(cmp, candidate, metric="fr"):
    table = cmp.df(backend="polars")
    return table.filter((pl.col("candidate") == candidate) & (pl.col("metric_name") == metric)).row(
        0, named=True
    )


CANDIDATES = {"mini": {"modelName": "mini"}, "big": {"modelName": "big"}}
PRICES = {"mini": (0.15, 0.60), "big": (2.50, 10.00)}


@pytest.fixture(scope="module")
def compared(srv, cache, recorded):
    """The first comparison: mini, big and a counting injected judge against the marks, with
    the judge requests and agent calls counted right after it."""
    run, calls = recorded
    counting = CountingJudge()
    candidates = {**CANDIDATES, "const": counting}
    cmp = ae.compare_judges(run, candidates, cache=cache, price_table=PRICES, n_resamples=200)
    return cmp, counting, srv.request_count, len(calls)


def test_compare_judges_against_marks_without_agent_calls_and_repeats_from_cache(
    srv, cache, recorded, compared
):
    run, calls = recorded
    cmp, counting, requests, agent_calls = compared
    assert agent_calls == N  # 0 agent calls
    assert requests == 2 * N  # mini from the cache of the run, big sent once
    assert counting.calls == N

    m = row(cmp, "mini")
    assert (m["pass_pass"], m["pass_fail"], m["fail_pass"], m["fail_fail"]) == (940, 40, 10, 10)
    assert m["n"] == N and m["accuracy"] == pytest.approx(0.95)
    assert m["prevalence"] == pytest.approx(0.95)
    assert m["kappa"] == pytest.approx(0.018 / 0.068)  # ≈ 0.265 (JUDGES.md §2)
    assert m["fail_recall"] == pytest.approx(0.20) and m["fail_precision"] == pytest.approx(0.5)
    assert m["kappa_ci_low"] < m["kappa"] < m["kappa_ci_high"]
    assert m["calls"] == N and m["cache_hits"] == N and m["errors"] == 0
    assert math.isnan(m["latency_p50_ms"])  # every call came from the cache

    b = row(cmp, "big")
    p_o, p_e = 996 / 1000, 0.95 * 0.95 + 0.05 * 0.05
    assert b["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert b["fail_recall"] == pytest.approx(48 / 50)
    assert b["cache_hits"] == 0 and b["latency_p50_ms"] > 0
    # big costs more than mini: same tokens, dearer prices
    assert b["cost_usd"] > m["cost_usd"] > 0
    assert b["cost_per_1k"] == pytest.approx(b["cost_usd"])

    c = row(cmp, "const")  # a judge that always passes: 95 % accuracy, κ 0, catches no failure
    assert c["accuracy"] == pytest.approx(0.95) and c["kappa"] == pytest.approx(0.0)
    assert c["fail_recall"] == 0.0 and math.isnan(c["fail_precision"])
    assert c["cost_usd"] is None  # an injected judge has no price

    assert cmp.best() == "big"
    assert cmp.best(min_kappa=0.2) == "mini"  # cheaper, and κ ≥ 0.2

    candidates = {**CANDIDATES, "const": counting}
    again = ae.compare_judges(run, candidates, cache=cache, price_table=PRICES, n_resamples=200)
    assert srv.request_count == requests  # 0 judge requests: the cache answered
    assert len(calls) == N
    assert counting.calls == 2 * N  # injected judges are never cached
    assert row(again, "big")["cache_hits"] == N
    for name in ("mini", "big"):  # the seeded CI is stable
        assert row(again, name)["kappa_ci_low"] == row(cmp, name)["kappa_ci_low"]
        assert row(again, name)["kappa_ci_high"] == row(cmp, name)["kappa_ci_high"]


def test_disagreements_name_both_verdicts_and_the_reason(compared):
    cmp = compared[0]
    differ = cmp.disagreements("big", backend="polars")
    assert differ["eval_id"].to_list() == ["c3", "c4", "c955", "c956"]
    assert differ["verdict"].to_list() == ["fail", "fail", "pass", "pass"]
    assert differ["reference"].to_list() == ["pass", "pass", "fail", "fail"]
    assert differ["reason"].to_list() == [f"item {k}" for k in (3, 4, 955, 956)]
    assert differ["reference_reason"].null_count() == 4  # human marks carry no judge reason
    with pytest.raises(KeyError, match="no candidate 'zz'"):
        cmp.disagreements("zz")


def test_against_the_runs_own_judge_and_another_candidate(cache, recorded):
    run, _ = recorded
    candidates = CANDIDATES
    by_run = ae.compare_judges(run, candidates, against="run", cache=cache, n_resamples=10)
    assert row(by_run, "mini")["kappa"] == pytest.approx(1.0)  # the run's judge is mini
    assert by_run.against == "run"
    by_big = ae.compare_judges(run, candidates, against="big", cache=cache, n_resamples=10)
    assert row(by_big, "big")["kappa"] == pytest.approx(1.0)
    mine = by_big.disagreements("mini", backend="polars")
    assert set(mine["eval_id"]) == {f"c{k}" for k in range(N) if mini(k) != big(k)}
    assert mine["reference_reason"].to_list() == [
        f"item {e[1:]}" for e in mine["eval_id"].to_list()
    ]
    with pytest.raises(ae.ConfigError, match="candidate's name"):
        ae.compare_judges(run, candidates, against="nobody")
    with pytest.raises(TypeError, match="non-empty dict"):
        ae.compare_judges(run, {})
    unmarked = ae.EvalRun(record=run.record)
    unmarked.record.marks, kept = [], run.record.marks
    try:
        with pytest.raises(ae.ConfigError, match="no human marks"):
            ae.compare_judges(unmarked, candidates)
    finally:
        run.record.marks = kept
