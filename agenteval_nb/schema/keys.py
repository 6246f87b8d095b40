"""Case-insensitive key matching of Go's JSON decoder, applied to raw JSON before validation.

Go fills a struct field from a key that matches its name exactly, else from one that matches
ignoring case. :func:`fold_keys` renames such keys to the model's wire key, walking only into
values that are models (never into free-form JSON such as tool arguments or session state).
:func:`folds_nothing` tells from JSON text, at C speed, that folding would change nothing.
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Any

import msgspec
from pydantic import BaseModel

_Shape = tuple[str, type[BaseModel]]  # ("one" | "list" | "dict", model class)


def _model_in(annotation: Any) -> _Shape | None:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("one", annotation)
    if origin is list:
        inner = _model_in(typing.get_args(annotation)[0])
        return ("list", inner[1]) if inner and inner[0] == "one" else None
    if origin is dict:
        inner = _model_in(typing.get_args(annotation)[1])
        return ("dict", inner[1]) if inner and inner[0] == "one" else None
    return None


@cache
def _index(cls: type[BaseModel]) -> tuple[frozenset[str], dict[str, str], dict[str, _Shape]]:
    """(accepted keys, lowercase → wire key, wire key → nested model shape)."""
    accepted: set[str] = set()
    lower: dict[str, str] = {}
    nested: dict[str, _Shape] = {}
    for name, field in cls.model_fields.items():
        key = field.alias or name
        accepted.update((key, name))
        lower.setdefault(key.lower(), key)
        shape = _model_in(field.annotation)
        if shape is not None:
            nested[key] = shape
            nested[name] = shape
    return frozenset(accepted), lower, nested


def fold_keys(cls: type[BaseModel], data: Any) -> Any:
    """``data`` with keys renamed to ``cls``'s wire keys where only their case differs."""
    if not isinstance(data, dict):
        return data
    accepted, lower, nested = _index(cls)
    if not accepted.issuperset(data):
        data = _renamed(data, accepted, lower)
    if not nested:
        return data
    changed: dict[str, Any] | None = None
    for key, value in data.items():  # the document's keys: usually fewer than the fields
        spec = nested.get(key)
        if spec is None or value is None:
            continue
        shape, sub = spec
        if shape == "one":
            new = fold_keys(sub, value)
        elif shape == "list" and isinstance(value, list):
            new = [fold_keys(sub, v) for v in value]
            if all(a is b for a, b in zip(new, value, strict=True)):
                new = value
        elif shape == "dict" and isinstance(value, dict):
            new = {k: fold_keys(sub, v) for k, v in value.items()}
            if all(new[k] is v for k, v in value.items()):
                new = value
        else:
            continue
        if new is not value:
            if changed is None:
                changed = dict(data)
            changed[key] = new
    return changed if changed is not None else data


def _renamed(
    data: dict[str, Any], accepted: frozenset[str], lower: dict[str, str]
) -> dict[str, Any]:
    """``data`` with each key that is not accepted renamed to the wire key it matches ignoring
    case, unless that wire key is given too (the exact key wins, as in Go)."""
    fixed: dict[str, Any] = {}
    for key, value in data.items():
        target = lower.get(key.lower()) if isinstance(key, str) and key not in accepted else None
        if target is not None and target not in data:
            fixed[target] = value
        else:
            fixed[key] = value
    return fixed


@cache
def _key_struct(cls: type[BaseModel]) -> Any:
    """A msgspec struct that reads a JSON object only when every key is one of ``cls``'s wire
    keys (unknown keys refused), walking into the values :func:`fold_keys` walks into (a
    model, a list or a dict of models: objects, arrays of objects, ``null``) and skipping
    every other value unread (``msgspec.Raw``)."""
    fields: list[tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    _, _, nested = _index(cls)
    for name, field in cls.model_fields.items():
        key = field.alias or name
        shape = nested.get(key)
        kind: Any = msgspec.Raw
        if shape is not None:
            inner: Any = _key_struct(shape[1])
            wrapped = {"one": inner, "list": list[inner], "dict": dict[str, inner]}[shape[0]]
            kind = typing.Optional[wrapped]  # noqa: UP045
        attribute = f"f{len(fields)}"  # (wire keys need not be identifiers)
        fields.append((attribute, kind, None))
        rename[attribute] = key
    return msgspec.defstruct(
        f"{cls.__name__}Keys", fields, rename=rename, forbid_unknown_fields=True
    )


def folds_nothing(cls: type[BaseModel], data: bytes) -> bool:
    """True when JSON ``data`` is an object that :func:`fold_keys` would leave as it is for
    ``cls``: every key at a model position is a wire key of that model (an upper bound: an
    unknown key, a value of another JSON type at a model position, or invalid JSON is False)."""
    try:
        msgspec.json.decode(data, type=_key_struct(cls))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return True
