"""JSON Schema checks of JSONCriterion.schema (SPEC §3.4 step 5).

Default dialect: draft 2020-12 (a ``$schema`` naming another known draft selects it). The schema
is a resource at :data:`SCHEMA_URI` (its ``$id`` unless it declares one), so relative ``$ref``s
resolve against it. Validators are compiled once per distinct schema (keyed by its canonical
JSON text). Errors: ``"parse json schema: ..."`` (schema given as text that is not JSON),
``"compile json schema: ..."`` and ``"json schema validation failed: ..."`` listing each failure
as ``at '<json pointer>': <message>``.
"""

from __future__ import annotations

import json
from typing import Any

from .rawjson import JSONTextError, decode_json_text

SCHEMA_URI = "https://trpc.group/trpc-agent-go/evaluation/metric/criterion/json/schema.json"

_CACHE: dict[str, Any] = {}
_CACHE_LIMIT = 1024


class SchemaSetupError(ValueError):
    """The schema cannot be used; ``str(err)`` is the reference's text."""


def _key(schema: Any) -> str:
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise SchemaSetupError(f"parse json schema: {exc}") from None


def _build(schema: Any) -> Any:
    import jsonschema
    from jsonschema import validators

    if isinstance(schema, dict):
        dialect = schema.get("$schema")
        if dialect is not None and not _known_dialect(dialect):
            return SchemaSetupError(f"compile json schema: unknown $schema {dialect}")
        cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        if "$id" not in schema:
            schema = {"$id": SCHEMA_URI, **schema}
    elif isinstance(schema, bool):
        cls = jsonschema.Draft202012Validator
    else:
        return SchemaSetupError(
            f"compile json schema: schema must be an object or a boolean, got {schema!r}"
        )
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path)
        return SchemaSetupError(f"compile json schema: at '/{where}': {exc.message}")
    return cls(schema)


def _known_dialect(uri: Any) -> bool:
    from jsonschema import validators

    if not isinstance(uri, str):
        return False
    wanted = uri.rstrip("#")
    for cls in validators._VALIDATORS.values():  # type: ignore[attr-defined]  # known dialects
        meta = cls.META_SCHEMA
        known = str(meta.get("$id", meta.get("id", ""))).rstrip("#")
        if known == wanted:
            return True
    return False


def compiled_validator(schema: Any) -> Any:
    """The cached validator of ``schema``; raises :class:`SchemaSetupError`.

    A ``str`` schema is JSON text and is decoded first.
    """
    if isinstance(schema, str):
        try:
            schema = decode_json_text(schema, keep_numbers=True)
        except JSONTextError as exc:
            raise SchemaSetupError(f"parse json schema: {exc}") from None
    key = _key(schema)
    entry = _CACHE.get(key)
    if entry is None:
        entry = _build(schema)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = entry
    if isinstance(entry, SchemaSetupError):
        raise entry
    return entry


def schema_failures(validator: Any, instance: Any) -> str | None:
    """``None`` when ``instance`` is valid, else the failures joined with ``"; "``."""
    errors = list(validator.iter_errors(instance))
    if not errors:
        return None
    parts = []
    for err in errors:
        pointer = "".join(f"/{p}" for p in err.absolute_path)
        parts.append(f"at '{pointer}': {err.message}")
    return "; ".join(parts)
