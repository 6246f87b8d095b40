"""Spans and their classification → conversations (cases) → turns (TRACES.md §3 step 5).

Rules:

* **Tree.** Spans are grouped per trace id (a span id seen twice counts once, flagged
  ``duplicate``); a span whose parent is not in the input is an *orphan*: bridged under the
  root of its trace nearest in start time (flagged ``orphan``); a trace without any root makes
  its earliest orphan the root, and a parent cycle its earliest span.
* **Turns.** A turn is an outermost agent step (an ``AgentRun`` with no agent above it), or the
  trace's root when the trace has no agent step; nested agents and agent-as-tool runs are steps
  of their turn. A model call or tool outside every turn joins the turn started last before it
  (else the first). A turn's steps are its spans in start-time order (input order breaks ties).
* **Conversation.** A turn's key is the conversation id of its root (its own, else inherited
  from an ancestor), else the first one among its steps; without one, the turn's trace id is the
  key (never a guessed id): such traces are cases of their own. Turns of a conversation are
  ordered by start time; conversations by their first span in the input.
* **Memory.** Per span only ids, times, the step, the dialect and flags are kept (never the
  attributes): the spans themselves can be streamed through.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..steps.records import AgentRun, ModelCall, Step, ToolRun, TurnSteps
from .dialects import Classified
from .spans import Span

_NO_FLAGS: frozenset[str] = frozenset()

TURN_FLAGS = {"dropped_attributes": "dropped_attributes", "garbled": "garbled"}
"""Dialect flags that become turn gaps as they are (content flags come from the steps'
``content``, which the builder reads, so that a duplicate layer's flag does not count)."""


@dataclass(slots=True, eq=False)
class Node:
    """What grouping keeps of a span (compared by identity)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    start_ns: int | None
    end_ns: int | None
    order: int
    step: Step
    dialect: str
    conversation_id: str | None
    flags: frozenset[str]
    """never mutated in place (:func:`add_flag`): spans without a flag share one empty set"""
    children: list[Node] = field(default_factory=list)


@dataclass(slots=True)
class Conversation:
    """One case: its key, the turns in order, and what the report counts."""

    case_id: str
    conversation_id: str | None
    turns: list[TurnSteps] = field(default_factory=list)
    trace_ids: list[str] = field(default_factory=list)
    dialects: dict[str, int] = field(default_factory=dict)
    flags: dict[str, int] = field(default_factory=dict)
    """span flags (dialect flags, ``orphan``, ``open_span``) → number of spans"""
    spans: int = 0
    first_order: int = 0


def node_of(span: Span, classified: Classified) -> Node:
    """The grouping record of a span; the step learns its parent from the span."""
    step = classified.step
    if step.parent_span_id is None:
        step.parent_span_id = span.parent_id
    flags = frozenset(classified.flags) if classified.flags else _NO_FLAGS
    if span.dropped_attributes:
        flags |= {"dropped_attributes"}
    if span.end_ns is None:
        flags |= {"open_span"}
    return Node(
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.start_ns,
        span.end_ns,
        span.order,
        step,
        classified.dialect,
        classified.conversation_id,
        flags,
    )


def add_flag(node: Node, name: str) -> None:
    """Add a flag to a node (a new set: the empty one is shared)."""
    node.flags = node.flags | {name}


def group(pairs: Iterable[tuple[Span, Classified]]) -> list[Conversation]:
    """Conversations of the classified spans (the module's rules), in input order."""
    traces: dict[str, dict[str, Node]] = {}
    for index, (span, classified) in enumerate(pairs):
        seen = traces.setdefault(span.trace_id, {})
        if span.span_id in seen:  # the same span twice (overlapping exports): the first counts
            add_flag(seen[span.span_id], "duplicate")
            continue
        node = node_of(span, classified)
        node.order = index
        seen[span.span_id] = node
    conversations: dict[str, Conversation] = {}
    for trace_id, by_id in traces.items():
        for root, members in _turns(list(by_id.values())):
            key = _conversation_key(root, members)
            conv = conversations.get(key or trace_id)
            if conv is None:
                conv = Conversation(key or trace_id, key, first_order=root.order)
                conversations[key or trace_id] = conv
            conv.first_order = min(conv.first_order, min(m.order for m in members))
            conv.turns.append(_turn_steps(trace_id, root, members))
            if trace_id not in conv.trace_ids:
                conv.trace_ids.append(trace_id)
            for member in members:
                conv.spans += 1
                conv.dialects[member.dialect] = conv.dialects.get(member.dialect, 0) + 1
                for flag in member.flags:
                    conv.flags[flag] = conv.flags.get(flag, 0) + 1
    found = sorted(conversations.values(), key=lambda c: c.first_order)
    for conv in found:
        conv.turns.sort(key=lambda t: (t.start_ns is None, t.start_ns or 0))
    return found


def _start(node: Node) -> tuple[bool, int, int]:
    return (node.start_ns is None, node.start_ns or 0, node.order)


def _forest(nodes: list[Node]) -> list[Node]:
    """Link children to parents; bridge orphans (flagged) under the nearest root in time."""
    by_id = {n.span_id: n for n in nodes}
    roots = [n for n in nodes if n.parent_id is None or n.parent_id == n.span_id]
    orphans = [n for n in nodes if n.parent_id is not None and n.parent_id not in by_id]
    if not roots and orphans:
        first = min(orphans, key=_start)
        roots.append(first)
        orphans.remove(first)
    for orphan in orphans:
        add_flag(orphan, "orphan")
        start = orphan.start_ns or 0
        host = min(roots, key=lambda r: abs((r.start_ns or 0) - start))
        orphan.parent_id = host.span_id
        orphan.step.parent_span_id = host.span_id
    is_root = {id(r) for r in roots}
    for node in nodes:
        if id(node) in is_root:
            continue
        parent = by_id.get(node.parent_id or "")
        if parent is not None:
            parent.children.append(node)
    reached = {id(n) for r in roots for n in _subtree(r)}
    while len(reached) < len(nodes):  # a parent cycle: its earliest span becomes a root
        first = min((n for n in nodes if id(n) not in reached), key=_start)
        parent = by_id.get(first.parent_id or "")
        if parent is not None:
            parent.children.remove(first)
        add_flag(first, "orphan")
        roots.append(first)
        reached.update(id(n) for n in _subtree(first))
    for node in nodes:
        node.children.sort(key=_start)
    roots.sort(key=_start)
    for root in roots:
        _inherit(root)
    return roots


def _inherit(root: Node) -> None:
    """Every span without a conversation id of its own takes its parent's."""
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            if not child.conversation_id:
                child.conversation_id = node.conversation_id
            stack.append(child)


def _subtree(node: Node) -> list[Node]:
    found, stack, seen = [], [node], set()
    while stack:
        current = stack.pop()
        if current.span_id in seen:
            continue
        seen.add(current.span_id)
        found.append(current)
        stack.extend(reversed(current.children))
    return found


def _turn_roots(root: Node) -> list[Node]:
    """The outermost agent steps under (and including) ``root``."""
    if isinstance(root.step, AgentRun):
        return [root]
    found: list[Node] = []
    for child in root.children:
        found.extend(_turn_roots(child))
    return found


def _turns(nodes: list[Node]) -> list[tuple[Node, list[Node]]]:
    """(turn root, its spans in start order) of one trace."""
    roots = _forest(nodes)
    turns: list[tuple[Node, list[Node]]] = []
    for root in roots:
        agents = _turn_roots(root)
        if not agents or agents == [root]:
            turns.append((root, _subtree(root)))
            continue
        inside = {id(n) for a in agents for n in _subtree(a)}
        own = [(a, _subtree(a)) for a in agents]
        for node in _subtree(root):
            if id(node) in inside or not isinstance(node.step, (ModelCall, ToolRun)):
                continue
            before = [t for t in own if _start(t[0]) <= _start(node)]
            (before[-1] if before else own[0])[1].append(node)
        turns.extend(own)
    return [(root, sorted(members, key=_start)) for root, members in turns]


def _conversation_key(root: Node, members: list[Node]) -> str | None:
    """The root's (own or inherited) conversation id, else the first among the turn's spans."""
    if root.conversation_id:
        return root.conversation_id
    return next((m.conversation_id for m in members if m.conversation_id), None)


def _turn_steps(trace_id: str, root: Node, members: list[Node]) -> TurnSteps:
    step = root.step
    agent = step if isinstance(step, AgentRun) else None
    gaps = {TURN_FLAGS[f] for m in members for f in m.flags if f in TURN_FLAGS}
    if any("orphan" in m.flags for m in members):
        gaps.add("orphan")
    return TurnSteps(
        turn_id=root.span_id,
        steps=[m.step for m in members],
        user_text=agent.input_text if agent is not None else None,
        final_text=agent.output_text if agent is not None else None,
        start_ns=root.start_ns,
        end_ns=root.end_ns,
        trace_id=trace_id,
        root_span_id=root.span_id,
        gaps=gaps,
    )
