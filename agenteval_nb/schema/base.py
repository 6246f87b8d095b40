"""Base class of every wire model.

Rules shared by all file formats (SPEC §0):

* keys on the wire are the aliases (camelCase for most models), attributes are snake_case;
* decoding matches keys case-insensitively when no exact key matches (Go ``encoding/json``);
* values are decoded strictly (a string is not a number, ``0`` is not a boolean);
* unknown keys are kept and written back (``extra="allow"``);
* optional fields default to ``None`` and ``None`` is never written, which is how Go's
  ``omitempty`` looks from the outside: a field that was absent stays absent on a round trip.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A model with camelCase keys on the wire that keeps unknown keys."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        strict=True,
        ser_json_inf_nan="constants",
    )

    _lower_keys: ClassVar[dict[str, str] | None] = None

    @classmethod
    def _key_index(cls) -> dict[str, str]:
        index = cls.__dict__.get("_lower_keys_cache")
        if index is None:
            index = {}
            for name, field in cls.model_fields.items():
                key = field.alias or name
                index.setdefault(key.lower(), key)
            cls._lower_keys_cache = index  # type: ignore[attr-defined]
        return index

    @model_validator(mode="before")
    @classmethod
    def _match_keys_case_insensitively(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        index = cls._key_index()
        known = index.values()
        if all(key in known for key in data):
            return data
        fixed: dict[str, Any] = {}
        for key, value in data.items():
            if isinstance(key, str) and key not in known:
                target = index.get(key.lower())
                if target is not None and target not in data:
                    fixed[target] = value
                    continue
            fixed[key] = value
        return fixed

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict written to files (aliases, ``None`` omitted, secrets dropped)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class SnakeWireModel(WireModel):
    """A wire model whose keys are snake_case on the wire (model.Message, GenerationConfig)."""

    model_config = ConfigDict(alias_generator=None)
