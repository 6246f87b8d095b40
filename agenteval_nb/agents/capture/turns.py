"""A turn's captured calls and spans made its invocation (the one builder,
:mod:`agenteval_nb.steps`).

Rules (CAPTURE.md §4, merge policy of §5):

* the final response is the agent's return value (its text); the builder's rules give the
  rest from the successful calls in start order: the user's text of the turn, the tool uses
  with ids and arguments, their results (the tool messages of later requests), intermediate
  responses and usage;
* the turn's OpenTelemetry spans (:mod:`.spans`) are merged with the wire's calls first
  (:func:`agenteval_nb.steps.merge.merge_sources`: a model call counts once; tool results and
  model calls the wire could not see come from the spans);
* tools the toolkit ran itself (a ``FunctionAgent``'s tool box) are the turn's tools as the
  toolkit recorded them — with their mock notes — and the wire adds the rest of the turn;
* capture gaps join the builder's in ``invocation.source.gaps``: ``call_failed`` (a non-2xx
  reply or a call that raised; retries show up here), ``stream_unconsumed`` (a stream closed
  before its end), ``call_without_usage`` (a reply that reported no usage: never counted as
  zero cost); the turn's counts (:mod:`.report`) go to ``invocation.source.capture``;
* a turn whose agent made no call (and left no model or tool span) that could be captured has
  no captured invocation (the caller keeps what the agent returned).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...schema import Invocation, InvocationSource, Tool
from ...steps.builder import BuiltInvocation, build_invocation
from ...steps.merge import merge_sources
from ...steps.records import ModelCall, ToolRun, TurnSteps
from .attribution import Recording, unattributed_since
from .exchange import Exchange
from .model_calls import model_call
from .report import turn_counts
from .spans import span_steps


def capture_gaps(exchanges: Sequence[Exchange]) -> set[str]:
    """The capture's own gaps over a turn's exchanges (module doc)."""
    gaps = set()
    for exchange in exchanges:
        if not exchange.consumed:
            gaps.add("stream_unconsumed")
        elif not exchange.ok:
            gaps.add("call_failed")
        elif not isinstance(exchange.reply, dict) or not exchange.reply.get("usage"):
            gaps.add("call_without_usage")
    return gaps


def built_turn(
    turn_id: str,
    user_text: str,
    final_text: str,
    exchanges: Sequence[Exchange],
    spans: Sequence[Any] = (),
) -> tuple[BuiltInvocation | None, int]:
    """The builder's invocation of a captured turn (``None`` when neither a call succeeded nor
    a span showed a model call or a tool), and how many model calls only the spans saw."""
    calls = [model_call(e) for e in exchanges if e.ok]
    steps = merge_sources(calls, span_steps(spans))
    span_calls = sum(isinstance(s, ModelCall) for s in steps) - len(calls)
    if not any(isinstance(s, ModelCall | ToolRun) for s in steps):
        return None, 0
    turn = TurnSteps(
        turn_id=turn_id,
        steps=steps,
        user_text=user_text,
        final_text=final_text,
        start_ns=min((s.start_ns for s in steps if s.start_ns is not None), default=None),
        end_ns=max((s.end_ns for s in steps if s.end_ns is not None), default=None),
        gaps=capture_gaps(exchanges),
    )
    return build_invocation(turn), span_calls


def captured_invocation(
    turn_id: str,
    user_text: str,
    final_text: str,
    captured: Recording,
    ran_tools: list[Tool] | None,
) -> Invocation | None:
    """The invocation of a turn from its captured calls and spans (module rules), its capture
    counts in ``source.capture``."""
    exchanges, spans = list(captured.exchanges), list(captured.spans)
    built, span_calls = built_turn(turn_id, user_text, final_text, exchanges, spans)
    unattributed = unattributed_since(captured.started_ns)
    counts = turn_counts(exchanges, len(spans), built, span_calls, unattributed)
    if built is None:
        if not counts:
            return None
        return Invocation(tools=ran_tools, source=InvocationSource(capture=counts))
    invocation = built.invocation
    if ran_tools:
        invocation.tools = ran_tools
    if invocation.source is not None:  # the builder's models are shared: copied to change
        invocation.source = invocation.source.model_copy(update={"capture": counts})
    return invocation


def turn_usage(invocation: Invocation) -> dict[str, int]:
    """What a captured turn adds to the run's ``agent_usage``: ``prompt_tokens`` /
    ``completion_tokens`` as reported (a call that reported none adds nothing — it is a gap,
    above) and ``calls``, its model calls counted once, as ``OpenAIAgent`` counts them."""
    counts = (invocation.source.capture if invocation.source is not None else None) or {}
    totals = {
        "prompt_tokens": counts.get("prompt_tokens", 0),
        "completion_tokens": counts.get("completion_tokens", 0),
        "calls": counts.get("model_calls", 0),
    }
    return {key: value for key, value in totals.items() if value}
