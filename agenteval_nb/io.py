"""Loading and saving eval sets, metrics and results.

Every loader accepts a path, JSON text, an already-decoded dict/list, or a model instance, and
raises :class:`~agenteval_nb.errors.FormatError` naming the source, the JSON path and what was
expected. Savers write atomically: a temporary file in the target folder, then a rename, so a
reader never sees half a file. Files are written like the Go framework writes them: 2-space
indent, trailing newline, ``<`` ``>`` ``&`` escaped; ``apiKey`` is never written.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ._gc import gc_paused
from .adk import adk_to_evalset, looks_like_adk
from .errors import FormatError
from .schema import EvalMetric, EvalSet, EvalSetResult
from .schema.keys import fold_keys

Source = str | os.PathLike[str] | dict[str, Any] | list[Any] | BaseModel
M = TypeVar("M", bound=BaseModel)

_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_GO_ESCAPE_TABLE = str.maketrans(_GO_ESCAPES)


def json_path(loc: Iterable[int | str]) -> str:
    """A location as a JSON path: ``("evalCases", 1, "evalId")`` → ``$.evalCases[1].evalId``."""
    out = ["$"]
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}")
    return "".join(out)


def _describe(error: dict[str, Any]) -> str:
    msg = error.get("msg", "invalid value")
    if error.get("type") == "missing":
        return "required field is missing"
    value = error.get("input")
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{msg[0].lower()}{msg[1:]} (got {shown})"


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


def _read(src: Source) -> tuple[Any, str]:
    """Decode ``src`` into plain JSON data and name its source for messages."""
    if isinstance(src, (dict, list)):
        return src, "<object>"
    if isinstance(src, str) and src.lstrip()[:1] in ("{", "[", '"'):
        return _decode(src, "<text>"), "<text>"
    path = Path(os.fspath(src))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(str(path), "$", "file not found") from None
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), "$", f"UTF-8 text ({exc.reason})") from None
    return _decode(text, str(path)), str(path)


class _NonStandardNumber(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonStandardNumber(name)


def _decode(text: str, source: str) -> Any:
    """Strict JSON: ``NaN`` and ``Infinity`` are rejected, as Go's decoder rejects them."""
    if not text.strip():
        raise FormatError(source, "$", "a JSON document, got an empty file", line=1)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise FormatError(
            source, "$", f"valid JSON: {exc.msg} at column {exc.colno}", line=exc.lineno
        ) from None
    except _NonStandardNumber as exc:
        found = re.search(rf"(?<![\w\"]){re.escape(str(exc))}", text)
        line = text.count("\n", 0, found.start()) + 1 if found else None
        raise FormatError(
            source, "$", f"valid JSON: {exc} is not a JSON number", line=line
        ) from None


def _validate(model: type[M], data: Any, source: str, prefix: tuple[int | str, ...] = ()) -> M:
    if not isinstance(data, dict):
        raise FormatError(source, json_path(prefix), f"a JSON object, got {_json_type(data)}")
    try:
        with gc_paused():
            return model.model_validate(fold_keys(model, data))
    except ValidationError as exc:
        raise _format_error(source, exc, prefix) from None


def _json_type(value: Any) -> str:
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


def load_evalset(src: Source | EvalSet) -> EvalSet:
    """Load an eval set (Go format, or the google-adk / trpc-agent-python shape, converted)."""
    if isinstance(src, EvalSet):
        return src
    data, source = _read(src)
    if looks_like_adk(data):
        data = adk_to_evalset(data, source)
    return _validate(EvalSet, data, source)


def load_metrics(src: Source | Iterable[EvalMetric]) -> list[EvalMetric]:
    """Load a metrics file: a JSON array of metrics; ``${VAR}`` in judgeModel is expanded."""
    if isinstance(src, (list, tuple)) and all(isinstance(m, EvalMetric) for m in src):
        return list(src)
    data, source = _read(src)  # type: ignore[arg-type]
    if isinstance(data, dict):
        raise FormatError(source, "$", "a JSON array of metrics, got an object")
    if not isinstance(data, list):
        raise FormatError(source, "$", f"a JSON array of metrics, got {_json_type(data)}")
    return [_validate(EvalMetric, item, source, (i,)) for i, item in enumerate(data)]


def load_result(src: Source | EvalSetResult) -> EvalSetResult:
    """Load a result file as it is (also the legacy form: a JSON string holding the result)."""
    if isinstance(src, EvalSetResult):
        return src
    data, source = _read(src)
    if isinstance(data, str):
        data = _decode(data, source)
    return _validate(EvalSetResult, data, source)


def dumps(model: BaseModel | list[BaseModel]) -> str:
    """File text of a model or list of models, written as the Go framework writes it."""
    if isinstance(model, list):
        body = json.dumps(
            [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in model],
            indent=2,
            ensure_ascii=False,
        )
    else:
        body = model.model_dump_json(by_alias=True, exclude_none=True, indent=2)
    return body.translate(_GO_ESCAPE_TABLE) + "\n"


def _indented(model: BaseModel) -> str:
    """A nested model's JSON, indented as it stands two levels deep in the file."""
    return model.model_dump_json(by_alias=True, exclude_none=True, indent=2).replace("\n", "\n  ")


def _result_chunks(result: EvalSetResult) -> Iterator[str]:
    """The result file text in pieces, one case result at a time (bounded memory).

    Every model is serialised by pydantic's encoder; the pieces concatenate to :func:`dumps`.
    """
    fields = [
        (field.alias or name, getattr(result, name))
        for name, field in type(result).model_fields.items()
    ]
    fields += list((result.model_extra or {}).items())
    first = True
    yield "{"
    for key, value in fields:
        if value is None:
            continue
        yield ("\n" if first else ",\n") + f"  {json.dumps(key)}: "
        first = False
        if key == "evalCaseResults" and isinstance(value, list):
            if not value:
                yield "[]"
                continue
            yield "["
            for j, case in enumerate(value):
                yield ("\n    " if j == 0 else ",\n    ") + _indented(case).replace("\n", "\n  ")
            yield "\n  ]"
        elif isinstance(value, BaseModel):
            yield _indented(value)
        else:
            yield json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    yield "\n}\n"


def write_text_atomic(path: str | os.PathLike[str], text: str | Iterable[str]) -> Path:
    """Write ``text`` (a string or string pieces) via a temp file in the same folder and a
    rename, so that readers never see a partial file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                for piece in text:
                    handle.write(piece.translate(_GO_ESCAPE_TABLE))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def save_evalset(evalset: EvalSet, path: str | os.PathLike[str]) -> Path:
    """Write an eval set file atomically."""
    return write_text_atomic(path, dumps(evalset))


def save_metrics(metrics: Iterable[EvalMetric], path: str | os.PathLike[str]) -> Path:
    """Write a metrics file (a JSON array) atomically; ``apiKey`` is never written."""
    return write_text_atomic(path, dumps(list(metrics)))


def save_result(result: EvalSetResult, path: str | os.PathLike[str]) -> Path:
    """Write a result file atomically, streaming one case result at a time."""
    return write_text_atomic(path, _result_chunks(result))
