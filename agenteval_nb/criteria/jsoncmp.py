"""JSONCriterion (SPEC §3.4): ``match(actual, expected)``.

Order of checks:

1. ``ignore`` ⇒ match.
2. non-empty ``onlyTree`` and ``ignoreTree`` ⇒ ``"onlyTree and ignoreTree cannot be set at the
   same time"`` (before the custom compare).
3. custom compare (``compareName``) ⇒ its verdict; nothing else runs.
4. ``valid``: the actual must be JSON: text (:class:`RawJSON`, ``str``, ``bytes``) is decoded,
   other values must be marshallable; else ``"parse actual raw json: <go error>"``.
5. ``schema``: the actual (decoded in 4, or decoded now when it is RawJSON/bytes; a plain
   ``str`` is validated as a string) must validate (:mod:`.json_schema`). Runs even without
   ``valid``.
6. ``matchStrategy: skip`` ⇒ match.
7. RawJSON inputs are decoded (``"parse actual raw json: ..."`` /
   ``"parse expected raw json: ..."``); decoded values pass through.
8. tolerance = ``numberTolerance`` if set (0 or negative allowed) else the caller's default
   (1e-6 for metrics, 0 for tool mocks).
9. ``exact`` / empty: onlyTree compare if ``onlyTree`` is non-empty, else ignoreTree compare;
   a failure reads ``"actual <a> and expected <e> do not match: <cause>"``. Other strategies:
   ``"invalid match strategy <x>"``.
"""

from __future__ import annotations

from typing import Any

from ..schema import JSONCriterion
from .errors import Reason, fail, raise_if
from .gofmt import go_value
from .hooks import NO_HOOKS, Hooks, hook_reason
from .json_schema import SchemaSetupError, compiled_validator, schema_failures
from .jsontree import ignore_tree_reason, only_tree_reason, same_json_ignoring
from .rawjson import JSONTextError, RawJSON, decode_json_text, marshal_check

DEFAULT_NUMBER_TOLERANCE = 1e-6
JSON_STRATEGIES = ("", "exact", "skip")
_UNSET: Any = object()
_RAW_TYPES = (RawJSON, bytes, bytearray)
_IGNORE_TREE_ONLY = frozenset({"ignore_tree"})
"""A criterion that sets nothing else compares exactly, skipping its ignoreTree's keys."""


def validate_json(criterion: JSONCriterion | None) -> str | None:
    """A configuration error that would fail every comparison, else ``None``."""
    if criterion is None or criterion.ignore:
        return None
    if criterion.only_tree and criterion.ignore_tree:
        return "onlyTree and ignoreTree cannot be set at the same time"
    if criterion.compare_name:
        return None
    if criterion.schema_ is not None:
        try:
            compiled_validator(criterion.schema_)
        except SchemaSetupError as exc:
            return str(exc)
    strategy = criterion.match_strategy or ""
    if strategy not in JSON_STRATEGIES:
        return f"invalid match strategy {strategy}"
    return None


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return None


def _validity_value(actual: Any) -> Any:
    text = _as_text(actual)
    if text is not None:
        return decode_json_text(text, keep_numbers=True)
    marshal_check(actual)
    return actual


def _schema_reason(schema: Any, actual: Any, parsed: Any) -> Reason | None:
    try:
        validator = compiled_validator(schema)
    except SchemaSetupError as exc:
        return fail(str(exc))
    instance = parsed
    if instance is _UNSET:
        instance = actual
        if isinstance(actual, RawJSON | bytes | bytearray):
            try:
                instance = decode_json_text(_as_text(actual) or "", keep_numbers=True)
            except JSONTextError as exc:
                return fail(f"parse actual raw json: {exc}")
    failures = schema_failures(validator, instance)
    if failures is None:
        return None
    return fail(f"json schema validation failed: {failures}")


def json_reason(
    criterion: JSONCriterion,
    actual: Any,
    expected: Any,
    hooks: Hooks = NO_HOOKS,
    default_tolerance: float = DEFAULT_NUMBER_TOLERANCE,
) -> Reason | None:
    """``None`` on a match, else the deferred mismatch text."""
    if (
        criterion.model_fields_set <= _IGNORE_TREE_ONLY  # the hot path: a plain comparison
        and not isinstance(actual, _RAW_TYPES)
        and not isinstance(expected, RawJSON)
        and same_json_ignoring(actual, expected, criterion.ignore_tree, default_tolerance)
    ):
        return None
    if criterion.ignore:
        return None
    only_tree = criterion.only_tree
    ignore_tree = criterion.ignore_tree
    if only_tree and ignore_tree:
        return fail("onlyTree and ignoreTree cannot be set at the same time")
    fn = hooks.compare_fn(criterion.compare_name)
    if fn is not None:
        return hook_reason(fn, actual, expected)
    parsed = _UNSET
    if criterion.valid:
        try:
            parsed = _validity_value(actual)
        except JSONTextError as exc:
            return fail(f"parse actual raw json: {exc}")
    if criterion.schema_ is not None:
        cause = _schema_reason(criterion.schema_, actual, parsed)
        if cause is not None:
            return cause
    strategy = criterion.match_strategy
    if strategy == "skip":
        return None
    if isinstance(actual, RawJSON):
        try:
            actual = decode_json_text(actual)
        except JSONTextError as exc:
            return fail(f"parse actual raw json: {exc}")
    if isinstance(expected, RawJSON):
        try:
            expected = decode_json_text(expected)
        except JSONTextError as exc:
            return fail(f"parse expected raw json: {exc}")
    tolerance = criterion.number_tolerance
    if tolerance is None:
        tolerance = default_tolerance
    if strategy and strategy != "exact":
        return fail(f"invalid match strategy {strategy}")
    if only_tree:
        cause = only_tree_reason(actual, expected, only_tree, tolerance)
    else:
        cause = ignore_tree_reason(actual, expected, ignore_tree, tolerance)
    if cause is None:
        return None
    return lambda: (
        f"actual {go_value(actual)} and expected {go_value(expected)} do not match: {cause()}"
    )


def match_json(
    criterion: JSONCriterion,
    actual: Any,
    expected: Any,
    hooks: Hooks = NO_HOOKS,
    *,
    default_tolerance: float = DEFAULT_NUMBER_TOLERANCE,
) -> None:
    """Raise :class:`~.errors.MatchError` unless ``actual`` matches ``expected``.

    Pass :class:`RawJSON` for JSON text that must be decoded (final-response content).
    """
    raise_if(json_reason(criterion, actual, expected, hooks, default_tolerance))
