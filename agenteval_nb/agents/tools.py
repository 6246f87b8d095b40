"""Python tools an agent under test can call through the toolkit, recorded call by call.

Rules:

* a tool is a Python callable (sync or async); its name is ``__name__`` (or the key given), its
  description the first paragraph of its docstring, its parameters the JSON schema that
  pydantic derives from the signature (annotations, defaults; a single pydantic-model
  parameter is a nested object);
* arguments are validated against the signature before the call; a validation error, an
  unknown tool or anything the tool raises (``SystemExit`` and other ``BaseException``
  subclasses too — only ``KeyboardInterrupt`` and the cancellation of the turn go through,
  :func:`~agenteval_nb.errors.is_interrupt`) is *recorded as the result* the agent sees
  (``"error: <Type>: <message>"``) — :meth:`ToolBox.acall` raises :class:`ToolCallError` so a
  turn function can react, while the OpenAI agent loop passes the text back to the model;
* synchronous agent and tool code runs in daemon worker threads (:func:`run_blocking`): a call
  that never returns fails its turn on ``agent_timeout`` and never keeps the process from
  exiting;
* results are made JSON-ready: pydantic models are dumped, dataclasses/objects that JSON cannot
  hold become their ``str``;
* every call is recorded as an :class:`~agenteval_nb.schema.Tool` ``{id, name, arguments,
  result}`` in call order on the :class:`ToolCalls` log of the turn;
* an ``interceptor`` (tool mocks) may answer a call instead of the real tool with
  :class:`Mocked` (recorded with a ``mock`` note on the call), or return
  :data:`NOT_INTERCEPTED` to let the real tool run.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import inspect
import json
import os
import queue
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any

import pydantic

from ..errors import describe_exception, is_interrupt
from ..schema import Tool

ToolFunction = Callable[..., Any]

NOT_INTERCEPTED: Any = object()
"""Returned by an interceptor that leaves the call to the real tool."""

Interceptor = Callable[[str, Any], Awaitable[Any]]
"""``await interceptor(name, arguments)`` → :class:`Mocked`, or :data:`NOT_INTERCEPTED`."""


@dataclass(frozen=True, slots=True)
class Mocked:
    """An interceptor's answer: the result the agent sees and a note kept on the recorded
    call (``Tool.mock``, e.g. ``{"side": "actual", "rule": 0, "kind": "static"}``)."""

    result: Any
    note: dict[str, Any]


MAX_BLOCKING_THREADS = 256

_Work = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonThreadPool(Executor):
    """An executor of daemon threads, started on demand, at most ``max_workers``.

    ``concurrent.futures.ThreadPoolExecutor`` joins its workers when the interpreter exits, so
    one agent stuck forever (after its turn timed out) would hang the script or CLI that ran
    it; daemon threads do not. Every submitted call gets a thread of its own — an idle one or a
    new one — until the cap, so a call waiting for another (a sync agent calling a sync tool)
    never waits behind it; beyond the cap calls queue.
    """

    def __init__(self, max_workers: int, name: str) -> None:
        self._max_workers = max_workers
        self._name = name
        self._reset()

    def _reset(self) -> None:
        """No threads, nothing queued (also in a forked child, where no worker survives)."""
        self._lock = threading.Lock()
        self._work: queue.SimpleQueue[_Work] = queue.SimpleQueue()
        self._threads = 0
        self._idle = 0  # threads about to take one queued call each
        self._backlog = 0  # queued calls no thread is reserved for (at the cap)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        work: _Work = (future, fn, args, kwargs)
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
            elif self._threads < self._max_workers:
                self._threads += 1
                name = f"{self._name}_{self._threads}"
                threading.Thread(target=self._serve, args=(work,), name=name, daemon=True).start()
                return future
            else:
                self._backlog += 1
            self._work.put(work)
        return future

    def _serve(self, work: _Work) -> None:
        while True:
            _run(work)
            del work  # no reference to a finished call while idle
            with self._lock:
                if self._backlog > 0:
                    self._backlog -= 1
                else:
                    self._idle += 1
            work = self._work.get()


def _run(work: _Work) -> None:
    future, fn, args, kwargs = work
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(result)


_POOL = DaemonThreadPool(MAX_BLOCKING_THREADS, "agenteval")
os.register_at_fork(after_in_child=_POOL._reset)


async def run_blocking(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Run synchronous agent or tool code in a worker thread and await its result.

    One shared :class:`DaemonThreadPool`, so that blocking agents run as parallel as the case
    pool allows — ``asyncio.to_thread`` would cap them at the loop's default executor
    (``cores + 4`` threads) and keep a stuck call's thread alive at exit. The call runs in a
    copy of the caller's context, as ``asyncio.to_thread`` does, so context variables (the case a
    model call belongs to) follow it.
    """
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    try:
        return await loop.run_in_executor(
            _POOL, functools.partial(context.run, _carry, fn, args, kwargs)
        )
    except _Carried as carried:
        raise carried.exc from None  # raised here, it travels up like any other exception


class _Carried(Exception):
    """A ``GeneratorExit`` raised in a worker thread, on its way to the awaiting coroutine.

    Thrown into a task's coroutine as it is, a ``GeneratorExit`` would close every coroutine
    of the await chain at once instead of reaching the handler that owns the failure.
    """

    def __init__(self, exc: GeneratorExit) -> None:
        super().__init__("GeneratorExit")
        self.exc = exc


def _carry(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return fn(*args, **kwargs)
    except GeneratorExit as exc:
        raise _Carried(exc) from None


class ToolCallError(RuntimeError):
    """A tool call failed; ``str(err)`` is what the agent sees as the result."""


def _description(fn: ToolFunction) -> str:
    doc = inspect.getdoc(fn) or ""
    return doc.split("\n\n", 1)[0].strip()


def _arguments_model(name: str, fn: ToolFunction) -> type[pydantic.BaseModel]:
    """A pydantic model of ``fn``'s parameters (``*args``/``**kwargs`` are not allowed)."""
    fields: dict[str, Any] = {}
    try:
        signature = inspect.signature(fn, eval_str=True)
    except NameError as exc:
        raise TypeError(f"tool {name!r}: cannot resolve a parameter annotation ({exc})") from exc
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {name!r}: *args/**kwargs cannot be described as JSON")
        annotation = Any if param.annotation is inspect.Parameter.empty else param.annotation
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    return pydantic.create_model(f"{name}_arguments", **fields)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its callable, name, description and argument model."""

    name: str
    fn: ToolFunction
    description: str
    arguments: type[pydantic.BaseModel]

    @classmethod
    def of(cls, fn: ToolFunction, name: str | None = None) -> ToolSpec:
        if not callable(fn):
            raise TypeError(f"a tool must be callable, got {type(fn).__name__}")
        tool_name = name or getattr(fn, "__name__", "")
        if not tool_name or tool_name == "<lambda>":
            raise TypeError("a tool needs a name: pass a named function or a {name: fn} dict")
        return cls(tool_name, fn, _description(fn), _arguments_model(tool_name, fn))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the function and name (the argument model is rebuilt from them)."""
        return (ToolSpec.of, (self.fn, self.name))

    def json_schema(self) -> dict[str, Any]:
        """The parameters' JSON schema (object), as sent in a function-calling request."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        return schema

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of the tool's result when its return annotation describes a JSON
        object (a pydantic model, a TypedDict, a dataclass …), else ``None``."""
        annotation = inspect.signature(self.fn, eval_str=True).return_annotation
        if annotation is inspect.Signature.empty:
            return None
        try:
            schema = pydantic.TypeAdapter(annotation).json_schema()
        except (pydantic.PydanticUserError, TypeError):
            return None
        return schema if schema.get("type") == "object" and schema.get("properties") else None

    def openai_tool(self) -> dict[str, Any]:
        """The ``tools[]`` entry of a chat-completions request."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.json_schema()}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


def tool_specs(tools: Iterable[ToolFunction] | Mapping[str, ToolFunction] | None) -> list[ToolSpec]:
    """Specs of ``tools`` (a list of functions or a ``{name: function}`` dict); names unique."""
    if tools is None:
        return []
    if isinstance(tools, Mapping):
        specs = [ToolSpec.of(fn, name) for name, fn in tools.items()]
    else:
        specs = [t if isinstance(t, ToolSpec) else ToolSpec.of(t) for t in tools]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ValueError(f"two tools are named {spec.name!r}")
        seen.add(spec.name)
    return specs


def json_ready(value: Any) -> Any:
    """``value`` as plain JSON data (models dumped, dataclasses as dicts, others as ``str``)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return str(value)


def error_text(exc: BaseException) -> str:
    """What an agent sees when a tool fails: ``error: <Type>: <message>``."""
    return f"error: {describe_exception(exc)}"


@dataclass(slots=True)
class ToolCalls:
    """The calls of one turn, in call order (what lands in ``Invocation.tools``)."""

    calls: list[Tool] = field(default_factory=list)

    def add(self, call_id: str, name: str, arguments: Any, result: Any, mock: Any = None) -> None:
        self.calls.append(
            Tool(id=call_id, name=name, arguments=arguments, result=result, mock=mock)
        )


class ToolBox:
    """The tools of one turn: call them by name; each call is recorded (rules in module doc).

    ``call`` is for synchronous agent code (it may run in a worker thread); ``acall`` for async
    code. Both return the tool's JSON-ready result or raise :class:`ToolCallError`.
    """

    def __init__(
        self,
        specs: Iterable[ToolSpec] = (),
        *,
        interceptor: Interceptor | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self._specs = {s.name: s for s in specs}
        self.interceptor = interceptor
        self.log = ToolCalls()
        self._loop = loop

    def __repr__(self) -> str:
        return f"ToolBox({sorted(self._specs)})"

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    @property
    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def add(self, fn: ToolFunction, name: str | None = None) -> None:
        """Make ``fn`` callable in this turn (e.g. tools that only a turn function knows)."""
        spec = ToolSpec.of(fn, name)
        self._specs[spec.name] = spec

    async def acall(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> Any:
        """Call tool ``name`` with ``arguments`` (a dict, or a JSON object string)."""
        result, failed = await self.run(name, arguments, call_id=call_id)
        if failed:
            raise ToolCallError(result)
        return result

    def call(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> Any:
        """:meth:`acall` for synchronous agent code running in a worker thread."""
        loop = self._loop
        if loop is None or not loop.is_running():
            return asyncio.run(self.acall(name, arguments, call_id=call_id))
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError(
                "ToolBox.call blocks; from async agent code use `await turn.tools.acall(...)`"
            )
        future = asyncio.run_coroutine_threadsafe(
            self.acall(name, arguments, call_id=call_id), loop
        )
        return future.result()

    async def run(
        self, name: str, arguments: Any = None, *, call_id: str | None = None
    ) -> tuple[Any, bool]:
        """Call and record; returns ``(result, failed)`` — failures as their error text."""
        call_id = call_id or f"call_{uuid.uuid4().hex[:24]}"
        decoded = _decode_arguments(arguments)
        note = None
        try:
            if self.interceptor is not None:
                mocked = await self.interceptor(name, decoded)
                if mocked is not NOT_INTERCEPTED:
                    note = mocked.note
                    result = json_ready(mocked.result)
                else:
                    result = await self._invoke(name, decoded)
            else:
                result = await self._invoke(name, decoded)
        except BaseException as exc:
            if is_interrupt(exc):
                raise
            text = error_text(exc)
            self.log.add(call_id, name, decoded, text, note)
            return text, True
        self.log.add(call_id, name, decoded, result, note)
        return result, False

    async def _invoke(self, name: str, arguments: Any) -> Any:
        spec = self._specs.get(name)
        if spec is None:
            raise LookupError(f"unknown tool {name!r}; tools: {', '.join(self._specs) or 'none'}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise TypeError(f"arguments of {name!r} must be a JSON object")
        validated = spec.arguments.model_validate(arguments)
        kwargs = {k: getattr(validated, k) for k in type(validated).model_fields}
        if inspect.iscoroutinefunction(spec.fn):
            result = await spec.fn(**kwargs)
        else:
            result = await run_blocking(spec.fn, **kwargs)
            if inspect.isawaitable(result):
                result = await result
        return json_ready(result)


def _decode_arguments(arguments: Any) -> Any:
    """Arguments as JSON data: a JSON string is decoded (raw text kept when it is not JSON)."""
    if isinstance(arguments, str):
        text = arguments.strip()
        if not text:
            return {}
        try:
            return json.loads(text)
        except ValueError:
            return arguments
    if isinstance(arguments, pydantic.BaseModel):
        return arguments.model_dump(mode="json")
    return arguments
