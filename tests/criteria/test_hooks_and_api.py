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
