"""ToolTrajectoryCriterion (SPEC §3.1): ``match(actual_invocation, expected_invocation)``.

Order: custom compare (``compareName``) ⇒ its verdict; a null invocation ⇒ ``"actual or
expected invocation is nil"``; both tool lists empty ⇒ match; counts must be equal
(``"number of tool calls mismatch: actual(A) != expected(E)"``) or, with ``subsetMatching``,
``A >= E`` (``"... actual(A) < expected(E)"``), wrapped ``"validate tool counts: ..."``; then

* ``orderSensitive``: greedy subsequence — a cursor walks the actual tools once; each expected
  tool takes the first later actual that matches; else ``"tool id <id> with name <name>
  mismatch[: <error of the last pair tried>]"``;
* otherwise Kuhn maximum bipartite matching (:mod:`.kuhn`); failure lists ``"cannot match all
  left vertices"`` then ``"tool id <id> with name <name> mismatch"`` per unmatched expected
  tool, in hashicorp multierror format;

both wrapped ``"match tools: ..."``.

Strategy of a pair (replacement, never merge): ``toolStrategy[actual name]``, else
``toolStrategy[expected name]``, else ``defaultStrategy``, else the built-in exact name + exact
arguments + exact result (tolerance 1e-6). A strategy compares only the parts it configures,
in the order name → arguments → result (``"name mismatch[: cause]"`` ...), and a failing pair
reads ``"actual tool <aID> named <aName> mismatch with expected tool <eID> named <eName>:
<cause>"``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import (
    Invocation,
    JSONCriterion,
    TextCriterion,
    Tool,
    ToolStrategy,
    ToolTrajectoryCriterion,
)
from .errors import Reason, fail, raise_if, wrap
from .hooks import NO_HOOKS, Hooks, hook_reason
from .jsoncmp import json_reason, validate_json
from .kuhn import max_matching
from .text import text_reason, validate_text

DEFAULT_STRATEGY = ToolStrategy(
    name=TextCriterion(match_strategy="exact"),
    arguments=JSONCriterion(),
    result=JSONCriterion(),
)
"""Used when neither ``toolStrategy`` nor ``defaultStrategy`` applies."""


def validate_tool_trajectory(criterion: ToolTrajectoryCriterion | None) -> str | None:
    """The first configuration error in the strategies, else ``None``."""
    if criterion is None or criterion.compare_name:
        return None
    strategies = [criterion.default_strategy, *(criterion.tool_strategy or {}).values()]
    for strategy in strategies:
        if strategy is None:
            continue
        error = validate_text(strategy.name)
        if error is not None:
            return f"name mismatch: {error}"
        for label, part in (("arguments", strategy.arguments), ("result", strategy.result)):
            error = validate_json(part)
            if error is not None:
                return f"{label} mismatch: {error}"
    return None


def multi_error(items: Sequence[str]) -> str:
    """hashicorp/go-multierror's text: ``"N errors occurred:\\n\\t* a\\n\\t* b\\n\\n"``."""
    if len(items) == 1:
        return f"1 error occurred:\n\t* {items[0]}\n\n"
    lines = "\n".join(f"\t* {item}" for item in items)
    return f"{len(items)} errors occurred:\n{lines}\n\n"


def _name(tool: Tool) -> str:
    return tool.name or ""


def _pair_text(actual: Tool, expected: Tool, cause: Reason) -> str:
    head = (
        f"actual tool {actual.id or ''} named {_name(actual)} mismatch with expected tool "
        f"{expected.id or ''} named {_name(expected)}"
    )
    return wrap(head, cause)()


def _tool_label(tool: Tool) -> str:
    return f"tool id {tool.id or ''} with name {tool.name or ''} mismatch"


class _PairMatcher:
    """Strategy lookup and pair comparison for one criterion and one set of hooks."""

    __slots__ = ("default", "hooks", "per_tool")

    def __init__(self, criterion: ToolTrajectoryCriterion, hooks: Hooks) -> None:
        self.per_tool = criterion.tool_strategy or None
        self.default = criterion.default_strategy or DEFAULT_STRATEGY
        self.hooks = hooks

    def strategy(self, actual: Tool, expected: Tool) -> ToolStrategy:
        per_tool = self.per_tool
        if per_tool is not None:
            found = per_tool.get(_name(actual))
            if found is None:
                found = per_tool.get(_name(expected))
            if found is not None:
                return found
        return self.default

    def reason(self, actual: Tool | None, expected: Tool | None) -> Reason | None:
        """``None`` when the pair matches, else the ``matchTool`` text."""
        if actual is None or expected is None:
            return fail("actual or expected tool is nil")
        strategy = self.strategy(actual, expected)
        hooks = self.hooks
        cause: Reason | None = None
        if strategy.name is not None:
            inner = text_reason(strategy.name, _name(actual), _name(expected), hooks)
            if inner is not None:
                cause = wrap("name mismatch", inner)
        if cause is None and strategy.arguments is not None:
            inner = json_reason(strategy.arguments, actual.arguments, expected.arguments, hooks)
            if inner is not None:
                cause = wrap("arguments mismatch", inner)
        if cause is None and strategy.result is not None:
            inner = json_reason(strategy.result, actual.result, expected.result, hooks)
            if inner is not None:
                cause = wrap("result mismatch", inner)
        if cause is None:
            return None
        return lambda: _pair_text(actual, expected, cause)


Matching = list[int | None]
"""For each expected tool, the index of the actual tool matched with it (``None``: unmatched)."""


def _ordered(
    matcher: _PairMatcher, actual: list[Tool], expected: list[Tool]
) -> tuple[Matching, Reason | None]:
    matching: Matching = [None] * len(expected)
    cursor = -1
    last = len(actual) - 1
    for i, exp_tool in enumerate(expected):
        if cursor == last:
            return matching, fail(_tool_label(exp_tool))
        cause: Reason | None = None
        while cursor < last:
            cursor += 1
            cause = matcher.reason(actual[cursor], exp_tool)
            if cause is None:
                break
        if cause is not None:
            return matching, wrap(_tool_label(exp_tool), cause)
        matching[i] = cursor
    return matching, None


def _unordered(
    matcher: _PairMatcher, actual: list[Tool], expected: list[Tool]
) -> tuple[Matching, Reason | None]:
    seen: dict[tuple[int, int], bool] = {}

    def edge(i: int, j: int) -> bool:
        ok = seen.get((i, j))
        if ok is None:
            ok = seen[(i, j)] = matcher.reason(actual[j], expected[i]) is None
        return ok

    # With len(actual) >= len(expected), pairing expected i with actual i is a candidate perfect
    # matching; when it holds, Kuhn would succeed too. Its edge tests are memoised for Kuhn.
    if len(actual) >= len(expected) and all(edge(i, i) for i in range(len(expected))):
        return list(range(len(expected))), None
    matching = max_matching(len(expected), len(actual), edge)
    missing = [i for i, j in enumerate(matching) if j is None]
    if not missing:
        return matching, None
    items = ["cannot match all left vertices", *(_tool_label(expected[i]) for i in missing)]
    return matching, fail(multi_error(items))


def _matched(
    criterion: ToolTrajectoryCriterion, actual: list[Tool], expected: list[Tool], hooks: Hooks
) -> tuple[Matching, Reason | None]:
    matcher = _PairMatcher(criterion, hooks)
    if criterion.order_sensitive:
        return _ordered(matcher, actual, expected)
    return _unordered(matcher, actual, expected)


def tool_matching(
    criterion: ToolTrajectoryCriterion,
    actual_tools: Sequence[Tool],
    expected_tools: Sequence[Tool],
    hooks: Hooks = NO_HOOKS,
) -> Matching:
    """How the criterion pairs the calls: for each expected tool, the actual tool it matched
    (``None``: unmatched). Ordered: the greedy subsequence, stopping at the first expected tool
    without a match; otherwise the identity when every pair holds, else Kuhn's maximum
    matching. The tool counts are not checked here (:func:`trajectory_reason` does)."""
    return _matched(criterion, list(actual_tools), list(expected_tools), hooks)[0]


def trajectory_reason(
    criterion: ToolTrajectoryCriterion,
    actual: Invocation | None,
    expected: Invocation | None,
    hooks: Hooks = NO_HOOKS,
) -> Reason | None:
    """``None`` on a match, else the deferred mismatch text."""
    fn = hooks.compare_fn(criterion.compare_name)
    if fn is not None:
        return hook_reason(fn, actual, expected)
    if actual is None or expected is None:
        return fail("actual or expected invocation is nil")
    actual_tools = actual.tools or []
    expected_tools = expected.tools or []
    if not actual_tools and not expected_tools:
        return None
    n_actual, n_expected = len(actual_tools), len(expected_tools)
    if criterion.subset_matching:
        if n_actual < n_expected:
            return fail(
                "validate tool counts: number of tool calls mismatch: "
                f"actual({n_actual}) < expected({n_expected})"
            )
    elif n_actual != n_expected:
        return fail(
            "validate tool counts: number of tool calls mismatch: "
            f"actual({n_actual}) != expected({n_expected})"
        )
    _, cause = _matched(criterion, actual_tools, expected_tools, hooks)
    if cause is None:
        return None
    return lambda: f"match tools: {cause()}"


def match_tool_trajectory(
    criterion: ToolTrajectoryCriterion,
    actual_invocation: Invocation | None,
    expected_invocation: Invocation | None,
    hooks: Hooks = NO_HOOKS,
) -> None:
    """Raise :class:`~.errors.MatchError` unless the tool calls match (SPEC §3.1)."""
    raise_if(trajectory_reason(criterion, actual_invocation, expected_invocation, hooks))
