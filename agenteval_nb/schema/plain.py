"""Wire data used without models: frozen msgspec structs derived from the models' fields (one
schema definition: nothing here names a field), with the models' attribute names.

:func:`view` decodes a model's wire data into its view struct, or returns ``None`` when the
data is not *plain*; :func:`wire_of` gives back the plain dict its model would write. Rule —
data is plain for ``cls`` when validating it into the model and writing the model back
(aliases, ``None`` left out) gives exactly :func:`wire_of` of its view:

* only the model's wire keys (an unknown key, or a key in another spelling or case, is not
  plain: the model keeps and writes it, the loader folds it);
* values of the field's type, as strictly as the models take them (a string is not a number,
  ``0`` is not a boolean; an int for a float field becomes a float, as in the model); ``null``
  where the field allows it (left out when written, as the model does);
* a field with a non-``None`` default (``role: ""``) or none at all must be given (the model
  writes it either way);
* models that adjust their own wire form (execution traces keep their ``null``\\ s), fields
  never written (``apiKey``) and fields with a ``wrap`` or ``plain`` validator take only
  ``null``; an ``after`` validator only checks (the schema's only one accepts ``evalMode``);
* a field with a ``before`` validator takes a value the validator leaves as it is (same type,
  equal), and a model that only leaves out its ``wire_omit_empty`` keys at Go's zero value
  (:class:`~.base.OmitEmptyModel`: metric result details) takes them only when they do not
  hold one: both checked when the view is made (its ``__post_init__``), so that a result
  file's case results read into views as well as a run's own.

Keys come back in field order, whatever their order in the data (the model's order).
"""

from __future__ import annotations

import inspect
import types
import typing
from functools import cache
from typing import Any

import msgspec
from pydantic import BaseModel

from .base import OmitEmptyModel, is_go_zero

_SCALARS = (str, int, float, bool)


def _optional_inner(annotation: Any) -> tuple[Any, bool]:
    """The annotation without its ``None`` member, and whether it had one."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0], len(members) < len(typing.get_args(annotation))
    return annotation, False


def _view_type(annotation: Any, nullable: bool = True) -> Any:
    """The view-struct type of a field annotation: nested models as their view structs;
    ``None`` (only ``null`` is taken) for shapes the views do not take; ``nullable=False``
    drops the annotation's ``None`` (a field written even when ``None``)."""
    inner, optional = _optional_inner(annotation)
    optional = optional and nullable
    if inner is Any:
        return Any
    if inner in _SCALARS:
        found: Any = inner
    elif isinstance(inner, type) and issubclass(inner, BaseModel):
        found = None if _adjusts_itself(inner) else view_class(inner)
    else:
        origin, args = typing.get_origin(inner), typing.get_args(inner)
        if origin is list and len(args) == 1:
            found = _item_type(args[0], list)
        elif origin is dict and len(args) == 2 and args[0] is str:
            found = _item_type(args[1], dict)
        else:
            return None
    if found is None:
        return None
    return typing.Optional[found] if optional else found  # noqa: UP045


def _item_type(annotation: Any, container: type) -> Any:
    item = _view_type(annotation)
    if item is None:
        return None
    return list[item] if container is list else dict[str, item]  # type: ignore[valid-type]


def _changes_values(cls: type[BaseModel]) -> frozenset[str]:
    """Fields of ``cls`` with a validator that may replace the value and cannot be asked
    whether it would (``wrap``, ``plain``, a ``before`` one that takes more than the value)."""
    names: set[str] = set()
    for decorator in cls.__pydantic_decorators__.field_validators.values():
        if decorator.info.mode != "after" and _before_check(decorator) is None:
            names.update(decorator.info.fields)
    return frozenset(names)


def _before_check(decorator: Any) -> Any:
    """The function of a ``before`` validator of the value alone, else ``None``."""
    if decorator.info.mode != "before":
        return None
    try:
        parameters = inspect.signature(decorator.func).parameters
    except (TypeError, ValueError):
        return None
    return decorator.func if len(parameters) == 1 else None


def _kept_by_validators(cls: type[BaseModel]) -> list[tuple[str, Any]]:
    """(field, ``before`` validator) of ``cls`` whose value a view takes only when the
    validator leaves it as it is."""
    checks: list[tuple[str, Any]] = []
    for decorator in cls.__pydantic_decorators__.field_validators.values():
        check = _before_check(decorator)
        if check is not None:
            checks.extend((name, check) for name in decorator.info.fields)
    return checks


def _omits_empty_only(cls: type[BaseModel]) -> bool:
    """``cls`` adjusts its wire form only by leaving out ``wire_omit_empty`` keys."""
    own = cls.__pydantic_decorators__.model_serializers.keys()
    base = OmitEmptyModel.__pydantic_decorators__.model_serializers.keys()
    return issubclass(cls, OmitEmptyModel) and not cls.wire_keep_null and own == base


def _adjusts_itself(cls: type[BaseModel]) -> bool:
    decorators = cls.__pydantic_decorators__
    if decorators.model_validators:
        return True
    return bool(decorators.model_serializers) and not _omits_empty_only(cls)


def _post_init(cls: type[BaseModel]) -> Any:
    """The ``__post_init__`` of ``cls``'s view (see the module's rule), or ``None``."""
    kept = _kept_by_validators(cls)
    omitted: list[str] = []
    if _omits_empty_only(cls):
        wire_omit_empty = cls.wire_omit_empty  # type: ignore[attr-defined]
        omitted = [n for n, f in cls.model_fields.items() if (f.alias or n) in wire_omit_empty]
    if not kept and not omitted:
        return None

    def __post_init__(self: Any) -> None:
        for name, check in kept:
            value = getattr(self, name)
            found = check(value)
            if type(found) is not type(value) or found != value:
                raise ValueError(f"{name}: the model would read {value!r} as {found!r}")
        for name in omitted:
            if is_go_zero(getattr(self, name)):
                raise ValueError(f"{name}: the model would leave out its zero value")

    return __post_init__


@cache
def view_class(cls: type[BaseModel]) -> Any:
    """The frozen view struct of ``cls`` (see the module's rule). It carries the model's own
    properties (``EvalCase.is_trace``) and ``__pydantic_extra__`` ``None`` (plain data has no
    unknown keys). Built with keywords it takes any values (msgspec checks types only when it
    decodes): how the engine makes views of the results it computes."""
    changed = _changes_values(cls)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for name, field in cls.model_fields.items():
        never = name in changed or field.exclude
        if field.default is None:
            kind = None if never else _view_type(field.annotation)
            fields.append((name, typing.Optional[kind], None))  # noqa: UP045
        else:  # no default, a default factory, or a default the model writes: required
            fields.append((name, None if never else _view_type(field.annotation, False)))
    namespace: dict[str, Any] = {"__pydantic_extra__": None, "wire_model": cls}
    post_init = _post_init(cls)
    if post_init is not None:
        namespace["__post_init__"] = post_init
    for klass in cls.__mro__:
        if klass.__module__.startswith("pydantic"):
            break
        for name, member in vars(klass).items():
            if isinstance(member, property) and name not in namespace:
                namespace[name] = member
    rename = {name: field.alias or name for name, field in cls.model_fields.items()}
    return msgspec.defstruct(
        f"{cls.__name__}View",
        fields,
        namespace=namespace,
        kw_only=True,
        rename=rename,
        frozen=True,
        forbid_unknown_fields=True,
        omit_defaults=True,
    )


def view(cls: type[BaseModel], data: Any) -> Any:
    """``data`` as the view struct of ``cls``, or ``None`` when it is not plain for ``cls``."""
    if _adjusts_itself(cls):
        return None
    try:
        return msgspec.convert(data, view_class(cls))
    except msgspec.ValidationError:
        return None


def wire_of(viewed: Any) -> Any:
    """The plain data a view's model writes: wire keys in field order, ``None`` left out."""
    return msgspec.to_builtins(viewed)
