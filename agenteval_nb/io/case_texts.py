"""A run's case results held compactly: the text each has in the result file, decoded on request.

A case result of a 100k-case run is tens of pydantic objects (judge prompts, tool traces,
both invocations of every turn); held as its file text it is one ``bytes`` object. The run's
frame tables are built from the models before they are encoded (:mod:`agenteval_nb.analysis
.record`), so the bytes are read again only when someone asks for a case: the inspector, the
report's detailed cases, ``run.result``, or the file written by ``run.save``.

Rule: a decoded case result equals what loading the saved file gives for that case (the wire
format: NaN and infinities are ``null``, an empty reason is absent).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import orjson
from pydantic import BaseModel

from ..schema import EvalCaseResult, EvalSetResult
from .atomic import write_text_atomic
from .documents import validate_json, validate_model
from .entry_rules import MAX_DEPTH, RESULT_EXTRA_DEPTH
from .gowriter import case_result_texts, result_file_chunks


class CaseDetails(Sequence[EvalCaseResult]):
    """Case results as their result-file text (UTF-8 bytes), in file order.

    ``details[i]`` decodes case result ``i`` (a new model each time);
    ``details.text(i)`` is its compact file text. ``encoded``: every text was written by
    :func:`~.gowriter.case_result_texts` (not read from a file), so saving only re-indents it.
    ``plain``: the indices of texts written from plain data (the bulk path): only the models'
    own keys and ints orjson reads exactly, so they are decoded without the loader's key
    folding and digit check, which could not change them.
    """

    __slots__ = ("_source", "_texts", "encoded", "plain")

    def __init__(
        self,
        texts: Iterable[bytes] = (),
        source: str = "<run>",
        encoded: bool = False,
        plain: Iterable[int] = (),
    ) -> None:
        self._texts = list(texts)
        self._source = source
        self.encoded = encoded
        self.plain = frozenset(plain)

    @classmethod
    def of(cls, results: Iterable[EvalCaseResult]) -> CaseDetails:
        """Encode case result models."""
        return cls(case_result_texts(list(results)), encoded=True)

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> EvalCaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[EvalCaseResult]: ...

    def __getitem__(self, index: int | slice) -> EvalCaseResult | list[EvalCaseResult]:
        if isinstance(index, slice):
            return [self._decode(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"case result {index} of {len(self)}")
        return self._decode(index)

    def __iter__(self) -> Iterator[EvalCaseResult]:
        return (self._decode(i) for i in range(len(self)))

    def text(self, index: int) -> bytes:
        """Case result ``index`` as it stands in the result file."""
        return self._texts[index]

    def _decode(self, index: int) -> EvalCaseResult:
        prefix: tuple[int | str, ...] = ("evalCaseResults", index)
        if index in self.plain:
            data = orjson.loads(self._texts[index])
            return validate_model(EvalCaseResult, data, self._source, prefix, fold=False)
        depth = MAX_DEPTH + RESULT_EXTRA_DEPTH
        return validate_json(EvalCaseResult, self._texts[index], self._source, prefix, depth)


def save_details(
    head: EvalSetResult,
    details: CaseDetails,
    path: str | os.PathLike[str],
    case_summaries: Iterable[BaseModel | dict[str, Any]] | None = None,
) -> Path:
    """Write the result file of ``head`` (a result without case results; its summary without
    case summaries when ``case_summaries`` supplies them) and ``details`` atomically; the
    texts are re-indented, nothing is validated."""
    texts = (details.text(i) for i in range(len(details)))
    chunks = result_file_chunks(head, texts, case_summaries, own_texts=details.encoded)
    return write_text_atomic(path, chunks)
