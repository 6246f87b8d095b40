"""JSONCriterion (SPEC §3.4): exact / ignoreTree / onlyTree, tolerance, valid, schema, skip."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.criteria import (
    Hooks,
    MatchError,
    RawJSON,
    match_json,
    validate_json,
)
from agenteval_nb.criteria.json_schema import SCHEMA_URI
from agenteval_nb.criteria.jsontree import ignore_tree_reason, same_json_ignoring
from agenteval_nb.schema import JSONCriterion

J = JSONCriterion


def error(criterion, actual, expected, **kwargs):
    with pytest.raises(MatchError) as info:
        match_json(criterion, actual, expected, **kwargs)
    return str(info.value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(deadline=None)
@given(json_values)
def test_exact_compare_is_reflexive(value):
    match_json(J(), value, value)
    match_json(J(number_tolerance=0), value, value)


@settings(deadline=None)
@given(st.dictionaries(st.text(max_size=4), json_values, max_size=4), json_values)
def test_ignore_tree_with_every_key_true_matches_any_objects(actual, expected_seed):
    expected = {"other": expected_seed}
    tree = dict.fromkeys([*actual, *expected], True)
    match_json(J(ignore_tree=tree), actual, expected)


@settings(deadline=None)
@given(json_values, json_values)
def test_match_agrees_with_python_equality_for_plain_values(a, b):
    """With tolerance 0, exact compare is equality where booleans are never numbers."""
    try:
        match_json(J(number_tolerance=0), a, b)
        matched = True
    except MatchError:
        matched = False
    assert matched == _strict_equal(a, b)


@settings(deadline=None)
@given(json_values)
def test_match_agrees_with_strict_equality_on_copies(value):
    import copy

    match_json(J(number_tolerance=0), value, copy.deepcopy(value))


def _strict_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_strict_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_strict_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    return a == b


def test_worked_example_default_tolerance():
    match_json(J(), {"value": 0.3000005}, {"value": 0.3})
    assert error(J(), {"value": 0.301}, {"value": 0.3}) == (
        "actual map[value:0.301] and expected map[value:0.3] do not match: "
        "compare value: actual 0.301 and expected 0.3 do not match"
    )


def test_booleans_are_not_numbers():
    assert "compare a: actual true and expected 1 do not match" in error(J(), {"a": True}, {"a": 1})
    assert "do not match" in error(J(), False, 0)
    assert "do not match" in error(J(number_tolerance=10), 1, True)
    match_json(J(), {"a": True}, {"a": True})


def test_strings_are_not_numbers():
    assert "actual 1 and expected 1 do not match" in error(J(), "1", 1)


def test_ints_and_floats_compare_as_numbers():
    match_json(J(number_tolerance=0), 1, 1.0)
    match_json(J(number_tolerance=0), [2, 3.5], [2.0, 3.5])


def test_tolerance_zero_and_negative():
    match_json(J(number_tolerance=0), 0.3, 0.3)
    assert "do not match" in error(J(number_tolerance=0), 0.3000005, 0.3)
    # A negative tolerance makes every pair of numbers unequal, even identical ones.
    assert error(J(number_tolerance=-1), 1, 1) == (
        "actual 1 and expected 1 do not match: actual 1 and expected 1 do not match"
    )
    match_json(J(number_tolerance=-1), "x", "x")  # non-numbers unaffected


def test_caller_default_tolerance_applies_only_when_unset():
    match_json(J(), 0.3000005, 0.3)
    assert "do not match" in error(J(), 0.3000005, 0.3, default_tolerance=0)
    match_json(J(number_tolerance=1e-3), 0.3005, 0.3, default_tolerance=0)


def test_large_tolerance():
    match_json(J(number_tolerance=0.5), {"a": [1, 2]}, {"a": [1.4, 1.6]})


def test_null_handling():
    match_json(J(), None, None)
    assert error(J(), None, {}) == (
        "actual <nil> and expected map[] do not match: actual <nil> and expected map[] do not match"
    )
    assert "compare a: actual <nil> and expected 1 do not match" in error(
        J(), {"a": None}, {"a": 1}
    )


def test_key_set_differences():
    assert error(J(), {"a": 1, "b": 2}, {"a": 1}).endswith("key b in actual but not in expected")
    assert error(J(), {"a": 1}, {"a": 1, "c": 2}).endswith("key c in expected but not in actual")


def test_map_versus_non_map_and_arrays():
    assert "is a map but expected [1] is not a map" in error(J(), {"a": 1}, [1])
    assert "actual [1] is not a map but expected map[a:1] is a map" in error(J(), [1], {"a": 1})
    assert "array length mismatch: actual(2) != expected(1)" in error(J(), [1, 2], [1])
    assert "compare index 1: actual 3 and expected 2 do not match" in error(J(), [1, 3], [1, 2])
    assert "actual [1] is an array but expected 1 is not an array" in error(J(), [1], 1)
    assert "actual 1 is not an array but expected [1] is an array" in error(J(), 1, [1])


def test_arrays_are_order_sensitive():
    assert "compare index 0" in error(J(), [1, 2], [2, 1])


def test_nested_error_path():
    actual = {"user": {"tags": ["a", "b"]}}
    expected = {"user": {"tags": ["a", "c"]}}
    assert error(J(), actual, expected).endswith(
        "compare user: compare tags: compare index 1: actual b and expected c do not match"
    )


def test_ignore_tree_skips_true_keys_at_their_level():
    criterion = J(ignore_tree={"id": True, "meta": {"ts": True}})
    match_json(criterion, {"id": 1, "x": 1, "meta": {"ts": 5, "v": 1}}, {"x": 1, "meta": {"v": 1}})
    assert "compare meta: compare v" in error(
        criterion, {"x": 1, "meta": {"ts": 5, "v": 1}}, {"x": 1, "meta": {"ts": 6, "v": 2}}
    )


def test_ignore_tree_requires_boolean_true():
    criterion = J(ignore_tree={"id": "true"})
    assert "key id in actual but not in expected" in error(criterion, {"id": 1}, {})


def test_ignore_tree_does_not_descend_into_arrays():
    criterion = J(ignore_tree={"items": {"ts": True}})
    assert "compare items: compare index 0: key ts in actual but not in expected" in error(
        criterion, {"items": [{"ts": 1}]}, {"items": [{}]}
    )


def test_only_tree_compares_selected_keys_only():
    criterion = J(only_tree={"cmd": True, "out": {"code": True}, "stdout": False})
    actual = {"cmd": "ls", "out": {"code": 0, "ms": 12}, "stdout": "a", "extra": 1}
    expected = {"cmd": "ls", "out": {"code": 0, "ms": 99}, "stdout": "b"}
    match_json(criterion, actual, expected)
    assert "compare out: compare code: actual 1 and expected 0" in error(
        criterion, {**actual, "out": {"code": 1}}, expected
    )


def test_only_tree_missing_keys_and_bad_selector():
    criterion = J(only_tree={"cmd": True})
    assert error(criterion, {}, {"cmd": 1}).endswith("key cmd in onlyTree but not in actual")
    assert error(criterion, {"cmd": 1}, {}).endswith("key cmd in onlyTree but not in expected")
    bad = J(only_tree={"cmd": 1})
    assert error(bad, {"cmd": 1}, {"cmd": 1}).endswith("onlyTree[cmd] must be a bool or an object")


def test_only_tree_on_non_objects_falls_back_to_exact():
    match_json(J(only_tree={"a": True}), [1, 2], [1, 2])
    assert "do not match" in error(J(only_tree={"a": True}), 1, 2)


def test_only_tree_and_ignore_tree_together_is_an_error_even_with_custom_compare():
    criterion = J(only_tree={"a": True}, ignore_tree={"b": True}, compare_name="any")
    hooks = Hooks(compare={"any": lambda a, e: True})
    text = "onlyTree and ignoreTree cannot be set at the same time"
    assert error(criterion, 1, 1, hooks=hooks) == text
    assert validate_json(criterion) == text
    # empty trees do not count
    match_json(J(only_tree={}, ignore_tree={"b": True}), {"b": 1}, {"b": 2})


def test_ignore_skips_everything():
    match_json(J(ignore=True, only_tree={"a": True}, ignore_tree={"b": True}), 1, 2)
    assert validate_json(J(ignore=True, match_strategy="bogus")) is None


def test_custom_compare_is_verbatim():
    hooks = Hooks(compare={"cmp": lambda a, e: a["id"] == e["id"]})
    criterion = J(compare_name="cmp", valid=True, schema={"type": "string"})
    match_json(criterion, {"id": 1, "x": 2}, {"id": 1}, hooks)
    assert error(criterion, {"id": 1}, {"id": 2}, hooks=hooks) == ""
    # without the hook the name is ignored and the schema applies
    assert error(criterion, {"id": 1}, {"id": 1}).startswith("json schema validation failed")


def test_skip_strategy_and_invalid_strategy():
    match_json(J(match_strategy="skip"), {"a": 1}, [1, 2])
    assert error(J(match_strategy="fuzzy"), 1, 1) == "invalid match strategy fuzzy"
    assert validate_json(J(match_strategy="fuzzy")) == "invalid match strategy fuzzy"


def test_raw_json_inputs_are_decoded_first():
    match_json(J(), RawJSON('{"a": 1.0}'), RawJSON(' {"a":1} '))
    assert error(J(), RawJSON("Paris"), RawJSON('"Paris"')) == (
        "parse actual raw json: invalid character 'P' looking for beginning of value"
    )
    assert error(J(), RawJSON("{}"), RawJSON("")) == "parse expected raw json: EOF"
    assert error(J(), RawJSON("{} {}"), RawJSON("{}")) == (
        "parse actual raw json: multiple json values"
    )


def test_plain_strings_are_values_not_json_text():
    match_json(J(), '{"a":1}', '{"a":1}')
    assert "do not match" in error(J(), '{"a":1}', '{"a": 1}')


def test_valid_parses_text_and_checks_decoded_values():
    match_json(J(valid=True, match_strategy="skip"), '{"a": 1}', None)
    match_json(J(valid=True, match_strategy="skip"), {"a": [1]}, None)
    assert error(J(valid=True), "Paris", "Paris") == (
        "parse actual raw json: invalid character 'P' looking for beginning of value"
    )
    assert error(J(valid=True), "{} {}", None) == "parse actual raw json: multiple json values"
    assert error(J(valid=True), {"a": float("nan")}, None) == (
        "parse actual raw json: json: unsupported value: NaN"
    )
    # valid then exact: a plain string is compared as a string after the validity check
    match_json(J(valid=True), '"Paris"', '"Paris"')


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp": {"type": "number"}},
    "required": ["city"],
}


def test_schema_validates_actual_even_without_valid():
    match_json(J(schema=SCHEMA, match_strategy="skip"), {"city": "Paris", "temp": 21}, None)
    text = error(J(schema=SCHEMA, match_strategy="skip"), {"temp": "hot"}, None)
    assert text.startswith("json schema validation failed: ")
    assert "at '/temp'" in text
    assert "'city' is a required property" in text


def test_schema_on_raw_text_decodes_it_and_plain_strings_are_strings():
    criterion = J(schema=SCHEMA, match_strategy="skip")
    match_json(criterion, RawJSON('{"city": "Oslo"}'), RawJSON(""))
    assert error(criterion, RawJSON("not json"), None).startswith("parse actual raw json: ")
    # a plain str is validated as a JSON string, which is not an object
    assert "is not of type 'object'" in error(criterion, '{"city": "Oslo"}', None)
    match_json(J(schema={"type": "string"}, match_strategy="skip"), "Paris", None)


def test_schema_with_valid_uses_the_parsed_value():
    match_json(J(valid=True, schema=SCHEMA, match_strategy="skip"), '{"city": "Rome"}', None)


def test_schema_runs_before_the_comparison():
    criterion = J(schema={"type": "integer"})
    assert error(criterion, "x", "x").startswith("json schema validation failed")
    match_json(criterion, 3, 3.0000001)


def test_schema_boolean_and_large_integers():
    match_json(J(schema=True, match_strategy="skip"), {"any": 1}, None)
    assert error(J(schema=False, match_strategy="skip"), 1, None).startswith(
        "json schema validation failed"
    )
    big = J(schema={"type": "integer", "maximum": 12345678901234567890}, match_strategy="skip")
    match_json(big, RawJSON("12345678901234567890"), None)
    assert "json schema validation failed" in error(big, RawJSON("12345678901234567891"), None)


def test_schema_draft_2020_12_by_default_and_resource_uri():
    # prefixItems is a 2020-12 keyword (draft 7 would ignore it)
    tuple_schema = {"prefixItems": [{"type": "string"}, {"type": "number"}]}
    match_json(J(schema=tuple_schema, match_strategy="skip"), ["a", 1], None)
    assert "is not of type 'number'" in error(
        J(schema=tuple_schema, match_strategy="skip"), ["a", "b"], None
    )
    # the schema is a resource at SCHEMA_URI, so a ref to it by absolute URI resolves
    recursive = {"type": "object", "properties": {"child": {"$ref": SCHEMA_URI}}}
    match_json(J(schema=recursive, match_strategy="skip"), {"child": {"child": {}}}, None)
    assert "is not of type 'object'" in error(
        J(schema=recursive, match_strategy="skip"), {"child": {"child": 3}}, None
    )


def test_schema_errors():
    assert error(J(schema={"type": 5}, match_strategy="skip"), 1, None).startswith(
        "compile json schema: "
    )
    assert validate_json(J(schema={"type": 5})).startswith("compile json schema: ")
    assert error(J(schema="{not json", match_strategy="skip"), 1, None).startswith(
        "parse json schema: "
    )
    unknown = J(schema={"$schema": "https://example.com/nope", "type": "object"})
    assert error(unknown, {}, {}).startswith("compile json schema: unknown $schema")
    # a schema given as JSON text works too
    match_json(J(schema='{"type": "object"}', match_strategy="skip"), {}, None)


ignore_trees = st.recursive(
    st.just(True) | st.just(False) | st.none(),
    lambda children: st.dictionaries(st.sampled_from(["a", "b", "c", ""]), children, max_size=3),
    max_leaves=6,
)
small_keys = st.sampled_from(["a", "b", "c", ""])
objects = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, 1.0, "x", "1"]),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(small_keys, children, max_size=3)
    ),
    max_leaves=8,
)


@settings(deadline=None)
@given(objects, objects, ignore_trees)
def test_the_fast_ignore_tree_check_is_the_rule(actual, expected, tree):
    """The hot path of :func:`json_reason` (only ``ignoreTree`` set) agrees with the full
    ignoreTree comparison on plain JSON values, both ways."""
    tree = tree if isinstance(tree, dict) else None
    fast = same_json_ignoring(actual, expected, tree, 1e-6)
    assert fast == (ignore_tree_reason(actual, expected, tree, 1e-6) is None)
    criterion = J(ignore_tree=tree)
    try:
        match_json(criterion, actual, expected)
        matched = True
    except MatchError:
        matched = False
    assert matched == fast
