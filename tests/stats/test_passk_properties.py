"""Property tests of the pass@k / pass^k identities (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.analysis.passk import (
    pass_at_k,
    pass_at_k_cases,
    pass_at_k_unbiased_per_case,
    pass_hat_k,
    pass_hat_k_cases,
    pass_hat_k_unbiased,
)

SETTINGS = settings(max_examples=300, deadline=None)


@st.composite
def nck(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int, int]:
    """(n, c, k) with 1 <= k <= n and 0 <= c <= n."""
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(0, n))
    k = draw(st.integers(1, n))
    return n, c, k


@SETTINGS
@given(nck())
def test_matches_exact_binomial_ratio(args: tuple[int, int, int]) -> None:
    n, c, k = args
    exact = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert pass_at_k_unbiased_per_case(n, c, k) == pytest.approx(exact, rel=1e-9, abs=1e-12)


@SETTINGS
@given(nck())
def test_reference_and_chen_forms_agree(args: tuple[int, int, int]) -> None:
    n, c, k = args
    assert pass_at_k_unbiased_per_case(n, c, k) == pytest.approx(
        pass_at_k(n, c, k), rel=1e-9, abs=1e-12
    )


@SETTINGS
@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_k1_is_pass_rate(args: tuple[int, int]) -> None:
    n, c = args
    assert pass_at_k(n, c, 1) == pytest.approx(c / n, rel=1e-9, abs=1e-12)
    assert pass_hat_k(n, c, 1) == pytest.approx(c / n, rel=1e-12)
    assert pass_hat_k_unbiased(n, c, 1) == pytest.approx(c / n, rel=1e-12)


@SETTINGS
@given(nck())
def test_monotone_in_k(args: tuple[int, int, int]) -> None:
    n, c, k = args
    if k < n:
        assert pass_at_k(n, c, k + 1) >= pass_at_k(n, c, k) - 1e-12
        assert pass_hat_k(n, c, k + 1) <= pass_hat_k(n, c, k) + 1e-12
        assert pass_hat_k_unbiased(n, c, k + 1) <= pass_hat_k_unbiased(n, c, k) + 1e-12


@SETTINGS
@given(nck())
def test_monotone_in_c(args: tuple[int, int, int]) -> None:
    n, c, k = args
    if c < n:
        assert pass_at_k(n, c + 1, k) >= pass_at_k(n, c, k) - 1e-12
        assert pass_hat_k(n, c + 1, k) >= pass_hat_k(n, c, k) - 1e-12
        assert pass_hat_k_unbiased(n, c + 1, k) >= pass_hat_k_unbiased(n, c, k) - 1e-12


@SETTINGS
@given(nck())
def test_bounds_and_ordering(args: tuple[int, int, int]) -> None:
    n, c, k = args
    at_k = pass_at_k(n, c, k)
    hat_plugin = pass_hat_k(n, c, k)
    hat_unbiased = pass_hat_k_unbiased(n, c, k)
    assert 0.0 <= at_k <= 1.0
    # C(c,k)/C(n,k) = Π (c−i)/(n−i) and (c−i)/(n−i) <= c/n whenever c <= n
    assert hat_unbiased <= hat_plugin + 1e-12
    # all k draws pass => at least one passes
    assert hat_unbiased <= at_k + 1e-12
    assert hat_unbiased == pytest.approx(math.comb(c, k) / math.comb(n, k), rel=1e-9, abs=1e-15)


@SETTINGS
@given(
    st.lists(
        st.integers(0, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        min_size=1,
        max_size=20,
    ),
    st.integers(1, 10),
)
def test_vectorised_matches_scalar(pairs: list[tuple[int, int]], k: int) -> None:
    n = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs])
    want_at = [pass_at_k_unbiased_per_case(a, b, k) for a, b in pairs]
    want_hat = [pass_hat_k_unbiased(a, b, k) for a, b in pairs]
    np.testing.assert_allclose(
        pass_at_k_cases(n, c, k), want_at, rtol=1e-9, atol=1e-12, equal_nan=True
    )
    np.testing.assert_allclose(
        pass_hat_k_cases(n, c, k), want_hat, rtol=1e-9, atol=1e-12, equal_nan=True
    )
