"""Built invocation models, compacted: what every model of one shape holds alike is held
once.

A pydantic model keeps, besides its field values, a set of the fields it was given
(``model_fields_set``) and a dict of its unknown keys (``model_extra``). The builder gives
every model of one shape (a message, a tool, a step of one node type, a snapshot, a usage)
the same keys and no unknown ones, so one :class:`SharedFields` per shape and one empty
:data:`NO_EXTRA` serve them all: ≈ 2.6 KB a span, about half of what a large trace load
keeps (``bench/traces.py``).

Rule: the parts of a built invocation are records, read-only. Setting a field it was not
given, or an unknown attribute, raises ``TypeError`` (``model_copy()`` it first: copies, deep
copies and pickles get a set and a dict of their own). Equality, dumps and
``model_fields_set`` are unchanged.
"""

from __future__ import annotations

from typing import Any, NoReturn

_READ_ONLY = "a model built from spans shares its fields set and extras: model_copy() it"


def _read_only(*_: Any, **__: Any) -> NoReturn:
    raise TypeError(_READ_ONLY)


class SharedFields(set[str]):
    """The fields set of every built model of one shape (see the module's rule)."""

    __slots__ = ()

    def add(self, name: str) -> None:
        """Setting a field the model was given is fine; any other raises."""
        if name not in self:
            _read_only()

    discard = remove = update = clear = pop = _read_only  # type: ignore[assignment]
    __ior__ = __iand__ = __isub__ = __ixor__ = _read_only  # type: ignore[assignment]

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: Any) -> set[str]:
        return set(self)

    def __reduce__(self) -> Any:
        return (set, (list(self),))


class _NoExtra(dict[str, Any]):
    """The empty extras every built model shares (see the module's rule)."""

    __slots__ = ()

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _read_only  # type: ignore[assignment]
    __ior__ = _read_only  # type: ignore[assignment]

    def __copy__(self) -> dict[str, Any]:
        return {}

    def __deepcopy__(self, memo: Any) -> dict[str, Any]:
        return {}

    def __reduce__(self) -> Any:
        return (dict, ())


NO_EXTRA: dict[str, Any] = _NoExtra()
_SHARED: dict[Any, SharedFields] = {}


def _share(model: Any, shape: Any) -> None:
    """Give ``model`` its shape's shared fields set (when its own is equal: a shape that
    differs keeps its own) and the shared empty extras (when it has none)."""
    own = model.__pydantic_fields_set__
    shared = _SHARED.get(shape)
    if shared is None:
        shared = _SHARED[shape] = SharedFields(own)
    if own == shared:
        object.__setattr__(model, "__pydantic_fields_set__", shared)
    if not model.__pydantic_extra__:
        object.__setattr__(model, "__pydantic_extra__", NO_EXTRA)


def compact_invocation(invocation: Any) -> None:
    """Every model under a built ``Invocation`` compacted (its messages, tools, source and
    ``executionTrace``; the invocation itself keeps its own set: callers stamp its fields)."""
    for message in (invocation.user_content, invocation.final_response):
        if message is not None:
            _share(message, "message")
    for message in invocation.intermediate_responses or ():
        _share(message, "message")
    for tool in invocation.tools or ():
        _share(tool, "tool")
    if invocation.source is not None:
        _share(invocation.source, "source")
    if invocation.execution_trace is not None:
        _compact_trace(invocation.execution_trace)


def _compact_trace(trace: Any) -> None:
    _share(trace, "trace")
    for snapshot in (trace.input, trace.output):
        if snapshot is not None:
            _share(snapshot, "snapshot")
    if trace.usage is not None:
        _share(trace.usage, "usage")
    for step in trace.steps or ():
        _share(step, ("step", step.node_type))
        if step.input is not None:
            _share(step.input, "snapshot")
        if step.output is not None:
            _share(step.output, "snapshot")
        if step.usage is not None:
            _share(step.usage, "usage")
        for tool in step.tools or ():
            _share(tool, "trace_tool")
