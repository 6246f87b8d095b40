"""ResultStore rules, run against every backend (SPEC §1.5, §1.7)."""

from __future__ import annotations

import re
import uuid

import pytest

from agenteval_nb.schema import EvalSetResult
from agenteval_nb.stores import NotFoundError, ResultStore, new_result_id


def _result(**fields: object) -> EvalSetResult:
    body: dict[str, object] = {
        "evalSetId": "math",
        "evalCaseResults": [
            {"evalSetId": "math", "evalId": "c1", "runId": 1, "finalEvalStatus": "passed"}
        ],
    }
    body.update(fields)
    return EvalSetResult.model_validate(body)


def _uuid_suffix(result_id: str, prefix: str) -> uuid.UUID:
    assert result_id.startswith(prefix)
    return uuid.UUID(result_id[len(prefix) :])


def test_backend_is_a_result_store(backend):
    assert isinstance(backend.results, ResultStore)


def test_save_fills_id_name_and_timestamp(backend, now):
    result = _result()
    result_id = backend.results.save("app", result)
    assert re.fullmatch(
        r"app_math_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", result_id
    )
    assert _uuid_suffix(result_id, "app_math_").version == 4
    stored = backend.results.get("app", result_id)
    assert stored.eval_set_result_id == result_id
    assert stored.eval_set_result_name == result_id
    assert stored.creation_timestamp == now
    assert stored.eval_case_results[0].final_eval_status == "passed"
    # the argument is left as it was
    assert result.eval_set_result_id is None
    assert result.eval_set_result_name is None
    assert result.creation_timestamp is None


def test_generated_ids_are_unique(backend):
    ids = {backend.results.save("app", _result()) for _ in range(5)}
    assert len(ids) == 5
    assert backend.results.list("app") == sorted(ids)


def test_save_keeps_given_id_name_and_timestamp(backend):
    result = _result(evalSetResultId="r-1", evalSetResultName="nightly", creationTimestamp=3.5)
    assert backend.results.save("app", result) == "r-1"
    stored = backend.results.get("app", "r-1")
    assert (stored.eval_set_result_name, stored.creation_timestamp) == ("nightly", 3.5)


def test_empty_strings_count_as_absent(backend):
    result_id = backend.results.save("app", _result(evalSetResultId="", evalSetResultName=""))
    assert result_id.startswith("app_math_")
    assert backend.results.get("app", result_id).eval_set_result_name == result_id


def test_save_overwrites_an_existing_id(backend):
    backend.results.save("app", _result(evalSetResultId="r"))
    backend.results.save("app", _result(evalSetResultId="r", evalCaseResults=[]))
    assert backend.results.get("app", "r").eval_case_results == []
    assert backend.results.list("app") == ["r"]


def test_save_accepts_a_wire_dict(backend):
    result_id = backend.results.save("app", {"evalSetId": "s", "evalSetResultId": "d"})
    assert result_id == "d"
    assert backend.results.get("app", "d").eval_set_id == "s"


@pytest.mark.parametrize(
    ("app", "result"),
    [("", _result()), ("app", _result(evalSetId="")), ("app", EvalSetResult())],
)
def test_save_requires_app_and_eval_set_id(backend, app, result):
    with pytest.raises(ValueError):
        backend.results.save(app, result)
    assert backend.results.list("app") == []


def test_get_missing_is_not_found(backend):
    with pytest.raises(NotFoundError):
        backend.results.get("app", "nope")
    with pytest.raises(KeyError):
        backend.results.get("app", "nope")
    with pytest.raises(FileNotFoundError):
        backend.results.get("app", "nope")


def test_list_is_per_app_and_sorted(backend):
    for result_id in ("b", "a", "c"):
        backend.results.save("app", _result(evalSetResultId=result_id))
    backend.results.save("other", _result(evalSetResultId="z"))
    assert backend.results.list("app") == ["a", "b", "c"]
    assert backend.results.list("other") == ["z"]
    assert backend.results.list("nobody") == []


def test_stored_result_is_a_deep_copy(backend):
    result = _result(evalSetResultId="r")
    backend.results.save("app", result)
    result.eval_case_results[0].final_eval_status = "failed"
    got = backend.results.get("app", "r")
    got.eval_case_results[0].final_eval_status = "failed"
    got.eval_case_results.clear()
    assert backend.results.get("app", "r").eval_case_results[0].final_eval_status == "passed"


def test_new_result_id_shape():
    result_id = new_result_id("app", "set")
    assert _uuid_suffix(result_id, "app_set_").version == 4
