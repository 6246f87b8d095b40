"""ROUGE (SPEC §3.6): values, thresholds, errors, tokenizers, sentence splitting."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from agenteval_nb.criteria import (
    Hooks,
    MatchError,
    cjk_tokenizer,
    rouge_tokenize,
    score_rouge,
    split_sentences,
    validate_rouge,
)
from agenteval_nb.schema import RougeCriterion, RougeThreshold

R = RougeCriterion


def test_hand_computed_rouge1_and_rouge2():
    # target: the cat sat on the mat (6 tokens); prediction: the cat lay on the mat (6 tokens)
    target, prediction = "The cat sat on the mat.", "the cat lay on the mat"
    one = score_rouge(R(rouge_type="rouge1"), target, prediction)
    assert (one.precision, one.recall, one.f1) == pytest.approx((5 / 6, 5 / 6, 5 / 6))
    # bigrams: target {the cat, cat sat, sat on, on the, the mat}, pred shares 3
    two = score_rouge(R(rouge_type="rouge2"), target, prediction)
    assert (two.precision, two.recall) == pytest.approx((3 / 5, 3 / 5))


def test_hand_computed_rouge_l():
    # LCS("a b c d", "a c b d") = 3
    score = score_rouge(R(rouge_type="rougeL", measure="recall"), "a b c d", "a c b d e")
    assert score.recall == pytest.approx(3 / 4)
    assert score.precision == pytest.approx(3 / 5)
    assert score.value == score.recall
    assert score.f1 == pytest.approx(2 * (3 / 4) * (3 / 5) / (3 / 4 + 3 / 5))


def test_multiset_overlap_is_clipped():
    score = score_rouge(R(rouge_type="rouge1"), "the cat", "the the the")
    assert (score.precision, score.recall) == pytest.approx((1 / 3, 1 / 2))


def test_empty_side_scores_zero():
    for rouge_type in ("rouge1", "rougeL", "rougeLsum"):
        score = score_rouge(R(rouge_type=rouge_type), "", "some words")
        assert (score.precision, score.recall, score.f1) == (0, 0, 0)
        score = score_rouge(R(rouge_type=rouge_type), "some words", "!!!")
        assert score.f1 == 0


texts = st.lists(
    st.sampled_from(["the", "cat", "cats", "running", "ran", "quickly", "home", "Home!", "\n"]),
    max_size=12,
).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(texts, texts, st.sampled_from(["rouge1", "rouge2", "rougeL", "rougeLsum"]), st.booleans())
def test_values_equal_rouge_score_package(target, prediction, rouge_type, stem):
    expected = rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem).score(target, prediction)
    ours = score_rouge(R(rouge_type=rouge_type, use_stemmer=stem), target, prediction)
    ref = expected[rouge_type]
    assert (ours.precision, ours.recall, ours.f1) == pytest.approx(
        (ref.precision, ref.recall, ref.fmeasure)
    )


def test_rouge_lsum_splits_on_newlines_and_uses_union_lcs():
    target = "the cat sat\nthe dog ran"
    prediction = "the dog sat\nthe cat ran"
    ref = rouge_scorer.RougeScorer(["rougeLsum"]).score(target, prediction)["rougeLsum"]
    ours = score_rouge(R(rouge_type="rougeLsum"), target, prediction)
    assert ours.f1 == pytest.approx(ref.fmeasure)
    # one line vs two lines gives a different (summary-level) score than rougeL
    flat = score_rouge(R(rouge_type="rougeL"), target, prediction)
    assert ours.f1 != pytest.approx(flat.f1)


def test_split_summaries_uses_offline_sentence_splitter():
    target = "Dr. Smith arrived. He sat down."
    prediction = "He sat down. Dr. Smith arrived."
    split = score_rouge(R(rouge_type="rougeLsum", split_summaries=True), target, prediction)
    unsplit = score_rouge(R(rouge_type="rougeLsum"), target, prediction)
    assert split.f1 == pytest.approx(1.0)
    assert unsplit.f1 < 1.0


def test_split_sentences_offline():
    assert split_sentences("Dr. Smith came at 5 p.m. today. He sat! Why?\n\nNext") == [
        "Dr. Smith came at 5 p.m. today.",
        "He sat!",
        "Why?",
        "Next",
    ]
    assert split_sentences("   ") == []


def test_stemming():
    assert rouge_tokenize("Running RUNNER runs, cats!", use_stemmer=True) == [
        "run",
        "runner",
        "run",
        "cat",
    ]
    assert rouge_tokenize("Running cats", use_stemmer=False) == ["running", "cats"]
    assert rouge_tokenize("skies dying", use_stemmer=True) == ["sky", "die"]  # NLTK irregulars
    stemmed = score_rouge(R(rouge_type="rouge1", use_stemmer=True), "cats running", "cat runs")
    plain = score_rouge(R(rouge_type="rouge1"), "cats running", "cat runs")
    assert (stemmed.f1, plain.f1) == (1.0, 0.0)


def test_default_tokenizer_drops_non_latin_text():
    assert rouge_tokenize("你好 world_42 İx") == ["world", "42", "ix"]
    assert score_rouge(R(rouge_type="rouge1"), "今天天气很好", "今天天气很好").f1 == 0


def test_cjk_tokenizer_registered_by_name():
    assert cjk_tokenizer("Hello 世界, Café ABC123 こんにちは") == [
        "hello",
        "世",
        "界",
        "café",
        "abc123",
        "こ",
        "ん",
        "に",
        "ち",
        "は",
    ]
    hooks = Hooks(tokenizers={"cjk": cjk_tokenizer})
    criterion = R(rouge_type="rouge1", tokenizer_name="cjk", use_stemmer=True)
    score = score_rouge(criterion, "今天天气很好", "今天天气不好", hooks)
    assert score.recall == pytest.approx(5 / 6)
    assert score.precision == pytest.approx(5 / 6)


def test_custom_tokenizer_errors_become_match_errors():
    def broken(text):
        raise RuntimeError("no tokens today")

    hooks = Hooks(tokenizers={"broken": broken})
    with pytest.raises(MatchError, match="no tokens today"):
        score_rouge(R(rouge_type="rouge1", tokenizer_name="broken"), "a", "b", hooks)


def test_unresolved_tokenizer_name_uses_default():
    score = score_rouge(R(rouge_type="rouge1", tokenizer_name="missing"), "a b", "a b")
    assert score.f1 == 1.0


def test_thresholds_check_all_three_components():
    target, prediction = "a b c d", "a b"  # P = 1, R = 0.5, F = 2/3
    ok = score_rouge(
        R(rouge_type="rouge1", threshold=RougeThreshold(precision=1.0, f1=0.6)), target, prediction
    )
    assert ok.passed
    low_recall = score_rouge(
        R(rouge_type="rouge1", measure="precision", threshold=RougeThreshold(recall=0.6)),
        target,
        prediction,
    )
    assert low_recall.value == 1.0
    assert not low_recall.passed
    assert score_rouge(R(rouge_type="rouge1"), "x", "y").passed  # unset thresholds are 0


def test_reason_format():
    score = score_rouge(R(rouge_type="rouge1", measure="recall"), "a b c d", "a b")
    assert score.reason == "rouge1 recall=0.500000 precision=1.000000 recall=0.500000 f1=0.666667"
    assert score.measure == "recall"
    assert score_rouge(R(rouge_type="rougeL"), "a", "a").measure == "f1"


def test_ignore_scores_one():
    score = score_rouge(R(ignore=True, rouge_type="bogus", measure="bogus"), "x", "y")
    assert (score.value, score.precision, score.recall, score.f1, score.passed) == (
        1.0,
        1.0,
        1.0,
        1.0,
        True,
    )
    assert score.measure == "f1"


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        (R(), "rouge criterion requires rougeType"),
        (R(rouge_type="rouge1", measure="accuracy"), "unsupported rouge measure: accuracy"),
        (R(rouge_type="rouge"), "invalid rouge type: rouge"),
        (R(rouge_type="rougen"), "invalid rouge type: rougen"),
        (R(rouge_type="rouge0"), "invalid rouge type: rouge0"),
        (R(rouge_type="rouge-1"), "invalid rouge type: rouge-1"),
        (R(rouge_type="rougeX"), "invalid rouge type: rougeX"),
        (R(rouge_type="ROUGE1"), "invalid rouge type: ROUGE1"),
        (R(rouge_type="rouge 1"), "invalid rouge type: rouge 1"),
    ],
)
def test_configuration_errors(criterion, message):
    assert validate_rouge(criterion) == message
    with pytest.raises(MatchError) as info:
        score_rouge(criterion, "a", "a")
    assert str(info.value) == message


def test_measure_checked_before_type():
    assert validate_rouge(R(rouge_type="bad", measure="bad")) == "unsupported rouge measure: bad"


def test_large_n_and_atoi_syntax_are_valid():
    for rouge_type in ("rouge10", "rouge+1", "rouge01"):
        assert validate_rouge(R(rouge_type=rouge_type)) is None
    words = " ".join(f"w{i}" for i in range(12))
    assert score_rouge(R(rouge_type="rouge10"), words, words).f1 == 1.0
    eleven = " ".join(words.split()[:11])  # 2 of the 3 target 10-grams
    nine = " ".join(words.split()[:9])  # no 10-gram at all
    assert score_rouge(R(rouge_type="rouge10"), words, eleven).recall == pytest.approx(2 / 3)
    assert score_rouge(R(rouge_type="rouge10"), words, nine).f1 == 0.0
