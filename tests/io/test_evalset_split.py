"""The fast reading of an eval set file gives what the checked reading gives.

``validate_plain`` (pydantic-core straight from a case's bytes) is pinned to the checked path
(decode under the loader's rules, fold keys, validate); ``load_evalset`` of a file or text
(split, a case at a time) to ``load_evalset`` of the same data as a dict (decoded whole, keys
folded, every rule walked). Generated cases mix exact and other-case keys (Go's folding),
unknown keys, free-form JSON with big ints, odd floats and lone surrogates, and wrong types.
"""

from __future__ import annotations

import json
import random
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.errors import FormatError
from agenteval_nb.io.decoding import decode_json
from agenteval_nb.io.documents import validate_model, validate_plain
from agenteval_nb.io.evalset_split import CASE_LEVELS
from agenteval_nb.schema import EvalCase

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**22), max_value=10**22)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.1, -0.0, 1e308, 5e-324, 2.2250738585072011e-308, 1e16, 123456789.125])
    | st.text(max_size=6)
    | st.sampled_from(["\ud800", "a\udfffb", "é", "\u2028"])
)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=4) | st.sampled_from(["id", "Id", "a"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "model", ""]) | _scalars},
    optional={"content": st.text(max_size=6) | _scalars},
)
_tool = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=4),
        "name": st.sampled_from(["calc", "search"]),
        "arguments": _json,
        "result": _json,
    },
)
_invocation = st.fixed_dictionaries(
    {"invocationId": st.text(max_size=4)},
    optional={
        "userContent": _message,
        "finalResponse": _message,
        "tools": st.lists(_tool, max_size=2),
        "creationTimestamp": st.floats(allow_nan=False, allow_infinity=False) | st.integers(),
    },
)
_case = st.fixed_dictionaries(
    {"evalId": st.text(min_size=1, max_size=4)},
    optional={
        "evalMode": st.sampled_from(["trace", "", "other"]),
        "conversation": st.lists(_invocation, max_size=2) | st.none(),
        "actualConversation": st.lists(_invocation, max_size=2),
        "sessionInput": st.fixed_dictionaries(
            {}, optional={"appName": st.text(max_size=3), "userId": st.text(max_size=3)}
        ),
        "creationTimestamp": st.floats(allow_nan=False, allow_infinity=False) | st.integers(),
        "extraKey": _json,
    },
)


def _respelled(data: Any, rng: random.Random) -> Any:
    """``data`` with some keys in another case (Go folds them) — free-form values too."""
    if isinstance(data, list):
        return [_respelled(v, rng) for v in data]
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        if rng.random() < 0.15:
            key = key.upper() if rng.random() < 0.5 else key[:1].upper() + key[1:]
        out[key] = _respelled(value, rng)
    return out


def _text(data: Any, rng: random.Random) -> bytes:
    indent = rng.choice([None, 2])
    return json.dumps(data, indent=indent, ensure_ascii=rng.random() < 0.5).encode(
        "utf-8", "surrogatepass"
    )


def _same(fast: Any, slow: Any) -> None:
    """Equal models, down to the type and sign of every number (``==`` alone calls 1 and 1.0,
    0.0 and -0.0 equal)."""
    assert fast == slow
    assert repr(fast) == repr(slow)


def _checked(raw: bytes) -> EvalCase:
    prefix = ("evalCases", 0)
    return validate_model(EvalCase, decode_json(raw, "<t>", prefix), "<t>", prefix)


@settings(max_examples=200, deadline=None)
@given(_case, st.randoms(use_true_random=False))
def test_validate_plain_is_the_checked_path(case, rng):
    raw = _text(_respelled(case, rng), rng)
    fast = validate_plain(EvalCase, raw, CASE_LEVELS)
    if fast is None:
        return  # the checked path decides: nothing to pin
    _same(fast, _checked(raw))


def test_validate_plain_takes_a_plain_case_and_leaves_the_rest():
    case = {
        "evalId": "c1",
        "evalMode": "trace",
        "conversation": [{"invocationId": "i", "userContent": {"role": "user", "content": "q"}}],
        "sessionInput": {"appName": "a", "userId": "u"},
    }
    raw = json.dumps(case).encode()
    _same(validate_plain(EvalCase, raw, CASE_LEVELS), _checked(raw))
    for other in (
        {**case, "EvalMode": "trace"},  # folded by the checked path
        {**case, "note": 1},  # an unknown key: kept as an extra by the checked path
        {**case, "evalId": "\ud800"},  # orjson refuses the escape; the stdlib reads it
    ):
        assert validate_plain(EvalCase, json.dumps(other).encode(), CASE_LEVELS) is None
    assert validate_plain(EvalCase, raw, 3) is None  # more brackets than the depth left
    long_int = json.dumps({**case, "creationTimestamp": 10**20}).encode()
    assert validate_plain(EvalCase, long_int, CASE_LEVELS) is None


def _load(src: Any, split: bool = True) -> Any:
    """``load_evalset(src)``, or its error; ``split=False``: the whole reading only (as before
    the split reading existed)."""
    try:
        if split:
            return ae.load_evalset(src)
        with patch("agenteval_nb.io.loaders._split", return_value=None):
            return ae.load_evalset(src)
    except FormatError as exc:
        return ("error", str(exc))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_case, min_size=1, max_size=4),
    st.sampled_from(["evalSetId", "EvalSetID", "evalsetid"]),
    st.randoms(use_true_random=False),
)
def test_load_evalset_of_text_is_load_evalset_of_the_data(cases, set_key, rng):
    data = {set_key: "s", "name": "n", "evalCases": [_respelled(c, rng) for c in cases]}
    text = _text(data, rng).decode("utf-8", "surrogatepass")
    whole, split = _load(text, split=False), _load(text)
    if isinstance(whole, tuple):
        assert split == whole  # the same error: a failing split falls back to the whole reading
        return
    _same(split, whole)


def test_load_evalset_of_a_file_reads_plain_cases_fast(tmp_path, monkeypatch):
    """The split reading serves a plain file (a case the fast path cannot take is read the
    checked way, and the set is the same)."""
    cases = [
        {"evalId": "a", "conversation": [{"invocationId": "i"}]},
        {"evalId": "b", "Conversation": [{"invocationId": "j"}]},  # folded
    ]
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": cases}), encoding="utf-8")
    taken = []
    real = validate_plain

    def spy(model, raw, limit, short_digits=False):
        found = real(model, raw, limit, short_digits)
        taken.append(found is not None)
        return found

    monkeypatch.setattr("agenteval_nb.io.evalset_split.validate_plain", spy)
    loaded = ae.load_evalset(path)
    assert taken == [True, False]
    _same(loaded, _load(path, split=False))
    assert loaded.eval_cases[1].conversation[0].invocation_id == "j"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"evalSetId": "s\xff", "evalCases": [{"evalId": "a"}]}',
        b'{"evalSetId": "s", "evalCases": [{"evalId": "a", "x": "\xed\xa0\x80"}]}',
    ],
)
def test_a_file_that_is_not_utf8_is_refused_as_before(raw, tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    split, whole = _load(path), _load(path, split=False)
    assert split[0] == "error" and "UTF-8" in split[1]
    assert split == whole


@pytest.mark.parametrize(
    "text",
    [
        '{"evalSetId": "s", "evalCases": [{"evalId": "a", "conversation": 3}]}',
        '{"evalSetId": "s", "evalCases": [{"evalId": ""}]}',
        '{"evalCases": [{"evalId": "a"}]}',
    ],
)
def test_a_bad_file_names_the_problem_as_before(text, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    split, whole = _load(path), _load(path, split=False)
    assert split[0] == "error"
    assert split == whole
