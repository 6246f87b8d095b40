"""Plain wire data (agenteval_nb/schema/plain.py): data reads into its model's view struct
exactly when the model would write it back as ``wire_of`` the view; views read it through the
model's attribute names."""

from __future__ import annotations

import copy
import json

import orjson
import pytest
from pydantic import Field

from agenteval_nb.schema import (
    EvalCase,
    EvalMetricResultDetails,
    EvalSet,
    Invocation,
    Message,
    MetricSummary,
    WireModel,
)
from agenteval_nb.schema.plain import view, view_class, wire_of

TURN = {
    "invocationId": "i-1",
    "userContent": {"role": "user", "content": "hi"},
    "finalResponse": {"role": "assistant", "content": "hello"},
    "tools": [{"id": "c1", "name": "search", "arguments": {"q": None, "n": [1, 2.5]}}],
}


def _written(cls, data) -> bytes:
    """The bytes the model path writes for ``data``: validated, then dumped as a file holds it."""
    return cls.model_validate(data).model_dump_json(by_alias=True, exclude_none=True).encode()


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
    ("path", "value"),
    [
        ((), None),  # as it is
        (("finalResponse", "content"), None),  # null: left out when written
        (("tools", 0, "result"), None),  # null for an Any field: left out too
        (("creationTimestamp",), 1),  # an int for a float field: written as 1.0
        (("simulatedUser",), False),  # a zero value is written
    ],
)
def test_plain_data_is_written_back_as_its_model_writes_it(path, value):
    turn = _changed(path, value) if path else TURN
    seen = view(Invocation, turn)
    assert seen is not None
    assert orjson.dumps(wire_of(seen)) == _written(Invocation, turn)


def test_keys_come_back_in_field_order():
    reordered = dict(reversed(list(TURN.items())))
    assert orjson.dumps(wire_of(view(Invocation, reordered))) == _written(Invocation, TURN)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("extra",), 1),  # an unknown key: the model keeps it and writes it last
        (("InvocationId",), "i-2"),  # a key in another case: the loader folds it
        (("userContent", "role"), KeyError),  # a default the model writes ("role": "")
        (("finalResponse", "role"), 1),  # a string field given a number
        (("simulatedUser",), 0),  # a bool field given 0
        (("executionTrace",), {"Status": None}),  # traces write their nulls back
    ],
)
def test_data_the_model_would_not_write_back_as_its_view_is_not_plain(path, value):
    assert view(Invocation, _changed(path, value)) is None


def test_a_view_reads_fields_defaults_and_the_models_properties():
    case = view(EvalCase, {"evalId": "c", "evalMode": "trace", "conversation": [TURN]})
    turn = case.conversation[0]
    assert case.is_trace and case.eval_id == "c" and case.actual_conversation is None
    assert turn.tools[0].name == "search" and turn.tools[0].arguments == {"q": None, "n": [1, 2.5]}
    assert turn.final_response.content == "hello" and turn.context_messages is None
    assert view(Message, {"role": "", "content": "x"}).role == ""
    assert turn.__pydantic_extra__ is None
    assert json.loads(json.dumps(wire_of(turn))) == TURN


class _WithSecret(WireModel):
    name: str | None = None
    secret: str | None = Field(default=None, exclude=True)


def test_a_field_never_written_is_not_plain_when_given():
    assert wire_of(view(_WithSecret, {"name": "m"})) == {"name": "m"}
    assert view(_WithSecret, {"name": "m", "secret": "s"}) is None
    assert _WithSecret.model_validate({"name": "m", "secret": "s"}).to_wire() == {"name": "m"}


@pytest.mark.parametrize(
    ("cls", "data", "plain"),
    [
        (EvalMetricResultDetails, {"reason": "differs", "score": 0}, True),
        (EvalMetricResultDetails, {"score": 1}, True),
        (EvalMetricResultDetails, {"reason": ""}, False),  # read as no reason, never written
        (MetricSummary, {"metricName": "m", "averageScore": 0.5}, True),
        (MetricSummary, {"metricName": "m", "averageScore": 0}, False),  # Go's omitempty
        (EvalSet, {"evalSetId": "s", "evalCases": []}, True),
        (EvalSet, {"evalSetId": "s", "evalCases": None}, False),  # read as []: written so
    ],
)
def test_a_value_a_before_validator_or_omitempty_would_change_is_not_plain(cls, data, plain):
    """A field with a ``before`` validator takes what it leaves as it is; a model that leaves
    out zero values takes none of them. Whatever is plain is written back as its view."""
    seen = view(cls, data)
    assert (seen is not None) == plain
    if plain:
        assert orjson.dumps(wire_of(seen)) == _written(cls, data)
    else:
        assert cls.model_validate(data).model_dump(by_alias=True, exclude_none=True) != data


def test_a_view_made_in_code_is_held_to_the_same_rule():
    with pytest.raises(ValueError, match="reason"):
        view_class(EvalMetricResultDetails)(reason="")
    assert view_class(EvalMetricResultDetails)(reason="x").reason == "x"
