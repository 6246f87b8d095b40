"""LlamaIndex: a ``FunctionAgent`` over ``OpenAILike`` (a chat, function-calling model at the
loopback URL), passed as it is (the toolkit's way: ``await agent.run(user_msg=…, ctx=…)``).
Async runs it with ``streaming=False``; streaming is the agent's default (``streaming=True``),
whose requests ask for no usage chunk; workflows have no blocking call. Needs ``openai<3``
(``llama-index-llms-openai`` pins it): its own test environment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import runner
from ..contract import Gap

FRAMEWORK = "LlamaIndex"
PACKAGE = "llama_index.llms.openai_like"
CALLED = "`await workflow.run(user_msg=text, memory=<the session's buffer>)` (the object as it is)"
MEMORY = (
    "a `ChatMemoryBuffer` per session (a `Context` per session loses its memory between runs "
    "in llama-index-workflows 2.x)"
)
NO_USAGE = (
    "streams without `stream_options.include_usage`: tool uses, results and answers "
    "captured, no token usage (`call_without_usage` on every turn)"
)


def check_streams_without_usage(run: Any) -> None:
    """Everything conforms but the usage: every turn flags its calls as without usage and the
    run reports no tokens."""
    where = "LlamaIndex streaming"
    runner.assert_cases_passed(run, where)
    runner.assert_tool_uses(run, where)
    runner.assert_tool_results(run, where)
    runner.assert_final_answers(run, where)
    for case, index, inv in runner.turns_of(run):
        assert inv.source is not None and inv.source.gaps == ["call_without_usage"], (
            case,
            index,
            inv.source,
        )
    usage = run.info.get("agent_usage") or {}
    assert usage.get("calls", 0) > 0 and "prompt_tokens" not in usage, usage


def check_no_blocking_call(run: Any) -> None:
    from llama_index.core.agent.workflow import FunctionAgent

    assert run is None
    found = [name for name in ("run_sync", "chat") if hasattr(FunctionAgent, name)]
    assert not found, f"FunctionAgent now has {found}: give the way a blocking call"


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.llms.openai_like import OpenAILike

    if mode == "sync":
        return Gap(
            "workflows have no blocking call (`run` returns an awaitable handler)",
            None,
            check_no_blocking_call,
        )
    llm = OpenAILike(
        model="m",
        api_base=base_url,
        api_key="k",
        is_chat_model=True,
        is_function_calling_model=True,
    )
    agent = FunctionAgent(
        tools=list(tools),
        llm=llm,
        system_prompt="Answer with the tools.",
        streaming=mode == "streaming",
    )
    if mode == "streaming":
        return Gap(NO_USAGE, agent, check_streams_without_usage)
    return agent
