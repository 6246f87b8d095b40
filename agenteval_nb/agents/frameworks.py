"""How to call an agent of a framework for one user turn, and how to read its answer.

A few lines per framework, chosen by duck typing; the framework is never imported unless the
object comes from it. What the agent *did* (model calls, tool uses and results, usage) is not
read here: the wire recorder captures it the same way for every framework
(:mod:`agenteval_nb.agents.capture`). Each way keeps the framework's own memory of a case's
earlier turns, per session id (the last :data:`MAX_SESSIONS` sessions):

* **LangGraph** (a compiled graph: ``get_graph`` and ``ainvoke``): ``await graph.ainvoke(
  {"messages": [...]}, config={"configurable": {"thread_id": <session>}})`` — on the process's
  one long-lived loop (:mod:`agenteval_nb.syncio`), where LangChain's async client, cached per
  process and bound to its first loop, keeps working; a graph with a checkpointer keeps the
  thread itself and gets the new user message only, one without gets the session's messages
  so far plus the new one. Answer: the text of the last message.
* **OpenAI Agents SDK** (``agents.Agent``): ``Runner.run(agent, items)`` where ``items`` is the
  session's ``result.to_input_list()`` so far plus the user message. Answer: ``final_output``.
* **PydanticAI** (``pydantic_ai.Agent``): ``agent.run(text, message_history=...)`` with the
  session's ``all_messages()``. Answer: ``output``.
* **smolagents** (a ``MultiStepAgent``: ``ToolCallingAgent``, ``CodeAgent``): ``agent.run(text,
  reset=<first turn>)`` in a worker thread. The agent object holds one conversation (its
  ``memory``), so its turns run one at a time (a lock per wrapped agent): a later turn puts the
  session's saved ``memory.steps`` back and continues with ``reset=False``; the steps are saved
  after each turn. Concurrent cases through one agent object therefore wait for each other.
  Answer: the return value (``RunResult.output`` when the agent returns a full result).
* **LlamaIndex** (a workflow from ``llama_index``: ``FunctionAgent``, ``AgentWorkflow``,
  ``ReActAgent``): ``await workflow.run(user_msg=text, memory=<the session's
  ChatMemoryBuffer>)``, a new buffer on a session's first turn — not a ``Context`` per session:
  llama-index-workflows 2.x drops the context's ``memory`` between runs. The workflow object
  keeps no conversation, so cases run in parallel. Answer: ``response.content`` of the
  ``AgentOutput``.
* **DSPy** (a ``dspy.Module``: ``dspy.ReAct``, ``Predict``, a module of your own): the user
  text goes to the first input field of ``module.signature`` (a module without one: the first
  parameter of its ``forward``) — ``await module.acall(...)`` when the module has ``aforward``,
  else ``module(...)`` in a worker thread. Memory: a ``dspy.History`` input field gets the
  session's earlier turns (``{input: text, output: answer}`` each); a module without one sees
  every turn alone. The LM is the module's own (``module.set_lm(lm)``) or
  ``dspy.configure(lm=...)``. Answer: the first output field (without a signature: ``answer``).
  For the wire to see the calls the LM needs ``engine="litellm"`` (DSPy's default engine has a
  client of its own on the standard library) and ``cache=False`` (a cached reply is no call).
* **Google ADK** (an ADK agent, ``App`` or ``Runner``): an ``InMemoryRunner`` per case for an
  agent or app, the runner as given otherwise; one ADK session per toolkit session (user id and
  state from the case's session input), created on the case's first turn, so ADK keeps the
  memory itself; ``runner.run_async(user_id=..., session_id=..., new_message=Content(...))``
  with ADK's default ``RunConfig``. Answer: the text of the last final-response event. Another
  ``RunConfig`` (SSE streaming) or the blocking ``runner.run``: ``ae.agent(agent, call=...)``.
* **CrewAI** (a ``crewai.Agent``): ``await agent.kickoff_async(messages)`` with the session's
  messages so far (user and assistant turns) plus the user message. Answer: ``raw``. A
  ``Crew`` has no way of its own (its tasks are rewritten in place by each kickoff, so cases
  cannot share it): ``ae.agent(crew, call=lambda crew, turn: crew.copy().kickoff(inputs=...))``.
* **any callable**: ``f(text)`` or ``f(turn)`` as :class:`~agenteval_nb.agents.base.FunctionAgent`
  (:func:`agenteval_nb.agents.base.as_agent` decides).

``ae.agent(obj, call=..., output=...)`` is the escape hatch: ``call(obj, turn)`` (sync or
async) makes the call, ``output(result)`` reads the answer (default: ``str`` as is, else the
framework's rule above, else ``str(result)``).

Tool mocks (``toolMock``, SPEC §8.4): the framework runs the tools, so a rule can only answer a
tool given to the framework as ``ae.mockable(fn)`` (:mod:`agenteval_nb.agents.mockable`). That
works wherever the framework takes a plain Python function as a tool: LangGraph / LangChain
(``tool(ae.mockable(fn))`` or the function in ``create_react_agent``'s list), PydanticAI
(``tools=[ae.mockable(fn)]``), the Agents SDK (``function_tool(ae.mockable(fn))``), smolagents
(``@tool`` over the wrapper), LlamaIndex (``FunctionTool.from_defaults(ae.mockable(fn))``),
Google ADK (plain functions in ``tools=``) and DSPy (``dspy.Tool(ae.mockable(fn))``). A tool
the framework builds otherwise (a class with its own ``_run``, a remote or MCP tool, a built-in
search) cannot be mocked: a case whose rules name a tool the agent ran without the wrapper
fails, naming the tool and the fix — the real tool's result is never scored as the mock's.
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .tools import ToolSpec, run_blocking
from .turn import Turn

MAX_SESSIONS = 1024
"""Sessions whose framework memory is kept (least recently used dropped first)."""

Call = Callable[[Any, Turn, "SessionMemory"], Any]
Output = Callable[[Any], Any]


class SessionMemory:
    """What a framework needs to continue a case's conversation, per session id (bounded)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._limit = limit
        self._items: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()
        """Held by a way whose agent object holds one conversation at a time (smolagents)."""

    def get(self, turn: Turn, default: Any) -> Any:
        """The session's memory; ``default`` on its first turn (memory of an earlier run with
        the same session id is never reused)."""
        if turn.turn_index == 0:
            self._items.pop(turn.session_id, None)
            return default
        if turn.session_id not in self._items:
            return default
        self._items.move_to_end(turn.session_id)
        return self._items[turn.session_id]

    def put(self, turn: Turn, value: Any) -> None:
        self._items[turn.session_id] = value
        self._items.move_to_end(turn.session_id)
        while len(self._items) > self._limit:
            self._items.popitem(last=False)


def _module(obj: Any) -> str:
    return type(obj).__module__ or ""


def message_text(message: Any) -> str:
    """The text of a LangChain message (``content`` as a string or a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
        )
    return str(content)


# -- the ways ------------------------------------------------------------------------------


async def _langgraph(graph: Any, turn: Turn, memory: SessionMemory) -> Any:
    config = {"configurable": {"thread_id": turn.session_id}}
    if getattr(graph, "checkpointer", None) is not None:
        return await graph.ainvoke({"messages": [("user", turn.text)]}, config=config)
    history = memory.get(turn, [])
    result = await graph.ainvoke({"messages": [*history, ("user", turn.text)]}, config=config)
    memory.put(turn, list(result.get("messages", [])) if isinstance(result, dict) else history)
    return result


def _langgraph_output(result: Any) -> str:
    messages = result.get("messages") if isinstance(result, dict) else None
    return message_text(messages[-1]) if messages else str(result)


async def _agents_sdk(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    from agents import Runner  # the object is an Agents SDK agent: the package is there

    items = [*memory.get(turn, []), {"role": "user", "content": turn.text}]
    result = await Runner.run(agent, items)
    memory.put(turn, result.to_input_list())
    return result


async def _pydantic_ai(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    result = await agent.run(turn.text, message_history=memory.get(turn, None))
    memory.put(turn, result.all_messages())
    return result


def _smolagents_turn(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    with memory.lock:
        steps = memory.get(turn, None)
        if steps is not None:
            agent.memory.steps = list(steps)
        result = agent.run(turn.text, reset=steps is None)
        memory.put(turn, list(agent.memory.steps))
        return result


async def _smolagents(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    return await run_blocking(_smolagents_turn, agent, turn, memory)


async def _llama_index(workflow: Any, turn: Turn, memory: SessionMemory) -> Any:
    from llama_index.core.memory import ChatMemoryBuffer  # the object is a LlamaIndex workflow

    chat = memory.get(turn, None)
    if chat is None:
        chat = ChatMemoryBuffer.from_defaults()
        memory.put(turn, chat)
    return await workflow.run(user_msg=turn.text, memory=chat)


def _llama_index_output(result: Any) -> Any:
    response = getattr(result, "response", None)
    content = getattr(response, "content", None)
    return content if content is not None else result


def _defines(obj: Any, module: str, name: str) -> bool:
    """True when a class named ``name`` from package ``module`` is among ``obj``'s bases."""
    return any(
        c.__name__ == name and (c.__module__ or "").startswith(module) for c in type(obj).__mro__
    )


def _is_history(annotation: Any) -> bool:
    if isinstance(annotation, str):  # postponed annotations: "dspy.History"
        return annotation.rsplit(".", 1)[-1] == "History"
    return getattr(annotation, "__name__", None) == "History" and (
        getattr(annotation, "__module__", "") or ""
    ).startswith("dspy")


@dataclass(frozen=True)
class _DspyFields:
    """Where a DSPy module takes the user text and the history, and where it answers."""

    text: str
    history: str | None
    answer: str

    @classmethod
    def of(cls, module: Any) -> _DspyFields:
        signature = getattr(module, "signature", None)
        inputs = getattr(signature, "input_fields", None)
        outputs = getattr(signature, "output_fields", None)
        if isinstance(inputs, dict) and inputs:
            items = [(name, f.annotation) for name, f in inputs.items()]
        else:
            parameters = inspect.signature(module.forward).parameters.values()
            items = [
                (p.name, p.annotation)
                for p in parameters
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            ]
        history = next((name for name, annotation in items if _is_history(annotation)), None)
        text = next((name for name, _ in items if name != history), None)
        if text is None:
            raise TypeError(f"{type(module).__name__} takes no input field for the user text")
        answer = next(iter(outputs), "answer") if isinstance(outputs, dict) else "answer"
        return cls(text, history, answer)

    def read(self, result: Any) -> Any:
        return getattr(result, self.answer, result)


def _dspy_reader(module: Any) -> Output:
    return lambda result: _DspyFields.of(module).read(result)


async def _dspy(module: Any, turn: Turn, memory: SessionMemory) -> Any:
    fields = _DspyFields.of(module)
    inputs: dict[str, Any] = {fields.text: turn.text}
    earlier = memory.get(turn, [])
    if fields.history is not None:
        from dspy import History  # the object is a DSPy module: the package is there

        inputs[fields.history] = History(messages=list(earlier))
    if hasattr(module, "aforward"):
        result = await module.acall(**inputs)
    else:
        result = await run_blocking(module, **inputs)
    said = {fields.text: turn.text, fields.answer: answer_text(fields.read(result))}
    memory.put(turn, [*earlier, said])
    return result


def _adk_runner(obj: Any) -> Any:
    """An ADK runner for ``obj``: the runner itself, else an in-memory runner of the app or
    agent."""
    if _defines(obj, "google.adk.", "Runner"):
        return obj
    from google.adk.runners import InMemoryRunner  # an ADK object: the package is there

    if _defines(obj, "google.adk.", "App"):
        return InMemoryRunner(app=obj)
    return InMemoryRunner(agent=obj)


async def _adk(obj: Any, turn: Turn, memory: SessionMemory) -> Any:
    from google.genai import types  # ADK depends on google-genai

    user_id = turn.user_id or "user"
    runner = memory.get(turn, None)
    if runner is None:
        runner = _adk_runner(obj)
        where = {"app_name": runner.app_name, "user_id": user_id, "session_id": turn.session_id}
        service = runner.session_service
        if await service.get_session(**where) is not None:
            await service.delete_session(**where)  # an earlier run's session is never reused
        await service.create_session(**where, state=dict(turn.state))
    memory.put(turn, runner)
    message = types.Content(role="user", parts=[types.Part(text=turn.text)])
    stream = runner.run_async(user_id=user_id, session_id=turn.session_id, new_message=message)
    return [event async for event in stream]


def adk_answer(events: Any) -> Any:
    """The text of the last final-response event of an ADK run (``""`` when none has text)."""
    if not isinstance(events, list):
        return events
    for event in reversed(events):
        content = getattr(event, "content", None)
        if event.is_final_response() and content is not None and content.parts:
            return "".join(part.text or "" for part in content.parts if not part.thought)
    return ""


async def _crewai(agent: Any, turn: Turn, memory: SessionMemory) -> Any:
    asked = [*memory.get(turn, []), {"role": "user", "content": turn.text}]
    result = await agent.kickoff_async(asked)
    memory.put(turn, [*asked, {"role": "assistant", "content": str(result.raw)}])
    return result


@dataclass(frozen=True)
class Way:
    """How one framework's agents are called and answered.

    ``reader(obj)``, when set, gives the output rule for one object (a rule that needs the
    object, as DSPy's answer field does); ``output`` otherwise.
    """

    framework: str
    call: Call
    output: Output
    reader: Callable[[Any], Output] | None = None

    def output_of(self, obj: Any) -> Output:
        return self.reader(obj) if self.reader is not None else self.output


def _attribute_output(name: str) -> Output:
    def read(result: Any) -> Any:
        return getattr(result, name, result)

    return read


WAYS: tuple[tuple[Callable[[Any], bool], Way], ...] = (
    (
        lambda o: hasattr(o, "get_graph") and hasattr(o, "ainvoke"),
        Way("langgraph", _langgraph, _langgraph_output),
    ),
    (
        lambda o: _module(o).startswith("agents.") and type(o).__name__ == "Agent",
        Way("openai-agents", _agents_sdk, _attribute_output("final_output")),
    ),
    (
        lambda o: _module(o).startswith("pydantic_ai") and hasattr(o, "run"),
        Way("pydantic-ai", _pydantic_ai, _attribute_output("output")),
    ),
    (
        lambda o: _module(o).startswith("smolagents") and hasattr(o, "memory"),
        Way("smolagents", _smolagents, _attribute_output("output")),
    ),
    (
        lambda o: _module(o).startswith("llama_index") and hasattr(o, "run"),
        Way("llama-index", _llama_index, _llama_index_output),
    ),
    (
        lambda o: _defines(o, "dspy.", "Module"),
        Way("dspy", _dspy, _attribute_output("answer"), _dspy_reader),
    ),
    (
        lambda o: (
            _defines(o, "google.adk.", "BaseAgent")
            or _defines(o, "google.adk.", "App")
            or _defines(o, "google.adk.", "Runner")
        ),
        Way("google-adk", _adk, adk_answer),
    ),
    (
        lambda o: _defines(o, "crewai.", "BaseAgent") and hasattr(o, "kickoff_async"),
        Way("crewai", _crewai, _attribute_output("raw")),
    ),
)
"""First match wins; a callable that matches none is a plain function agent."""


def way_of(obj: Any) -> Way | None:
    """The framework way that calls ``obj``, or ``None`` (a plain callable)."""
    for matches, way in WAYS:
        try:
            if matches(obj):
                return way
        except Exception:
            continue
    return None


def answer_text(value: Any) -> str:
    """What the engine scores as the final answer: a ``str`` as is, a pydantic model as its
    JSON, ``None`` as ``""``, anything else as ``str``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    return str(value)


class FrameworkAgent:
    """A framework's agent (or any object with a ``call``) as an agent under test.

    The toolkit does not run the agent's tools (``tools`` is empty): they run inside the
    framework and are captured from the wire. ``toolMock`` rules answer the tools given to the
    framework as ``ae.mockable(fn)``; a case whose rules name a tool the agent ran unwrapped
    fails saying so (module doc).
    """

    tools: list[ToolSpec]

    def __init__(
        self,
        obj: Any,
        *,
        call: Callable[..., Any] | None = None,
        output: Output | None = None,
        name: str | None = None,
    ) -> None:
        way = way_of(obj)
        if call is None and way is None:
            raise TypeError(
                f"no known way to call a {type(obj).__name__}; pass ae.agent(obj, call=lambda "
                "obj, turn: ..., output=lambda result: ...)"
            )
        self.obj = obj
        self.framework = way.framework if way else "custom"
        self._call = call
        self._way = way if call is None else None
        self._output = output or (way.output_of(obj) if way else (lambda result: result))
        self._memory = SessionMemory()
        self.tools = []
        self.name = name or f"{self.framework}:{type(obj).__name__}"

    def __repr__(self) -> str:
        return f"FrameworkAgent({self.name})"

    async def run_turn(self, turn: Turn) -> str:
        if self._call is not None and inspect.iscoroutinefunction(self._call):
            result = await self._call(self.obj, turn)
        elif self._call is not None:
            result = await run_blocking(self._call, self.obj, turn)
            if inspect.isawaitable(result):
                result = await result
        else:
            assert self._way is not None
            result = await self._way.call(self.obj, turn, self._memory)
        return answer_text(self._output(result))
