"""Comparison of decoded JSON values (SPEC §3.4): exact, ignoreTree and onlyTree.

**exact**: both null ⇒ equal, one null ⇒ mismatch; objects need equal key sets then equal
values (``"key K in actual but not in expected"``, ``"compare K: ..."``); arrays need equal
length (``"array length mismatch: actual(n) != expected(m)"``) then equal elements in order
(``"compare index i: ..."``); two numbers are equal iff ``|a - e| <= tolerance`` (booleans are
not numbers; a negative tolerance makes every pair of numbers unequal); other scalars must have
the same type and value (``"1" != 1``, ``true != 1``).

**ignoreTree**: a key whose tree entry is the boolean ``true`` is skipped on both sides; an
object entry is the tree of that key's value; trees do not descend into arrays.

**onlyTree**: only the keys selected by the tree are compared (``true`` = whole subtree,
object = recurse, ``false`` = skip); a selected key must exist on both sides.

Mismatch texts are built only when read (see :mod:`.errors`).
"""

from __future__ import annotations

import numbers
from typing import Any

from .errors import Reason
from .gofmt import go_value


def as_number(value: Any) -> float | None:
    """The float64 of a JSON number (int or float, never bool), else ``None``."""
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        try:
            return float(value)
        except OverflowError:
            return None
    if kind is bool or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except (OverflowError, ValueError):
        return None


def _scalar_equal(actual: Any, expected: Any, tolerance: float) -> bool:
    a = as_number(actual)
    if a is not None:
        e = as_number(expected)
        if e is not None:
            return abs(a - e) <= tolerance
        return False
    if isinstance(actual, str):
        return isinstance(expected, str) and str.__eq__(actual, expected)
    if as_number(expected) is not None:
        return False
    return type(actual) is type(expected) and actual == expected


def _not_equal(actual: Any, expected: Any) -> Reason:
    return lambda: f"actual {go_value(actual)} and expected {go_value(expected)} do not match"


def _type_clash(actual: Any, expected: Any, what: str, actual_is: bool) -> Reason:
    if actual_is:
        return lambda: (
            f"actual {go_value(actual)} is {what} but expected {go_value(expected)} is not {what}"
        )
    return lambda: (
        f"actual {go_value(actual)} is not {what} but expected {go_value(expected)} is {what}"
    )


def _under(label: str, cause: Reason) -> Reason:
    return lambda: f"{label}: {cause()}"


def _bad_selector(key: Any) -> Reason:
    return lambda: f"onlyTree[{key}] must be a bool or an object"


def _missing_key(key: Any, side: str, other: str) -> Reason:
    return lambda: f"key {key} in {side} but not in {other}"


def same_json(actual: Any, expected: Any, tolerance: float) -> bool:
    """Fast, conservative equality: ``True`` only when the exact rule surely holds.

    Handles the plain JSON types by exact type; anything unusual answers ``False`` and is
    settled by the full comparison.
    """
    kind = type(actual)
    if kind is dict:
        if type(expected) is not dict or actual.keys() != expected.keys():
            return False
        for key, value in actual.items():  # noqa: SIM110 - a plain loop beats all() here
            if not same_json(value, expected[key], tolerance):
                return False
        return True
    if kind is str:
        return type(expected) is str and actual == expected
    if kind is int or kind is float:
        other = type(expected)
        if other is not int and other is not float:
            return False
        if kind is int and other is int:
            return actual == expected and tolerance >= 0
        try:
            return abs(actual - expected) <= tolerance
        except OverflowError:
            return False
    if kind is list:
        if type(expected) is not list or len(actual) != len(expected):
            return False
        for index, value in enumerate(actual):
            if not same_json(value, expected[index], tolerance):
                return False
        return True
    if actual is None:
        return expected is None
    if kind is bool:
        return actual is expected
    return False


def same_json_ignoring(
    actual: Any, expected: Any, tree: dict[str, Any] | None, tolerance: float
) -> bool:
    """:func:`same_json` under an ignoreTree: ``True`` only when :func:`ignore_tree_reason`
    surely finds no difference (keys marked ``true`` skipped at their level, an object entry
    the tree of that key's value); anything else answers ``False``."""
    if not tree or type(actual) is not dict or type(expected) is not dict:
        return same_json(actual, expected, tolerance)
    for key in actual.keys() ^ expected.keys():
        if tree.get(key) is not True:
            return False
    for key, value in actual.items():
        entry = tree.get(key)
        if entry is True:
            continue
        child = entry if type(entry) is dict else None
        if not same_json_ignoring(value, expected[key], child, tolerance):
            return False
    return True


def exact_reason(actual: Any, expected: Any, tolerance: float) -> Reason | None:
    """``None`` when the values are equal under the exact rule, else why not."""
    if same_json(actual, expected, tolerance):
        return None
    return _exact(actual, expected, tolerance)


def _exact(actual: Any, expected: Any, tolerance: float) -> Reason | None:
    if actual is None or expected is None:
        if actual is None and expected is None:
            return None
        return _not_equal(actual, expected)
    if isinstance(actual, dict):
        if not isinstance(expected, dict):
            return _type_clash(actual, expected, "a map", True)
        if actual.keys() != expected.keys():
            return _key_sets(actual, expected, None)
        for key, value in actual.items():
            cause = _exact(value, expected[key], tolerance)
            if cause is not None:
                return _under(f"compare {key}", cause)
        return None
    if isinstance(expected, dict):
        return _type_clash(actual, expected, "a map", False)
    if isinstance(actual, list | tuple):
        if not isinstance(expected, list | tuple):
            return _type_clash(actual, expected, "an array", True)
        if len(actual) != len(expected):
            sizes = (len(actual), len(expected))
            return lambda: f"array length mismatch: actual({sizes[0]}) != expected({sizes[1]})"
        for index, value in enumerate(actual):
            cause = _exact(value, expected[index], tolerance)
            if cause is not None:
                return _under(f"compare index {index}", cause)
        return None
    if isinstance(expected, list | tuple):
        return _type_clash(actual, expected, "an array", False)
    if _scalar_equal(actual, expected, tolerance):
        return None
    return _not_equal(actual, expected)


def _ignored(tree: dict[str, Any] | None, key: Any) -> bool:
    return tree is not None and tree.get(key) is True


def _key_sets(
    actual: dict[str, Any], expected: dict[str, Any], tree: dict[str, Any] | None
) -> Reason | None:
    for key in actual:
        if key not in expected and not _ignored(tree, key):
            return _missing_key(key, "actual", "expected")
    for key in expected:
        if key not in actual and not _ignored(tree, key):
            return _missing_key(key, "expected", "actual")
    return None


def ignore_tree_reason(
    actual: Any, expected: Any, tree: dict[str, Any] | None, tolerance: float
) -> Reason | None:
    """Exact comparison that skips keys marked ``true`` in ``tree`` (at their level)."""
    if not tree:
        return exact_reason(actual, expected, tolerance)
    if actual is None or expected is None:
        if actual is None and expected is None:
            return None
        return _not_equal(actual, expected)
    if isinstance(actual, dict):
        if not isinstance(expected, dict):
            return _type_clash(actual, expected, "a map", True)
        cause = _key_sets(actual, expected, tree)
        if cause is not None:
            return cause
        for key, value in actual.items():
            entry = tree.get(key)
            if entry is True:
                continue
            child = entry if isinstance(entry, dict) else None
            cause = ignore_tree_reason(value, expected[key], child, tolerance)
            if cause is not None:
                return _under(f"compare {key}", cause)
        return None
    if isinstance(expected, dict):
        return _type_clash(actual, expected, "a map", False)
    return exact_reason(actual, expected, tolerance)


def only_tree_reason(
    actual: Any, expected: Any, tree: dict[str, Any], tolerance: float
) -> Reason | None:
    """Compare only the keys selected by ``tree`` (``true`` / nested object / ``false``)."""
    if actual is None or expected is None:
        if actual is None and expected is None:
            return None
        return _not_equal(actual, expected)
    if isinstance(actual, dict):
        if not isinstance(expected, dict):
            return _type_clash(actual, expected, "a map", True)
        for key, selector in tree.items():
            if selector is False:
                continue
            if selector is not True and not isinstance(selector, dict):
                return _bad_selector(key)
            if key not in actual:
                return _missing_key(key, "onlyTree", "actual")
            if key not in expected:
                return _missing_key(key, "onlyTree", "expected")
            if selector is True:
                cause = exact_reason(actual[key], expected[key], tolerance)
            else:
                cause = only_tree_reason(actual[key], expected[key], selector, tolerance)
            if cause is not None:
                return _under(f"compare {key}", cause)
        return None
    if isinstance(expected, dict):
        return _type_clash(actual, expected, "a map", False)
    return exact_reason(actual, expected, tolerance)
