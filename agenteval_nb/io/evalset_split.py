"""An eval set file split into its header and each case's raw JSON, each case validated when used.

:func:`split_evalset` cuts a Go-format file's bytes in one fast pass (msgspec ``Raw``, no
objects built), pre-reads the ``evalId``\\ s and validates the header; :class:`StreamedCases`
serves the cases. Both the streamed source (:func:`~agenteval_nb.io.sources.open_evalset`) and
the whole-set loader (:func:`~agenteval_nb.io.loaders.load_evalset`) read a file this way.

Rules: a file is split only when it meets the entry rules by one scan of its bytes (no part may
nest deeper than :data:`~agenteval_nb.io.entry_rules.MAX_DEPTH` or hold a number beyond the
float64 range) and is in the Go format (an object whose ``evalCases`` is an array of objects
with string ``evalId``\\ s, no snake_case keys, no google-adk / trpc-agent-python cases);
otherwise :func:`split_evalset` returns ``None`` and the caller loads the whole document, whose
error names the problem. A case is validated by
:func:`~agenteval_nb.io.documents.validate_plain` straight from its bytes when it is plain,
else decoded and validated as the loader does; a failing case raises
:class:`~agenteval_nb.errors.FormatError` naming the file and the JSON path below
``$.evalCases[i]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from .._gc import gc_paused
from ..adk import looks_like_adk
from ..schema import EvalCase, EvalSet
from .decoding import decode_json, decode_plain
from .documents import check_kind, validate_model, validate_plain
from .entry_rules import MAX_DEPTH, check_eval_ids
from .jsonscan import scan_file

CASE_LEVELS = MAX_DEPTH - 2
"""Brackets a case may hold: it stands two levels deep (``$.evalCases[i]``)."""


@dataclass
class StreamedCases:
    """A :class:`~agenteval_nb.io.sources.CaseSource` over the raw case texts of one eval set
    file (see the module)."""

    source: str
    header: EvalSet
    eval_ids: list[str]
    app_name: str | None
    raw: list[msgspec.Raw] = field(repr=False)
    short_digits: bool = False
    """No digit run in the file is long enough for an int orjson would not keep exact."""
    _whole: EvalSet | None = field(default=None, init=False, repr=False)

    def case(self, index: int) -> EvalCase:
        if self._whole is not None:
            return self._whole.eval_cases[index]  # type: ignore[index]
        data = bytes(self.raw[index])
        found = validate_plain(EvalCase, data, CASE_LEVELS, self.short_digits)
        if found is not None:
            return found
        prefix: tuple[int | str, ...] = ("evalCases", index)
        decoded = decode_json(data, self.source, prefix, short_digits=self.short_digits)
        return validate_model(EvalCase, decoded, self.source, prefix)

    def plain(self, index: int) -> Any:
        """Case ``index`` decoded as plain data, when orjson reads it under the rules of
        :meth:`case` (same bytes, same values); else ``None`` (only :meth:`case` can tell)."""
        if self._whole is not None:
            return None
        return decode_plain(bytes(self.raw[index]), CASE_LEVELS, self.short_digits)

    def evalset(self) -> EvalSet:
        if self._whole is None:
            with gc_paused(keep=True):  # long-lived, acyclic models
                cases = [self.case(i) for i in range(len(self.raw))]
            self._whole = self.header.model_copy(update={"eval_cases": cases})
        return self._whole


class _SessionApp(msgspec.Struct):
    appName: str | None = None


class _CaseKeys(msgspec.Struct):
    """What is read of every case up front (other keys are skipped, not decoded)."""

    evalId: str
    sessionInput: _SessionApp | None = None


TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])
"""A JSON object's values, each as its raw text."""
LIST = msgspec.json.Decoder(list[msgspec.Raw])
"""A JSON array's items, each as its raw text."""
_KEYS = msgspec.json.Decoder(_CaseKeys)
_ADK_PROBE = 5
"""Cases decoded up front to tell a google-adk / trpc-agent-python file from a Go file."""


def split_evalset(data: bytes, source: str) -> StreamedCases | None:
    """Eval set file ``data`` split (see the module), or ``None``: load the whole document
    (also when ``data`` is not UTF-8, which the fast decoders may let through)."""
    if not _utf8(data):
        return None
    try:
        top = TOP.decode(data)
        raw = LIST.decode(top["evalCases"])
        keys = [_KEYS.decode(r) for r in raw]
    except (msgspec.DecodeError, msgspec.ValidationError, KeyError, RecursionError):
        return None  # (msgspec refuses nesting far beyond the depth rule)
    scan = scan_file(data, MAX_DEPTH, nesting=_may_nest_too_deep(top, raw))
    if scan.may_break_rules or "eval_cases" in top or "eval_set_id" in top:
        return None
    head = {k: decode_json(bytes(v), source, (k,)) for k, v in top.items() if k != "evalCases"}
    probe = [
        decode_json(bytes(r), source, ("evalCases", i)) for i, r in enumerate(raw[:_ADK_PROBE])
    ]
    if looks_like_adk({"evalCases": probe}):
        return None
    check_kind("eval set", {**head, "evalCases": []}, source)
    header = validate_model(EvalSet, head, source)
    ids = [k.evalId for k in keys]
    check_eval_ids(ids, source)
    names = (k.sessionInput.appName for k in keys if k.sessionInput is not None)
    app_name = next((n for n in names if n), None)
    return StreamedCases(source, header, ids, app_name, raw, scan.short_digits)


def _may_nest_too_deep(top: dict[str, msgspec.Raw], cases: list[msgspec.Raw]) -> bool:
    """Whether a part of a split eval set file may nest deeper than :data:`MAX_DEPTH`: a
    header value stands one level deep, a case two, and a part nests no deeper than it has
    brackets (counted at C speed, strings included: an upper bound)."""
    header = (value for key, value in top.items() if key != "evalCases")
    return any(_brackets(v) > MAX_DEPTH - 1 for v in header) or any(
        _brackets(r) > CASE_LEVELS for r in cases
    )


def _brackets(part: msgspec.Raw) -> int:
    text = bytes(part)
    return text.count(b"[") + text.count(b"{")


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text (no lone surrogate either): ASCII at C speed, else
    decoded once."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
