"""Compare a loaded trace eval set with a hand-written ``*.expected.json`` (tests/corpus/traces).

An expected file holds ``cases[]``, each with an optional ``conversation_id`` and ``turns[]``;
a turn has ``user_content`` and ``final_response`` (a string, or ``null`` = must be absent),
optionally ``tools`` (``[{id, name, arguments, result}]`` in call order; a tool key left out
is not compared) and ``gap`` (a flag the load report must name). A key left out is not checked;
``from`` and ``note`` are prose.

Values are compared after decoding JSON text at their top (a tool result may arrive as the JSON
string the tool returned or as the decoded object; arguments likewise): ``'{"a": 1}'`` equals
``{"a": 1}``; text inside an object stays text. ``"result_keys": "snake_case"`` says the source's
answer wrote every key of a tool result in snake_case (an ADK EvalSet file): the loaded result's
keys are snake-cased before the comparison (``isError`` → ``is_error``), its values untouched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenteval_nb.schema.evalset import EvalCase, EvalSet, Invocation
from agenteval_nb.schema.message import message_text

CORPUS = Path(__file__).parents[1] / "corpus" / "traces"


def decoded(value: Any) -> Any:
    """``value`` with JSON text decoded at the top only: an object, an array or a JSON-quoted
    string (``'"rainy"'`` is ``'rainy'``); other text (``"12"``, prose) as is. Text *inside* a
    decoded value stays text: a tool's ``{"text": "[...]"}`` is not its ``{"text": [...]}``."""
    while isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if not isinstance(parsed, (dict, list, str)):
            return value
        value = parsed
    return value


def turn_view(invocation: Invocation) -> dict[str, Any]:
    """What an expected turn states, read from a loaded invocation."""
    return {
        "user_content": message_text(invocation.user_content) or None,
        "final_response": message_text(invocation.final_response) or None,
        "tools": [
            {
                "id": tool.id,
                "name": tool.name,
                "arguments": decoded(tool.arguments),
                "result": decoded(tool.result),
            }
            for tool in invocation.tools or []
        ],
    }


def case_views(evalset: EvalSet) -> list[tuple[str, list[dict[str, Any]]]]:
    """(case id, turn views) of every case, in the eval set's order."""
    return [
        (case.eval_id, [turn_view(inv) for inv in _turns(case)])
        for case in evalset.eval_cases or []
    ]


def _turns(case: EvalCase) -> list[Invocation]:
    return list(case.actual_conversation or case.conversation or [])


def _find_case(
    expected_case: dict[str, Any], actual: list[tuple[str, list[dict[str, Any]]]]
) -> tuple[str, list[dict[str, Any]]]:
    """The loaded case an expected case stands for: by conversation id (the case id), else by
    the first turn's user text, else the only case there is."""
    wanted = expected_case.get("conversation_id")
    if wanted is not None:
        for case in actual:
            if case[0] == wanted:
                return case
        raise AssertionError(f"no case {wanted!r}; cases: {[c[0] for c in actual]}")
    first_user = expected_case["turns"][0].get("user_content")
    if first_user is not None:
        for case in actual:
            if case[1] and case[1][0]["user_content"] == first_user:
                return case
    with_turns = [case for case in actual if case[1]]
    assert len(with_turns) == 1, f"cannot tell which case is meant among {actual}"
    return with_turns[0]


def assert_matches(
    evalset: EvalSet, report_text: str, expected: dict[str, Any], where: str
) -> None:
    """Every expected case is in ``evalset`` with exactly its turns, and every expected gap is
    named in ``report_text`` (the load report rendered as text)."""
    actual = case_views(evalset)
    for number, expected_case in enumerate(expected["cases"]):
        case_id, turns = _find_case(expected_case, actual)
        label = f"{where}: case {number} ({case_id})"
        assert len(turns) == len(expected_case["turns"]), f"{label}: turns {turns}"
        for index, (want, got) in enumerate(zip(expected_case["turns"], turns, strict=True)):
            at = f"{label}, turn {index}"
            assert got["user_content"] == want["user_content"], f"{at}: user content"
            assert got["final_response"] == want["final_response"], f"{at}: final response"
            if "tools" in want:
                assert len(got["tools"]) == len(want["tools"]), f"{at}: tools {got['tools']}"
                for tool_want, tool_got in zip(want["tools"], got["tools"], strict=True):
                    if expected.get("result_keys") == "snake_case":
                        tool_got = {**tool_got, "result": snake_keys(tool_got["result"])}
                    keys = [key for key in TOOL_KEYS if key in tool_want]
                    assert _tool_key(tool_got, keys) == _tool_key(tool_want, keys), (
                        f"{at}: tool {tool_got} is not {tool_want}"
                    )
            if "gap" in want:
                assert want["gap"] in report_text, f"{at}: the report does not name {want['gap']}"


TOOL_KEYS = ("id", "name", "arguments", "result")
"""What an expected tool may state; a key it leaves out is not compared (the source does not
say it unambiguously)."""


def snake_keys(value: Any) -> Any:
    """``value`` (decoded at its top, like every compared value) with every object key in
    snake_case (``isError`` → ``is_error``); values untouched."""
    return _snaked(decoded(value))


def _snaked(value: Any) -> Any:
    if isinstance(value, dict):
        return {_snake(str(key)): _snaked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_snaked(item) for item in value]
    return value


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(key))


def _tool_key(tool: dict[str, Any], keys: list[str]) -> list[str]:
    return [json.dumps(decoded(tool.get(key)), sort_keys=True) for key in keys]


def report_text(report: Any) -> str:
    """What the load report says, as text to search for a gap: every cell of every row, plus
    the name of each column whose cell is true or a positive count (a report may name a gap by
    a value or by a flag column). Column names alone never count: a header is always there."""
    frame = report.df()
    rows = frame.to_dict("records") if hasattr(frame, "to_dict") else frame.to_dicts()
    words = []
    for row in rows:
        for column, cell in row.items():
            words.append(str(cell))
            if cell is True or (isinstance(cell, int) and not isinstance(cell, bool) and cell > 0):
                words.append(str(column))
    return " ".join(words)


def load_expected(relative: str) -> dict[str, Any]:
    """An expected file by its path relative to the corpus folder."""
    result: dict[str, Any] = json.loads((CORPUS / relative).read_text(encoding="utf-8"))
    return result
