"""What :func:`agenteval_nb.io.as_source` makes of each form an eval set comes in."""

from __future__ import annotations

from _builders import evalset, trace_case

from agenteval_nb.io import CaseSource, ModelCases, as_source, load_evalset
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
