"""What :func:`agenteval_nb.io.as_source` makes of each form an eval set comes in."""

from __future__ import annotations

import pytest
from _builders import evalset, trace_case

from agenteval_nb.errors import FormatError
from agenteval_nb.io import (
    CaseSource,
    ModelCases,
    StreamedCases,
    as_source,
    load_evalset,
    open_evalset,
)
from agenteval_nb.io.entry_rules import MAX_DEPTH
from agenteval_nb.schema import EvalCase, EvalSet


class OwnCases:
    """A case source written outside the package (a database cursor, say)."""

    def __init__(self, model: EvalSet) -> None:
        self._cases = ModelCases(model)
        self.header = self._cases.header
        self.eval_ids = self._cases.eval_ids
        self.app_name = self._cases.app_name

    def case(self, index: int) -> EvalCase:
        return self._cases.case(index)

    def evalset(self) -> EvalSet:
        return self._cases.evalset()


def test_a_case_source_of_ones_own_is_used_as_it_is():
    own = OwnCases(load_evalset(evalset(trace_case("c1", ["a"], ["a"]))))
    assert isinstance(own, CaseSource)
    assert as_source(own) is own


def test_an_eval_set_model_and_a_dict_become_sources_of_the_same_cases():
    data = evalset(trace_case("c1", ["a"], ["a"]), trace_case("c2", ["b"], ["c"]))
    assert as_source(load_evalset(data)).eval_ids == ["c1", "c2"]
    assert as_source(data).eval_ids == ["c1", "c2"]


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _file_with(case_value: str = "1", header_value: str = "1") -> bytes:
    """A split-able eval set file whose case ``c1`` holds ``case_value`` under ``x`` and whose
    header holds ``header_value`` under ``meta`` (the document: ``{`` 1 deep, a header value
    2, ``evalCases`` 2, a case 3, a case's value 4)."""
    cases = [f'{{"evalId": "c1", "x": {case_value}}}']
    cases += [f'{{"evalId": "c{i}", "conversation": [[[]]]}}' for i in (2, 3)]
    return (
        f'{{"evalSetId": "s", "meta": {header_value}, "evalCases": [{",".join(cases)}]}}'.encode()
    )


@pytest.mark.parametrize("where", ["case", "header"])
def test_a_part_one_level_too_deep_fails_the_whole_file_when_it_is_opened(where):
    """The depth rule holds for a streamed file whatever its bracket count per part: a part
    one level past :data:`MAX_DEPTH` is the loader's error before any case is used."""
    too_deep = _nested(MAX_DEPTH - 2) if where == "case" else _nested(MAX_DEPTH)
    data = _file_with(**{f"{where}_value": too_deep})
    with pytest.raises(FormatError, match=f"nested at most {MAX_DEPTH} levels deep"):
        open_evalset(data)


def test_a_part_nested_right_at_the_limit_streams():
    data = _file_with(case_value=_nested(MAX_DEPTH - 3), header_value=_nested(MAX_DEPTH - 1))
    source = open_evalset(data)
    assert isinstance(source, StreamedCases)
    assert source.eval_ids == ["c1", "c2", "c3"]
