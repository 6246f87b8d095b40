"""The entry rules: what an eval set or a metrics list must satisfy before any case runs.

An eval set comes as a file, JSON text, a dict or an :class:`~agenteval_nb.schema.EvalSet`
model; metrics as a file, text, dicts or models. Every form meets the same rules, checked up
front, so that nothing is evaluated and then lost at summary or save time. Each broken rule is a
:class:`~agenteval_nb.errors.FormatError` naming the source (the file, or ``<object>`` for data
in memory), the JSON path and what was expected:

* nesting at most :data:`MAX_DEPTH` arrays/objects deep: the loaders read no deeper, so a
  result that embeds deeper data would be written (with a warning) but never load again;
* numbers finite (Go cannot write NaN or infinity; they would be written as ``null``) and within
  the float64 range (such an int would be written as a string);
* every case has a non-empty ``evalId`` string: case results are keyed by it and the summary
  refuses an empty one (SPEC §8.6).

Text is held to the first two while it is decoded (:mod:`agenteval_nb.io.decoding`, with the
line); :func:`check_tree` holds Python data and models to them, with the same messages.
Unique ``evalId``\\ s are checked when runs are planned (:func:`agenteval_nb.engine.run.plan_runs`).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from .._gc import gc_paused
from ..errors import FormatError
from ..schema import EvalCase, EvalSet
from ..schema.base import wire_items
from .jsonscan import has_huge_digits

MAX_DEPTH = 256
"""Deepest nesting of arrays and objects accepted in an eval set or metrics file.

Go accepts 10000 levels; Python's decoder and pydantic stop near 1000, so a deeper document is
rejected at entry with a :class:`FormatError` rather than failing later. Result files may nest
:data:`RESULT_EXTRA_DEPTH` more, because they embed eval-set turns and metric criteria a few
levels deeper than the files those came from: every result written from accepted input loads
again.
"""
RESULT_EXTRA_DEPTH = 16

FLOAT64_MAX = int(sys.float_info.max)
"""The largest magnitude an int may have: Go reads every JSON number as a float64."""

OBJECT_SOURCE = "<object>"
"""The source named in errors about data given in memory (dicts, lists, models)."""


def json_path(loc: Iterable[int | str]) -> str:
    """A location as a JSON path: ``("evalCases", 1, "evalId")`` → ``$.evalCases[1].evalId``."""
    out = ["$"]
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}")
    return "".join(out)


def too_deep(limit: int) -> str:
    """What the depth rule expects."""
    return f"arrays/objects nested at most {limit} levels deep"


def out_of_range(literal: str) -> str:
    """What the number range rule expects, with the offending literal (shortened)."""
    shown = literal if len(literal) <= 40 else literal[:37] + "..."
    return f"a number within the float64 range (got {shown})"


def check_tree(
    data: Any, source: str, max_depth: int = MAX_DEPTH, at: tuple[int | str, ...] = ()
) -> None:
    """The depth and number rules for data given as Python objects: dicts, lists and models
    (walked by their wire keys, so a path reads as it would in the file). ``at``: where
    ``data`` stands in its document (its depth counts, paths start there).

    Raises :class:`FormatError` for a float that is NaN or infinite, an int outside the float64
    range, or nesting deeper than ``max_depth``. Iterative, so any depth is safe to check. A
    model whose wire data plainly keeps the rules (:func:`_plainly_kept`) is not walked.
    """
    if isinstance(data, BaseModel) and _plainly_kept(data, max_depth - len(at)):
        return
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(data, at, 1 + len(at))]
    while stack:
        value, loc, depth = stack.pop()
        if isinstance(value, BaseModel):
            value = wire_items(value)
        if isinstance(value, dict):
            items: Iterable[tuple[Any, Any]] = value.items()
        elif isinstance(value, (list, tuple)):
            items = enumerate(value)
        else:
            if isinstance(value, float) and not math.isfinite(value):
                raise FormatError(source, json_path(loc), f"a finite number (got {value})")
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > FLOAT64_MAX:
                raise FormatError(source, json_path(loc), out_of_range(str(value)))
            continue
        if depth > max_depth:
            raise FormatError(source, json_path(loc), too_deep(max_depth))
        for key, item in reversed(list(items)):
            if isinstance(item, (dict, list, tuple, float, int, BaseModel)):
                stack.append((item, (*loc, key), depth + 1))


def _plainly_kept(model: BaseModel, levels: int) -> bool:
    """True when ``model``'s wire data keeps the depth and number rules by a check at C speed:
    its JSON has at most ``levels`` brackets, no digit run as long as :data:`FLOAT64_MAX`'s
    (:func:`~agenteval_nb.io.jsonscan.has_huge_digits`), and no NaN or infinity — none when
    pydantic's JSON has no ``null`` (it writes them so), else the stdlib encoder writes the
    data refusing them. An upper bound: False (a bracket in a string, a value an encoder
    cannot write) leaves it to the exact walk."""
    try:
        text = model.__pydantic_serializer__.to_json(
            model, by_alias=True, exclude_none=True, warnings=False
        )
        if b"null" in text:
            dumped = model.model_dump(by_alias=True, exclude_none=True, warnings=False)
            encoded = json.dumps(dumped, allow_nan=False, ensure_ascii=False)
            text = encoded.encode("utf-8", "surrogatepass")
    except (PydanticSerializationError, ValueError, TypeError, RecursionError):
        return False
    brackets = text.count(b"[") + text.count(b"{")
    return brackets <= levels and not has_huge_digits(text)


def check_eval_ids(eval_ids: Iterable[object], source: str) -> None:
    """The ``evalId`` rule: case ``i`` (``$.evalCases[i].evalId``) has a non-empty string."""
    for i, eval_id in enumerate(eval_ids):
        if not isinstance(eval_id, str) or not eval_id:
            shown = json.dumps(eval_id, default=lambda v: type(v).__name__)[:40]
            raise FormatError(
                source,
                json_path(("evalCases", i, "evalId")),
                f"a non-empty evalId string (got {shown})",
            )


def check_evalset(evalset: EvalSet, source: str = OBJECT_SOURCE, *, tree: bool = True) -> EvalSet:
    """``evalset`` when it meets every entry rule (see the module), else a :class:`FormatError`.

    ``tree=False`` when its data was held to the depth and number rules already (decoded text,
    a checked dict). A model changed after it was built may hold a case that is not an
    :class:`EvalCase`: that is named too.
    """
    cases = evalset.eval_cases or []
    if tree:
        check_tree(evalset.model_copy(update={"eval_cases": None}), source)
        with gc_paused():  # each case's wire data is built, checked and dropped
            for i, case in enumerate(cases):
                check_tree(case, source, at=("evalCases", i))
    for i, case in enumerate(cases):
        if not isinstance(case, EvalCase):
            raise FormatError(
                source, json_path(("evalCases", i)), f"an eval case (got {type(case).__name__})"
            )
    check_eval_ids((case.eval_id for case in cases), source)
    return evalset
