"""Verifier logprob scoring: every rule and error text of SPEC §5.2."""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.verifier import (
    DEFAULT_SCALE,
    LabelDistribution,
    LabelScale,
    VerifierScoreError,
    comparison_score,
    expected_score,
    label_distribution,
    score_pair,
)
from agenteval_nb.verifier.scoring import PairScore

ln = math.log
TAG = "<score_A>"


def tok(token: str, logprob: float = 0.0, top: list[tuple[str, float]] | None = None) -> dict:
    """One openai-shaped token-logprob item."""
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in (top or [])],
    }


def response(tokens: list[dict] | None) -> dict:
    return {"choices": [{"message": {"content": ""}, "logprobs": {"content": tokens}}]}


def worked_example() -> list[dict]:
    """SPEC §11: sA = .7, sB = .2, score = .75."""
    return [
        tok("analysis\n<score_A>"),
        tok("A", ln(0.7), [("A", ln(0.7)), ("T", ln(0.3))]),
        tok("</score_A>\n<score_B>"),
        tok("T", ln(0.8), [("T", ln(0.8)), ("A", ln(0.2))]),
    ]


def value(label: str) -> float:
    return DEFAULT_SCALE.value(label)


def raises(message: str) -> Any:
    return pytest.raises(VerifierScoreError, match=f"^{re.escape(message)}$")


# -- worked example -------------------------------------------------------------------------------


def test_worked_example() -> None:
    result = score_pair(response(worked_example()))
    assert isinstance(result, PairScore)
    assert result.s_a == pytest.approx(0.7)
    assert result.s_b == pytest.approx(0.2)
    assert result.score == pytest.approx(0.75)
    assert result.reason == "Computed from score_A 0.7000 and score_B 0.2000 log probabilities."
    assert result.dist_a.prob("A") == pytest.approx(0.7)
    assert result.dist_a.prob("T") == pytest.approx(0.3)
    assert result.dist_a.token_index == 1
    assert result.dist_b.token_index == 3
    assert result.dist_b.sampled_label == "T"


def test_worked_example_with_attribute_objects() -> None:
    def ns(item: dict) -> SimpleNamespace:
        return SimpleNamespace(
            token=item["token"],
            logprob=item["logprob"],
            top_logprobs=[SimpleNamespace(**t) for t in item["top_logprobs"]],
        )

    obj = SimpleNamespace(
        choices=[
            SimpleNamespace(logprobs=SimpleNamespace(content=[ns(t) for t in worked_example()]))
        ]
    )
    assert score_pair(obj).score == pytest.approx(0.75)


def test_worked_example_with_openai_types() -> None:
    chat = pytest.importorskip("openai.types.chat")
    completion = chat.ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "judge",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "..."},
                    "logprobs": {"content": worked_example()},
                }
            ],
        }
    )
    assert score_pair(completion).score == pytest.approx(0.75)


# -- locating the tag -----------------------------------------------------------------------------


def test_tag_split_across_tokens() -> None:
    tokens = [
        tok("reasoning <sc"),
        tok("ore"),
        tok("_"),
        tok("A>"),
        tok("B", ln(0.9), [("B", ln(0.9)), ("C", ln(0.1))]),
    ]
    dist = label_distribution(tokens, TAG)
    assert dist.token_index == 4
    assert dist.expected_score == pytest.approx(0.9 * value("B") + 0.1 * value("C"))


def test_label_fused_into_tag_closing_token() -> None:
    tokens = [
        tok("ok <score"),
        tok("_A>B", ln(0.6), [("_A>B", ln(0.6)), ("_A>C", ln(0.4)), ("B", ln(0.5))]),
        tok("</score_A>"),
    ]
    dist = label_distribution(tokens, TAG)
    # "B" does not start with the prefix "_A>" and is ignored
    assert dist.token_index == 1
    assert dist.sampled_label == "B"
    assert dist.prob("B") == pytest.approx(0.6)
    assert dist.prob("C") == pytest.approx(0.4)
    assert dist.expected_score == pytest.approx(0.6 * value("B") + 0.4 * value("C"))


def test_label_fused_with_text_before_the_tag_in_the_same_token() -> None:
    tokens = [tok("x<score_A>D", ln(0.5), [("x<score_A>D", ln(0.5)), ("x<score_A>A", ln(0.5))])]
    dist = label_distribution(tokens, TAG)
    assert dist.expected_score == pytest.approx((value("D") + value("A")) / 2)


def test_whole_tag_pair_in_one_token_is_not_a_label() -> None:
    # the rest after the prefix is "B</score_A>", which is not a single letter
    tokens = [tok("<score_A>B</score_A>", 0.0), tok("more")]
    with raises("score token logprobs are missing after tag"):
        label_distribution(tokens, TAG)


def test_label_in_next_token() -> None:
    tokens = [tok("<score_A>"), tok("C", ln(0.5), [("C", ln(0.5)), ("E", ln(0.25))])]
    dist = label_distribution(tokens, TAG)
    assert dist.token_index == 1
    # softmax over the labels present: C 2/3, E 1/3
    assert dist.prob("C") == pytest.approx(2 / 3)
    assert dist.expected_score == pytest.approx((2 * value("C") + value("E")) / 3)


def test_first_occurrence_only() -> None:
    tokens = [
        tok("I will write <score_A>"),
        tok("C", 0.0),
        tok(" then again <score_A>"),
        tok("A", 0.0),
    ]
    assert label_distribution(tokens, TAG).sampled_label == "C"
    # no fallback to a later occurrence when the first one has no label
    bad_first = [tok("<score_A>"), tok("\n", 0.0), tok("<score_A>"), tok("A", 0.0)]
    with raises("score token logprobs are missing after tag"):
        label_distribution(bad_first, TAG)


def test_tag_found_where_it_ends_not_earlier_text() -> None:
    # "<score_A" ends token 0 and ">" completes it in token 1, which also carries the label
    tokens = [tok("<score_A"), tok(">F", 0.0, [(">F", 0.0), (">G", ln(0.5))])]
    dist = label_distribution(tokens, TAG)
    assert dist.token_index == 1
    assert dist.prob("F") == pytest.approx(2 / 3)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_tokenisation_gives_the_same_distribution(data: st.DataObject) -> None:
    text = "Analysis: fine.\n<score_A>"
    cuts = sorted(data.draw(st.sets(st.integers(1, len(text)), max_size=8)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    pieces = [p for p in pieces if p]
    # optionally fuse the tag's tail into the label token
    fuse = data.draw(st.integers(0, min(4, len(pieces[-1]))))
    prefix = pieces[-1][len(pieces[-1]) - fuse :] if fuse else ""
    if fuse:
        pieces[-1] = pieces[-1][: len(pieces[-1]) - fuse]
        if not pieces[-1]:
            pieces.pop()
    tops = [(prefix + "B", ln(0.5)), (prefix + "H", ln(0.3)), (prefix + "T", ln(0.2))]
    tokens = [tok(p) for p in pieces] + [tok(prefix + "B", ln(0.5), tops)]
    dist = label_distribution(tokens, TAG)
    assert dist.token_index == len(tokens) - 1
    assert dist.expected_score == pytest.approx(0.5 * value("B") + 0.3 * value("H"))


# -- candidates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "label"),
    [
        ("A", "A"),
        (" b ", "B"),
        ("t", "T"),
        ("\tK\n", "K"),
        ("A,", None),
        ('"A"', None),
        ("U", None),
        ("Z", None),
        ("AB", None),
        ("", None),
        (" ", None),
        ("1", None),
    ],
)
def test_candidate_mapping(candidate: str, label: str | None) -> None:
    tokens = [tok(TAG), tok(candidate, 0.0, [("T", ln(0.5))])]
    dist = label_distribution(tokens, TAG)
    assert dist.sampled_label == label
    if label is None:
        assert dist.probs == tuple(1.0 if x == "T" else 0.0 for x in DEFAULT_SCALE.labels)
    elif label != "T":
        assert dist.prob(label) == pytest.approx(2 / 3)


def test_duplicates_keep_the_max_logprob_not_the_sum() -> None:
    tokens = [
        tok(TAG),
        tok("A", ln(0.5), [("A", ln(0.5)), (" A", ln(0.3)), ("a", ln(0.1)), ("T", ln(0.1))]),
    ]
    dist = label_distribution(tokens, TAG)
    # max: A = .5, T = .1 → P(A) = 5/6 (log-sum-exp would give .9/1.0)
    assert dist.prob("A") == pytest.approx(5 / 6)
    assert dist.expected_score == pytest.approx(5 / 6)


def test_labels_never_seen_get_zero() -> None:
    dist = label_distribution([tok(TAG), tok("G", ln(0.2))], TAG)
    assert dist.prob("G") == 1.0
    assert sum(dist.probs) == pytest.approx(1.0)
    assert dist.expected_score == pytest.approx(value("G"))
    assert dist.entropy == 0.0


def test_nan_is_an_error() -> None:
    tokens = [tok(TAG), tok("A", ln(0.5), [("A", ln(0.5)), ("B", math.nan)])]
    with raises("score token logprob is NaN"):
        label_distribution(tokens, TAG)
    # order of candidates does not matter
    tokens = [tok(TAG), tok("B", math.nan, [("B", math.nan), ("B", ln(0.5))])]
    with raises("score token logprob is NaN"):
        label_distribution(tokens, TAG)


def test_nan_on_a_non_label_candidate_is_ignored() -> None:
    tokens = [tok(TAG), tok("A", ln(0.5), [("foo", math.nan)])]
    assert label_distribution(tokens, TAG).expected_score == 1.0


def test_all_negative_infinity_is_an_error() -> None:
    tokens = [tok(TAG), tok("A", -math.inf, [("T", -math.inf)])]
    with raises("score token logprobs are all negative infinity"):
        label_distribution(tokens, TAG)


def test_negative_infinity_label_gets_zero_weight() -> None:
    tokens = [tok(TAG), tok("A", -math.inf, [("T", ln(0.4))])]
    dist = label_distribution(tokens, TAG)
    assert dist.expected_score == 0.0
    assert dist.sampled_label == "A"


def test_minus_9999_counts_as_zero_probability() -> None:
    tokens = [tok(TAG), tok("A", -9999.0, [("A", -9999.0), ("T", ln(0.5))])]
    dist = label_distribution(tokens, TAG)
    assert dist.prob("A") == 0.0
    assert dist.expected_score == 0.0
    # a single label at -9999 would otherwise get probability 1 after renormalisation
    with raises("score token logprobs are all negative infinity"):
        label_distribution([tok(TAG), tok("A", -9999.0), tok("x")], TAG)
    with raises("score token logprobs are all negative infinity"):
        label_distribution([tok(TAG), tok("A", -12000.0)], TAG)
    # just above the clamp is a (tiny) real probability
    dist = label_distribution([tok(TAG), tok("C", -9998.0)], TAG)
    assert dist.prob("C") == 1.0


def test_missing_logprob_value_is_treated_as_nan() -> None:
    tokens = [tok(TAG), {"token": "A", "logprob": None, "top_logprobs": []}]
    with raises("score token logprob is NaN"):
        label_distribution(tokens, TAG)


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "resp",
    [
        None,
        {},
        {"choices": []},
        {"choices": None},
        {"choices": [{"message": {"content": "x"}}]},
        {"choices": [{"logprobs": None}]},
    ],
)
def test_logprobs_missing(resp: Any) -> None:
    with raises("logprobs are missing") as info:
        score_pair(resp)
    assert info.value.kind == "logprobs_missing"


@pytest.mark.parametrize("content", [None, []])
def test_token_logprobs_empty(content: Any) -> None:
    with raises("score_A: token logprobs are empty"):
        score_pair(response(content))
    with raises("token logprobs are empty"):
        label_distribution(content, TAG)


def test_tag_missing_is_prefixed_per_candidate() -> None:
    with raises("score_A: score tag is missing"):
        score_pair(response([tok("no tags here"), tok("A")]))
    only_a = [tok("<score_A>"), tok("A", 0.0), tok("</score_A> and nothing else")]
    with raises("score_B: score tag is missing"):
        score_pair(response(only_a))


def test_score_token_missing_after_tag() -> None:
    with raises("score token is missing after tag"):
        label_distribution([tok("text"), tok("<score_A>")], TAG)
    with raises("score_B: score token is missing after tag"):
        score_pair(response([tok("<score_A>"), tok("B", 0.0), tok("</score_A><score_B>")]))


def test_score_token_logprobs_missing_after_tag() -> None:
    tokens = [tok(TAG), tok("\n", 0.0, [(" ", ln(0.5)), ("The", ln(0.1))])]
    with raises("score token logprobs are missing after tag") as info:
        label_distribution(tokens, TAG)
    assert info.value.kind == "candidates_missing"


def test_a_is_checked_before_b() -> None:
    tokens = [tok("<score_B>"), tok("A", 0.0), tok("<score_A>")]
    with raises("score_A: score token is missing after tag"):
        score_pair(response(tokens))


def test_error_is_a_value_error() -> None:
    assert issubclass(VerifierScoreError, ValueError)
    with pytest.raises(ValueError):
        label_distribution([], TAG)
    with pytest.raises(ValueError, match="tag"):
        label_distribution([tok("x")], "")


# -- distribution fields --------------------------------------------------------------------------


def test_distribution_diagnostics() -> None:
    tokens = [
        tok(TAG),
        tok(
            "A",
            ln(0.6),
            [("A", ln(0.6)), ("B", ln(0.2)), (" A", ln(0.1)), ("Because", ln(0.05))],
        ),
    ]
    dist = label_distribution(tokens, TAG)
    assert len(dist.probs) == 20
    # softmax over per-label max: A .6, B .2
    assert dist.prob("A") == pytest.approx(0.75)
    assert dist.prob("B") == pytest.approx(0.25)
    # valid mass: distinct label tokens "A" (.6, counted once), "B" (.2), " A" (.1)
    assert dist.valid_mass == pytest.approx(0.9)
    assert dist.entropy == pytest.approx(-(0.75 * ln(0.75) + 0.25 * ln(0.25)))
    assert dist.sampled_label == "A"
    assert dist.from_logprobs is True


def test_sampled_token_that_is_not_a_label() -> None:
    tokens = [tok(TAG), tok("**", ln(0.7), [("**", ln(0.7)), ("C", ln(0.3))])]
    dist = label_distribution(tokens, TAG)
    assert dist.sampled_label is None
    assert dist.expected_score == pytest.approx(value("C"))
    assert dist.valid_mass == pytest.approx(0.3)


def test_to_dict_round_trip() -> None:
    dist = score_pair(response(worked_example())).dist_a
    data = json.loads(json.dumps(dist.to_dict()))
    assert data["probs"] == pytest.approx({"A": 0.7, "T": 0.3})
    assert set(data) == {
        "probs",
        "expected_score",
        "sampled_label",
        "valid_mass",
        "entropy",
        "token_index",
        "from_logprobs",
    }
    back = LabelDistribution.from_dict(data)
    assert back.probs == pytest.approx(dist.probs)
    assert back.expected_score == pytest.approx(dist.expected_score)
    assert back.sampled_label == dist.sampled_label
    dense = {**data, "labels": list(dist.labels), "probs": list(dist.probs)}
    assert LabelDistribution.from_dict(dense).probs == pytest.approx(dist.probs)
    with pytest.raises(ValueError):
        LabelDistribution.from_dict({**data, "probs": {"Z": 1.0}})


def test_custom_scale() -> None:
    scale = LabelScale.linear(5)  # A..E: 1, .75, .5, .25, 0
    tokens = [tok(TAG), tok("B", ln(0.5), [("B", ln(0.5)), ("F", ln(0.5))])]
    dist = label_distribution(tokens, TAG, scale=scale)
    assert len(dist.probs) == 5
    assert dist.expected_score == pytest.approx(0.75)  # "F" is not on this scale


# -- expected_score / comparison_score ------------------------------------------------------------


def test_expected_score_from_logprob_map() -> None:
    assert expected_score({"A": ln(0.7), "T": ln(0.3)}) == pytest.approx(0.7)
    assert expected_score({"A": -9999.0, "K": 0.0}) == pytest.approx(value("K"))
    with raises("score token logprob is NaN"):
        expected_score({"A": math.nan, "B": 0.0})
    with raises("score token logprobs are all negative infinity"):
        expected_score({"A": -math.inf})
    with raises("score token logprobs are missing after tag"):
        expected_score({})
    with pytest.raises(ValueError, match="not a label"):
        expected_score({"U": 0.0})


def test_expected_score_from_distribution() -> None:
    dist = score_pair(response(worked_example())).dist_a
    assert expected_score(dist) == pytest.approx(0.7)
    reversed_scale = LabelScale(DEFAULT_SCALE.labels, tuple(reversed(DEFAULT_SCALE.values)))
    assert expected_score(dist, reversed_scale) == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("s_a", "s_b", "score"),
    [(0.7, 0.2, 0.75), (1.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.4, 0.4, 0.5), (0.2, 0.6, 0.3)],
)
def test_comparison_score(s_a: float, s_b: float, score: float) -> None:
    assert comparison_score(s_a, s_b) == pytest.approx(score)


def test_comparison_score_clamps_out_of_range_inputs() -> None:
    assert comparison_score(3.0, 0.0) == 1.0
    assert comparison_score(0.0, 3.0) == 0.0
    assert math.isnan(comparison_score(math.nan, 0.5))
