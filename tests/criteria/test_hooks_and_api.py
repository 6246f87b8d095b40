"""Hook outcomes and the public surface of ``agenteval_nb.criteria``."""

import agenteval_nb.criteria as criteria
from agenteval_nb.criteria import MatchError, compare_outcome
from agenteval_nb.criteria.errors import NO_CAUSE, fail, wrap


def test_compare_outcome_conventions():
    assert compare_outcome(lambda a, e: True, 1, 2) is None
    assert compare_outcome(lambda a, e: 0, 1, 2) == ""
    assert compare_outcome(lambda a, e: (True, None), 1, 2) is None
    assert compare_outcome(lambda a, e: (False, None), 1, 2) == ""
    assert compare_outcome(lambda a, e: (True, "boom"), 1, 2) == "boom"

    def raises(a, e):
        raise MatchError("custom text")

    assert compare_outcome(raises, 1, 2) == "custom text"


def test_wrap_distinguishes_empty_causes():
    assert wrap("name mismatch", NO_CAUSE)() == "name mismatch"
    assert wrap("name mismatch", fail("x"))() == "name mismatch: x"
    assert str(MatchError("")) == ""


def test_public_api_is_exported():
    for name in [
        "match_length",
        "match_text",
        "match_json",
        "match_xml",
        "score_rouge",
        "match_tool_trajectory",
        "match_final_response",
        "validate_length",
        "validate_text",
        "validate_json",
        "validate_xml",
        "validate_rouge",
        "validate_tool_trajectory",
        "validate_final_response",
        "cjk_tokenizer",
        "MatchError",
        "RawJSON",
        "RougeScore",
    ]:
        assert name in criteria.__all__
        assert callable(getattr(criteria, name))


def test_validate_criterion_reports_first_configuration_error():
    from agenteval_nb.criteria import validate_criterion
    from agenteval_nb.schema import Criterion

    ok = Criterion.model_validate({"toolTrajectory": {}, "finalResponse": {"text": {}}})
    assert validate_criterion(ok) is None
    assert validate_criterion(None) is None
    bad_rouge = Criterion.model_validate({"finalResponse": {"rouge": {"rougeType": "rouge0"}}})
    assert validate_criterion(bad_rouge) == "rouge mismatch: invalid rouge type: rouge0"
    bad_json = Criterion.model_validate(
        {
            "toolTrajectory": {
                "toolStrategy": {
                    "t": {"arguments": {"onlyTree": {"a": True}, "ignoreTree": {"b": True}}}
                }
            }
        }
    )
    assert validate_criterion(bad_json) == (
        "arguments mismatch: onlyTree and ignoreTree cannot be set at the same time"
    )
    bad_length = Criterion.model_validate(
        {"finalResponse": {"text": {"length": {"min": 5, "max": 1}}}}
    )
    assert validate_criterion(bad_length) == (
        "text mismatch: length mismatch: min length must be less than or equal to max length"
    )
