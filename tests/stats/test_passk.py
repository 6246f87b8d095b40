"""pass@k / pass^k: SPEC §7 reference values, error order, and the research estimators."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from agenteval_nb.analysis.passk import (
    pass_at_k,
    pass_at_k_cases,
    pass_at_k_table,
    pass_at_k_unbiased_per_case,
    pass_hat_k,
    pass_hat_k_cases,
    pass_hat_k_unbiased,
)

# -- SPEC §7 / §11 values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 1, 2, 0.4),
        (10, 3, 5, 0.916667),
        (10, 0, 3, 0.0),  # c == 0
        (10, 8, 3, 1.0),  # n - c < k
        (4, 4, 4, 1.0),
    ],
)
def test_pass_at_k_reference_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=5e-7)


def test_pass_at_k_special_cases_are_exact() -> None:
    assert pass_at_k(10, 0, 3) == 0.0
    assert pass_at_k(10, 8, 3) == 1.0
    assert pass_at_k(1, 1, 1) == 1.0


def test_pass_hat_k_reference_values() -> None:
    assert pass_hat_k(10, 5, 2) == pytest.approx(0.25, abs=1e-15)
    assert pass_hat_k(10, 0, 2) == 0.0
    assert pass_hat_k(10, 10, 7) == 1.0
    # k > n is allowed for pass^k
    assert pass_hat_k(2, 1, 5) == pytest.approx(0.5**5)


def test_pass_hat_k_unbiased_reference_value() -> None:
    assert pass_hat_k_unbiased(10, 5, 2) == pytest.approx(0.2222, abs=5e-5)
    assert pass_hat_k_unbiased(10, 5, 2) == pytest.approx(2 / 9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 0, 1), "n must be >= 0"),
        ((-1, -1, 0), "n must be >= 0"),  # n checked before k and c
        ((3, 0, 0), "k must be >= 1"),
        ((3, -1, 0), "k must be >= 1"),  # k checked before c
        ((3, -1, 1), "c must be >= 0"),
        ((3, -1, 5), "c must be >= 0"),  # c checked before k > n
        ((3, 4, 1), "c cannot exceed n"),
        ((3, 4, 5), "c cannot exceed n"),  # c > n checked before k > n
        ((3, 1, 4), "k cannot exceed n"),
        ((0, 0, 1), "k cannot exceed n"),
    ],
)
def test_pass_at_k_errors_in_order(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        pass_at_k(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 0, 1), "n must be > 0"),
        ((-2, -1, 0), "n must be > 0"),
        ((3, 0, 0), "k must be >= 1"),
        ((3, -1, -1), "k must be >= 1"),
        ((3, -1, 1), "c must be >= 0"),
        ((3, 4, 1), "c cannot exceed n"),
    ],
)
def test_pass_hat_k_errors_in_order(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        pass_hat_k(*args)


def test_non_integer_arguments_are_rejected() -> None:
    with pytest.raises(TypeError):
        pass_at_k(5.0, 1, 2)  # type: ignore[arg-type]
    assert pass_at_k(np.int64(5), np.int32(1), 2) == pytest.approx(0.4)


# -- research estimators --------------------------------------------------------------------------


def test_per_case_pass_at_k_is_nan_with_too_few_runs() -> None:
    assert math.isnan(pass_at_k_unbiased_per_case(2, 1, 3))
    assert math.isnan(pass_at_k_unbiased_per_case(0, 0, 1))
    assert pass_at_k_unbiased_per_case(5, 1, 2) == pytest.approx(0.4)
    assert pass_at_k_unbiased_per_case(5, 4, 2) == 1.0
    assert pass_at_k_unbiased_per_case(5, 0, 2) == 0.0


def test_unbiased_pass_hat_k_edges() -> None:
    assert math.isnan(pass_hat_k_unbiased(2, 2, 3))
    assert pass_hat_k_unbiased(5, 1, 2) == 0.0  # c < k
    assert pass_hat_k_unbiased(5, 5, 5) == 1.0


@pytest.mark.parametrize(
    ("fn", "args", "message"),
    [
        (pass_at_k_unbiased_per_case, (-1, 0, 1), "n must be >= 0"),
        (pass_at_k_unbiased_per_case, (3, 0, 0), "k must be >= 1"),
        (pass_at_k_unbiased_per_case, (3, -1, 1), "c must be >= 0"),
        (pass_at_k_unbiased_per_case, (3, 4, 1), "c cannot exceed n"),
        (pass_hat_k_unbiased, (-1, 0, 1), "n must be >= 0"),
        (pass_hat_k_unbiased, (3, 0, 0), "k must be >= 1"),
        (pass_hat_k_unbiased, (3, -1, 1), "c must be >= 0"),
        (pass_hat_k_unbiased, (3, 4, 1), "c cannot exceed n"),
    ],
)
def test_research_estimator_errors(fn, args, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        fn(*args)


def test_array_versions_match_scalars() -> None:
    n = np.array([5, 10, 2, 0, 7, 7])
    c = np.array([1, 3, 1, 0, 7, 0])
    for k in (1, 2, 3):
        got = pass_at_k_cases(n, c, k)
        want = [pass_at_k_unbiased_per_case(int(a), int(b), k) for a, b in zip(n, c, strict=True)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
        got_hat = pass_hat_k_cases(n, c, k)
        want_hat = [pass_hat_k_unbiased(int(a), int(b), k) for a, b in zip(n, c, strict=True)]
        np.testing.assert_allclose(got_hat, want_hat, rtol=1e-12, atol=1e-12, equal_nan=True)
        plug = pass_hat_k_cases(n, c, k, unbiased=False)
        want_plug = [
            pass_hat_k(int(a), int(b), k) if a > 0 else math.nan for a, b in zip(n, c, strict=True)
        ]
        np.testing.assert_allclose(plug, want_plug, rtol=1e-12, equal_nan=True)


def test_array_versions_validate() -> None:
    with pytest.raises(ValueError, match=r"^c cannot exceed n$"):
        pass_at_k_cases([3, 2], [1, 3], 1)
    with pytest.raises(ValueError, match=r"^k must be >= 1$"):
        pass_hat_k_cases([3], [1], 0)
    with pytest.raises(ValueError, match="same shape"):
        pass_at_k_cases([3, 2], [1], 1)
    with pytest.raises(TypeError):
        pass_at_k_cases([3.0], [1.0], 1)


def test_table_shape_and_overall_row() -> None:
    table = pass_at_k_table(["a", "b", "c"], [10, 3, 1], [5, 1, 1], ks=[1, 2])
    lengths = {len(col) for col in table.values()}
    assert lengths == {8}  # (3 cases + 1 overall) x 2 ks
    assert table["level"] == ["case", "case", "case", "overall"] * 2
    assert table["case_id"] == ["a", "b", "c", None, "a", "b", "c", None]

    # k = 1: per-case c/n, overall = mean, se = sd/sqrt(3)
    per_case = [0.5, 1 / 3, 1.0]
    assert table["pass_at_k"][:3] == pytest.approx(per_case)
    assert table["pass_at_k"][3] == pytest.approx(np.mean(per_case))
    assert table["pass_at_k_se"][3] == pytest.approx(np.std(per_case, ddof=1) / math.sqrt(3))
    assert table["n_cases"][3] == 3

    # k = 2: case "c" has a single run, so its pass@2 is NaN and is left out of the mean
    assert math.isnan(table["pass_at_k"][6])
    assert table["n_cases"][7] == 2
    vals = [pass_at_k(10, 5, 2), pass_at_k(3, 1, 2)]
    assert table["pass_at_k"][7] == pytest.approx(np.mean(vals))
    assert table["pass_at_k_se"][7] == pytest.approx(np.std(vals, ddof=1) / math.sqrt(2))
    # the plug-in pass^k is defined for k > n, so all three cases count
    assert table["pass_hat_k_plugin"][7] == pytest.approx(np.mean([0.25, 1 / 9, 1.0]))


def test_table_single_case_has_nan_se() -> None:
    table = pass_at_k_table(["only"], [4], [2], ks=[1])
    assert table["pass_at_k"][1] == pytest.approx(0.5)
    assert math.isnan(table["pass_at_k_se"][1])


def test_table_rejects_misaligned_inputs() -> None:
    with pytest.raises(ValueError):
        pass_at_k_table(["a"], [4, 5], [2, 2], ks=[1])
