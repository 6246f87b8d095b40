"""LengthCriterion (SPEC §3.3) and TextCriterion (SPEC §3.2)."""

import pytest

from agenteval_nb.criteria import (
    Hooks,
    MatchError,
    match_length,
    match_text,
    validate_length,
    validate_text,
)
from agenteval_nb.schema import LengthCriterion, TextCriterion


def length_error(criterion, content):
    with pytest.raises(MatchError) as info:
        match_length(criterion, content)
    return str(info.value)


def text_error(criterion, source, target, hooks=None):
    with pytest.raises(MatchError) as info:
        match_text(criterion, source, target, *(() if hooks is None else (hooks,)))
    return str(info.value)


# --- length -------------------------------------------------------------------------------


def test_length_null_or_ignored_always_matches():
    match_length(None, "anything")
    match_length(LengthCriterion(ignore=True), "x" * 100)
    match_length(LengthCriterion(ignore=True), "")  # even without bounds


@pytest.mark.parametrize(
    ("criterion", "error"),
    [
        (LengthCriterion(), "length criterion must configure min or max"),
        (LengthCriterion(min=-1), "min length must be non-negative"),
        (LengthCriterion(max=-1), "max length must be non-negative"),
        (LengthCriterion(min=-1, max=-2), "min length must be non-negative"),
        (LengthCriterion(min=3, max=2), "min length must be less than or equal to max length"),
    ],
)
def test_length_configuration_errors(criterion, error):
    assert validate_length(criterion) == error
    assert length_error(criterion, "abc") == error


def test_length_bounds_are_inclusive_code_points():
    criterion = LengthCriterion(min=2, max=3)
    match_length(criterion, "ab")
    match_length(criterion, "abc")
    match_length(criterion, "你好吗")  # 3 code points, 9 UTF-8 bytes
    match_length(criterion, "😀😀")  # astral characters count once
    assert validate_length(criterion) is None


def test_length_messages_render_range():
    assert (
        length_error(LengthCriterion(min=2, max=5), "a")
        == "actual length 1 is less than min 2, expected range [2, 5]"
    )
    assert (
        length_error(LengthCriterion(max=3), "abcd")
        == "actual length 4 is greater than max 3, expected range [0, 3]"
    )
    assert (
        length_error(LengthCriterion(min=4), "你好")
        == "actual length 2 is less than min 4, expected range [4, +inf)"
    )


# --- text ---------------------------------------------------------------------------------


def test_exact_is_the_default_strategy():
    match_text(TextCriterion(), "Paris", "Paris")
    match_text(TextCriterion(match_strategy="exact"), "Paris", "Paris")
    assert text_error(TextCriterion(), "Paris", "paris") == (
        "source Paris and target paris do not match"
    )


def test_ignore_short_circuits_everything():
    match_text(TextCriterion(ignore=True, match_strategy="bogus"), "a", "b")
    match_text(TextCriterion(ignore=True, length=LengthCriterion(max=0)), "abc", "x")


def test_contains_checks_target_in_source():
    criterion = TextCriterion(match_strategy="contains")
    match_text(criterion, "the capital is Paris", "Paris")
    match_text(criterion, "anything", "")  # the empty target is always contained
    assert text_error(criterion, "London", "Paris") == "source London does not contain target Paris"


def test_regex_is_an_unanchored_re2_search():
    criterion = TextCriterion(match_strategy="regex")
    match_text(criterion, "order #1234 shipped", r"#\d{4}")
    assert (
        text_error(criterion, "no digits", r"\d+") == r"source no digits does not match regex \d+"
    )


def test_invalid_regex_reports_go_style_parse_error():
    error = text_error(TextCriterion(match_strategy="regex"), "abc", "(abc")
    assert error.startswith("invalid regex (abc: error parsing regexp: missing closing )")
    error = text_error(TextCriterion(match_strategy="regex"), "abc", "a**")
    assert "invalid regex a**: error parsing regexp: invalid nested repetition operator" in error


def test_regex_rejects_backreferences_like_re2():
    error = text_error(TextCriterion(match_strategy="regex"), "aa", r"(a)\1")
    assert error.startswith(r"invalid regex (a)\1: error parsing regexp: invalid escape sequence")


def test_case_insensitive_lowercases_both_sides():
    criterion = TextCriterion(case_insensitive=True)
    match_text(criterion, "PARIS", "paris")
    match_text(TextCriterion(case_insensitive=True, match_strategy="contains"), "In PARIS", "Paris")
    assert text_error(criterion, "Paris", "Rome") == "source paris and target rome do not match"


def test_case_insensitive_lowercases_the_regex_pattern_too():
    criterion = TextCriterion(case_insensitive=True, match_strategy="regex")
    # \D (non-digit) becomes \d (digit): "123" now matches, "abc" no longer does.
    match_text(criterion, "123", r"^\D+$")
    assert "does not match regex ^\\d+$" in text_error(criterion, "abc", r"^\D+$")
    match_text(criterion, "HELLO world", "^hello")


def test_skip_matches_after_the_length_check():
    criterion = TextCriterion(match_strategy="skip", length=LengthCriterion(max=3))
    match_text(criterion, "abc", "unrelated")
    assert text_error(criterion, "abcd", "x") == (
        "length mismatch: actual length 4 is greater than max 3, expected range [0, 3]"
    )


def test_length_applies_to_source_only():
    criterion = TextCriterion(length=LengthCriterion(min=1, max=3))
    match_text(TextCriterion(match_strategy="contains", length=LengthCriterion(max=3)), "abc", "")
    assert text_error(criterion, "abcd", "abcd").startswith("length mismatch: actual length 4")


def test_invalid_strategy():
    assert text_error(TextCriterion(match_strategy="fuzzy"), "a", "a") == (
        "invalid match strategy fuzzy"
    )
    assert validate_text(TextCriterion(match_strategy="fuzzy")) == "invalid match strategy fuzzy"
    assert validate_text(TextCriterion(match_strategy="regex")) is None


def test_custom_compare_wins_and_skips_length():
    seen = []

    def same_first_letter(source, target):
        seen.append((source, target))
        return source[:1] == target[:1]

    hooks = Hooks(compare={"first": same_first_letter})
    criterion = TextCriterion(compare_name="first", length=LengthCriterion(max=1))
    match_text(criterion, "Paris", "Prague", hooks)
    assert seen == [("Paris", "Prague")]
    assert text_error(criterion, "Paris", "Rome", hooks) == ""  # false without error


def test_custom_compare_exception_text_is_the_reason():
    def boom(source, target):
        raise ValueError("names differ in kind")

    hooks = Hooks(compare={"boom": boom})
    assert text_error(TextCriterion(compare_name="boom"), "a", "a", hooks) == "names differ in kind"


def test_unresolved_compare_name_is_ignored():
    match_text(TextCriterion(compare_name="missing"), "a", "a")
    assert text_error(TextCriterion(compare_name="missing"), "a", "b").startswith("source a")
