"""EvalSetStore rules, run against every backend (SPEC §1.7)."""

from __future__ import annotations

import pytest

from agenteval_nb.schema import EvalCase, EvalSet, Invocation, Message
from agenteval_nb.stores import AlreadyExistsError, EvalSetStore, NotFoundError


def _case(eval_id: str, **fields: object) -> EvalCase:
    return EvalCase.model_validate({"evalId": eval_id, **fields})


def _turn(invocation_id: str, timestamp: float | None = None) -> dict[str, object]:
    turn: dict[str, object] = {
        "invocationId": invocation_id,
        "userContent": {"role": "user", "content": f"question {invocation_id}"},
    }
    if timestamp is not None:
        turn["creationTimestamp"] = timestamp
    return turn


def test_backend_is_an_eval_set_store(backend):
    assert isinstance(backend.evalsets, EvalSetStore)


def test_create_writes_the_empty_set(backend, now):
    created = backend.evalsets.create("app", "math")
    assert created.eval_set_id == "math"
    assert created.name == "math"
    assert created.eval_cases == []
    assert created.creation_timestamp == now
    assert backend.evalsets.get("app", "math") == created


def test_create_twice_fails(backend):
    backend.evalsets.create("app", "math")
    with pytest.raises(AlreadyExistsError):
        backend.evalsets.create("app", "math")
    with pytest.raises(ValueError):  # AlreadyExistsError is a ValueError
        backend.evalsets.create("app", "math")


def test_same_id_in_two_apps_is_two_sets(backend):
    backend.evalsets.create("a", "s")
    backend.evalsets.create("b", "s")
    backend.evalsets.add_case("a", "s", _case("only-in-a"))
    assert [c.eval_id for c in backend.evalsets.get("a", "s").eval_cases] == ["only-in-a"]
    assert backend.evalsets.get("b", "s").eval_cases == []


def test_list_is_sorted_and_unknown_app_is_empty(backend):
    for set_id in ("zeta", "alpha", "mid"):
        backend.evalsets.create("app", set_id)
    assert backend.evalsets.list("app") == ["alpha", "mid", "zeta"]
    assert backend.evalsets.list("nobody") == []


def test_delete_removes_the_set(backend):
    backend.evalsets.create("app", "a")
    backend.evalsets.create("app", "b")
    backend.evalsets.delete("app", "a")
    assert backend.evalsets.list("app") == ["b"]
    with pytest.raises(NotFoundError):
        backend.evalsets.get("app", "a")
    with pytest.raises(NotFoundError):
        backend.evalsets.delete("app", "a")


@pytest.mark.parametrize("error", [KeyError, FileNotFoundError, LookupError, OSError])
def test_not_found_is_catchable_as_key_and_file_errors(backend, error):
    with pytest.raises(error):
        backend.evalsets.get("app", "missing")
    backend.evalsets.create("app", "s")
    with pytest.raises(error):
        backend.evalsets.get_case("app", "s", "missing")


def test_not_found_message_names_the_set(backend):
    with pytest.raises(NotFoundError) as info:
        backend.evalsets.get("app", "missing-set")
    assert "missing-set" in str(info.value)
    assert not str(info.value).startswith("'")  # not KeyError's quoted form


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.create("", "x"),
        lambda s: s.create("app", ""),
        lambda s: s.get("app", ""),
        lambda s: s.list(""),
        lambda s: s.get_case("app", "x", ""),
        lambda s: s.delete_case("app", "x", ""),
    ],
)
def test_empty_ids_are_rejected(backend, call):
    with pytest.raises(ValueError) as info:
        call(backend.evalsets)
    assert not isinstance(info.value, AlreadyExistsError)


def test_add_case_stamps_case_and_invocations_lacking_a_timestamp(backend, now):
    backend.evalsets.create("app", "s")
    case = _case(
        "c1",
        conversation=[_turn("e1"), _turn("e2", 12.5)],
        actualConversation=[_turn("a1"), _turn("a2", 0.0)],
    )
    returned = backend.evalsets.add_case("app", "s", case)
    stored = backend.evalsets.get_case("app", "s", "c1")
    assert stored == returned
    assert stored.creation_timestamp == now
    assert [t.creation_timestamp for t in stored.conversation] == [now, 12.5]
    # a present value is kept, even the zero time
    assert [t.creation_timestamp for t in stored.actual_conversation] == [now, 0.0]


def test_add_case_keeps_an_existing_case_timestamp(backend):
    backend.evalsets.create("app", "s")
    backend.evalsets.add_case("app", "s", _case("c1", creationTimestamp=42.0))
    assert backend.evalsets.get_case("app", "s", "c1").creation_timestamp == 42.0


def test_add_case_does_not_touch_the_argument(backend):
    backend.evalsets.create("app", "s")
    case = _case("c1", conversation=[_turn("e1")])
    backend.evalsets.add_case("app", "s", case)
    assert case.creation_timestamp is None
    assert case.conversation[0].creation_timestamp is None


def test_add_case_appends_in_order(backend):
    backend.evalsets.create("app", "s")
    for eval_id in ("b", "a", "c"):
        backend.evalsets.add_case("app", "s", _case(eval_id))
    assert [c.eval_id for c in backend.evalsets.get("app", "s").eval_cases] == ["b", "a", "c"]


def test_add_case_accepts_a_wire_dict(backend, now):
    backend.evalsets.create("app", "s")
    backend.evalsets.add_case("app", "s", {"evalId": "c1", "conversation": [_turn("t")]})
    stored = backend.evalsets.get_case("app", "s", "c1")
    assert stored.conversation[0].user_content.content == "question t"
    assert stored.conversation[0].creation_timestamp == now


def test_add_case_rejects_empty_and_duplicate_ids(backend):
    backend.evalsets.create("app", "s")
    with pytest.raises(ValueError) as info:
        backend.evalsets.add_case("app", "s", _case(""))
    assert not isinstance(info.value, AlreadyExistsError)
    backend.evalsets.add_case("app", "s", _case("c1"))
    with pytest.raises(AlreadyExistsError):
        backend.evalsets.add_case("app", "s", _case("c1", description="second"))
    assert len(backend.evalsets.get("app", "s").eval_cases) == 1


def test_add_case_to_a_missing_set_is_not_found(backend):
    with pytest.raises(NotFoundError):
        backend.evalsets.add_case("app", "missing", _case("c1"))
    assert backend.evalsets.list("app") == []


def test_add_case_rejects_other_types(backend):
    backend.evalsets.create("app", "s")
    with pytest.raises(TypeError):
        backend.evalsets.add_case("app", "s", ["not", "a", "case"])  # type: ignore[arg-type]


def test_update_case_replaces_in_place_without_stamping(backend, now):
    backend.evalsets.create("app", "s")
    for eval_id in ("a", "b", "c"):
        backend.evalsets.add_case("app", "s", _case(eval_id))
    replacement = _case("b", conversation=[_turn("new")])
    backend.evalsets.update_case("app", "s", replacement)
    cases = backend.evalsets.get("app", "s").eval_cases
    assert [c.eval_id for c in cases] == ["a", "b", "c"]
    assert cases[1].creation_timestamp is None
    assert cases[1].conversation[0].creation_timestamp is None
    assert cases[1].conversation[0].invocation_id == "new"
    assert cases[0].creation_timestamp == now


def test_update_case_errors(backend):
    with pytest.raises(NotFoundError):
        backend.evalsets.update_case("app", "missing", _case("a"))
    backend.evalsets.create("app", "s")
    with pytest.raises(NotFoundError):
        backend.evalsets.update_case("app", "s", _case("a"))
    with pytest.raises(ValueError):
        backend.evalsets.update_case("app", "s", _case(""))


def test_delete_case(backend):
    backend.evalsets.create("app", "s")
    for eval_id in ("a", "b", "c"):
        backend.evalsets.add_case("app", "s", _case(eval_id))
    backend.evalsets.delete_case("app", "s", "b")
    assert [c.eval_id for c in backend.evalsets.get("app", "s").eval_cases] == ["a", "c"]
    with pytest.raises(NotFoundError):
        backend.evalsets.delete_case("app", "s", "b")
    with pytest.raises(NotFoundError):
        backend.evalsets.delete_case("app", "missing", "a")


def test_get_case_returns_the_first_match(backend):
    first = _case("dup", description="first")
    second = _case("dup", description="second")
    duplicated = EvalSet(evalSetId="s", evalCases=[first, second])
    if backend.unique_keys:  # the Go tables' unique key: refused, nothing written
        with pytest.raises(AlreadyExistsError, match="dup"):
            backend.evalsets.save("app", duplicated)
        assert backend.evalsets.list("app") == []
        return
    backend.evalsets.save("app", duplicated)
    assert backend.evalsets.get_case("app", "s", "dup").description == "first"


def test_save_creates_then_replaces_a_whole_set(backend, now):
    cases = [_case("x", conversation=[_turn("t")])]
    returned = backend.evalsets.save("app", EvalSet(evalSetId="s", name="Nice", evalCases=cases))
    assert returned.creation_timestamp == now
    stored = backend.evalsets.get("app", "s")
    assert stored == returned
    assert stored.name == "Nice"
    # cases are stored as given: no stamping on save
    assert stored.eval_cases[0].creation_timestamp is None
    backend.evalsets.save("app", {"evalSetId": "s", "creationTimestamp": 5.0})
    replaced = backend.evalsets.get("app", "s")
    assert replaced.eval_cases == []
    assert replaced.creation_timestamp == 5.0
    assert replaced.name is None
    assert backend.evalsets.list("app") == ["s"]


def test_save_requires_an_id(backend):
    with pytest.raises(ValueError):
        backend.evalsets.save("app", EvalSet(evalSetId=""))


def test_reads_are_deep_copies(backend):
    created = backend.evalsets.create("app", "s")
    created.name = "changed"
    created.eval_cases.append(_case("ghost"))
    added = backend.evalsets.add_case("app", "s", _case("c1", conversation=[_turn("t")]))
    added.conversation[0].user_content = Message(role="user", content="mutated")
    got = backend.evalsets.get("app", "s")
    got.eval_cases[0].eval_mode = "trace"
    got.eval_cases.clear()
    one = backend.evalsets.get_case("app", "s", "c1")
    one.conversation.append(Invocation(invocationId="extra"))

    fresh = backend.evalsets.get("app", "s")
    assert fresh.name == "s"
    assert [c.eval_id for c in fresh.eval_cases] == ["c1"]
    case = fresh.eval_cases[0]
    assert case.eval_mode is None
    assert len(case.conversation) == 1
    assert case.conversation[0].user_content.content == "question t"


def test_writes_are_deep_copies(backend):
    backend.evalsets.create("app", "s")
    case = _case("c1", conversation=[_turn("t")])
    backend.evalsets.add_case("app", "s", case)
    case.conversation[0].user_content.content = "mutated after add"
    assert backend.evalsets.get_case("app", "s", "c1").conversation[0].user_content.content == (
        "question t"
    )
    eval_set = EvalSet(evalSetId="t", evalCases=[_case("k")])
    backend.evalsets.save("app", eval_set)
    eval_set.eval_cases[0].eval_mode = "trace"
    update = _case("c1", evalMode="trace")
    backend.evalsets.update_case("app", "s", update)
    update.eval_mode = ""

    assert backend.evalsets.get_case("app", "t", "k").eval_mode is None
    updated = backend.evalsets.get_case("app", "s", "c1")
    assert updated.eval_mode == "trace"
    assert updated.conversation is None


def test_stores_are_context_managers(backend):
    with backend.evalsets as store:
        store.create("app", "s")
    backend.evalsets.close()
