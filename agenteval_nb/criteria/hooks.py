"""Custom comparison hooks resolved from ``compareName`` / ``tokenizerName`` (SPEC §3.1 step 1).

The engine resolves every name through the registry before it evaluates (an unknown name fails
the whole request); a criterion evaluated with no hooks, or with a name the hooks lack, ignores
the name, as the reference does for an unresolved name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import Reason, fail

CompareFn = Callable[[Any, Any], bool]
"""``fn(actual, expected) -> bool``; raising an exception reports a mismatch with its message."""

TokenizerFn = Callable[[str], list[str]]
"""``fn(text) -> tokens`` used by ROUGE instead of the default tokenizer."""


@dataclass(frozen=True, slots=True)
class Hooks:
    """Resolved custom functions, by name."""

    compare: Mapping[str, CompareFn] = field(default_factory=dict)
    tokenizers: Mapping[str, TokenizerFn] = field(default_factory=dict)

    def compare_fn(self, name: str | None) -> CompareFn | None:
        return self.compare.get(name) if name else None

    def tokenizer_fn(self, name: str | None) -> TokenizerFn | None:
        return self.tokenizers.get(name) if name else None


NO_HOOKS = Hooks()


def compare_outcome(fn: CompareFn, actual: Any, expected: Any) -> str | None:
    """Run a compare hook the way the reference runs a custom ``Compare``: verbatim.

    Returns ``None`` for a match, ``""`` for a plain mismatch (falsy result) and the exception
    text when the hook raises. A Go-style ``(ok, error)`` tuple is honoured too: a non-empty
    error wins, else ``ok`` decides.
    """
    try:
        result = fn(actual, expected)
    except Exception as exc:
        return str(exc)
    if isinstance(result, tuple) and len(result) == 2:
        ok, err = result
        if err:
            return str(err)
        return None if ok else ""
    return None if result else ""


def hook_reason(fn: CompareFn, actual: Any, expected: Any) -> Reason | None:
    """:func:`compare_outcome` as a criterion result: ``None`` on a match, else its text."""
    outcome = compare_outcome(fn, actual, expected)
    return None if outcome is None else fail(outcome)
