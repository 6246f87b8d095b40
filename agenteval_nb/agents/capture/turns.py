"""A turn's captured calls made its invocation (the one builder, :mod:`agenteval_nb.steps`).

Rules (CAPTURE.md §4, merge policy of §5):

* the final response is the agent's return value (its text); the builder's rules give the
  rest from the successful calls in start order: the user's text of the turn, the tool uses
  with ids and arguments, their results (the tool messages of later requests), intermediate
  responses and usage;
* tools the toolkit ran itself (a ``FunctionAgent``'s tool box) are the turn's tools as the
  toolkit recorded them — with their mock notes — and the wire adds the rest of the turn;
* capture gaps join the builder's in ``invocation.source.gaps``: ``call_failed`` (a non-2xx
  reply or a call that raised; retries show up here), ``stream_unconsumed`` (a stream closed
  before its end), ``call_without_usage`` (a reply that reported no usage: never counted as
  zero cost);
* a turn whose agent made no call that could be captured has no captured invocation (the
  caller keeps what the agent returned).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schema import Invocation, Tool
from ...steps.builder import BuiltInvocation, build_invocation
from ...steps.records import TurnSteps
from .exchange import Exchange
from .model_calls import model_call


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
    turn_id: str, user_text: str, final_text: str, exchanges: Sequence[Exchange]
) -> BuiltInvocation | None:
    """The builder's invocation of a captured turn; ``None`` when no call succeeded."""
    calls = [model_call(e) for e in exchanges if e.ok]
    if not calls:
        return None
    steps = TurnSteps(
        turn_id=turn_id,
        steps=list(calls),
        user_text=user_text,
        final_text=final_text,
        start_ns=calls[0].start_ns,
        end_ns=calls[-1].end_ns,
        gaps=capture_gaps(exchanges),
    )
    return build_invocation(steps)


def captured_invocation(
    turn_id: str,
    user_text: str,
    final_text: str,
    exchanges: Sequence[Exchange],
    ran_tools: list[Tool] | None,
) -> Invocation | None:
    """The invocation of a turn from its captured calls (module rules)."""
    built = built_turn(turn_id, user_text, final_text, exchanges)
    if built is None:
        return None
    invocation = built.invocation
    if ran_tools:
        invocation.tools = ran_tools
    return invocation


def wire_usage(exchanges: Sequence[Exchange]) -> dict[str, int]:
    """What the captured calls add to the run's ``agent_usage``: ``prompt_tokens`` /
    ``completion_tokens`` as reported (a call that reported none adds nothing — it is a gap,
    above) and ``calls``, the successful model calls, as ``OpenAIAgent`` counts them."""
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
    for exchange in exchanges:
        usage = model_call(exchange).usage if exchange.ok else None
        totals["calls"] += exchange.ok
        if usage is not None:
            totals["prompt_tokens"] += usage.input_tokens or 0
            totals["completion_tokens"] += usage.output_tokens or 0
    return {key: value for key, value in totals.items() if value}
