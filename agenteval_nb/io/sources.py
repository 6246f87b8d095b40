"""Eval sets as case sources: a header, the case ids, and each case validated when it is used.

The engine reads cases through :class:`CaseSource`, so that a large eval set file is never one
model in memory. :func:`open_evalset` splits a Go-format file into its header and each case's
raw JSON (:class:`~agenteval_nb.io.evalset_split.StreamedCases`, which validates a case only
when :meth:`CaseSource.case` is called, as :func:`~agenteval_nb.io.loaders.load_evalset`
would). An
eval set model, a dict, or a file of another shape (google-adk, trpc-agent-python) is loaded
whole and served by :class:`ModelCases`. Both give a case as plain data too (``plain``: the
bulk path's input; a model's case as the data of its file text). A result file splits the same
way (:func:`open_result`).

Rules: every form meets the entry rules of :mod:`agenteval_nb.io.entry_rules` before any case
is used (:func:`as_source`): a model through :func:`~agenteval_nb.io.loaders.load_evalset`; a
streamed file by one scan of its bytes (a file that may break the depth or number rule is
loaded whole, so its error is the loader's) and its pre-read ``evalId``\\ s. A file that cannot
be split (not JSON, not an object, ``evalCases`` not an array of objects with string
``evalId``\\ s) is loaded whole too. A case that fails validation in a streamed set raises
:class:`~agenteval_nb.errors.FormatError` with the file and the JSON path below
``$.evalCases[i]`` when it is used (that case fails, the others run).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

import msgspec
from pydantic_core import PydanticSerializationError

from ..schema import CaseSummary, EvalCase, EvalCaseResult, EvalSet, EvalSetResult
from .decoding import decode_json, decode_plain
from .documents import check_kind, validate_json, validate_model, view_plain
from .entry_rules import MAX_DEPTH, RESULT_EXTRA_DEPTH
from .evalset_split import CASE_LEVELS, LIST, TOP, StreamedCases, split_evalset
from .jsonscan import short_digit_runs
from .loaders import Source, load_evalset, read_bytes


@runtime_checkable
class CaseSource(Protocol):
    """What the engine needs of an eval set: its id, header, case ids, and one case at a time."""

    @property
    def header(self) -> EvalSet:
        """The eval set without its cases (``evalCases`` empty)."""

    @property
    def eval_ids(self) -> list[str]:
        """The ``evalId`` of every case, in file order."""

    @property
    def app_name(self) -> str | None:
        """The first ``sessionInput.appName`` set on a case, if any."""

    def case(self, index: int) -> EvalCase:
        """The validated case at ``index``."""

    def evalset(self) -> EvalSet:
        """The whole eval set as one model (decodes every case)."""


@dataclass
class ModelCases:
    """A :class:`CaseSource` over an eval set model already in memory."""

    model: EvalSet
    header: EvalSet = field(init=False)
    eval_ids: list[str] = field(init=False)
    app_name: str | None = field(init=False)
    _cases: list[EvalCase] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._cases = [c for c in self.model.eval_cases or () if c is not None]
        self.eval_ids = [c.eval_id for c in self._cases]
        names = (c.session_input.app_name for c in self._cases if c.session_input)
        self.app_name = next((n for n in names if n), None)
        self.header = self.model.model_copy(update={"eval_cases": []})

    def case(self, index: int) -> EvalCase:
        return self._cases[index]

    def plain(self, index: int) -> Any:
        """Case ``index`` as plain data: its file text (what the file writer writes for it, so
        an edited model is read as edited) decoded as
        :meth:`~agenteval_nb.io.evalset_split.StreamedCases.plain` decodes a file's case;
        ``None`` when that text cannot be written or read back exactly."""
        case = self._cases[index]
        try:
            text = case.__pydantic_serializer__.to_json(case, by_alias=True, exclude_none=True)
        except PydanticSerializationError:  # (a lone surrogate, a value JSON cannot hold)
            return None
        return decode_plain(text, CASE_LEVELS)

    def evalset(self) -> EvalSet:
        return self.model


def as_source(src: Source | EvalSet | CaseSource) -> CaseSource:
    """``src`` as a case source that meets the entry rules: sources as they are (ours were
    checked when they were made; a caller's own :class:`CaseSource` is trusted), eval set models
    checked and wrapped, anything else through :func:`open_evalset`."""
    if isinstance(src, (ModelCases, StreamedCases)):
        return src
    if isinstance(src, EvalSet):
        return ModelCases(load_evalset(src))
    if isinstance(src, CaseSource):
        return src
    return open_evalset(src)


def open_evalset(src: Source | bytes) -> CaseSource:
    """A case source for an eval set path, JSON text or bytes (streamed when the file is in the
    Go format, :func:`~agenteval_nb.io.evalset_split.split_evalset`; else loaded whole)."""
    read = read_bytes(src)
    if read is None:
        return ModelCases(load_evalset(src))  # type: ignore[arg-type]
    streamed = split_evalset(*read)
    return streamed if streamed is not None else _whole(src, read[1])


def _whole(src: Source | bytes, source: str) -> ModelCases:
    if isinstance(src, bytes):
        src = src.decode("utf-8")
    return ModelCases(load_evalset(src if source.startswith("<") else Path(source)))  # type: ignore[arg-type]


@dataclass
class StreamedResult:
    """A result file split like a streamed eval set: the validated header (summary included,
    no case results), each case result's compact text, and each one's ``runId``. Nothing
    refers to the file's bytes: they are freed once it is split."""

    source: str
    head: EvalSetResult
    texts: list[bytes] = field(repr=False)
    run_ids: list[int | None] = field(repr=False)
    short_digits: bool = False
    summaries_raw: bytes | None = field(default=None, repr=False)
    """``summary.evalCaseSummaries`` as its text (``head.summary`` leaves it out)."""

    def text(self, index: int) -> bytes:
        return self.texts[index]

    def case_result(self, index: int) -> EvalCaseResult:
        """Case result ``index``, decoded and validated as
        :func:`~agenteval_nb.io.loaders.load_result` would (errors name the file and
        ``$.evalCaseResults[index]…``)."""
        prefix: tuple[int | str, ...] = ("evalCaseResults", index)
        depth = MAX_DEPTH + RESULT_EXTRA_DEPTH
        text = self.text(index)
        return validate_json(EvalCaseResult, text, self.source, prefix, depth, self.short_digits)

    def case_view(self, index: int) -> Any:
        """Case result ``index`` as its view struct when its text is plain
        (:func:`~agenteval_nb.io.documents.view_plain`: what :meth:`case_result` would hold,
        read through the same attribute names, no model built), else ``None``."""
        limit = MAX_DEPTH + RESULT_EXTRA_DEPTH - 2  # (below $.evalCaseResults[index])
        return view_plain(EvalCaseResult, self.text(index), limit, self.short_digits)

    def case_summaries(self) -> Iterator[CaseSummary]:
        """The summary's case summaries, validated one at a time."""
        if self.summaries_raw is None:
            return
        prefix: tuple[int | str, ...] = ("summary", "evalCaseSummaries")
        for i, raw in enumerate(LIST.decode(self.summaries_raw)):
            at = (*prefix, i)
            yield validate_json(
                CaseSummary, bytes(raw), self.source, at, MAX_DEPTH, self.short_digits
            )


class _RunKey(msgspec.Struct):
    runId: int | None = None


_RUN = msgspec.json.Decoder(_RunKey)


def open_result(src: Source | bytes) -> StreamedResult | None:
    """A result path, text or bytes split for streaming, or None when the document should be
    loaded whole (not a Go-format result object, or case results without a ``runId`` of 1 or
    more in a file without ``summary``: those are read as run 1 with a note, SPEC §8.6; with a
    summary, every case result needs a ``runId``). Without a ``summary`` (or with a null one)
    ``head.summary`` is None: the reader computes it from the case results.

    Memory: the file's bytes are freed (:func:`_split_result` returns) before each case
    result's text is cut from the compact case array, so the file and the texts are never
    held at once, and each text is an exact-size copy (formatting case by case leaves about a
    third of the texts' size in allocator slack: 311 MB for 243 MB of texts, measured at 100k
    case results)."""
    split = _split_result(src)
    if split is None:
        return None
    texts = [bytes(r) for r in LIST.decode(split.cases)]
    return StreamedResult(
        split.source, split.head, texts, split.run_ids, split.short_digits, split.summaries
    )


class _SplitResult(NamedTuple):
    """A result file split (see :func:`open_result`); nothing refers to the file's bytes."""

    source: str
    head: EvalSetResult
    cases: bytes
    """The case results as one JSON array without whitespace (every value written as it
    stands: an indented file's case result is about twice its compact text)."""
    run_ids: list[int | None]
    short_digits: bool
    summaries: bytes | None


def _split_result(src: Source | bytes) -> _SplitResult | None:
    """:func:`open_result` up to the case texts."""
    read = read_bytes(src)
    if read is None:
        return None
    data, source = read
    try:
        top = TOP.decode(data)
        raw = LIST.decode(top["evalCaseResults"])
        run_ids = [_RUN.decode(r).runId for r in raw]
        summary_raw = top.get("summary")
        has_summary = summary_raw is not None and bytes(summary_raw).strip() != b"null"
        summary = TOP.decode(summary_raw) if has_summary else {}  # type: ignore[arg-type]
        summaries_raw = summary.pop("evalCaseSummaries", None)
        if summaries_raw is not None:
            LIST.decode(summaries_raw)  # an array (or null), else the whole file's error
        cases = msgspec.json.format(top["evalCaseResults"], indent=-1)
    except (msgspec.DecodeError, msgspec.ValidationError, KeyError):
        return None  # not a Go-format result: loaded whole
    if any(r is None for r in run_ids) or (not has_summary and not all(run_ids)):
        return None
    depth = MAX_DEPTH + RESULT_EXTRA_DEPTH
    head_data = {
        k: decode_json(bytes(v), source, (k,), depth)
        for k, v in top.items()
        if k not in ("evalCaseResults", "summary")
    }
    if has_summary:
        head_data["summary"] = {
            k: decode_json(bytes(v), source, ("summary", k), depth) for k, v in summary.items()
        }
    check_kind("eval set result", {**head_data, "evalCaseResults": []}, source)
    head = validate_model(EvalSetResult, head_data, source)
    summaries = None if summaries_raw is None else bytes(summaries_raw)
    if summaries is not None and summaries.strip() == b"null":
        summaries = None
    return _SplitResult(source, head, cases, run_ids, short_digit_runs(data), summaries)
