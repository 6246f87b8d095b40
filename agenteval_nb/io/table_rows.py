"""Eval sets from rows (mappings of column → cell), the form every table reader gives.

A row is a case; its cells are read by *role* — each role is a column, named by default as the
role (``columns=`` / keywords map a role to another column):

* ``id``: the case id (a string or an integer); missing ids are made from the row's content
  (:func:`stable_id`), so the same rows give the same ids on every load;
* ``user``: the user message (required unless ``turns`` is given);
* ``expected``: the reference answer; ``tools``: the expected tool calls, a list of
  ``{name, arguments}`` (JSON text accepted);
* ``context``: a system prompt (text) or a list of ``{role, content}`` messages (JSON text
  accepted), the case's ``contextMessages``;
* ``actual`` / ``actual_tools``: recorded answer and tool calls. When either column exists the
  eval set is in trace mode: the recorded turns are ``actualConversation``, the expectations
  (if any) ``conversation``, and no agent is needed;
* multi-turn: ``turns``, a list of turn objects ``{user, expected, tools, actual,
  actual_tools}`` (JSON text accepted); or one row per turn, grouped by ``id`` and sorted by an
  ``order`` column.

Every row is checked before the eval set is built; the bad ones are listed together in one
:class:`~agenteval_nb.errors.FormatError` naming the source, the row (1 = the first data row) and
the column (at most :data:`MAX_LISTED` of them). The built eval set then meets the entry rules
(:func:`~agenteval_nb.io.entry_rules.check_evalset`) like every other form. Each case gets the
session input converted files get (:func:`~agenteval_nb.adk.default_session_input`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..adk import default_session_input
from ..errors import FormatError
from ..schema import EvalSet
from .decoding import decode_text
from .documents import preview, validate_model
from .entry_rules import check_evalset

ROLES = ("id", "user", "expected", "tools", "context", "actual", "actual_tools", "turns", "order")
"""The roles a column can play (see the module)."""

MAX_LISTED = 20
"""Most bad rows listed in one error."""

TURN_KEYS = ("user", "expected", "tools", "actual", "actual_tools")
"""The keys of one turn object in a ``turns`` cell."""


@dataclass
class _Problems:
    """The bad cells found so far, as ``(where, expected)``."""

    source: str
    found: list[tuple[str, str]] = field(default_factory=list)

    def add(self, row: int, column: str, expected: str) -> None:
        self.found.append((f"row {row}, column {column!r}", expected))

    def raise_any(self) -> None:
        """A :class:`FormatError` listing every bad cell (up to :data:`MAX_LISTED`)."""
        if not self.found:
            return
        (where, expected), rest = self.found[0], self.found[1:MAX_LISTED]
        lines = [expected, *(f"\n  {w}: {e}" for w, e in rest)]
        if len(self.found) > MAX_LISTED:
            lines.append(f"\n  ({len(self.found)} bad cells, the first {MAX_LISTED} listed)")
        err = FormatError(self.source, where, "".join(lines))
        err.problems = list(self.found)  # type: ignore[attr-defined]
        raise err


# -------------------------------------------------------------------------------- cells


def _plain(value: Any) -> Any:
    """A cell as plain Python: NaN / NA → None; numpy scalars and arrays → Python values."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _json_cell(value: Any) -> Any:
    """A cell that may hold JSON text: decoded when it is a string that starts like JSON."""
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        return decode_text(value, "<cell>")
    return value


def _text(value: Any, *, required: bool) -> str | None:
    """A text cell: a string (an empty one counts as missing), or None when not required."""
    if value is None or value == "":
        if required:
            raise ValueError("a non-empty string (got nothing)")
        return None
    if not isinstance(value, str):
        raise ValueError(f"a string (got {preview(value)})")
    return value


def _tool_calls(value: Any) -> list[dict[str, Any]] | None:
    """A tools cell: a list of ``{name, arguments}`` (JSON text accepted), or None."""
    value = _json_cell(value)
    if value is None or value == "":
        return None
    if not isinstance(value, list):
        raise ValueError(f"a list of {{name, arguments}} (got {preview(value)})")
    calls = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f"a list of {{name, arguments}}; item {i} is {preview(item)}")
        call: dict[str, Any] = {"name": item["name"]}
        for key in ("id", "arguments", "result"):
            if item.get(key) is not None:
                call[key] = item[key]
        calls.append(call)
    return calls


def _context(value: Any) -> list[dict[str, Any]] | None:
    """A context cell: a system prompt, or a list of ``{role, content}`` (JSON text accepted)."""
    if isinstance(value, str) and value.lstrip()[:1] != "[":
        return [{"role": "system", "content": value}] if value else None
    value = _json_cell(value)
    if value is None:
        return None
    ok = isinstance(value, list) and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in value
    )
    if not ok:
        raise ValueError(f"a system prompt or a list of {{role, content}} (got {preview(value)})")
    return value


def _cell(problems: _Problems, row: int, column: str, read: Any, value: Any) -> Any:
    """``read(value)``, or None with the problem noted."""
    try:
        return read(value)
    except (ValueError, FormatError) as exc:
        text = exc.expected if isinstance(exc, FormatError) else str(exc)
        problems.add(row, column, text)
        return None


# -------------------------------------------------------------------------------- rows


def _message(role: str, text: str | None) -> dict[str, Any] | None:
    return None if text is None else {"role": role, "content": text}


def _turn(cells: Mapping[str, Any], trace: bool) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The expected invocation of one turn and, in trace mode, the recorded one."""
    user = _message("user", cells.get("user"))
    expected = {
        "userContent": user,
        "finalResponse": _message("assistant", cells.get("expected")),
        "tools": cells.get("tools"),
    }
    actual = None
    if trace:
        actual = {
            "userContent": user,
            "finalResponse": _message("assistant", cells.get("actual")),
            "tools": cells.get("actual_tools"),
        }
    return _drop_none(expected), None if actual is None else _drop_none(actual)


def _drop_none(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if v is not None}


def stable_id(cells: Mapping[str, Any]) -> str:
    """The id of a row without one: ``case-`` and 12 hex digits of a hash of its content."""
    text = json.dumps(cells, sort_keys=True, ensure_ascii=False, default=str)
    return "case-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_READERS = {
    "user": lambda v: _text(v, required=True),
    "expected": lambda v: _text(v, required=False),
    "actual": lambda v: _text(v, required=False),
    "tools": _tool_calls,
    "actual_tools": _tool_calls,
}


def _read_turns(value: Any) -> list[dict[str, Any]]:
    """A ``turns`` cell: a non-empty list of turn objects (or of user messages)."""
    value = _json_cell(value)
    if not isinstance(value, list) or not value:
        raise ValueError(f"a non-empty list of turns {{user, expected, …}} (got {preview(value)})")
    turns = []
    for i, turn in enumerate(value):
        turn = {"user": turn} if isinstance(turn, str) else turn
        if not isinstance(turn, dict):
            raise ValueError(f"a list of turn objects; turn {i} is {preview(turn)}")
        unknown = sorted(set(turn) - set(TURN_KEYS))
        if unknown:
            raise ValueError(f"turn keys among {', '.join(TURN_KEYS)}; turn {i} has {unknown}")
        try:
            turns.append({k: _READERS[k](turn.get(k)) for k in TURN_KEYS})
        except ValueError as exc:
            raise ValueError(f"turn {i}: {exc}") from None
    return turns


def _order(value: Any) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"an integer turn number (got {preview(value)})")
    return value


def _case_id(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if not isinstance(value, str):
        raise ValueError(f"a string or integer id (got {preview(value)})")
    return value


def evalset_from_rows(
    rows: Iterable[Mapping[str, Any]],
    columns: Iterable[str] | None = None,
    *,
    eval_set_id: str = "evalset",
    roles: Mapping[str, str | None] | None = None,
    source: str = "<frame>",
) -> EvalSet:
    """An eval set from rows (mappings of column → cell), roles read as the module says.

    ``roles`` maps a role to its column (a role left out, or None, reads the column named as
    the role when there is one). ``columns`` lists the table's columns (default: the keys of
    the first row). A column named in ``roles`` that the table lacks is a :class:`FormatError`.
    """
    rows = [{str(k): _plain(v) for k, v in row.items()} for row in rows]
    names = list(columns) if columns is not None else all_keys(rows)
    chosen = _columns(roles or {}, names, source)
    trace = "actual" in chosen or "actual_tools" in chosen
    if "user" not in chosen and "turns" not in chosen:
        raise FormatError(source, "columns", f"a 'user' or 'turns' column (columns: {names})")
    problems = _Problems(source)
    cases: dict[str, dict[str, Any]] = {}
    ordered: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for number, row in enumerate(rows, start=1):
        got = {role: row.get(column) for role, column in chosen.items()}
        eval_id = _cell(problems, number, chosen.get("id", "id"), _case_id, got.get("id"))
        if "turns" in chosen:
            turns = _cell(problems, number, chosen["turns"], _read_turns, got["turns"])
        else:
            turn = {
                role: _cell(problems, number, chosen[role], _READERS[role], got.get(role))
                for role in TURN_KEYS
                if role in chosen
            }
            turns = [turn]
        context = _cell(problems, number, chosen.get("context", ""), _context, got.get("context"))
        if eval_id is None:
            eval_id = stable_id(got)
        if "order" in chosen:
            position = _cell(problems, number, chosen["order"], _order, got["order"])
            if got.get("id") in (None, ""):
                problems.add(number, chosen.get("id", "id"), "an id (rows are grouped by id)")
            ordered.setdefault(eval_id, []).append((position or 0, number, turns and turns[0]))
            cases.setdefault(eval_id, {"context": context, "turns": []})
            continue
        if eval_id in cases:
            if "id" in chosen and got.get("id") not in (None, ""):
                problems.add(number, chosen["id"], f"a unique id ({eval_id!r} is used before)")
                continue
            eval_id = _unique(eval_id, cases)
        cases[eval_id] = {"context": context, "turns": turns or []}
    problems.raise_any()
    for eval_id, parts in ordered.items():
        cases[eval_id]["turns"] = [turn for _, _, turn in sorted(parts, key=lambda p: p[:2])]
    data = {
        "evalSetId": eval_set_id,
        "name": eval_set_id,
        "evalCases": [_case(i, c, trace, eval_set_id) for i, c in cases.items()],
    }
    return check_evalset(validate_model(EvalSet, data, source), source)


def all_keys(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every key of the rows, in first-seen order (rows may differ in their keys)."""
    return list(dict.fromkeys(str(k) for row in rows for k in row))


def _unique(eval_id: str, taken: Mapping[str, Any]) -> str:
    """``eval_id``, or ``eval_id-2``, ``-3`` … for a generated id that repeats (same content)."""
    n = 2
    while f"{eval_id}-{n}" in taken:
        n += 1
    return f"{eval_id}-{n}"


def _case(eval_id: str, parts: dict[str, Any], trace: bool, eval_set_id: str) -> dict[str, Any]:
    pairs = [_turn(turn, trace) for turn in parts["turns"]]
    case: dict[str, Any] = {"evalId": eval_id}
    if trace:
        case["evalMode"] = "trace"
    if parts["context"]:
        case["contextMessages"] = parts["context"]
    expected = [e for e, _ in pairs]
    has_expectation = any("finalResponse" in e or "tools" in e for e in expected)
    if not trace or has_expectation:
        case["conversation"] = expected
    if trace:
        case["actualConversation"] = [a for _, a in pairs]
    case["sessionInput"] = default_session_input(eval_set_id)
    return case


def _columns(roles: Mapping[str, str | None], names: list[str], source: str) -> dict[str, str]:
    """Role → column for the roles this table has; a column read for a role is named once in
    the table (a repeated name would keep one of its cells and lose the others)."""
    unknown = sorted(set(roles) - set(ROLES))
    if unknown:
        raise FormatError(source, "columns", f"roles among {', '.join(ROLES)} (got {unknown})")
    chosen = {}
    for role in ROLES:
        column = roles.get(role)
        if column is not None:
            if column not in names:
                raise FormatError(
                    source, f"column {column!r}", f"a column named {column!r} (columns: {names})"
                )
            chosen[role] = column
        elif role in names:
            chosen[role] = role
    for column in chosen.values():
        if names.count(column) > 1:
            expected = f"one column named {column!r} (the table has {names.count(column)})"
            raise FormatError(source, f"column {column!r}", expected)
    return chosen
