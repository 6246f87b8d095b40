"""Recorded exchanges → model-call steps (CAPTURE.md §4), one reader per API.

* **chat**: tool uses from ``choices[0].message.tool_calls``; tool results from the request's
  ``role: "tool"`` messages (``tool_call_id``); text ``choices[0].message.content``; usage
  ``prompt_tokens`` / ``completion_tokens``.
* **responses**: tool uses from ``output[]`` ``function_call`` items (``call_id``); tool results
  from ``input[]`` ``function_call_output`` items; text the ``message`` items joined; usage
  ``input_tokens`` / ``output_tokens``.
* **anthropic**: tool uses from ``content[]`` ``tool_use`` blocks; tool results from user
  ``tool_result`` blocks (``tool_use_id``); text the ``text`` blocks joined; usage
  ``input_tokens`` / ``output_tokens``.

Messages are read by the one decoder every source shares (:mod:`agenteval_nb.steps.messages`):
arguments are decoded JSON when the model's string parses, else kept as the string. Only
:attr:`Exchange.ok` exchanges become steps; the rest are counted by the capture report.
"""

from __future__ import annotations

from typing import Any

from ...steps.messages import (
    decode_output,
    decode_recent,
    last_user_text,
    loads,
    tool_results_after,
)
from ...steps.records import ModelCall, ToolResult, Usage
from .exchange import Exchange


def model_call(exchange: Exchange) -> ModelCall:
    """The step of one successful exchange; messages are read by the one message decoder
    (:mod:`agenteval_nb.steps.messages`), usage by the API's own names. A tool message's text
    is the wire form of what the tool returned: a JSON object, array or string literal is
    decoded back to that value (as the toolkit's own agents record it)."""
    request = exchange.request if isinstance(exchange.request, dict) else {}
    reply = exchange.reply if isinstance(exchange.reply, dict) else {}
    recent = decode_recent(request)
    user_text, at = last_user_text(recent)
    output = decode_output(reply)
    return ModelCall(
        span_id=f"wire-{exchange.seq}",
        start_ns=exchange.started_ns,
        end_ns=exchange.ended_ns,
        model=reply.get("model") or request.get("model"),
        last_user_text=user_text,
        tool_results=[
            ToolResult(r.call_id, r.name, loads(r.result)) for r in tool_results_after(recent, at)
        ],
        output_text=output.text if output else None,
        tool_calls=list(output.tool_calls) if output else [],
        finish_reason=(output.finish_reason if output else None) or _finish(reply),
        usage=_USAGE[exchange.api](reply.get("usage")),
        response_id=reply["id"] if isinstance(reply.get("id"), str) else None,
    )


def _finish(reply: dict[str, Any]) -> str | None:
    reason = reply.get("stop_reason") or reply.get("status")
    return reason if isinstance(reason, str) else None


def _count(mapping: Any, key: str) -> int | None:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _chat_usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    return Usage(
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        total_tokens=_count(usage, "total_tokens"),
        cached_input_tokens=_count(usage.get("prompt_tokens_details"), "cached_tokens"),
        reasoning_tokens=_count(usage.get("completion_tokens_details"), "reasoning_tokens"),
    )


def _responses_usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    return Usage(
        input_tokens=_count(usage, "input_tokens"),
        output_tokens=_count(usage, "output_tokens"),
        total_tokens=_count(usage, "total_tokens"),
        cached_input_tokens=_count(usage.get("input_tokens_details"), "cached_tokens"),
        reasoning_tokens=_count(usage.get("output_tokens_details"), "reasoning_tokens"),
    )


def _anthropic_usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    return Usage(
        input_tokens=_count(usage, "input_tokens"),
        output_tokens=_count(usage, "output_tokens"),
        cached_input_tokens=_count(usage, "cache_read_input_tokens"),
    )


_USAGE = {"chat": _chat_usage, "responses": _responses_usage, "anthropic": _anthropic_usage}
