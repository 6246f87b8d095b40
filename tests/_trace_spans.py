"""Hand-made spans and classifications for the grouping / load tests (no reader, no dialect:
the (Span, Classified) pairs the contract says those produce)."""

from __future__ import annotations

from agenteval_nb.steps.records import (
    AgentRun,
    Content,
    ModelCall,
    OtherStep,
    ToolRun,
    ToolUse,
    Usage,
)
from agenteval_nb.traces.dialects import Classified
from agenteval_nb.traces.spans import Span

MS = 1_000_000


def span(trace, sid, parent, start, end, name="span", dropped=0) -> Span:
    return Span(
        trace_id=trace,
        span_id=sid,
        parent_id=parent,
        name=name,
        start_ns=None if start is None else start * MS,
        end_ns=None if end is None else end * MS,
        dropped_attributes=dropped,
    )


def agent(trace, sid, parent, start, end, *, conv=None, name="bot", inp=None, out=None, **kw):
    s = span(trace, sid, parent, start, end, f"invoke_agent {name}")
    step = AgentRun(sid, name, s.start_ns, s.end_ns, input_text=inp, output_text=out, **kw)
    return s, Classified("otel_genai", step, conv, set())


def llm(
    trace,
    sid,
    parent,
    start,
    end,
    *,
    conv=None,
    user=None,
    out=None,
    tools=(),
    usage=None,
    content=Content.PRESENT,
    model="gpt-4o",
    flags=(),
):
    s = span(trace, sid, parent, start, end, f"chat {model}")
    step = ModelCall(
        sid,
        s.start_ns,
        s.end_ns,
        model=model,
        last_user_text=user,
        output_text=out,
        tool_calls=list(tools),
        usage=usage,
        content=content,
    )
    return s, Classified("otel_genai", step, conv, set(flags))


def tool(
    trace,
    sid,
    parent,
    start,
    end,
    *,
    call_id=None,
    name="lookup",
    args=None,
    result=None,
    has_result=True,
    conv=None,
    content=Content.PRESENT,
):
    s = span(trace, sid, parent, start, end, f"execute_tool {name}")
    use = ToolUse(call_id, name, args, result, has_result)
    step = ToolRun(sid, use, s.start_ns, s.end_ns, content=content)
    return s, Classified("otel_genai", step, conv, set())


def other(trace, sid, parent, start, end, *, name="POST", conv=None, dropped=0):
    s = span(trace, sid, parent, start, end, name, dropped)
    return s, Classified("unclaimed", OtherStep(sid, name, s.start_ns, s.end_ns), conv, set())


def usage(i, o) -> Usage:
    return Usage(i, o)
