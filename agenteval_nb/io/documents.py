"""Decoded documents made models, or a :class:`~agenteval_nb.errors.FormatError` saying why not.

Rules:

* a model is built from a JSON object whose keys are folded to the wire spelling
  (:func:`~agenteval_nb.schema.keys.fold_keys`); a problem names the JSON path of the first
  pydantic error, what was expected with a preview of the value, and how many more there are
  (:func:`validate_model`);
* a preview is short and never shows the value of a key field (``apiKey`` in any spelling)
  (:func:`preview`);
* a document of another kind is named, never read as an empty one: a result needs a result key,
  an eval set must not look like a result or a test config (:func:`check_kind`,
  :func:`kind_hint`).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, TypeVar

import msgspec
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from .._gc import gc_paused
from ..adk import looks_like_adk_test
from ..errors import FormatError
from ..schema import EvalCase, EvalSet
from ..schema.keys import fold_keys, folds_nothing
from ..schema.metric import is_api_key_name
from ..schema.plain import view_class
from .decoding import decode_json, plain_bytes
from .entry_rules import MAX_DEPTH, json_path
from .escaping import escape_surrogates
from .jsonscan import may_be_huge

M = TypeVar("M", bound=BaseModel)

_RESULT_KEYS = ("evalSetResultId", "evalSetResultName", "evalSetId", "evalCaseResults", "summary")
"""A result document has at least one of these keys (compared ignoring case), or none at all."""


def validate_model(
    model: type[M], data: Any, source: str, prefix: tuple[int | str, ...] = (), fold: bool = True
) -> M:
    """``data`` (found at ``prefix`` in ``source``) as a ``model``, or a :class:`FormatError`;
    keys folded to the model's (:func:`~agenteval_nb.schema.keys.fold_keys`) unless ``fold``
    is False (data known to hold only the models' own keys)."""
    if not isinstance(data, dict):
        raise FormatError(source, json_path(prefix), f"a JSON object, got {json_type(data)}")
    try:
        with gc_paused(keep=True):
            return model.model_validate(fold_keys(model, data) if fold else data)
    except ValidationError as exc:
        raise _format_error(source, exc, prefix) from None


def validate_json(
    model: type[M],
    data: bytes,
    source: str,
    prefix: tuple[int | str, ...] = (),
    max_depth: int = MAX_DEPTH,
    short_digits: bool = False,
) -> M:
    """JSON ``data`` (found at ``prefix`` in ``source``) decoded under the entry rules
    (:func:`~agenteval_nb.io.decoding.decode_json`) and made a ``model``
    (:func:`validate_model`). Keys are folded only when
    :func:`~agenteval_nb.schema.keys.folds_nothing` cannot tell from the bytes, at C speed, that
    folding would change nothing (a file this package or Go wrote: it would not)."""
    decoded = decode_json(data, source, prefix, max_depth, short_digits)
    fold = not (isinstance(decoded, dict) and folds_nothing(model, data))
    return validate_model(model, decoded, source, prefix, fold=fold)


def validate_plain(model: type[M], data: bytes, limit: int, short_digits: bool = False) -> M | None:
    """``model`` validated by pydantic-core straight from JSON ``data`` (one pass, no Python
    data in between: faster, and repeated strings are shared), when that is exactly what
    :func:`validate_model` of the decoded data gives; else ``None`` (take that path).

    Exactly: the bytes cannot break a decoding rule the fast decoders let through
    (:func:`~agenteval_nb.io.decoding.plain_bytes`; no number that may be beyond the float64
    range, :func:`~agenteval_nb.io.jsonscan.may_be_huge`: pydantic would read infinity), and
    folding would change nothing (:func:`~agenteval_nb.schema.keys.folds_nothing`). Whatever
    pydantic refuses is ``None`` too: the other path names the problem."""
    if not plain_bytes(data, limit, short_digits) or may_be_huge(data):
        return None
    if not folds_nothing(model, data):
        return None
    try:
        return model.model_validate_json(data)
    except ValidationError:
        return None


def view_plain(model: type[BaseModel], data: bytes, limit: int, short_digits: bool = False) -> Any:
    """The view struct of ``model`` (:func:`~agenteval_nb.schema.plain.view`) read by msgspec
    straight from JSON ``data``, when the data is plain for it; else ``None`` (take
    :func:`validate_json`). What reads the view reads what the model would hold: the bytes
    cannot break the depth and exact-int rules (:func:`~agenteval_nb.io.decoding.plain_bytes`;
    msgspec itself refuses a number beyond the float64 range, so no
    :func:`~agenteval_nb.io.jsonscan.may_be_huge` scan, which a uuid's ``4e123`` trips), and
    a view takes only the model's wire keys (so folding would change nothing) and the values
    the model writes back as they are."""
    if not plain_bytes(data, limit, short_digits):
        return None
    try:
        return _view_decoder(model).decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


@cache
def _view_decoder(model: type[BaseModel]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(view_class(model))


def validated_by_case(data: Any) -> EvalSet | None:
    """Eval set ``data`` (decoded here, so the caller's to consume) as an :class:`EvalSet`
    validated one case at a time, each case's data dropped once its model is built: a large
    file is never its whole data and its whole model at once. ``None`` at the first problem:
    the whole validation (:func:`validate_model`) names it, as it would have."""
    if not isinstance(data, dict):
        return None
    folded = fold_keys(EvalSet, data)
    cases = folded.pop("evalCases", None)
    data.pop("evalCases", None)  # (when folding made a copy, the caller's cases go too)
    if not isinstance(cases, list):
        return None
    try:
        with gc_paused(keep=True):
            evalset = EvalSet.model_validate({**folded, "evalCases": []})
            models = []
            for i, case in enumerate(cases):
                models.append(EvalCase.model_validate(case))
                cases[i] = None
    except ValidationError:
        return None
    evalset.eval_cases = models
    return evalset


def _format_error(
    source: str, exc: ValidationError, prefix: tuple[int | str, ...] = ()
) -> FormatError:
    first = exc.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    err = FormatError(source, json_path(prefix + loc), _describe(first))
    extra = exc.error_count() - 1
    if extra:
        err.args = (f"{err.args[0]} (and {extra} more problem{'s' if extra > 1 else ''})",)
    return err


def _describe(error: ErrorDetails) -> str:
    msg = error.get("msg", "invalid value")
    if error.get("type") == "missing":
        return "required field is missing"
    return f"{msg[0].lower()}{msg[1:]} (got {preview(error.get('input'))})"


def preview(value: Any, width: int = 60) -> str:
    """A short JSON rendering of ``value`` for messages; key fields are masked, never shown."""
    try:
        shown = json.dumps(_masked(value), ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        shown = f"a deeply nested {type(value).__name__}"
    shown = escape_surrogates(shown)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def _masked(value: Any, depth: int = 6) -> Any:
    """``value`` with the value of every key field (any spelling of ``apiKey``) replaced by
    ``***``, down to ``depth`` levels (a preview shows no more than that)."""
    if depth == 0:
        return "..."
    if isinstance(value, dict):
        return {k: "***" if is_api_key_name(k) else _masked(v, depth - 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v, depth - 1) for v in value[:8]]
    return value


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, as messages name it (``an array``, ``null`` …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def check_kind(kind: str, data: Any, source: str) -> None:
    """A :class:`FormatError` when ``data`` is a document of another kind.

    A result must be an object with a result key (or be empty) and no ``evalCases`` without
    ``evalCaseResults``; an eval set must not look like a result or a test config. The message
    says what the document looks like (``has evalCases`` …).
    """
    if isinstance(data, list):
        raise FormatError(source, "$", f"a JSON object ({kind}), got an array{kind_hint(data)}")
    if not isinstance(data, dict) or not data:
        return
    keys = {k.lower() for k in data if isinstance(k, str)}
    if kind == "eval set":
        wrong = (
            "evalsetid" not in keys
            and "evalcases" not in keys
            and ("evalcaseresults" in keys or "criteria" in keys or "metrics" in keys)
        )
    else:
        wrong = ("evalcases" in keys and "evalcaseresults" not in keys) or not any(
            k.lower() in keys for k in _RESULT_KEYS
        )
    if wrong:
        raise FormatError(source, "$", f"an {kind}, but the document{kind_hint(data)}")


def kind_hint(data: Any) -> str:
    """`` (looks like …)`` for a document of a known kind, else a list of its first keys."""
    if isinstance(data, list):
        if data and all(isinstance(d, dict) and "metricName" in d for d in data):
            return " (looks like a metrics file: items have metricName)"
        if looks_like_adk_test(data):
            return " (looks like a google-adk .test.json: items have query)"
        return ""
    keys = {k.lower(): k for k in data if isinstance(k, str)}
    for wire_key, kind in (
        ("evalCaseResults", "an eval set result"),
        ("evalCases", "an eval set"),
        ("eval_cases", "an eval set"),
        ("criteria", "a google-adk test_config.json"),
        ("metrics", "a trpc-agent-python test_config.json"),
        ("metricName", "a metric"),
    ):
        if wire_key.lower() in keys:
            return f" looks like {kind} (has {keys[wire_key.lower()]})"
    shown = ", ".join(list(keys.values())[:5]) or "no string keys"
    return f" has none of the expected keys (has {shown})"
