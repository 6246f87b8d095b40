"""The vote rules of a judge panel (``judge/panel.py``, JUDGES.md §1): abstentions stay in the
denominator, no tie is broken by order, and any permutation of the panel decides the same."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.judge.panel import (
    ABSTAIN,
    FAIL,
    PASS,
    Ballot,
    JudgePanel,
    PanelDecision,
    Vote,
    overlay_model,
)
from agenteval_nb.schema import JudgeModelOptions


def _judge(messages):  # a judge that is never called here
    return "never"


def panel(n: int, vote="majority", **kw) -> JudgePanel:
    return JudgePanel({f"j{i}": _judge for i in range(n)}, vote=vote, **kw)


def votes(*items) -> list[Vote]:
    """``votes(1.0, 0.0, None)``: pass/fail by threshold 0.5, None abstains."""
    return [
        Vote.of(f"j{i}", score, 0.5, reason="boom" if score is None else "ok")
        for i, score in enumerate(items)
    ]


def test_majority_passes_with_a_strict_majority_of_the_configured_panel():
    decision = panel(3).decide(votes(1.0, 0.8, None), 0.5)
    assert decision.status == "passed"
    assert decision.score == pytest.approx(0.9)  # mean of the winning side
    assert decision.counted == ("j0", "j1")
    assert "j2: abstain (boom)" in decision.reason


def test_an_abstention_never_lowers_the_threshold():
    # 1 pass out of 3 configured: the abstentions do not turn 1 vote of 1 into a majority
    decision = panel(3).decide(votes(1.0, None, None), 0.5)
    assert decision.status == "not_evaluated"
    assert decision.score == 0.0
    # one pass, one fail, one abstention: a tie is never broken by order
    tie = panel(3).decide(votes(1.0, 0.0, None), 0.5)
    assert tie.status == "not_evaluated"
    assert tie.reason.startswith("no majority of 3: 1 pass, 1 fail, 1 abstain (")
    assert "j0: pass 1" in tie.reason and "j1: fail 0" in tie.reason and "j2: abstain" in tie.reason


def test_majority_fails_with_a_strict_majority_of_failures():
    decision = panel(4).decide(votes(0.0, 0.2, 0.1, 1.0), 0.5)
    assert decision.status == "failed"
    assert decision.score == pytest.approx(0.1)
    even = panel(4).decide(votes(0.0, 0.2, 1.0, 1.0), 0.5)
    assert even.status == "not_evaluated"  # 2 of 4 is no majority


def test_mean_and_median_need_a_quorum():
    assert panel(3, "mean").decide(votes(1.0, 0.2, None), 0.5).score == pytest.approx(0.6)
    assert panel(3, "mean").decide(votes(1.0, 0.2, None), 0.5).status == "passed"
    short = panel(3, "mean").decide(votes(1.0, None, None), 0.5)
    assert short.status == "not_evaluated"
    assert "no quorum for mean: 1 of 3 voted, 2 needed" in short.reason
    one = panel(3, "mean", min_votes=1).decide(votes(1.0, None, None), 0.5)
    assert one.status == "passed"
    assert panel(4, "median").decide(votes(1.0, 0.2, 0.4, 0.0), 0.5).score == pytest.approx(0.3)
    assert panel(4, "median").decide(votes(1.0, 0.2, 0.4, 0.0), 0.5).status == "failed"


def test_all_and_any():
    assert panel(3, "all").decide(votes(1.0, 0.9, 0.7), 0.5).status == "passed"
    assert panel(3, "all").decide(votes(1.0, 0.9, 0.7), 0.5).score == pytest.approx(0.7)
    assert panel(3, "all").decide(votes(1.0, 0.1, None), 0.5).status == "failed"
    assert panel(3, "all").decide(votes(1.0, 0.9, None), 0.5).status == "not_evaluated"
    assert panel(3, "any").decide(votes(0.0, 0.9, None), 0.5).status == "passed"
    assert panel(3, "any").decide(votes(0.0, 0.9, None), 0.5).score == pytest.approx(0.9)
    assert panel(3, "any").decide(votes(0.0, 0.1, 0.2), 0.5).status == "failed"
    assert panel(3, "any").decide(votes(0.0, 0.1, None), 0.5).status == "not_evaluated"


def test_a_callable_rule_sees_every_vote_sorted_by_judge():
    seen: list[Ballot] = []

    def two_of_three(ballot: Ballot):
        seen.append(ballot)
        return len(ballot.having(PASS)) >= 2

    jury = JudgePanel({"c": _judge, "a": _judge, "b": _judge}, vote=two_of_three)
    decision = jury.decide([Vote("c", PASS, 1.0), Vote("b", ABSTAIN), Vote("a", PASS, 0.9)], 0.5)
    assert decision.status == "passed" and decision.score == 1.0
    assert [v.judge for v in seen[0].votes] == ["a", "b", "c"]
    assert seen[0].size == 3 and seen[0].threshold == 0.5
    assert JudgePanel({"j0": _judge}, vote=lambda b: 0.25).decide(votes(1.0), 0.5).status == (
        "failed"
    )
    assert JudgePanel({"j0": _judge}, vote=lambda b: None).decide(votes(1.0), 0.5).status == (
        "not_evaluated"
    )
    custom = PanelDecision("passed", 0.5, "mine")  # type: ignore[arg-type]
    assert JudgePanel({"j0": _judge}, vote=lambda b: custom).decide(votes(0.0), 0.5) is custom
    with pytest.raises(TypeError, match="must return a PanelDecision"):
        JudgePanel({"j0": _judge}, vote=lambda b: "yes").decide(votes(0.0), 0.5)


def test_bad_panels_are_refused():
    with pytest.raises(ValueError, match="non-empty mapping"):
        JudgePanel({})
    with pytest.raises(ValueError, match="unknown panel vote 'mode'"):
        JudgePanel({"a": _judge}, vote="mode")
    with pytest.raises(ValueError, match="min_votes 3 exceeds the panel size 2"):
        JudgePanel({"a": _judge, "b": _judge}, vote="mean", min_votes=3)
    with pytest.raises(TypeError, match="panel judge 'a' must be a callable, a JudgeClient"):
        JudgePanel({"a": 42})
    with pytest.raises(ValueError, match="do not match its judges"):
        panel(2).decide(votes(1.0), 0.5)  # a missing vote is an error, never a smaller panel


def test_a_nan_score_fails_and_is_counted():
    decision = panel(3).decide(votes(math.nan, 0.0, 1.0), 0.5)
    assert decision.status == "failed"
    assert math.isnan(decision.score)


def test_overlay_keeps_the_metric_endpoint_and_key():
    base = JudgeModelOptions.model_validate(
        {"modelName": "big", "baseURL": "http://x/v1", "apiKey": "sk-secret", "numSamples": 3}
    )
    mini = overlay_model(JudgeModelOptions(model_name="mini"), base)
    assert (mini.model_name, mini.base_url, mini.api_key, mini.num_samples) == (
        "mini",
        "http://x/v1",
        "sk-secret",
        3,
    )
    assert overlay_model(None, base) is base
    assert base.model_name == "big"


RULES = ["majority", "mean", "median", "all", "any"]
scores = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))


@settings(max_examples=300, deadline=None)
@given(
    rule=st.sampled_from(RULES),
    items=st.lists(scores, min_size=1, max_size=6),
    data=st.data(),
)
def test_any_permutation_of_the_panel_decides_the_same(rule, items, data):
    names = [f"judge-{i}" for i in range(len(items))]
    order = data.draw(st.permutations(range(len(items))))
    given_votes = [Vote.of(names[i], s, 0.5, reason="r") for i, s in enumerate(items)]
    first = JudgePanel(dict.fromkeys(names, _judge), vote=rule)
    second = JudgePanel({names[i]: _judge for i in order}, vote=rule)
    a = first.decide(given_votes, 0.5)
    b = second.decide([given_votes[i] for i in order], 0.5)
    assert a.status == b.status and a.reason == b.reason and a.counted == b.counted
    assert a.score == b.score or (math.isnan(a.score) and math.isnan(b.score))
    n_pass = sum(1 for s in items if s is not None and s >= 0.5)
    n_fail = sum(1 for s in items if s is not None and s < 0.5)
    if rule == "majority":
        expected = (
            "passed"
            if 2 * n_pass > len(items)
            else "failed"
            if 2 * n_fail > len(items)
            else "not_evaluated"
        )
        assert a.status == expected
    assert (a.status == "not_evaluated") == a.reason.split(":")[0].startswith(("no ", "not every"))


def test_vote_verdicts():
    assert Vote.of("a", 0.5, 0.5).verdict == PASS
    assert Vote.of("a", 0.49, 0.5).verdict == FAIL
    assert Vote.of("a", None, 0.5).verdict == ABSTAIN


def test_a_model_given_as_a_dict_is_validated_and_its_key_never_shown():
    jury = JudgePanel({"a": {"modelName": "mini", "apiKey": "sk-panel-key-123"}, "b": "haiku"})
    assert isinstance(jury.judges["a"], JudgeModelOptions)
    assert jury.judges["a"].api_key == "sk-panel-key-123"
    assert jury.judges["b"].model_name == "haiku"
    assert "sk-panel-key-123" not in repr(jury)
    with pytest.raises(ValueError, match=r"numSamples|num_samples"):
        JudgePanel({"a": {"modelName": "mini", "numSamples": "three"}})
