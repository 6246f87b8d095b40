"""The comparison the corpus and live tests rely on (tests/traces/_expected.py) accepts the
right invocation and rejects each kind of wrong one, so a loader bug cannot slip past it."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _expected import assert_matches, decoded, load_expected, report_text, snake_keys

from agenteval_nb.schema.evalset import EvalSet

EXPECTED = load_expected("openai-v2/span_only.expected.json")


def _evalset(turns: list[dict[str, Any]], case_id: str = "weather-chat-1") -> EvalSet:
    """A trace-mode eval set with one case of these turns, as a loader would build it."""
    return EvalSet.model_validate(
        {
            "evalSetId": "loaded",
            "evalCases": [
                {
                    "evalId": case_id,
                    "evalMode": "trace",
                    "actualConversation": [
                        {
                            "userContent": {"role": "user", "content": turn["user_content"]},
                            "finalResponse": {
                                "role": "assistant",
                                "content": turn["final_response"],
                            },
                            "tools": turn["tools"],
                        }
                        for turn in turns
                    ],
                }
            ],
        }
    )


def _right_turns() -> list[dict[str, Any]]:
    turns = copy.deepcopy(EXPECTED["cases"][0]["turns"])
    for turn in turns:
        del turn["from"]
    # a loader may keep the tool result as the JSON text the loop sent back
    turns[0]["tools"][0]["result"] = json.dumps(turns[0]["tools"][0]["result"])
    return turns


def test_the_right_invocation_matches() -> None:
    assert_matches(_evalset(_right_turns()), "", EXPECTED, "right")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda t: t.update(user_content="What's the weather in Rome today?"),
        lambda t: t.update(final_response=t["final_response"] + "!"),
        lambda t: t.update(tools=[]),
        lambda t: t["tools"][0].update(id="call_other"),
        lambda t: t["tools"][0].update(name="get_forecast"),
        lambda t: t["tools"][0].update(arguments={"city": "Paris"}),
        lambda t: t["tools"][0].update(result='{"city": "Paris"}'),
        lambda t: t.update(tools=t["tools"] * 2),
    ],
    ids=["user", "final", "no-tools", "id", "name", "arguments", "result", "extra-call"],
)
def test_each_wrong_field_is_caught(spoil: Any) -> None:
    turns = _right_turns()
    spoil(turns[0])
    with pytest.raises(AssertionError):
        assert_matches(_evalset(turns), "", EXPECTED, "spoiled")


def test_turns_must_all_be_there_in_order() -> None:
    turns = _right_turns()
    with pytest.raises(AssertionError, match="turns"):
        assert_matches(_evalset(turns[:1]), "", EXPECTED, "one turn lost")
    with pytest.raises(AssertionError):
        assert_matches(_evalset(turns[::-1]), "", EXPECTED, "turns swapped")
    with pytest.raises(AssertionError, match="no case"):
        assert_matches(_evalset(turns, case_id="a-trace-id"), "", EXPECTED, "wrong case id")


def test_absent_content_must_be_absent_and_the_gap_named() -> None:
    expected = load_expected("openai-v2/no_content.expected.json")
    empty = [{"user_content": None, "final_response": None, "tools": []}] * 2
    assert_matches(_evalset(empty), "content_missing", expected, "off")
    with pytest.raises(AssertionError, match="does not name"):
        assert_matches(_evalset(empty), "", expected, "off, no gap")
    made_up = [empty[0], {**empty[1], "final_response": "made up"}]
    with pytest.raises(AssertionError, match="final response"):
        assert_matches(_evalset(made_up), "content_missing", expected, "off")


def test_a_case_is_found_by_its_conversation_id() -> None:
    expected = load_expected("strands-evals/otel_genai_convention_spans.expected.json")
    turns = copy.deepcopy(expected["cases"][0]["turns"])
    assert_matches(_evalset(turns, case_id="conv_otel_test_001"), "", expected, "by id")
    with pytest.raises(AssertionError, match="no case"):
        assert_matches(
            _evalset(turns, case_id="a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4"), "", expected, "id"
        )


def test_json_text_is_compared_decoded_at_its_top_only() -> None:
    assert decoded('{"a": [1, "{\\"b\\": 2}"]}') == {"a": [1, '{"b": 2}']}
    assert decoded('"{\\"b\\": 2}"') == {"b": 2}  # a JSON-quoted string is still the top
    assert decoded("rainy, 57°F") == "rainy, 57°F"
    assert decoded("12") == "12"  # numbers stay text: only objects, arrays, quoted strings
    assert decoded('"rainy, 57°F"') == "rainy, 57°F"


HELM = load_expected("agentevals/helm_3.expected.json")


def _helm_turns(result: Any) -> list[dict[str, Any]]:
    turns = copy.deepcopy(HELM["cases"][0]["turns"])
    turns[0]["tools"][0]["result"] = result
    return turns


def test_a_result_decoded_one_level_too_deep_is_caught() -> None:
    """agentevals' answer keeps the MCP text content as text; a loader that also decoded the
    text inside it would give a different result."""
    right = HELM["cases"][0]["turns"][0]["tools"][0]["result"]
    case_id = HELM["cases"][0]["conversation_id"]
    assert_matches(_evalset(_helm_turns(right), case_id), "", HELM, "as shipped")
    too_deep = copy.deepcopy(right)
    too_deep["content"][0]["text"] = json.loads(too_deep["content"][0]["text"])
    with pytest.raises(AssertionError, match="tool"):
        assert_matches(_evalset(_helm_turns(too_deep), case_id), "", HELM, "too deep")


def test_snake_case_answers_compare_the_tools_own_keys_snake_cased() -> None:
    """The ADK EvalSet writes ``is_error`` for the tool's ``isError``: equal under the answer's
    ``result_keys`` rule, a different value still caught, and no rule means exact keys."""
    right = HELM["cases"][0]["turns"][0]["tools"][0]["result"]
    case_id = HELM["cases"][0]["conversation_id"]
    as_recorded = {"content": right["content"], "isError": False}
    assert snake_keys(json.dumps(as_recorded)) == right
    assert_matches(_evalset(_helm_turns(as_recorded), case_id), "", HELM, "tool's keys")
    failed = {"content": right["content"], "isError": True}
    with pytest.raises(AssertionError, match="tool"):
        assert_matches(_evalset(_helm_turns(failed), case_id), "", HELM, "other value")
    exact = {key: value for key, value in HELM.items() if key != "result_keys"}
    with pytest.raises(AssertionError, match="tool"):
        assert_matches(_evalset(_helm_turns(as_recorded), case_id), "", exact, "exact keys")


def test_a_tool_key_left_out_is_not_compared() -> None:
    expected = load_expected("langfuse/google-adk-2025-08-28.expected.json")
    turns = copy.deepcopy(expected["cases"][0]["turns"])
    turns[0]["tools"] = [{"id": None, "name": "say_hello", "arguments": "{}", "result": {"any": 1}}]
    assert_matches(_evalset(turns, case_id="demo-session"), "", expected, "no result stated")
    turns[0]["tools"][0]["name"] = "say_goodbye"
    with pytest.raises(AssertionError, match="tool"):
        assert_matches(_evalset(turns, case_id="demo-session"), "", expected, "wrong name")


class _Report:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def df(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.rows)


def test_report_text_names_flag_columns_only_when_set() -> None:
    assert "redacted" in report_text(_Report([{"case": "c", "redacted": 2, "content_missing": 0}]))
    text = report_text(_Report([{"case": "c", "redacted": 0, "content_missing": False}]))
    assert "redacted" not in text and "content_missing" not in text
    assert "content_missing" in report_text(_Report([{"case": "c", "gaps": "content_missing"}]))
