"""Label scale as data, and the text fallback used when an endpoint returns no logprobs."""

from __future__ import annotations

import dataclasses
import re

import pytest

from agenteval_nb.verifier import DEFAULT_SCALE, LabelScale, VerifierScoreError
from agenteval_nb.verifier.scoring import text_fallback_label

# -- LabelScale -----------------------------------------------------------------------------------


def test_default_scale_is_a_to_t_linear() -> None:
    assert DEFAULT_SCALE.size == 20
    assert "".join(DEFAULT_SCALE.labels) == "ABCDEFGHIJKLMNOPQRST"
    assert DEFAULT_SCALE.values[0] == 1.0
    assert DEFAULT_SCALE.values[1] == pytest.approx(18 / 19)
    assert DEFAULT_SCALE.values[-1] == 0.0
    for k, v in enumerate(DEFAULT_SCALE.values):
        assert v == pytest.approx(1 - k / 19)
    assert DEFAULT_SCALE.index("C") == 2
    assert DEFAULT_SCALE.index("U") is None
    assert DEFAULT_SCALE.value("K") == pytest.approx(1 - 10 / 19)


def test_scale_is_frozen_and_comparable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_SCALE.labels = ("A",)  # type: ignore[misc]
    assert LabelScale.linear(20) == DEFAULT_SCALE
    assert LabelScale.linear(5) != DEFAULT_SCALE


def test_custom_scale_values() -> None:
    scale = LabelScale(("P", "F"), (1, 0))
    assert scale.values == (1.0, 0.0)
    assert scale.index("F") == 1


@pytest.mark.parametrize(
    ("labels", "values"),
    [
        ((), ()),
        (("A", "B"), (1.0,)),
        (("A", "a"), (1.0, 0.0)),
        (("AB", "C"), (1.0, 0.0)),
        (("A", "A"), (1.0, 0.0)),
        (("A", "B"), (1.0, float("nan"))),
    ],
)
def test_invalid_scales(labels: tuple[str, ...], values: tuple[float, ...]) -> None:
    with pytest.raises(ValueError):
        LabelScale(labels, values)


@pytest.mark.parametrize("size", [1, 27])
def test_linear_size_bounds(size: int) -> None:
    with pytest.raises(ValueError):
        LabelScale.linear(size)


# -- text fallback --------------------------------------------------------------------------------


def test_text_fallback_one_hot() -> None:
    text = "Both are decent.\n<score_A> c </score_A>\n<score_B>H</score_B>"
    dist_a = text_fallback_label(text, "<score_A>")
    dist_b = text_fallback_label(text, "<score_B>")
    assert dist_a.sampled_label == "C"
    assert dist_a.from_logprobs is False
    assert dist_a.prob("C") == 1.0
    assert sum(dist_a.probs) == 1.0
    assert dist_a.expected_score == pytest.approx(1 - 2 / 19)
    assert dist_a.entropy == 0.0
    assert dist_a.token_index == -1
    assert dist_b.expected_score == pytest.approx(1 - 7 / 19)
    assert dist_a.to_dict()["from_logprobs"] is False


def test_text_fallback_first_occurrence() -> None:
    text = "<score_A>B</score_A> on reflection <score_A>Q</score_A>"
    assert text_fallback_label(text, "<score_A>").sampled_label == "B"


def test_text_fallback_custom_scale() -> None:
    scale = LabelScale.linear(3)
    assert text_fallback_label("<score_A>B</score_A>", "<score_A>", scale).expected_score == 0.5
    with pytest.raises(VerifierScoreError, match="invalid"):
        text_fallback_label("<score_A>D</score_A>", "<score_A>", scale)


@pytest.mark.parametrize(
    ("text", "message", "kind"),
    [
        ("no tag at all", "score tag is missing", "tag_missing"),
        ("<score_B>A</score_B>", "score tag is missing", "tag_missing"),
        ("<score_A>A", "score closing tag is missing", "closing_tag_missing"),
        ("<score_A>U</score_A>", "score label is invalid: 'U'", "label_invalid"),
        ("<score_A>A,</score_A>", "score label is invalid: 'A,'", "label_invalid"),
        ('<score_A>"A"</score_A>', "score label is invalid: '\"A\"'", "label_invalid"),
        ("<score_A></score_A>", "score label is invalid: ''", "label_invalid"),
    ],
)
def test_text_fallback_errors(text: str, message: str, kind: str) -> None:
    with pytest.raises(VerifierScoreError, match=f"^{re.escape(message)}$") as info:
        text_fallback_label(text, "<score_A>")
    assert info.value.kind == kind
