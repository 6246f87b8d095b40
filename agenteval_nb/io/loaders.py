"""Loading and saving eval sets, metrics, cases and results.

Every loader accepts a path, JSON text, an already-decoded dict/list, or a model instance, and
raises :class:`~agenteval_nb.errors.FormatError` naming the source, the JSON path and what was
expected. Savers write atomically (:mod:`agenteval_nb.io.atomic`) in the Go format
(:mod:`agenteval_nb.io.gowriter`). See docs/formats.md.

Rules (one function each): a string names a file when one exists, else it is JSON text when it
starts like JSON (:func:`is_json_text`); text is decoded strictly
(:func:`~agenteval_nb.io.decoding.decode_text`) and data meets the depth and number rules
(:func:`~agenteval_nb.io.entry_rules.check_tree`); a document of another kind is named
(:func:`~agenteval_nb.io.documents.check_kind`). Eval sets and metrics in every form (file,
text, dict, model) meet the entry rules of :mod:`agenteval_nb.io.entry_rules`; google-adk and
trpc-agent-python shapes are converted (:mod:`agenteval_nb.adk`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..adk import (
    adk_test_to_evalset,
    adk_to_evalset,
    criteria_to_metrics,
    looks_like_adk,
    looks_like_adk_config,
    looks_like_adk_test,
    looks_like_metrics_config,
    metrics_config_to_metrics,
)
from ..errors import FormatError
from ..schema import EvalCase, EvalMetric, EvalSet, EvalSetResult
from .atomic import write_text_atomic
from .decoding import decode_text
from .documents import check_kind, json_type, kind_hint, validate_model, validated_by_case
from .entry_rules import MAX_DEPTH, OBJECT_SOURCE, RESULT_EXTRA_DEPTH, check_evalset, check_tree
from .evalset_split import split_evalset
from .gowriter import dumps, result_chunks
from .table_readers import TABLE_SUFFIXES, evalset_from_table_file

Source = str | os.PathLike[str] | dict[str, Any] | list[Any] | BaseModel


def is_json_text(src: str) -> bool:
    """Whether a string argument is JSON text rather than a path: it starts like JSON (``{``,
    ``[`` or ``"``) and names no existing file (a file ``[x].json`` is a path)."""
    return src.lstrip()[:1] in ("{", "[", '"') and not _is_file(src)


def _is_file(text: str) -> bool:
    """Whether ``text`` names an existing file (JSON documents are never tried as names)."""
    return len(text) < 4096 and "\n" not in text and os.path.isfile(text)


def _read(src: Source, max_depth: int = MAX_DEPTH) -> tuple[Any, str]:
    """Decode ``src`` into plain JSON data and name its source for messages.

    A string is a path when a file of that name exists (even ``[x].json``); otherwise text that
    starts like JSON (``{``, ``[`` or ``"``) is JSON text, and anything else a path.
    """
    if isinstance(src, (dict, list)):
        check_tree(src, OBJECT_SOURCE, max_depth)
        return src, OBJECT_SOURCE
    if isinstance(src, str) and is_json_text(src):
        return decode_text(src, "<text>", max_depth), "<text>"
    if isinstance(src, BaseModel):
        raise TypeError(f"expected a path, JSON text or data, got a model ({type(src).__name__})")
    path = Path(os.fspath(src))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(str(path), "$", "file not found") from None
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), "$", f"UTF-8 text ({exc.reason})") from None
    return decode_text(text, str(path), max_depth), str(path)


def read_bytes(src: Source | bytes) -> tuple[bytes, str] | None:
    """The bytes of a path (and its name), JSON text (or bytes) as UTF-8 bytes (``<text>``), as
    :func:`_read` tells them apart; None for dicts and models, or a file that cannot be read
    (the loader names the problem: file not found …)."""
    if isinstance(src, bytes):
        return src, "<text>"
    if isinstance(src, str) and is_json_text(src):
        return src.encode("utf-8", "surrogatepass"), "<text>"
    if isinstance(src, (str, os.PathLike)):
        path = Path(os.fspath(src))
        try:
            return path.read_bytes(), str(path)
        except OSError:
            return None
    return None


def load_evalset(
    src: Source | EvalSet, *, columns: Mapping[str, str | None] | None = None
) -> EvalSet:
    """Load an eval set: Go format, or converted from google-adk / trpc-agent-python; a model
    is returned as it is, once it meets the entry rules (:mod:`agenteval_nb.io.entry_rules`).

    Converted shapes (see :mod:`agenteval_nb.adk`): the snake_case / ``parts`` eval set, and
    google-adk's older ``*.test.json`` (a JSON array of turns, or of ``{name, data}`` cases).
    A path ending ``.csv`` / ``.jsonl`` / ``.parquet`` is a table, one case a row
    (:mod:`agenteval_nb.io.table_rows`; ``columns`` maps a role such as ``"user"`` to its column).
    """
    if isinstance(src, EvalSet):
        return check_evalset(src)
    if is_table_path(src):
        return evalset_from_table_file(src, columns)  # type: ignore[arg-type]
    if columns is not None:
        raise TypeError("columns= is for .csv / .jsonl / .parquet files")
    if not isinstance(src, (dict, list)):
        split = _split(src)
        if split is not None:
            return split
    data, source = _go_evalset(*_read(src))
    check_kind("eval set", data, source)
    if not isinstance(src, (dict, list)):  # decoded here: validated case by case, consumed
        evalset = validated_by_case(data)
        if evalset is not None:
            return check_evalset(evalset, source, tree=False)
        data, source = _go_evalset(*_read(src))  # read again for the whole validation's error
    return check_evalset(validate_model(EvalSet, data, source), source, tree=False)


def _split(src: Source) -> EvalSet | None:
    """A Go-format eval set file (path or text) read a case at a time from its bytes
    (:func:`~agenteval_nb.io.evalset_split.split_evalset`: the same checks and models, a plain
    case validated straight from its bytes); None when it cannot be split or any part fails:
    the whole reading below names the problem as it always has."""
    read = read_bytes(src)
    if read is None:
        return None
    data, source = read
    try:
        streamed = split_evalset(data, source)
        if streamed is None:
            return None
        return check_evalset(streamed.evalset(), source, tree=False)
    except FormatError:
        return None


def _go_evalset(data: Any, source: str) -> tuple[Any, str]:
    """Eval set data in the Go format: google-adk / trpc-agent-python shapes converted."""
    if looks_like_adk_test(data):
        return adk_test_to_evalset(data, source, _stem(source)), source
    if looks_like_adk(data):
        return adk_to_evalset(data, source), source
    return data, source


def is_table_path(src: object) -> bool:
    """Whether ``src`` is a path (not JSON text) with a table suffix (:data:`TABLE_SUFFIXES`)."""
    if isinstance(src, str) and is_json_text(src):
        return False
    if not isinstance(src, (str, os.PathLike)):
        return False
    return Path(os.fspath(src)).suffix.lower() in TABLE_SUFFIXES


def _stem(source: str) -> str:
    """Eval set id for a converted ``.test.json``: the file name without its suffixes."""
    if source.startswith("<"):
        return "adk_test"
    name = Path(source).name
    for suffix in (".test.json", ".evalset.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or "adk_test"
    return name


def load_case(src: Source | EvalCase) -> EvalCase:
    """Load one eval case in the Go format (an object with ``evalId``), e.g. a stored row."""
    if isinstance(src, EvalCase):
        return src
    data, source = _read(src)
    return validate_model(EvalCase, data, source)


def load_metrics(src: Source | Iterable[EvalMetric]) -> list[EvalMetric]:
    """Load a metrics file: a JSON array of metrics; ``${VAR}`` in judgeModel is expanded.
    A list of metric models (or of models and dicts) meets the same depth and number rules.

    A google-adk / trpc-agent-python ``test_config.json`` is converted: ``{"criteria": {...}}``
    (:func:`agenteval_nb.adk.criteria_to_metrics`) and ``{"metrics": [...], "num_runs": N}``
    (:func:`agenteval_nb.adk.metrics_config_to_metrics`; ``num_runs`` is read by
    :func:`load_metrics_config`).
    """
    return load_metrics_config(src)[0]


def load_metrics_config(src: Source | Iterable[EvalMetric]) -> tuple[list[EvalMetric], int | None]:
    """The metrics of ``src`` (as :func:`load_metrics`) and the number of runs it asks for:
    ``num_runs`` of a ``{"metrics": [...], "num_runs": N}`` config, else None."""
    if isinstance(src, (list, tuple)) and all(isinstance(m, EvalMetric) for m in src):
        check_tree(list(src), OBJECT_SOURCE)
        return list(src), None
    data, source = _read(src)  # type: ignore[arg-type]
    num_runs = None
    prefix: tuple[str, ...] = ()
    if looks_like_metrics_config(data):
        prefix = ("metrics",)
        data, num_runs = metrics_config_to_metrics(data, source)
    elif looks_like_adk_config(data):
        data = criteria_to_metrics(data, source)
    if isinstance(data, dict):
        raise FormatError(
            source,
            "$",
            f"a JSON array of metrics, got an object that{kind_hint(data)}; an object is read "
            'as a test_config.json when it has a "metrics" array or a "criteria" object',
        )
    if not isinstance(data, list):
        raise FormatError(source, "$", f"a JSON array of metrics, got {json_type(data)}")
    return [
        item
        if isinstance(item, EvalMetric)
        else validate_model(EvalMetric, item, source, (*prefix, i))
        for i, item in enumerate(data)
    ], num_runs


def load_result(src: Source | EvalSetResult) -> EvalSetResult:
    """Load a result file as it is (also the legacy form: a JSON string holding the result).

    A document that is not a result (an eval set, a metrics array, any object without a result
    key) is a :class:`FormatError` saying what it looks like, never an empty result.
    """
    if isinstance(src, EvalSetResult):
        return src
    depth = MAX_DEPTH + RESULT_EXTRA_DEPTH
    data, source = _read(src, depth)
    if isinstance(data, str):
        data = decode_text(data, source, depth)
    check_kind("eval set result", data, source)
    return validate_model(EvalSetResult, data, source)


def save_evalset(evalset: EvalSet, path: str | os.PathLike[str]) -> Path:
    """Write an eval set file atomically."""
    return write_text_atomic(path, dumps(evalset))


def save_metrics(metrics: Iterable[EvalMetric], path: str | os.PathLike[str]) -> Path:
    """Write a metrics file (a JSON array) atomically; ``apiKey`` is never written."""
    return write_text_atomic(path, dumps(list(metrics)))


def save_result(result: EvalSetResult, path: str | os.PathLike[str]) -> Path:
    """Write a result file atomically, streaming one case result at a time."""
    return write_text_atomic(path, result_chunks(result))
