"""The one builder: the steps of a turn → an ``Invocation`` and the gaps found.

Source-independent: trace files (:mod:`agenteval_nb.traces`) and captured traffic both hand it
a :class:`~.records.TurnSteps`. The rules (TRACES.md §2, CAPTURE.md §4):

1. **Model calls, once.** A model call nested under another model call of the same model whose
   times overlap is the same call seen by two instrumentation layers: the group keeps its
   innermost member with content and fills what it lacks from the others; its usage is taken
   from one member only (never summed within a group).
2. **userContent** = ``turn.user_text``, else the last user text of the first model call; a
   turn always has a user message (trace mode requires one), its ``content`` absent when the
   text was not recovered (gap ``no_user_content``).
3. **finalResponse** = ``turn.final_text``, else the last model call's output text when that
   call requested no tools. **intermediateResponses** = the output text of every other call.
4. **tools** = the calls the model requested, in request order (parallel calls keep it),
   deduplicated by id; each joined to its executed tool step by call id, else by (name,
   canonical arguments) in order; executed tools no request names are added after them. The
   result is the tool step's, else a tool result carried by a later model call (by id, else by
   name in order), else, for a tool that failed (``error.type``, status ERROR), its error as
   ``{"error": <error>}`` (a failed call's outcome, not a missing result).
5. **usage** = the sum over the model calls (after rule 1) in ``executionTrace.Usage``; agent
   steps' aggregate usage is never read.
6. **executionTrace**: one step per source step (NodeType ``llm`` / ``tool`` / ``agent`` /
   ``function``), the turn's times, status ``incomplete`` when a span is open.
7. **gaps**: ``content_missing`` / ``content_redacted`` / ``content_external`` /
   ``content_truncated`` (the content flag of a step whose text the turn uses — of every step
   when the user or final text is missing), ``no_user_content``, ``no_final_response``,
   ``tool_without_result``, ``no_model_call``, ``open_span``, plus the source's own. They are
   kept in ``invocation.source`` with every source span id, so text metrics can refuse the turn
   (:func:`agenteval_nb.schema.evalset.text_gap_reason`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson

from ..schema import Invocation, InvocationSource, Message, Tool
from ..schema.trace import CompletionTokensDetails, PromptTokensDetails, Snapshot, Trace, TraceTool
from ..schema.trace import Step as TraceStep
from ..schema.trace import Usage as TraceUsage
from .compact import Untyped, compact_invocation, make, make_wire
from .records import (
    AgentRun,
    Content,
    ModelCall,
    OtherStep,
    Step,
    ToolResult,
    ToolRun,
    ToolUse,
    TurnSteps,
    Usage,
)

NODE_TYPES: dict[type, str] = {
    ModelCall: "llm",
    ToolRun: "tool",
    AgentRun: "agent",
    OtherStep: "function",
}
"""executionTrace ``NodeType`` of each step record (SPEC §1.3)."""


@dataclass(slots=True)
class BuiltInvocation:
    """What the builder made of a turn: the invocation, and the gaps (also in its ``source``)."""

    invocation: Invocation
    gaps: set[str] = field(default_factory=set)
    usage: Usage | None = None
    model_calls: int = 0
    tools_without_result: int = 0
    calls_without_usage: int = 0


def build_invocation(turn: TurnSteps, *, execution_trace: bool = True) -> BuiltInvocation:
    """The invocation of one turn (the module's rules 1–7). ``execution_trace=False`` leaves
    ``executionTrace`` out: its step models are the larger part of the build of a large load
    (``bench/traces_builder.py``)."""
    gaps = set(turn.gaps)
    calls, duplicates = collapse_model_calls(turn.steps)
    user_text = turn.user_text
    if user_text is None and calls:
        user_text = calls[0].last_user_text
    final_call = calls[-1] if calls and not calls[-1].tool_calls else None
    final_text = turn.final_text
    if final_text is None and final_call is not None:
        final_text = final_call.output_text
    intermediate = [
        c.output_text for c in calls if c is not final_call and c.output_text is not None
    ]
    tools = join_tools(calls, [s for s in turn.steps if isinstance(s, ToolRun)])
    usage = sum_usage(c.usage for c in calls)

    suppliers = {
        turn.root_span_id if turn.user_text is not None else calls[0].span_id if calls else None,
        turn.root_span_id
        if turn.final_text is not None
        else final_call.span_id
        if final_call
        else None,
    }
    lacking = user_text is None or final_text is None
    gaps.update(_content_gaps(turn.steps, duplicates, None if lacking else suppliers))
    if not calls:
        gaps.add("no_model_call")
    if user_text is None:
        gaps.add("no_user_content")
    if final_text is None:
        gaps.add("no_final_response")
    without_result = sum(not t.has_result and not t.server for t in tools)
    if without_result:
        gaps.add("tool_without_result")
    if turn.end_ns is None or any(s.end_ns is None for s in turn.steps):
        gaps.add("open_span")

    parts = (turn, calls, duplicates, (user_text, final_text), intermediate, tools, usage, gaps)
    try:  # the builder's own values, typed: made as validation would make them, compact
        invocation = _invocation(make, *parts, execution_trace=execution_trace)
    except Untyped:  # a source gave a value of another type: validation says what is wrong
        invocation = Invocation.model_validate(
            _invocation(make_wire, *parts, execution_trace=execution_trace)
        )
        compact_invocation(invocation)
    no_usage = sum(c.usage is None for c in calls)
    return BuiltInvocation(invocation, gaps, usage, len(calls), without_result, no_usage)


Make = Callable[[type, Any, dict[str, Any]], Any]
"""How a model is made: :func:`~.compact.make` (the model) or :func:`~.compact.make_wire` (its
wire dict, validated whole)."""


def _invocation(
    make: Make,
    turn: TurnSteps,
    calls: list[ModelCall],
    duplicates: set[str],
    texts: tuple[str | None, str | None],
    intermediate: list[str],
    tools: list[ToolUse],
    usage: Usage | None,
    gaps: set[str],
    *,
    execution_trace: bool,
) -> Any:
    user_text, final_text = texts
    trace = _trace(make, turn, calls, duplicates, texts, usage, gaps) if execution_trace else None
    return make(
        Invocation,
        None,  # the invocation keeps its own fields set: callers stamp its fields
        {
            "invocation_id": turn.turn_id,
            "user_content": make(Message, "message", {"role": "user", "content": user_text}),
            "final_response": None
            if final_text is None
            else make(Message, "message", {"role": "assistant", "content": final_text}),
            "tools": [_wire_tool(make, t) for t in tools] or None,
            "intermediate_responses": [
                make(Message, "message", {"role": "assistant", "content": t}) for t in intermediate
            ]
            or None,
            "creation_timestamp": None if turn.start_ns is None else turn.start_ns / 1e9,
            "execution_trace": trace,
            "source": make(
                InvocationSource,
                "source",
                {
                    "trace_id": turn.trace_id,
                    "root_span_id": turn.root_span_id,
                    "span_ids": [s.span_id for s in turn.steps],
                    "gaps": sorted(gaps) or None,
                },
            ),
        },
    )


# -- rule 1: one model call per call ----------------------------------------------------------


def _model_key(model: str | None) -> str | None:
    return None if model is None else model.rsplit("/", 1)[-1].lower()


def _overlap(a: ModelCall, b: ModelCall) -> bool:
    if None in (a.start_ns, a.end_ns, b.start_ns, b.end_ns):
        return True
    return a.start_ns <= b.end_ns and b.start_ns <= a.end_ns  # type: ignore[operator]


def _same_call(inner: ModelCall, outer: ModelCall) -> bool:
    ki, ko = _model_key(inner.model), _model_key(outer.model)
    return (ki is None or ko is None or ki == ko) and _overlap(inner, outer)


def _has_content(call: ModelCall) -> bool:
    return call.content is Content.PRESENT and (
        call.output_text is not None or bool(call.tool_calls) or call.last_user_text is not None
    )


def collapse_model_calls(steps: list[Step]) -> tuple[list[ModelCall], set[str]]:
    """The turn's model calls with nested duplicates merged (rule 1), in step order, and the
    span ids of the duplicates dropped."""
    by_id = {s.span_id: s for s in steps}
    group_of: dict[str, str] = {}
    members: dict[str, list[ModelCall]] = {}
    for step in steps:
        if not isinstance(step, ModelCall):
            continue
        head = step.span_id
        seen = {step.span_id}
        parent = by_id.get(step.parent_span_id or "")
        while parent is not None and parent.span_id not in seen:
            seen.add(parent.span_id)
            if isinstance(parent, ModelCall) and _same_call(step, parent):
                head = group_of.get(parent.span_id, parent.span_id)
                break
            parent = by_id.get(parent.parent_span_id or "")
        group_of[step.span_id] = head
        members.setdefault(head, []).append(step)
    calls: list[ModelCall] = []
    dropped: set[str] = set()
    for group in members.values():
        merged = _merge(group)
        calls.append(merged)
        dropped.update(m.span_id for m in group if m.span_id != merged.span_id)
    order = {s.span_id: i for i, s in enumerate(steps)}
    calls.sort(key=lambda c: (c.start_ns is None, c.start_ns or 0, order[c.span_id]))
    return calls, dropped


def _merge(group: list[ModelCall]) -> ModelCall:
    """One call from a group of layers: the innermost member with content (group order is
    outermost first), its missing fields filled from the others, innermost first."""
    if len(group) == 1:
        return group[0]
    inner_first = group[::-1]
    keep = next((c for c in inner_first if _has_content(c)), inner_first[0])
    others = [c for c in inner_first if c is not keep]
    fields = ("model", "last_user_text", "output_text", "finish_reason", "usage", "error")
    filled = {name: getattr(keep, name) for name in fields}
    for name in fields:
        if filled[name] is None:
            filled[name] = next((v for c in others if (v := getattr(c, name)) is not None), None)
    return ModelCall(
        span_id=keep.span_id,
        start_ns=keep.start_ns,
        end_ns=keep.end_ns,
        tool_results=keep.tool_results or next((c.tool_results for c in others), []),
        tool_calls=keep.tool_calls or next((c.tool_calls for c in others if c.tool_calls), []),
        content=keep.content,
        parent_span_id=keep.parent_span_id,
        **filled,
    )


# -- rule 4: tools -----------------------------------------------------------------------------


def canonical_arguments(arguments: Any) -> str:
    """Arguments as one comparable string: JSON with sorted keys (a JSON string decoded
    first); anything that is not JSON as its ``repr``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments
    try:
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(arguments)


def join_tools(calls: list[ModelCall], runs: list[ToolRun]) -> list[ToolUse]:
    """The turn's tool calls, each with its result when one was seen (rule 4)."""
    requested: list[ToolUse] = []
    ids: set[str] = set()
    for call in calls:
        for use in call.tool_calls:
            if use.id is not None:
                if use.id in ids:
                    continue
                ids.add(use.id)
            requested.append(use)
    unused = list(runs)
    tools = [_joined(use, _take_run(use, unused)) for use in requested]
    tools.extend(_joined(run.tool, run) for run in unused)
    results = [r for c in calls for r in c.tool_results]
    for tool in tools:
        if not tool.has_result and not tool.server:
            found = _take_result(tool, results)
            if found is not None:
                tool.result, tool.has_result = found.result, True
            elif tool.error is not None:
                tool.result, tool.has_result = _failed_result(tool.error), True
    return tools


def _failed_result(error: str) -> dict[str, str]:
    """The result of a tool call that failed and returned nothing anyone recorded."""
    return {"error": error}


def _take_run(use: ToolUse, runs: list[ToolRun]) -> ToolRun | None:
    """The executed tool of a requested call, removed from ``runs``: same id, else (when
    either id is missing) the first with the same name and canonical arguments."""
    if not runs:
        return None
    match = None
    if use.id is not None:
        match = next((r for r in runs if r.tool.id == use.id), None)
    if match is None:
        key = (use.name, canonical_arguments(use.arguments))
        match = next(
            (
                r
                for r in runs
                if (use.id is None or r.tool.id is None)
                and (r.tool.name, canonical_arguments(r.tool.arguments)) == key
            ),
            None,
        )
    if match is not None:
        runs.remove(match)
    return match


def _take_result(tool: ToolUse, results: list[ToolResult]) -> ToolResult | None:
    match = None
    if tool.id is not None:
        match = next((r for r in results if r.call_id == tool.id), None)
    if match is None:
        match = next(
            (
                r
                for r in results
                if (tool.id is None or r.call_id is None)
                and r.name is not None
                and r.name == tool.name
            ),
            None,
        )
    if match is not None:
        results.remove(match)
    return match


def _joined(use: ToolUse, run: ToolRun | None) -> ToolUse:
    ran = run.tool if run is not None else None
    if ran is not None and ran.arguments is not use.arguments and _same(ran.arguments, use):
        ran.arguments = use.arguments  # the request's and the run's equal decodes, held once
    return ToolUse(
        id=use.id if use.id is not None else (ran.id if ran else None),
        name=use.name if use.name is not None else (ran.name if ran else None),
        arguments=use.arguments if use.arguments is not None or ran is None else ran.arguments,
        result=ran.result if ran is not None and ran.has_result else use.result,
        has_result=(ran is not None and ran.has_result) or use.has_result,
        error=(ran.error if ran is not None else None) or use.error,
        server=use.server,
    )


def _same(arguments: Any, use: ToolUse) -> bool:
    """Whether two decoded arguments are the same JSON (``1`` is not ``true`` nor ``1.0``)."""
    if type(arguments) is not type(use.arguments):
        return False
    try:
        return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            use.arguments, option=orjson.OPT_SORT_KEYS
        )
    except TypeError:
        return False


def _wire_tool(make: Make, tool: ToolUse) -> Any:
    return make(
        Tool,
        "tool",
        {
            "id": tool.id,
            "name": _once(tool.name),
            "arguments": tool.arguments,
            "result": tool.result,
        },
    )


# -- rule 5: usage -----------------------------------------------------------------------------


def sum_usage(usages: Iterable[Usage | None]) -> Usage | None:
    """Field-wise sum of the calls' usage; a field no call reports stays ``None``; a call's
    missing total counts as input + output."""
    found = [u for u in usages if u is not None]
    if not found:
        return None
    sums: list[int | None] = [None] * 4  # input, output, cached input, reasoning
    total = 0
    for u in found:
        for i, value in enumerate(
            (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens)
        ):
            if value is not None:
                sums[i] = (sums[i] or 0) + value  # as sum() adds: from 0
        total += (
            u.total_tokens
            if u.total_tokens is not None
            else (u.input_tokens or 0) + (u.output_tokens or 0)
        )
    return Usage(
        input_tokens=sums[0],
        output_tokens=sums[1],
        total_tokens=total,
        cached_input_tokens=sums[2],
        reasoning_tokens=sums[3],
    )


def _wire_usage(make: Make, usage: Usage | None) -> Any:
    """The wire form of usage (``executionTrace`` keys, SPEC §1.3); a missing total is
    input + output."""
    if usage is None:
        return None
    total = usage.total_tokens
    if total is None and (usage.input_tokens is not None or usage.output_tokens is not None):
        total = (usage.input_tokens or 0) + (usage.output_tokens or 0)
    cached, reasoning = usage.cached_input_tokens, usage.reasoning_tokens
    return make(
        TraceUsage,
        "usage",
        {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": total,
            "prompt_tokens_details": None
            if cached is None
            else make(PromptTokensDetails, None, {"cached_tokens": cached}),
            "completion_tokens_details": None
            if reasoning is None
            else make(CompletionTokensDetails, None, {"reasoning_tokens": reasoning}),
        },
    )


# -- rules 6 and 7: executionTrace and gaps ------------------------------------------------------


_CONTENT_GAPS = {
    Content.MISSING: "content_missing",
    Content.REDACTED: "content_redacted",
    Content.EXTERNAL: "content_external",
    Content.TRUNCATED: "content_truncated",
}


def _content_gaps(
    steps: list[Step], duplicates: set[str], suppliers: set[str | None] | None
) -> set[str]:
    """A content gap per content flag of the steps that matter: those whose text the turn
    uses (``suppliers``), or every step when a text of the turn is missing (``None``: the
    flags say why). A duplicate layer is skipped: its twin kept the content."""
    return {
        _CONTENT_GAPS[s.content]
        for s in steps
        if not isinstance(s, OtherStep)
        and s.span_id not in duplicates
        and s.content is not Content.PRESENT
        and (suppliers is None or s.span_id in suppliers)
    }


def rfc3339(ns: int | None) -> str | None:
    """Unix nanoseconds as RFC3339 with nanoseconds, UTC (Go's ``RFC3339Nano``)."""
    if ns is None:
        return None
    seconds, rest = divmod(ns, 1_000_000_000)
    if not rest:
        return _second(seconds) + "Z"
    return f"{_second(seconds)}.{rest:09d}".rstrip("0") + "Z"


@lru_cache(maxsize=4096)
def _second(seconds: int) -> str:
    """The date and time of a Unix second, without its fraction (a turn's spans share a few)."""
    days, second = divmod(seconds, 86_400)
    hour, second = divmod(second, 3600)
    minute, second = divmod(second, 60)
    return f"{_day(days)}T{hour:02d}:{minute:02d}:{second:02d}"


@lru_cache(maxsize=1024)
def _day(days: int) -> str:
    """The date of a Unix day (a load's spans share a few)."""
    return datetime.fromtimestamp(days * 86_400, UTC).strftime("%Y-%m-%d")


_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
"""``json.dumps(value, ensure_ascii=False, sort_keys=True)`` without building an encoder per call"""


def _json_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    try:
        return _JSON.encode(value)
    except (TypeError, ValueError):
        return repr(value)


def _once(value: Any) -> Any:
    """A string the steps of a load repeat (a model, tool or agent name, a turn's user text
    resent to every model call) held once: each span's decoded copy is freed with its step."""
    return sys.intern(value) if type(value) is str else value


def _snapshot(make: Make, text: str | None) -> Any:
    return None if text is None else make(Snapshot, "snapshot", {"text": text})


def _trace_tool(make: Make, tool: ToolUse) -> Any:
    return make(
        TraceTool,
        "trace_tool",
        {
            "id": tool.id,
            "name": _once(tool.name),
            "arguments": tool.arguments,
            "result": tool.result,
            "error": tool.error,
        },
    )


def _agent_names(steps: list[Step]) -> dict[str, str | None]:
    """Span id → the name of the nearest enclosing agent step (itself for an agent)."""
    by_id = {s.span_id: s for s in steps}
    names: dict[str, str | None] = {}
    for step in steps:
        node: Step | None = step
        seen: set[str] = set()
        while node is not None and node.span_id not in seen and not isinstance(node, AgentRun):
            seen.add(node.span_id)
            node = by_id.get(node.parent_span_id or "")
        names[step.span_id] = node.name if isinstance(node, AgentRun) else None
    return names


def _step(make: Make, step: Step, turn_id: str, agent: str | None, merged: ModelCall | None) -> Any:
    """One executionTrace step (SPEC §1.3)."""
    fields: dict[str, Any] = {
        "step_id": step.span_id,
        "invocation_id": turn_id,
        "agent_name": _once(agent),
        "node_type": NODE_TYPES[type(step)],
        "started_at": rfc3339(step.start_ns),
        "ended_at": rfc3339(step.end_ns),
    }
    if isinstance(step, ModelCall):
        call = merged or step
        fields["node_id"] = _once(call.model)
        fields["input"] = _snapshot(make, _once(call.last_user_text))
        fields["output"] = _snapshot(make, call.output_text)
        fields["usage"] = _wire_usage(make, call.usage)
        fields["tools"] = [_trace_tool(make, t) for t in call.tool_calls] or None
        fields["error"] = call.error
    elif isinstance(step, ToolRun):
        tool = step.tool
        fields["node_id"] = _once(tool.name)
        fields["input"] = _snapshot(make, _json_text(tool.arguments))
        fields["output"] = _snapshot(make, _json_text(tool.result) if tool.has_result else None)
        fields["tools"] = [_trace_tool(make, tool)]
        fields["error"] = tool.error
    elif isinstance(step, AgentRun):
        fields["node_id"] = _once(step.name)
        fields["input"] = _snapshot(make, step.input_text)
        fields["output"] = _snapshot(make, step.output_text)
        fields["error"] = step.error
    else:
        fields["node_id"] = _once(step.name)
        fields["error"] = step.error
    return make(TraceStep, ("step", fields["node_type"]), fields)


def _trace(
    make: Make,
    turn: TurnSteps,
    calls: list[ModelCall],
    duplicates: set[str],
    texts: tuple[str | None, str | None],
    usage: Usage | None,
    gaps: set[str],
) -> Any:
    """The turn's executionTrace: one step per source step but the duplicate model layers."""
    user_text, final_text = texts
    agents = _agent_names(turn.steps)
    merged = {c.span_id: c for c in calls}
    steps = [
        _step(make, s, turn.turn_id, agents[s.span_id], merged.get(s.span_id))
        for s in turn.steps
        if s.span_id not in duplicates
    ]
    root = next((s for s in turn.steps if isinstance(s, AgentRun)), None)
    failed = root is not None and root.error is not None
    status = "failed" if failed else "incomplete" if "open_span" in gaps else "completed"
    return make(
        Trace,
        "trace",
        {
            "root_agent_name": root.name if root is not None else None,
            "root_invocation_id": turn.turn_id,
            "started_at": rfc3339(turn.start_ns),
            "ended_at": rfc3339(turn.end_ns),
            "status": status,
            "input": _snapshot(make, user_text),
            "output": _snapshot(make, final_text),
            "usage": _wire_usage(make, usage),
            "steps": steps,
        },
    )
