"""FinalResponseCriterion (SPEC §3.7)."""

import pytest

from agenteval_nb.criteria import (
    Hooks,
    MatchError,
    match_final_response,
    validate_final_response,
)
from agenteval_nb.schema import (
    FinalResponseCriterion,
    Invocation,
    JSONCriterion,
    LengthCriterion,
    Message,
    RougeCriterion,
    RougeThreshold,
    TextCriterion,
    XMLCriterion,
)

F = FinalResponseCriterion


def answer(content):
    if content is None:
        return Invocation()
    return Invocation(final_response=Message(role="assistant", content=content))


def mismatch(criterion, actual, expected, hooks=None):
    with pytest.raises(MatchError) as info:
        match_final_response(criterion, actual, expected, *(() if hooks is None else (hooks,)))
    return str(info.value)


def test_not_configured_is_checked_before_nil_invocations():
    text = "final response criterion must configure text, json, rouge, or xml"
    assert mismatch(F(), None, None) == text
    assert validate_final_response(F()) == text


def test_nil_invocations_and_responses():
    criterion = F(text=TextCriterion())
    assert mismatch(criterion, None, answer("x")) == "actual or expected invocation is nil"
    match_final_response(criterion, answer(None), answer(None))
    assert mismatch(criterion, answer(None), answer("x")) == (
        "actual or expected final response is nil"
    )
    # a missing expected response counts as ""
    assert mismatch(criterion, answer("x"), answer(None)) == (
        "text mismatch: source x and target  do not match"
    )
    match_final_response(
        F(text=TextCriterion(match_strategy="contains")), answer("x"), answer(None)
    )


def test_json_and_text_failures_are_joined_in_order():
    criterion = F(text=TextCriterion(), json=JSONCriterion())
    assert mismatch(criterion, answer("x"), answer("y")) == (
        "json mismatch: parse actual raw json: invalid character 'x' looking for beginning of "
        "value; text mismatch: source x and target y do not match"
    )


def test_json_content_is_compared_as_decoded_json():
    criterion = F(json=JSONCriterion())
    match_final_response(criterion, answer('{"a": 1, "b": [1,2]}'), answer('{"b":[1,2],"a":1.0}'))
    assert mismatch(criterion, answer('{"a": 1}'), answer('{"a": 2}')) == (
        "json mismatch: actual map[a:1] and expected map[a:2] do not match: "
        "compare a: actual 1 and expected 2 do not match"
    )


def test_json_exact_with_missing_expected_fails_on_empty_text():
    assert mismatch(F(json=JSONCriterion()), answer("{}"), answer(None)) == (
        "json mismatch: parse expected raw json: EOF"
    )
    # skip + valid checks only the actual
    match_final_response(
        F(json=JSONCriterion(match_strategy="skip", valid=True)), answer("{}"), answer(None)
    )


def test_json_schema_only_check():
    criterion = F(
        json=JSONCriterion(
            match_strategy="skip",
            schema={"type": "object", "required": ["city"]},
        )
    )
    match_final_response(criterion, answer('{"city": "Oslo"}'), answer(None))
    assert mismatch(criterion, answer('{"town": "Oslo"}'), answer(None)).startswith(
        "json mismatch: json schema validation failed: "
    )
    assert mismatch(criterion, answer("Oslo"), answer(None)).startswith(
        "json mismatch: parse actual raw json: invalid character 'O'"
    )


def test_rouge_failure_reports_reason_string():
    criterion = F(rouge=RougeCriterion(rouge_type="rouge1", threshold=RougeThreshold(f1=0.9)))
    match_final_response(criterion, answer("the cat sat"), answer("The cat sat."))
    assert mismatch(criterion, answer("the dog"), answer("the cat")) == (
        "rouge mismatch: rouge1 f1=0.500000 precision=0.500000 recall=0.500000 f1=0.500000"
    )


def test_rouge_uses_expected_as_target():
    criterion = F(
        rouge=RougeCriterion(
            rouge_type="rouge1", measure="recall", threshold=RougeThreshold(recall=1)
        )
    )
    # recall is measured against the expected text: all expected words present
    match_final_response(criterion, answer("a b c d"), answer("a b"))
    assert "recall=0.500000" in mismatch(criterion, answer("a b"), answer("a b c d"))


def test_rouge_configuration_error():
    criterion = F(rouge=RougeCriterion(rouge_type="rougeX"))
    assert (
        mismatch(criterion, answer("a"), answer("a"))
        == "rouge mismatch: invalid rouge type: rougeX"
    )
    assert validate_final_response(criterion) == "rouge mismatch: invalid rouge type: rougeX"


def test_xml_sub_criterion():
    criterion = F(xml=XMLCriterion(valid=True, match_strategy="skip"))
    match_final_response(criterion, answer("<r><a/></r>"), answer(None))
    assert mismatch(criterion, answer("<r>"), answer(None)) == (
        "xml mismatch: xml content has unclosed elements"
    )
    assert validate_final_response(F(xml=XMLCriterion())) == (
        "xml mismatch: xml match strategy is empty"
    )


def test_all_four_in_order():
    criterion = F(
        xml=XMLCriterion(valid=True, match_strategy="skip"),
        rouge=RougeCriterion(rouge_type="rougeL", threshold=RougeThreshold(f1=1)),
        text=TextCriterion(length=LengthCriterion(max=2)),
        json=JSONCriterion(),
    )
    parts = mismatch(criterion, answer("abc"), answer("xyz")).split("; ")
    assert [p.split(":")[0] for p in parts] == [
        "json mismatch",
        "text mismatch",
        "rouge mismatch",
        "xml mismatch",
    ]
    assert (
        parts[1]
        == "text mismatch: length mismatch: actual length 3 is greater than max 2, expected range [0, 2]"
    )


def test_ignored_sub_criteria_are_skipped():
    criterion = F(text=TextCriterion(ignore=True), json=JSONCriterion(ignore=True))
    match_final_response(criterion, answer("x"), answer("y"))


def test_custom_compare_hooks():
    whole = Hooks(compare={"len": lambda a, e: len(a.final_response.content) == 3})
    criterion = F(compare_name="len")  # nothing else configured: the hook still decides
    match_final_response(criterion, answer("abc"), answer("zzzzz"), whole)
    assert mismatch(criterion, answer("ab"), answer("ab"), whole) == ""
    text_hook = Hooks(compare={"ci": lambda a, e: a.lower() == e.lower()})
    criterion = F(text=TextCriterion(compare_name="ci"))
    match_final_response(criterion, answer("PARIS"), answer("paris"), text_hook)
    assert mismatch(criterion, answer("Rome"), answer("paris"), text_hook) == "text mismatch"
