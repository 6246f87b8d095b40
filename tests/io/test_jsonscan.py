"""The vectorised pre-scan of ``decode_text`` never skips a document the exact checks would flag."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenteval_nb.errors import FormatError
from agenteval_nb.io import jsonscan
from agenteval_nb.io.decoding import decode_text
from agenteval_nb.io.jsonscan import MAYBE_HUGE, deeper_than, quick_scan

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=30,
)


@given(_json, st.integers(min_value=0, max_value=6))
def test_quick_scan_is_an_upper_bound(value, limit):
    text = json.dumps(value, ensure_ascii=False)
    scan = quick_scan(text, limit)
    if deeper_than(text, limit):
        assert scan.deep
    if MAYBE_HUGE.search(text):
        assert scan.exponent or scan.digits >= 200


def test_quick_scan_flags_each_kind():
    assert quick_scan("[" * 300 + "]" * 300, 256) == (True, False, 0, 0)
    assert quick_scan("[1e400]", 256)[1]
    assert quick_scan("[" + "1" * 250 + "]", 256).digits == 250
    assert quick_scan('{"a": 1e-05, "b": "x"}', 256)[:2] == (False, False)


@pytest.mark.parametrize(
    "text",
    [
        "[123456789012345678901234567890]",  # beyond 64 bits: stays an exact int
        '{"a": [0.123456789012345678901234, -123456789012345678901234]}',
        '["\\ud83d"]',  # a lone surrogate: orjson refuses, the stdlib reads it
        '{"a": 1.5e308, "b": [1, 2.5, -0, true, null], "c": "ü"}',
    ],
)
def test_bulk_decoder_reads_what_the_exact_decoder_reads(text):
    assert decode_text(text, "<text>") == json.loads(text)


@pytest.mark.parametrize("text", ["[1e999]", "[NaN]", "[Infinity]", "[" * 300 + "]" * 300])
def test_bulk_decoder_refuses_what_the_exact_decoder_refuses(text):
    with pytest.raises(FormatError):
        decode_text(text, "<text>")


@given(_json, st.integers(min_value=0, max_value=6), st.integers(min_value=1, max_value=9))
def test_depth_scan_is_exact_across_chunk_borders(value, limit, chunk):
    text = json.dumps(value, ensure_ascii=False)
    saved = jsonscan._SCAN_CHUNK
    jsonscan._SCAN_CHUNK = chunk
    try:
        assert quick_scan(text, limit).deep == deeper_than(text, limit)
    finally:
        jsonscan._SCAN_CHUNK = saved


def _digit_facts(text: str) -> tuple[bool, int, int]:
    """What the scan reports of digit runs, computed the slow, obvious way."""
    runs = list(re.finditer(r"[0-9]+", text))
    ints = [
        m
        for m in runs
        if not (m.start() > 0 and text[m.start() - 1] == ".")
        and not (m.end() < len(text) and text[m.end()] in ".eE")
    ]
    exponent = re.search(r"[0-9][eE][+0-9]", text) is not None
    longest = max((len(m.group()) for m in runs), default=0)
    return exponent, longest, max((len(m.group()) for m in ints), default=0)


@given(st.text(alphabet='0123456789.eE+-x"[', max_size=60))
def test_digit_runs_match_the_obvious_reading(text):
    scan = quick_scan(text, 256)
    assert (scan.exponent, scan.digits, scan.int_digits) == _digit_facts(text)
    assert jsonscan.short_digit_runs(text.encode()) == (_digit_facts(text)[2] < 20)


@given(
    st.lists(
        st.one_of(st.text(alphabet="0123456789", max_size=25), st.text(max_size=8)), max_size=12
    )
)
def test_the_long_digit_check_finds_every_run_of_twenty_digits(parts):
    data = "".join(parts).encode("utf-8", "surrogatepass")
    expected = re.search(rb"[0-9]{%d}" % jsonscan.EXACT_INT_DIGITS, data) is not None
    assert jsonscan.has_long_digits(data) == expected
    assert jsonscan.has_long_digits(b"x" + b"9" * 20 + b"y")
    assert not jsonscan.has_long_digits("1234567890１２３４５６７８９０1".encode())


@given(st.lists(st.integers(0, 400), max_size=4), st.text(max_size=6))
def test_the_huge_int_check_finds_every_run_of_309_digits(runs, between):
    text = between.join("7" * n for n in runs)
    expected = re.search(r"[0-9]{309}", text) is not None
    assert jsonscan.has_huge_int(text) == expected
    assert jsonscan.has_huge_int("1" * 309) and not jsonscan.has_huge_int("x" + "1" * 308)


@given(_json | st.sampled_from(["1e999", "-1E+400", "1" * 250 + "e99", "1e-999", "2e308"]))
def test_may_be_huge_is_an_upper_bound_of_maybe_huge(value):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if MAYBE_HUGE.search(text):
        assert jsonscan.may_be_huge(text.encode("utf-8", "surrogatepass"))


def test_may_be_huge_flags_each_shape():
    for huge in ("1e999", "[1E+400]", "1" * 200, "5" * 210 + "e99"):
        assert jsonscan.may_be_huge(huge.encode())
    for small in ("1e99", "1e-999", '{"e000": 1}', "1" * 199):
        assert not jsonscan.may_be_huge(small.encode())
