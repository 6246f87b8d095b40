"""Base class of every wire model.

Rules shared by all file formats (SPEC §0):

* keys on the wire are the aliases (camelCase for most models), attributes are snake_case;
* decoding matches keys case-insensitively when no exact key matches (Go ``encoding/json``):
  the loaders in :mod:`agenteval_nb.io` apply :func:`~agenteval_nb.schema.keys.fold_keys`
  first, so that constructing models in code pays nothing for it;
* values are decoded strictly (a string is not a number, ``0`` is not a boolean);
* unknown keys are kept and written back (``extra="allow"``);
* optional fields default to ``None`` and ``None`` is never written, which is how Go's
  ``omitempty`` looks from the outside: a field that was absent stays absent on a round trip.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
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

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict written to files (aliases, ``None`` omitted, secrets dropped)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class SnakeWireModel(WireModel):
    """A wire model whose keys are snake_case on the wire (model.Message, GenerationConfig)."""

    model_config = ConfigDict(alias_generator=None)
