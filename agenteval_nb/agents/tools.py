"""Python tools an agent under test can call through the toolkit, recorded call by call.

Rules:

* a tool is a Python callable (sync or async); its name is ``__name__`` (or the key given), its
  description the first paragraph of its docstring, its parameters the JSON schema that
  pydantic derives from the signature (annotations, defaults; a single pydantic-model
  parameter is a nested object);
* arguments are validated against the signature before the call; a validation error, an
  unknown tool or an exception raised by the tool is *recorded as the result* the agent sees
  (``"error: <Type>: <message>"``) — :meth:`ToolBox.acall` raises :class:`ToolCallError` so a
  turn function can react, while the OpenAI agent loop passes the text back to the model;
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
import dataclasses
import functools
import inspect
import json
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pydantic

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


_POOL_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None
MAX_BLOCKING_THREADS = 256


async def run_blocking(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Run synchronous agent or tool code in a worker thread and await its result.

    One shared pool (threads start on demand, at most :data:`MAX_BLOCKING_THREADS`), so that
    blocking agents run as parallel as the case pool allows — ``asyncio.to_thread`` would cap
    them at the loop's default executor (``cores + 4`` threads).
    """
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = ThreadPoolExecutor(MAX_BLOCKING_THREADS, thread_name_prefix="agenteval")
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_POOL, functools.partial(fn, *args, **kwargs))


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
    message = str(exc).strip()
    return f"error: {type(exc).__name__}: {message}" if message else f"error: {type(exc).__name__}"


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
        except Exception as exc:
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
