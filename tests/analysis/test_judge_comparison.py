"""The judge comparison record and its functions: Krippendorff's α, the Pareto front, the
cheapest acceptable judge, and the κ-vs-cost figure."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import polars as pl
import pytest

from agenteval_nb.analysis.agreement import krippendorff_alpha
from agenteval_nb.analysis.judge_comparison import (
    COMPARISON_SCHEMA,
    JudgeComparison,
    best_candidate,
    on_pareto_front,
)
from agenteval_nb.plots import figure_to_svg, judge_choice


def test_krippendorff_alpha_by_hand():
    # JUDGES.md §2: 1 − 132/420
    assert krippendorff_alpha([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 1]]) == pytest.approx(
        1 - 132 / 420, abs=1e-12
    )
    assert krippendorff_alpha([["p", "p"], ["p", "p"]]) == 1.0  # one value only
    assert math.isnan(krippendorff_alpha([["p"], [None, "f"]]))  # no unit with 2 ratings


@pytest.mark.parametrize("seed", range(5))
def test_krippendorff_alpha_equals_the_reference_package(seed):
    rng = np.random.default_rng(seed)
    raters, units = 4, 40
    data = rng.integers(0, 3, size=(raters, units)).astype(float)
    data[rng.random(size=data.shape) < 0.2] = np.nan  # missing ratings
    ours = krippendorff_alpha(
        [[None if math.isnan(v) else int(v) for v in data[:, u]] for u in range(units)]
    )
    reference = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert ours == pytest.approx(reference, abs=1e-9)


def table(rows):
    """A comparison table from (candidate, metric, κ, low, high, cost) rows."""
    full = []
    for candidate, metric, kappa, low, high, cost in rows:
        row = dict.fromkeys(COMPARISON_SCHEMA)
        row.update(
            candidate=candidate,
            metric_name=metric,
            kappa=kappa,
            kappa_ci_low=low,
            kappa_ci_high=high,
            cost_usd=cost,
        )
        full.append(row)
    return pl.DataFrame(full, schema=COMPARISON_SCHEMA, orient="row")


ROWS = [
    ("mini", "m", 0.70, 0.60, 0.80, 0.10),
    ("big", "m", 0.85, 0.78, 0.92, 2.00),
    ("mid", "m", 0.65, 0.50, 0.80, 0.50),  # dominated by mini: dearer and worse
    ("free", "m", 0.40, 0.20, 0.60, None),  # no price: never on the front
]


def comparison(rows=ROWS):
    t = table(rows)
    runs = dict.fromkeys(t["candidate"].unique(maintain_order=True).to_list())
    return JudgeComparison("human", t, pl.DataFrame(), runs)  # type: ignore[arg-type]


def test_pareto_front_per_metric():
    rows = [*ROWS, ("mid", "n", 0.9, 0.8, 1.0, 0.5), ("big", "n", 0.5, 0.4, 0.6, 2.0)]
    assert on_pareto_front(table(rows)) == [True, True, False, False, True, False]


def test_best_is_the_cheapest_acceptable_candidate():
    cmp = comparison()
    assert cmp.best() == "mini"
    assert best_candidate(cmp, min_kappa=0.8) == "big"
    assert best_candidate(cmp, min_kappa=0.95) is None
    # a qualifying candidate without a price ranks after the priced ones
    assert best_candidate(cmp, min_kappa=0.3) == "mini"
    assert best_candidate(comparison([ROWS[3]]), min_kappa=0.3) == "free"


def test_judge_choice_figure():
    fig = judge_choice(comparison())
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == ["big", "mid", "mini", "no price or κ: free"]
    (front,) = [line for line in ax.get_lines() if line.get_label() == "Pareto front"]
    assert list(front.get_xdata()) == [0.10, 2.00]
    svg = figure_to_svg(fig)
    assert svg == figure_to_svg(judge_choice(comparison()))
    empty = judge_choice(comparison(), metric="zz")
    assert [t.get_text() for t in empty.axes[0].texts] == ["no candidates"]


def test_candidates_on_one_point_share_one_label():
    rows = [
        ("heuristic", "m", 0.45, 0.0, 0.84, 0.002),
        ("panel", "m", 0.45, 0.0, 0.84, 0.002),
        ("flaky", "m", 0.33, 0.0, 1.0, 0.0003),
    ]
    labels = sorted(t.get_text() for t in judge_choice(comparison(rows)).axes[0].texts)
    assert labels == ["flaky", "heuristic, panel"]  # never two labels drawn over each other
