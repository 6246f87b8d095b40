"""Built invocations hold one fields set and one empty extras per model shape
(agenteval_nb/steps/compact.py): the same data, dumps and equality as validated models,
read-only parts, copies and pickles of their own; made without validation from the builder's
typed values, validated when a source gave a value of another type."""

from __future__ import annotations

import copy
import pickle
import re

import pytest
from pydantic import ValidationError

from agenteval_nb.schema import Invocation
from agenteval_nb.steps import builder
from agenteval_nb.steps.builder import build_invocation
from agenteval_nb.steps.compact import SharedFields, Untyped, compact_invocation
from agenteval_nb.steps.records import (
    AgentRun,
    ModelCall,
    OtherStep,
    ToolResult,
    ToolRun,
    ToolUse,
    TurnSteps,
    Usage,
)

MS = 1_000_000


def _turn(index: int) -> TurnSteps:
    root = f"a{index}"
    first = ModelCall(
        f"m{index}",
        1 * MS,
        2 * MS,
        model="gpt-4o",
        last_user_text=f"question {index}",
        tool_calls=[ToolUse(f"c{index}", "lookup", {"q": index})],
        usage=Usage(10, 2),
        parent_span_id=root,
    )
    tool = ToolRun(
        f"t{index}",
        ToolUse(f"c{index}", "lookup", {"q": index}, {"hit": index}, True),
        3 * MS,
        4 * MS,
        parent_span_id=root,
    )
    second = ModelCall(
        f"n{index}",
        5 * MS,
        6 * MS,
        model="gpt-4o",
        tool_results=[ToolResult(f"c{index}", "lookup", {"hit": index})],
        output_text=f"answer {index}",
        usage=Usage(20, 3, cached_input_tokens=5),
        parent_span_id=root,
    )
    other = OtherStep(f"o{index}", "http", 6 * MS, 7 * MS, parent_span_id=root)
    return TurnSteps(
        turn_id=root,
        steps=[AgentRun(root, "bot", 0, 10 * MS), first, tool, second, other],
        start_ns=0,
        end_ns=10 * MS,
        trace_id=f"trace{index}",
        root_span_id=root,
    )


def _models(model):
    """Every model under ``model`` (itself included)."""
    found = [model]
    for name in type(model).model_fields:
        value = getattr(model, name)
        for item in value if isinstance(value, list) else [value]:
            if hasattr(item, "model_fields_set"):
                found.extend(_models(item))
    return found


def test_built_invocations_equal_their_validated_wire_data():
    for index in range(3):
        built = build_invocation(_turn(index)).invocation
        validated = Invocation.model_validate(built.model_dump(by_alias=True, exclude_unset=True))
        assert built == validated
        assert built.model_dump(mode="json", by_alias=True, exclude_none=True) == (
            validated.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
        pairs = list(zip(_models(built), _models(validated), strict=True))
        assert len(pairs) > 15
        for mine, theirs in pairs:
            assert mine.model_fields_set == theirs.model_fields_set
            assert mine.model_extra == theirs.model_extra


def test_models_of_one_shape_share_one_fields_set_and_extras():
    one = build_invocation(_turn(1)).invocation
    two = build_invocation(_turn(2)).invocation
    steps_one, steps_two = one.execution_trace.steps, two.execution_trace.steps
    for mine, theirs in zip(steps_one, steps_two, strict=True):
        assert mine.model_fields_set is theirs.model_fields_set
        assert mine.model_extra is theirs.model_extra
    assert steps_one[1].input.model_fields_set is steps_two[2].input.model_fields_set
    assert one.user_content.model_fields_set is two.final_response.model_fields_set
    assert one.tools[0].model_fields_set is two.tools[0].model_fields_set
    assert isinstance(one.source.model_fields_set, SharedFields)
    # a step of another node type has other keys: its own shared set
    assert steps_one[0].model_fields_set is not steps_one[1].model_fields_set
    assert "Usage" not in steps_one[4].model_dump(by_alias=True, exclude_none=True)
    assert steps_one[4].model_dump(by_alias=True, exclude_none=True)["Error"] is None


def test_a_model_of_another_shape_keeps_its_own_set_and_extras():
    build_invocation(_turn(0))  # the message shape is {role, content}
    invocation = Invocation.model_validate(
        {
            "userContent": {"role": "user", "content": "hi", "tool_id": "x", "note": 1},
            "finalResponse": {"role": "assistant", "content": "ok"},
        }
    )
    compact_invocation(invocation)
    user, final = invocation.user_content, invocation.final_response
    assert not isinstance(user.model_fields_set, SharedFields)
    assert user.model_fields_set == {"role", "content", "tool_id", "note"}
    assert user.model_extra == {"note": 1}
    assert isinstance(final.model_fields_set, SharedFields)
    user.tool_name = "mutable as before"
    user.other = 2
    assert user.model_extra == {"note": 1, "other": 2}


def test_parts_are_read_only_and_copies_are_free():
    invocation = build_invocation(_turn(1)).invocation
    step = invocation.execution_trace.steps[1]
    step.node_id = "given fields can be set"
    assert step.node_id == "given fields can be set"
    with pytest.raises(TypeError, match="model_copy"):
        step.branch = "not given"
    with pytest.raises(TypeError, match="model_copy"):
        step.unknown = 1
    other = invocation.execution_trace.steps[1].model_copy()
    assert other.model_fields_set is not step.model_fields_set
    for copied in (
        invocation.model_copy(deep=True),
        copy.deepcopy(invocation),
        pickle.loads(pickle.dumps(invocation)),
    ):
        copied_step = copied.execution_trace.steps[2]
        copied_step.branch = "b"
        copied_step.unknown = 1
        assert type(copied_step.model_fields_set) is set
        assert copied_step.model_extra == {"unknown": 1}
    assert "branch" not in invocation.execution_trace.steps[2].model_fields_set
    assert invocation.execution_trace.steps[2].model_extra == {}


def _requested_and_ran(requested, ran) -> TurnSteps:
    call = ModelCall("m", 1 * MS, 2 * MS, tool_calls=[ToolUse("c", "f", requested)])
    run = ToolRun("t", ToolUse("c", "f", ran, "ok", True), 3 * MS, 4 * MS)
    return TurnSteps(turn_id="a", steps=[call, run], start_ns=0, end_ns=5 * MS)


def test_equal_decoded_arguments_are_held_once_and_only_when_the_same_json():
    built = build_invocation(_requested_and_ran({"a": 1, "b": [1]}, {"b": [1], "a": 1}))
    invocation = built.invocation
    tool_step = invocation.execution_trace.steps[1]
    assert tool_step.tools[0].arguments is invocation.tools[0].arguments
    for other in ({"a": True, "b": [1]}, {"a": 1.0, "b": [1]}, {"a": 1, "b": [True]}):
        invocation = build_invocation(_requested_and_ran({"a": 1, "b": [1]}, other)).invocation
        tool_step = invocation.execution_trace.steps[1]
        assert tool_step.tools[0].arguments is other
        assert invocation.tools[0].arguments == {"a": 1, "b": [1]}


def _same_models(mine, theirs, path="invocation"):
    """Two models alike in every part validation sets: field values and their order, fields
    set (and whether it is shared), extras."""
    assert type(mine) is type(theirs), path
    assert list(mine.__dict__) == list(theirs.__dict__), path
    assert mine.model_fields_set == theirs.model_fields_set, path
    assert type(mine.model_fields_set) is type(theirs.model_fields_set), path
    assert mine.model_extra == theirs.model_extra, path
    assert type(mine.model_extra) is type(theirs.model_extra), path
    for name, value in mine.__dict__.items():
        other = theirs.__dict__[name]
        for i, (a, b) in enumerate(
            zip(value, other, strict=True) if isinstance(value, list) else [(value, other)]
        ):
            if hasattr(a, "model_fields_set"):
                _same_models(a, b, f"{path}.{name}[{i}]")
            else:
                assert a == b and type(a) is type(b), f"{path}.{name}"


def _validated(monkeypatch, turn: TurnSteps, **options) -> Invocation:
    """The invocation of ``turn`` the validating path builds (as for a value of another type)."""

    def untyped(*_):
        raise Untyped("forced")

    with monkeypatch.context() as patch:
        patch.setattr(builder, "make", untyped)
        return build_invocation(turn, **options).invocation


def test_made_models_are_the_models_validation_makes(monkeypatch):
    for index in range(3):
        for options in ({}, {"execution_trace": False}):
            made = build_invocation(_turn(index), **options).invocation
            validated = _validated(monkeypatch, _turn(index), **options)
            assert made == validated
            assert made.model_dump_json(by_alias=True, exclude_none=True) == (
                validated.model_dump_json(by_alias=True, exclude_none=True)
            )
            _same_models(made, validated)
    details = build_invocation(_turn(0)).invocation.execution_trace.usage.prompt_tokens_details
    assert details.cached_tokens == 5
    assert type(details.model_fields_set) is set  # a shape compaction leaves alone


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda t: setattr(t.steps[1], "model", 5), "executionTrace.Steps.1.NodeID"),
        (lambda t: setattr(t.steps[1].usage, "input_tokens", True), "Steps.1.Usage.prompt_tokens"),
        (lambda t: setattr(t.steps[2].tool, "name", ["f"]), "Steps.2.Tools.0.Name"),
        (lambda t: setattr(t, "turn_id", 7), "invocationId"),
        (lambda t: t.steps.__setitem__(4, OtherStep(1, "http")), "source.spanIds.4"),
    ],
)
def test_a_source_value_of_another_type_is_still_refused_by_validation(change, where):
    turn = _turn(0)
    change(turn)
    with pytest.raises(ValidationError, match=re.escape(where)):
        build_invocation(turn)
