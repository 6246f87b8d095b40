"""Wire data used without models: the check that a decoded document is in the exact form its
model writes (:func:`is_wire`), and read-only msgspec structs with the model's attribute names
over such data (:func:`view`). Both are derived from the models' fields (one schema
definition): nothing here names a field.

Rule of :func:`is_wire` — ``data`` is *in wire form* for ``cls`` when validating it into the
model and writing the model back (aliases, ``None`` left out) gives the same keys, values and
order, so the decoded data can stand for the model:

* only the model's wire keys (no unknown key, no key in another spelling or case), in field
  order (pydantic writes that order), none holding ``null``; a field without a default or
  with a non-``None`` default is present (the model writes it either way);
* values of the field's exact type: ``str``, ``int`` (not ``bool``), ``float`` (not ``int``),
  ``bool``; lists and string-keyed dicts of those; nested models in wire form; ``Any`` takes
  any JSON value;
* models that adjust their own wire form (execution traces, omit-empty keys) and fields with a
  validator that may change the value (``before``, ``wrap``, ``plain``) are never in wire form;
  an ``after`` validator only checks (the schema's only one accepts ``evalMode``).

Anything else is "not in wire form": the caller takes the model path for it.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

import msgspec
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

Check = Callable[[Any], bool]

_SCALARS: dict[Any, type] = {str: str, int: int, float: float, bool: bool}


def _never(value: Any) -> bool:
    return False


def _anything(value: Any) -> bool:
    return True


def _optional_inner(annotation: Any) -> Any:
    """The annotation without its ``None`` member (``str | None`` → ``str``)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007
    return annotation


def _check_of(annotation: Any) -> Check:
    """The value check of a field annotation (its ``None`` member dropped: ``null`` is never
    wire form); :func:`_never` for shapes the bulk path does not take."""
    annotation = _optional_inner(annotation)
    if annotation is Any:
        return _anything
    exact = _SCALARS.get(annotation)
    if exact is not None:
        return lambda value: type(value) is exact
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return lambda value: is_wire(annotation, value)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        item = _check_of(args[0])
        return lambda value: type(value) is list and all(v is not None and item(v) for v in value)
    if origin is dict and len(args) == 2 and args[0] is str:
        item = _check_of(args[1])
        return lambda value: (
            type(value) is dict and all(v is not None and item(v) for v in value.values())
        )
    return _never


def _changes_values(cls: type[BaseModel]) -> frozenset[str]:
    """Fields of ``cls`` with a validator that may replace the value."""
    names: set[str] = set()
    for decorator in cls.__pydantic_decorators__.field_validators.values():
        if decorator.info.mode != "after":
            names.update(decorator.info.fields)
    return frozenset(names)


@cache
def _shape(cls: type[BaseModel]) -> tuple[dict[str, tuple[int, Check]], frozenset[str]] | None:
    """``cls``'s wire keys with their field position and value check, and the keys that must
    be present; ``None`` for a model that adjusts its own wire form."""
    decorators = cls.__pydantic_decorators__
    if decorators.model_serializers or decorators.model_validators:
        return None
    changed = _changes_values(cls)
    keys: dict[str, tuple[int, Check]] = {}
    required: set[str] = set()
    for position, (name, field) in enumerate(cls.model_fields.items()):
        if field.exclude:
            continue
        alias = field.alias or name
        keys[alias] = (position, _never if name in changed else _check_of(field.annotation))
        if field.default_factory is not None or field.default not in (None,):
            required.add(alias)  # PydanticUndefined (no default) or a written default
    return keys, frozenset(required)


def is_wire(cls: type[BaseModel], data: Any, ordered: bool = True) -> bool:
    """True when ``data`` is in wire form for ``cls`` (see the module's rule); ``ordered=False``
    lets ``data``'s own keys come in any order (a document that is read, not written back:
    its nested models must still be in order)."""
    shape = _shape(cls)
    if shape is None or type(data) is not dict:
        return False
    keys, required = shape
    last = -1
    for key, value in data.items():
        found = keys.get(key)
        if found is None or value is None:
            return False
        position, check = found
        if (ordered and position <= last) or not check(value):
            return False
        last = position
    return len(required) == 0 or required.issubset(data)


# -- views ------------------------------------------------------------------------------------


def _view_type(annotation: Any) -> Any:
    """The view-struct field type of a model field: nested models as their view structs, any
    other value as it is (``Any``: wire form was checked by :func:`is_wire`)."""
    annotation = _optional_inner(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return view_class(annotation) | None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        inner = _optional_inner(args[0])
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return list[view_class(inner)] | None  # type: ignore[misc]
    if origin is dict and len(args) == 2:
        inner = _optional_inner(args[1])
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return dict[str, view_class(inner)] | None  # type: ignore[misc]
    return Any


@cache
def view_class(cls: type[BaseModel]) -> type[msgspec.Struct]:
    """A frozen msgspec struct derived from ``cls``: its field names, read from its wire keys
    (nested models as their view structs; an absent key gives the field's default, ``None``
    for a default factory), its own properties (``EvalCase.is_trace``), and
    ``__pydantic_extra__`` ``None`` (wire form has no unknown keys)."""
    fields = []
    for name, field in cls.model_fields.items():
        default = None if field.default is PydanticUndefined else field.default
        fields.append((name, _view_type(field.annotation), default))
    namespace: dict[str, Any] = {"__pydantic_extra__": None, "wire_model": cls}
    for klass in cls.__mro__:
        if klass.__module__.startswith("pydantic"):
            break
        for name, member in vars(klass).items():
            if isinstance(member, property) and name not in namespace:
                namespace[name] = member
    rename = {name: field.alias or name for name, field in cls.model_fields.items()}
    return msgspec.defstruct(
        f"{cls.__name__}View", fields, namespace=namespace, rename=rename, frozen=True
    )


def view(cls: type[BaseModel], data: dict[str, Any]) -> Any:
    """``data`` (in wire form for ``cls``) as an instance of :func:`view_class` of ``cls``."""
    return msgspec.convert(data, view_class(cls))
