"""DSPy: a ``dspy.ReAct`` program over the loopback server, through LiteLLM.

Every mode is a gap: ReAct asks the model for its tool calls as text fields
(``next_tool_name`` / ``next_tool_args``) and sends the tool results back as text in its
trajectory, so the wire holds no tool use and no tool result; the calls, their usage and the
final answer are captured. DSPy's default engine (``engine="auto"``, its vendored stdlib
client) sends no request through ``httpx``: the LM here says ``engine="litellm"``.
"""

# no `from __future__ import annotations`: DSPy reads the signature classes' annotations as types

from typing import Any

from framework_conformance.contract import Gap

FRAMEWORK = "DSPy"
PACKAGE = "dspy"
CALLED = (
    "`await module.acall(question=...)` when the module has `aforward`, else `module(...)` in a "
    "worker thread; the user text goes to the signature's first input field"
)
MEMORY = (
    "a `dspy.History` input field gets the case's earlier turns (`{question, answer}` each); "
    "without one every turn stands alone"
)

REASON = (
    "ReAct's tool calls travel as text fields (next_tool_name / next_tool_args) and their "
    "results as text in the trajectory: no tool use or result on the wire (calls, usage and "
    "the final answer are captured)"
)


def _lm(base_url: str, mode: str) -> Any:
    import dspy

    options: dict[str, Any] = {}
    if mode == "streaming":  # LiteLLM streams without usage unless asked
        options["stream_options"] = {"include_usage": True}
    return dspy.LM(
        "openai/scripted",
        api_base=base_url,
        api_key="k",
        engine="litellm",
        cache=False,
        num_retries=0,
        **options,
    )


def make(base_url: str, mode: str, tools: list[Any]) -> Gap:
    import dspy

    class Ask(dspy.Signature):
        """Answer the user's question with the tools."""

        question: str = dspy.InputField()
        history: dspy.History = dspy.InputField()
        answer: str = dspy.OutputField()

    react = dspy.ReAct(Ask, tools=tools, max_iters=5)
    react.set_lm(_lm(base_url, mode))
    if mode == "sync":

        class Blocking(dspy.Module):
            """A module of one's own with ``forward`` only: called through its blocking call."""

            def __init__(self) -> None:
                super().__init__()
                self.react = react

            def forward(self, question: str, history: dspy.History) -> Any:
                return self.react(question=question, history=history)

        agent: Any = Blocking()
    elif mode == "streaming":

        class Streamed(dspy.Module):
            """``dspy.streamify`` around the program; the last prediction is the answer."""

            def __init__(self) -> None:
                super().__init__()
                self.react = react
                self.signature = Ask

            async def aforward(self, **inputs: Any) -> Any:
                last = None
                async for item in dspy.streamify(self.react)(**inputs):
                    if isinstance(item, dspy.Prediction):
                        last = item
                return last

        agent = Streamed()
    else:
        agent = react
    return Gap(REASON, agent, check_text_tools)


def check_text_tools(run: Any) -> None:
    """The shortfall exactly: each turn's model calls and usage are captured, its final answer
    is the expected one, and no tool use (so no result) came from the wire."""
    turns = [
        t for case in run.result.eval_case_results for t in case.eval_metric_result_per_invocation
    ]
    assert turns, "no turn was run"
    for turn in turns:
        actual, expected = turn.actual_invocation, turn.expected_invocation
        assert actual.source is not None and len(actual.source.span_ids) >= 2, actual.source
        assert actual.final_response.content == expected.final_response.content
        assert not actual.tools, actual.tools
        assert expected.tools, "the conformance cases expect tool uses"
    assert run.info["agent_usage"]["prompt_tokens"] > 0
