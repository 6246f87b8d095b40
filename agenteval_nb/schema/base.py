"""Base class of every wire model.

Rules shared by all file formats (SPEC §0):

* keys on the wire are the aliases (camelCase for most models), attributes are snake_case;
* decoding matches keys case-insensitively when no exact key matches (Go ``encoding/json``):
  the loaders in :mod:`agenteval_nb.io` apply :func:`~agenteval_nb.schema.keys.fold_keys`
  first, so that constructing models in code pays nothing for it;
* values are decoded strictly (a string is not a number, ``0`` is not a boolean);
* unknown keys are kept and written back (``extra="allow"``);
* optional fields default to ``None`` and ``None`` is never written, which is how Go's
  ``omitempty`` looks from the outside: a field that was absent stays absent on a round trip;
* a float that is NaN or infinite is written as ``null`` (Go cannot write them, and no JSON
  reader accepts ``NaN``);
* two exceptions, see :func:`wire_fields`: keys listed in ``wire_omit_empty`` are not written
  when they hold Go's zero value (values agenteval_nb computes where Go's ``omitempty`` leaves the
  key out, e.g. ``reason: ""``), and :class:`KeepNullModel` (execution traces: Go writes every
  key, ``null`` included, so a key given as ``null`` is written back as ``null``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

_EMPTY: tuple[Any, ...] = ("", 0)
"""Go's scalar zero values (``False == 0``, so booleans are covered)."""


class WireModel(BaseModel):
    """A model with camelCase keys on the wire that keeps unknown keys."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        strict=True,
        ser_json_inf_nan="null",
    )

    wire_omit_empty: ClassVar[frozenset[str]] = frozenset()
    """Wire keys not written when their value is Go's zero value (``""``, ``0``, ``false``)."""
    wire_keep_null: ClassVar[bool] = False
    """Declared fields that were given (even as ``None``) are written, ``None`` as ``null``."""

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict written to files (aliases, ``None`` omitted, secrets dropped)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def wire_fields(model: WireModel, dumped: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``model`` as written to a file, from its plain dump (``None`` omitted).

    The one place that owns the two exceptions to "``None`` is not written": a
    ``wire_keep_null`` model writes back every declared field it was given, ``None`` as
    ``null``; keys in ``wire_omit_empty`` holding ``""``, ``0`` or ``false`` are dropped.
    Unknown keys are untouched.
    """
    cls = type(model)
    if cls.wire_keep_null:
        given = model.model_fields_set
        out: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            key = field.alias or name
            if key in dumped:
                out[key] = dumped[key]
            elif name in given and getattr(model, name) is None and not field.exclude:
                out[key] = None
        for key, value in dumped.items():
            out.setdefault(key, value)
        return out
    if cls.wire_omit_empty:
        return {
            key: value
            for key, value in dumped.items()
            if key not in cls.wire_omit_empty or not is_go_zero(value)
        }
    return dumped


def is_go_zero(value: Any) -> bool:
    """``value`` is Go's zero value of a scalar (``""``, ``0``, ``false``): what Go's
    ``omitempty`` leaves out."""
    return isinstance(value, (str, int, float)) and value in _EMPTY


def wire_items(model: BaseModel) -> dict[str, Any]:
    """The wire keys of ``model`` and their (unconverted) values, as a file holds them: aliases,
    unknown keys, ``None`` left out, and :func:`wire_fields`' exceptions for wire models."""
    cls = type(model)
    items: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        value = getattr(model, name)
        if value is not None and not field.exclude:
            items[field.alias or name] = value
    for key, value in (model.model_extra or {}).items():
        if value is not None:
            items[key] = value
    return wire_fields(model, items) if isinstance(model, WireModel) else items


class _AdjustedModel(WireModel):
    @model_serializer(mode="wrap")
    def _wire(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        dumped = handler(self)
        if not (info.by_alias and info.exclude_none and isinstance(dumped, dict)):
            return dumped  # only the file form (aliases, None omitted) follows the Go rules
        return wire_fields(self, dumped)


class OmitEmptyModel(_AdjustedModel):
    """A wire model whose ``wire_omit_empty`` keys are left out at Go's zero value."""


class KeepNullModel(_AdjustedModel):
    """A wire model whose keys given as ``null`` are written back (execution traces)."""

    wire_keep_null: ClassVar[bool] = True


class SnakeWireModel(WireModel):
    """A wire model whose keys are snake_case on the wire (model.Message, GenerationConfig)."""

    model_config = ConfigDict(alias_generator=None)
