"""Wire form without models (agenteval_nb/schema/plain.py): data is in wire form exactly when
its model writes it back unchanged, and views read it through the model's attribute names."""

from __future__ import annotations

import copy
import json

import pytest

from agenteval_nb.schema import EvalCase, Invocation, Message
from agenteval_nb.schema.plain import is_wire, view

TURN = {
    "invocationId": "i-1",
    "userContent": {"role": "user", "content": "hi"},
    "finalResponse": {"role": "assistant", "content": "hello"},
    "tools": [{"id": "c1", "name": "search", "arguments": {"q": None, "n": [1, 2.5]}}],
}


def _written(cls, data) -> dict:
    """What the model path writes for ``data``: validated, then dumped as a file holds it."""
    return json.loads(cls.model_validate(data).model_dump_json(by_alias=True, exclude_none=True))


def test_a_turn_in_wire_form_is_what_its_model_writes():
    assert is_wire(Invocation, TURN)
    assert list(_written(Invocation, TURN)) == list(TURN) and _written(Invocation, TURN) == TURN


def _changed(path: tuple, value) -> dict:
    turn = copy.deepcopy(TURN)
    target = turn
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return turn


@pytest.mark.parametrize(
    ("path", "value", "written_otherwise"),
    [
        (("finalResponse", "content"), None, True),  # null: the model leaves the key out
        (("userContent", "role"), KeyError, True),  # a default the model writes ("role": "")
        (("tools", 0, "result"), None, True),  # null for an Any field: left out when written
        (("creationTimestamp",), 1, True),  # an int for a float field: written as 1.0
        (("extra",), 1, False),  # an unknown key (kept, but written last: not taken)
        (("InvocationId",), "i-2", False),  # a key in another case (the loader folds it)
        (("finalResponse", "role"), 1, False),  # a wrong type (does not validate)
    ],
)
def test_data_the_model_would_not_write_back_as_it_is_is_not_wire_form(
    path, value, written_otherwise
):
    changed = _changed(path, value)
    assert not is_wire(Invocation, changed)
    if written_otherwise:
        assert json.dumps(_written(Invocation, changed)) != json.dumps(changed)


def test_keys_out_of_field_order_are_wire_form_only_where_not_written_back():
    reordered = {"tools": TURN["tools"], "invocationId": "i-1"}
    assert not is_wire(Invocation, reordered)
    case = {"evalId": "c", "conversation": [TURN], "evalMode": "trace"}
    assert is_wire(EvalCase, case, ordered=False) and not is_wire(EvalCase, case)


def test_a_view_reads_fields_defaults_and_the_models_properties():
    case = view(EvalCase, {"evalId": "c", "evalMode": "trace", "conversation": [TURN]})
    turn = case.conversation[0]
    assert case.is_trace and case.eval_id == "c" and case.actual_conversation is None
    assert turn.tools[0].name == "search" and turn.tools[0].arguments == {"q": None, "n": [1, 2.5]}
    assert turn.final_response.content == "hello" and turn.context_messages is None
    assert view(Message, {"content": "x"}).role == ""  # the field's default
    assert turn.__pydantic_extra__ is None
