"""Two sources of one turn → one list of steps for the builder (CAPTURE.md §5 merge policy).

The *primary* source is the wire (every model call the agent's HTTP client made, with ids and
usage as the server sent them); the *secondary* one is spans (what instrumentations saw). Rules:

1. **A model call counts once.** A span model call is the *twin* of a wire call, decided by
   the first of these both sides know: the reply's id (``gen_ai.response.id``; the wire
   reply's ``id``) is the same; the tool-call ids they name overlap; the wire call started
   within the span (``start ≤ wire start ≤ end``; an open span has no end). Ids that differ
   decide too: never twins (parallel calls of one case stay apart). Models are not compared:
   the span names the requested model, the wire the one that answered (a dated variant, a
   proxy's route), and both sources hold one case's calls only. Twins are dropped (every
   layer: framework and provider instrumentations both wrap one call); a wire call missing
   usage or model takes it from its first twin that has it; the twins' children are
   re-parented to the twin's parent.
2. **Spans-only model calls** (clients the wire does not hook) are kept as steps.
3. **Tool runs** are kept; where the wire carried the result of the same call (a tool message
   of a later request, joined by call id), the wire's result replaces the span's (the span's
   encoding differs by instrumentation: a serialized message, a wrapped dict). A tool run the
   wire has no result for gives the turn its result (results sent back as plain text, a tool
   that ends the run) through the builder's join (by id, else name and arguments).
4. Agent and other spans are kept: the execution trace shows them.

Steps come back in start order (the wire's first on ties).
"""

from __future__ import annotations

from collections.abc import Sequence

from .records import ModelCall, Step, ToolRun


def merge_sources(wire: Sequence[ModelCall], spans: Sequence[Step]) -> list[Step]:
    """The merged steps (module rules)."""
    if not spans:
        return list(wire)
    twins: dict[str, str | None] = {}
    for step in spans:
        if isinstance(step, ModelCall):
            found = [call for call in wire if _twins(step, call)]
            for call in found:
                _fill(call, step)
            if found:
                twins[step.span_id] = step.parent_span_id
    kept = [s for s in spans if s.span_id not in twins]
    for step in kept:
        parent = step.parent_span_id
        seen: set[str] = set()
        while parent is not None and parent in twins and parent not in seen:
            seen.add(parent)
            parent = twins[parent]
        step.parent_span_id = parent
    results = {r.call_id: r for call in wire for r in call.tool_results if r.call_id is not None}
    for step in kept:
        if isinstance(step, ToolRun) and step.tool.id in results:
            step.tool.result, step.tool.has_result = results[step.tool.id].result, True
    merged: list[Step] = [*wire, *kept]
    merged.sort(key=lambda s: (s.start_ns is None, s.start_ns or 0))
    return merged


def _ids(call: ModelCall) -> set[str]:
    return {use.id for use in call.tool_calls if use.id is not None}


def _twins(span: ModelCall, wire: ModelCall) -> bool:
    """Whether a span model call is the wire call seen by an instrumentation (rule 1)."""
    if span.response_id is not None and wire.response_id is not None:
        return span.response_id == wire.response_id
    span_ids, wire_ids = _ids(span), _ids(wire)
    if span_ids and wire_ids:
        return bool(span_ids & wire_ids)
    if span.start_ns is None or wire.start_ns is None:
        return False
    return span.start_ns <= wire.start_ns and (span.end_ns is None or wire.start_ns <= span.end_ns)


def _fill(wire: ModelCall, twin: ModelCall) -> None:
    if wire.usage is None:
        wire.usage = twin.usage
    if wire.model is None:
        wire.model = twin.model
