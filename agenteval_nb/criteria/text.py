"""TextCriterion (SPEC §3.2): ``match(source=actual, target=expected)``.

Order: ``ignore`` ⇒ match; custom compare (``compareName``) ⇒ its verdict, length not checked;
``length`` on the source only (``"length mismatch: <cause>"``); ``skip`` ⇒ match;
``caseInsensitive`` lowercases both strings, including a regex pattern; then

* ``exact`` / empty: equality, else ``"source <s> and target <t> do not match"``;
* ``contains``: target in source, else ``"source <s> does not contain target <t>"``;
* ``regex``: target compiled as RE2 (``"invalid regex <t>: <go error>"``), unanchored search,
  else ``"source <s> does not match regex <t>"``;
* anything else: ``"invalid match strategy <x>"``.
"""

from __future__ import annotations

from ..schema import TextCriterion
from .errors import Reason, raise_if, wrap
from .gofmt import go_lower
from .hooks import NO_HOOKS, Hooks, hook_reason
from .length import length_reason, validate_length
from .regex import RegexError, compile_regex

TEXT_STRATEGIES = ("", "exact", "contains", "regex", "skip")


def validate_text(criterion: TextCriterion | None) -> str | None:
    """A configuration error that would fail every comparison, else ``None``."""
    if criterion is None or criterion.ignore or criterion.compare_name:
        return None
    error = validate_length(criterion.length)
    if error is not None:
        return f"length mismatch: {error}"
    strategy = criterion.match_strategy or ""
    if strategy not in TEXT_STRATEGIES:
        return f"invalid match strategy {strategy}"
    return None


def text_reason(
    criterion: TextCriterion, source: str, target: str, hooks: Hooks = NO_HOOKS
) -> Reason | None:
    """``None`` on a match, else the deferred mismatch text (``None`` strings count as ``""``)."""
    if criterion.ignore:
        return None
    if source is None:
        source = ""
    if target is None:
        target = ""
    fn = hooks.compare_fn(criterion.compare_name)
    if fn is not None:
        return hook_reason(fn, source, target)
    if criterion.length is not None:
        cause = length_reason(criterion.length, source)
        if cause is not None:
            return wrap("length mismatch", cause)
    strategy = criterion.match_strategy
    if strategy == "skip":
        return None
    if criterion.case_insensitive:
        source = go_lower(source)
        target = go_lower(target)
    if not strategy or strategy == "exact":
        if source == target:
            return None
        return lambda: f"source {source} and target {target} do not match"
    if strategy == "contains":
        if target in source:
            return None
        return lambda: f"source {source} does not contain target {target}"
    if strategy == "regex":
        try:
            pattern = compile_regex(target)
        except RegexError as exc:
            message = str(exc)
            return lambda: f"invalid regex {target}: {message}"
        if pattern.search(source) is not None:
            return None
        return lambda: f"source {source} does not match regex {target}"
    return lambda: f"invalid match strategy {strategy}"


def match_text(criterion: TextCriterion, source: str, target: str, hooks: Hooks = NO_HOOKS) -> None:
    """Raise :class:`~.errors.MatchError` unless ``source`` matches ``target``."""
    raise_if(text_reason(criterion, source, target, hooks))
