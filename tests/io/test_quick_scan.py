"""The vectorised pre-scan of ``_decode`` never skips a document the exact checks would flag."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agenteval_nb.io import _MAYBE_HUGE, _deeper_than, _quick_scan

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=30,
)


@given(_json, st.integers(min_value=0, max_value=6))
def test_quick_scan_is_an_upper_bound(value, limit):
    text = json.dumps(value, ensure_ascii=False)
    deep, huge = _quick_scan(text, limit)
    if _deeper_than(text, limit):
        assert deep
    if _MAYBE_HUGE.search(text):
        assert huge


def test_quick_scan_flags_each_kind():
    assert _quick_scan("[" * 300 + "]" * 300, 256) == (True, False)
    assert _quick_scan("[1e400]", 256) == (False, True)
    assert _quick_scan("[" + "1" * 250 + "]", 256) == (False, True)
    assert _quick_scan('{"a": 1e-05, "b": "x"}', 256) == (False, False)
