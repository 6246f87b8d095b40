"""An eval set as a frame, read back to the same eval set."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenteval_nb as ae
from agenteval_nb.io.table_export import evalset_to_rows
from agenteval_nb.io.table_rows import evalset_from_rows


def _wire(es: ae.schema.EvalSet) -> dict:
    return es.to_wire()


_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_tools = st.none() | st.lists(
    st.fixed_dictionaries(
        {"name": _text, "arguments": st.dictionaries(_text, st.integers(-5, 5), max_size=2)}
    ),
    min_size=1,
    max_size=2,
)
_row = st.fixed_dictionaries(
    {
        "user": _text.filter(bool),
        "expected": st.none() | _text.filter(bool),
        "tools": _tools,
        "context": st.none() | _text.filter(lambda t: bool(t) and t.lstrip()[:1] != "["),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(_row, min_size=1, max_size=4),
    trace=st.booleans(),
    backend=st.sampled_from(["polars", "pandas"]),
)
def test_evalset_to_df_round_trips(rows, trace, backend):
    if trace:
        rows = [{**r, "actual": r["expected"], "actual_tools": r["tools"]} for r in rows]
    es = evalset_from_rows(rows, eval_set_id="rt")
    frame = ae.evalset_to_df(es, backend=backend)
    again = ae.evalset_from_df(frame, eval_set_id="rt")
    assert _wire(again) == _wire(es)
    assert evalset_to_rows(again) == evalset_to_rows(es)
