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

The builder makes these models compact from the start (:func:`make`): its values are typed by
the builder itself, so the model gets what validation would give (``__dict__``, fields set,
extras) without validating; a scalar of another type (a source's odd attribute) raises
:class:`Untyped`, and the builder validates the wire dict instead (:func:`make_wire`), which
refuses it as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn, get_args, get_origin

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


# -- made compact: the builder's models without validation ---------------------------------------


class Untyped(Exception):
    """A value whose type a fast-made model cannot vouch for: the caller validates instead."""


@dataclass(frozen=True, slots=True)
class _Spec:
    defaults: dict[str, Any]
    """every field and its default, in declaration order (a validated model's ``__dict__``)"""
    checks: dict[str, Any]
    """a field's type to check: a scalar type, :data:`_STRINGS` (a list of strings), or
    ``None`` (the builder's own model or list, or any JSON value: not checked)"""
    required: frozenset[str]
    """the checked fields ``None`` is not allowed in"""
    aliases: dict[str, str]


_SPECS: dict[type, _Spec] = {}
_MADE: dict[Any, SharedFields | None] = {}
"""the shared fields set :func:`make` gives each shape (the builder gives a shape the same
keys), ``None`` when the shape's registered set differs (a set of its own, as in :func:`_share`)"""
_UNSEEN: Any = object()


def _shape_fields(shape: Any, values: dict[str, Any]) -> SharedFields | None:
    shared = _SHARED.get(shape)
    if shared is None:
        shared = _SHARED[shape] = SharedFields(values)
    return shared if shared == values.keys() else None


_SCALARS = (str, int, float, bool)
_STRINGS = "list[str]"


def _spec(cls: Any) -> _Spec:
    checks: dict[str, Any] = {}
    required = set()
    for name, info in cls.model_fields.items():
        args = get_args(info.annotation)
        kinds = [a for a in args if a is not type(None)]
        kind = kinds[0] if len(kinds) == 1 else info.annotation
        if kind in _SCALARS:
            checks[name] = kind
        elif get_origin(kind) is list and get_args(kind) == (str,):
            checks[name] = _STRINGS
        else:
            checks[name] = None
        if checks[name] is not None and type(None) not in args:
            required.add(name)
        if info.default is not None and type(info.default) not in _SCALARS:
            raise TypeError(f"{cls.__name__}.{name}: make() shares defaults, this one is not")
    spec = _SPECS[cls] = _Spec(
        {name: info.default for name, info in cls.model_fields.items()},
        checks,
        frozenset(required),
        {name: info.alias or name for name, info in cls.model_fields.items()},
    )
    return spec


def _typed(spec: _Spec, name: str, value: Any) -> bool:
    """The slow half of :func:`make`'s check (the value is not of the field's scalar type)."""
    if value is None:
        return name not in spec.required
    if spec.checks[name] is _STRINGS:
        return type(value) is list and all(type(item) is str for item in value)
    return False


def make_wire(cls: Any, shape: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The wire form of what :func:`make` would build (keys the aliases), for validation."""
    aliases = (_SPECS.get(cls) or _spec(cls)).aliases
    return {aliases[name]: value for name, value in values.items()}


def make(cls: Any, shape: Any, values: dict[str, Any]) -> Any:
    """A model of one builder shape made compact from the values the builder gave (field
    names), without validation: the ``__dict__`` validation would give (every field, the rest
    at its default, which are all immutable here), the shape's shared fields set (a shape is
    always given the same keys) and the shared empty extras (``shape`` ``None``: a set and
    extras of its own, as validation gives). Raises :class:`Untyped` when a scalar field holds
    any other type than its own (strict validation would raise or convert: the caller
    validates)."""
    spec = _SPECS.get(cls) or _spec(cls)
    checks = spec.checks
    for name, value in values.items():
        kind = checks[name]
        if kind is not None and type(value) is not kind and not _typed(spec, name, value):
            raise Untyped(name)
    model = _new(cls)
    _set(model, "__dict__", {**spec.defaults, **values})
    if shape is None:
        _set(model, "__pydantic_fields_set__", set(values))
        _set(model, "__pydantic_extra__", {})
    else:
        fields = _MADE.get(shape, _UNSEEN)
        if fields is _UNSEEN:
            fields = _MADE[shape] = _shape_fields(shape, values)
        _set(model, "__pydantic_fields_set__", set(values) if fields is None else fields)
        _set(model, "__pydantic_extra__", NO_EXTRA)
    _set(model, "__pydantic_private__", None)
    return model


_new = object.__new__
_set = object.__setattr__
