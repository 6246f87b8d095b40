"""Models written as JSON text the way the Go framework writes its files.

Rules:

* wire keys in model order, ``None`` fields left out, 2-space indent, a trailing newline, Go's
  HTML escaping (:mod:`agenteval_nb.io.escaping`); ``apiKey`` is never written (the metric
  model leaves it out);
* writing never fails on content the loaders accept: lone surrogates are escaped, NaN and
  infinities become ``null``, an int beyond the float64 range is written as a string, any depth
  is written (iteratively; deeper than the loaders read, with a warning);
* a large result is written in pieces, :data:`_BATCH` models at a time, so memory is bounded by
  a batch, never by the file; the pieces concatenate to :func:`dumps` of the same result.

pydantic's encoder writes a model first; the iterative encoder of :func:`_encode` writes the
same document when it cannot.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any

import msgspec
import orjson
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from ..schema import EvalSetResult
from ..schema.base import wire_items
from .entry_rules import FLOAT64_MAX, MAX_DEPTH, RESULT_EXTRA_DEPTH
from .escaping import escape_surrogates, go_escape, utf8_bytes
from .jsonscan import has_huge_int

_BATCH = 256
"""Models encoded per batch by :func:`_models_text` (one digit-run check per batch)."""


def dumps(model: BaseModel | list[BaseModel]) -> str:
    """File text of a model or list of models, written as the Go framework writes it.

    Never fails on content the loaders accept: lone surrogates are escaped, NaN/infinity
    become ``null``, deep nesting is written iteratively.
    """
    if isinstance(model, list):
        body = "[\n  " + ",\n  ".join(_models_text(model, 1)) + "\n]" if model else "[]"
    else:
        body = _model_text(model)
    return go_escape(body) + "\n"


def result_chunks(result: EvalSetResult) -> Iterator[str]:
    """The result file text in pieces (not yet Go-escaped): :func:`_model_chunks` of the
    result, then a newline."""
    yield from _model_chunks(result, 0)
    yield "\n"


def result_file_chunks(
    head: EvalSetResult,
    case_texts: Iterable[bytes],
    case_summaries: Iterable[BaseModel | dict[str, Any]] | None = None,
    own_texts: bool = False,
) -> Iterator[str | bytes]:
    """The result file in pieces, from a result without case results (``head``), the compact
    text of each case result (indented here for its place: ``own_texts`` — written by
    :func:`case_result_texts` — only re-indented, :func:`_reindented`; else read from a file,
    :func:`_indented`) and, when ``head.summary`` leaves them out, the summary's case
    summaries (written a batch at a time; models or the plain dicts they write, see
    :func:`_list_chunks`)."""
    placed = head.model_copy(update={"eval_case_results": []})
    pad = "  "
    first = True
    yield "{"
    for key, value in wire_items(placed).items():
        yield ("\n" if first else ",\n") + f"{pad}{_string(key)}: "
        first = False
        if key == "evalCaseResults":
            yield from _case_array_chunks(case_texts, own_texts)
        elif key == "summary" and case_summaries is not None:
            summary = value.model_copy(update={"eval_case_summaries": []})
            yield from _model_chunks(summary, 1, {"evalCaseSummaries": case_summaries})
        elif isinstance(value, BaseModel):
            yield from _model_chunks(value, 1)
        else:
            yield _encode(_plain(value)).replace("\n", "\n" + pad)
    yield "\n}\n"


def _case_array_chunks(texts: Iterable[bytes], own_texts: bool) -> Iterator[bytes | str]:
    """The ``evalCaseResults`` array of compact case texts, indented as it stands in the file
    (items two containers deep). Texts this package wrote (``own_texts``) are re-indented
    :data:`_BATCH` at a time: one ``msgspec.json.format`` of the batch as an array is the
    items' own formatting side by side (whitespace only), shifted one level by one replace;
    a batch msgspec cannot read (a lone surrogate escape) goes text by text."""
    count = 0
    items = iter(texts)
    while batch := list(islice(items, _BATCH)):
        pretty = _reindented(b"[" + b",".join(batch) + b"]", 1) if own_texts else None
        if pretty is not None and pretty.startswith(b"[\n"):
            yield (b"," if count else b"[") + pretty[1:-4]
        else:
            indent = _reindented if own_texts else _indented
            for i, text in enumerate(batch):
                yield (b",\n    " if count or i else b"[\n    ") + indent(text, 2)
        count += len(batch)
    yield "\n  ]" if count else "[]"


def case_result_texts(results: Sequence[BaseModel | dict[str, Any]]) -> list[bytes]:
    """Case results as compact file text (Go-escaped UTF-8 JSON, no indentation: about half
    the bytes): what a run keeps of each case result, and the input of
    :func:`result_file_chunks`. Encode many at once: the check for huge ints runs once per
    call (:func:`_models_text`)."""
    return [utf8_bytes(go_escape(text)) for text in _models_text(results, indent=None)]


def decoded_text(wire: dict[str, Any]) -> bytes:
    """:func:`case_result_texts` of one plain wire dict whose values orjson decoded: its ints
    fit 64 bits, far inside float64, so orjson writes pydantic's bytes without the huge-int
    check; what orjson cannot write (a lone surrogate in a string given in code) goes the
    checked way."""
    try:
        text = orjson.dumps(wire).decode("utf-8")
    except orjson.JSONEncodeError:
        return case_result_texts([wire])[0]
    return utf8_bytes(go_escape(text))


def _indented(text: bytes, level: int) -> bytes:
    """Compact JSON ``text`` read from a file, 2-space indented as it stands ``level``
    containers deep, as :func:`_models_text` writes it (numbers and escapes re-spelled by
    orjson); text orjson cannot read (a lone surrogate escape, an int beyond 64 bits) is
    written compact, which is the same JSON."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    pretty = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
    return utf8_bytes(go_escape(pretty)).replace(b"\n", b"\n" + b"  " * level)


def _reindented(text: bytes, level: int) -> bytes:
    """:func:`_indented` of a text :func:`case_result_texts` wrote: only whitespace changes,
    strings and numbers are copied as they are (``msgspec.json.format`` decodes no value),
    which is what the encoder writes indented. Text msgspec cannot read (a lone surrogate
    escape) is written compact, which is the same JSON."""
    try:
        pretty = msgspec.json.format(text, indent=2)
    except msgspec.DecodeError:
        return text
    return pretty.replace(b"\n", b"\n" + b"  " * level)


def _model_chunks(
    model: BaseModel,
    level: int,
    lists: Mapping[str, Iterable[BaseModel | dict[str, Any]]] | None = None,
) -> Iterator[str]:
    """JSON of ``model`` in pieces, as it stands ``level`` containers deep: a list of models
    (case results, case summaries) goes out :data:`_BATCH` models at a time and a nested model
    field is split the same way, so memory stays bounded by a batch, never by the file.
    ``lists`` supplies the models of wire keys whose value in ``model`` is a placeholder.

    The pieces concatenate to :func:`_model_text` of the model (a test pins the two together).
    """
    pad = "  " * (level + 1)
    first = True
    yield "{"
    for key, value in wire_items(model).items():
        yield ("\n" if first else ",\n") + f"{pad}{_string(key)}: "
        first = False
        if lists and key in lists:
            yield from _list_chunks(lists[key], level + 1)
        elif value and isinstance(value, list) and all(isinstance(v, BaseModel) for v in value):
            yield from _list_chunks(value, level + 1)
        elif isinstance(value, BaseModel):
            yield from _model_chunks(value, level + 1)
        else:
            yield _encode(_plain(value)).replace("\n", "\n" + pad)
    yield "\n" + "  " * level + "}" if not first else "}"


def _list_chunks(models: Iterable[BaseModel | dict[str, Any]], level: int) -> Iterator[str]:
    """A JSON array of models standing ``level`` containers deep, :data:`_BATCH` at a time.
    An item may be the plain dict a model writes (its wire keys and values, as
    :func:`~agenteval_nb.schema.base.wire_items` gives them): a batch of those is written in
    one orjson pass, the same bytes as its models (a test pins the two together)."""
    pad = "  " * level
    inner = "\n" + pad + "  "
    items = iter(models)
    count = 0
    while batch := list(islice(items, _BATCH)):
        plain = _plain_batch_text(batch)
        if plain is not None:
            yield ("," if count else "[") + plain.replace("\n", "\n" + pad)
        else:
            texts = _models_text(batch, level + 1)
            yield ("," if count else "[") + inner + ("," + inner).join(texts)
        count += len(batch)
    yield "\n" + pad + "]" if count else "[]"


def _plain_batch_text(batch: list[Any]) -> str | None:
    """A batch of plain wire dicts as the items of a 2-space indented array standing at the top
    (``"\\n  {…},\\n  {…}"``, the brackets left off), in one orjson pass — orjson writes
    numbers and strings as pydantic does; ``None`` when the batch holds models or content
    orjson writes otherwise (lone surrogates, ints beyond 64 bits or beyond float64)."""
    if not all(type(item) is dict for item in batch):
        return None
    try:
        text = orjson.dumps(batch, option=orjson.OPT_INDENT_2).decode("utf-8")
    except orjson.JSONEncodeError:
        return None
    return None if has_huge_int(text) else text[1:-2]


def _model_text(model: BaseModel, level: int = 0) -> str:
    """JSON of a model, 2-space indented as it stands ``level`` containers deep in the file.

    pydantic's encoder first; when it cannot (lone surrogates, nesting beyond its depth limit)
    the iterative encoder of :func:`_encode` writes the same document.
    """
    return _models_text([model], level)[0]


def _json_text(model: BaseModel | dict[str, Any], indent: int | None) -> str:
    """pydantic's JSON of a model; orjson's of the plain dict a model writes (the same text)."""
    if isinstance(model, BaseModel):
        return model.model_dump_json(by_alias=True, exclude_none=True, indent=indent)
    return orjson.dumps(model, option=orjson.OPT_INDENT_2 if indent else 0).decode("utf-8")


def _models_text(
    models: Sequence[BaseModel | dict[str, Any]], level: int = 0, indent: int | None = 2
) -> list[str]:
    """:func:`_model_text` of each model or plain wire dict (``indent=None``: compact, where
    pydantic can). The
    check for an int beyond float64 (which pydantic writes as digits and our loader would
    refuse) runs once over the batch's joined text, and per model only when the batch has one."""
    texts: list[str | None] = []
    for model in models:
        try:
            texts.append(_json_text(model, indent))
        except (PydanticSerializationError, orjson.JSONEncodeError):
            texts.append(None)
    if has_huge_int("\n".join(t for t in texts if t is not None)):
        texts = [None if t is None or has_huge_int(t) else t for t in texts]
    out = [_encode(_plain(m)) if t is None else t for m, t in zip(models, texts, strict=True)]
    if level:
        pad = "\n" + "  " * level
        out = [t.replace("\n", pad) for t in out]
    return out


def _plain(root: Any) -> Any:
    """``root`` as plain JSON data (models by their wire items), without recursion.

    NaN and infinities become ``None``; an int beyond the float64 range and values JSON cannot
    hold become their ``str`` (written as a string, so the file loads again).
    """
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, holder, 0)]
    while stack:
        value, parent, key = stack.pop()
        if isinstance(value, BaseModel):
            value = wire_items(value)
        if isinstance(value, dict):
            new: Any = {}
            for k, item in value.items():
                k = k if isinstance(k, str) else json.dumps(k) if k is None else str(k)
                new[k] = None
                stack.append((item, new, k))
        elif isinstance(value, (list, tuple)):
            new = [None] * len(value)
            stack.extend((item, new, i) for i, item in enumerate(value))
        elif value is None or isinstance(value, (str, bool)):
            new = value
        elif isinstance(value, int):
            new = int(value) if abs(value) <= FLOAT64_MAX else str(value)
        elif isinstance(value, float):
            new = float(value) if math.isfinite(value) else None
        else:
            new = str(value)
        parent[key] = new
    return holder[0]


def _encode(root: Any) -> str:
    """``json.dumps(root, indent=2, ensure_ascii=False)`` for plain data, without recursion.

    Lone surrogates are escaped (:func:`~agenteval_nb.io.escaping.escape_surrogates`); a
    document nested deeper than our loaders accept is still written, with a warning.
    """
    parts: list[str] = []
    stack: list[tuple[Any, int | None]] = [(root, 0)]
    deepest = 0
    while stack:
        value, level = stack.pop()
        if level is None:
            parts.append(value)
        elif isinstance(value, (dict, list)):
            if not value:
                parts.append("{}" if isinstance(value, dict) else "[]")
                continue
            deepest = max(deepest, level + 1)
            pad = "\n" + "  " * (level + 1)
            opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
            todo: list[tuple[Any, int | None]] = []
            if isinstance(value, dict):
                for i, (key, item) in enumerate(value.items()):
                    todo.append(((opening if i == 0 else ",") + pad + _string(key) + ": ", None))
                    todo.append((item, level + 1))
            else:
                for i, item in enumerate(value):
                    todo.append(((opening if i == 0 else ",") + pad, None))
                    todo.append((item, level + 1))
            todo.append(("\n" + "  " * level + closing, None))
            stack.extend(reversed(todo))
        elif isinstance(value, str):
            parts.append(_string(value))
        elif value is None or value is True or value is False:
            parts.append("null" if value is None else "true" if value else "false")
        elif isinstance(value, float) and not math.isfinite(value):
            parts.append("null")
        else:
            parts.append(repr(value))
    if deepest > MAX_DEPTH:
        warnings.warn(
            f"the document written nests {deepest} levels; agenteval_nb loads at most "
            f"{MAX_DEPTH} (results {MAX_DEPTH + RESULT_EXTRA_DEPTH})",
            stacklevel=3,
        )
    return "".join(parts)


def _string(text: str) -> str:
    return escape_surrogates(json.dumps(text, ensure_ascii=False))
