"""Figures of an experiment: leaderboard, score vs cost with its Pareto front, case × variant
heatmap (cases that separate the variants first)."""

from __future__ import annotations

import pytest
from test_experiment import IDS, A, errored, scored

from agenteval_nb import plots


@pytest.fixture(scope="module")
def runs():
    a = scored(A)
    a.info.update(agent_model="mini", agent_usage={"prompt_tokens": 1000})
    b = errored(IDS, 2)
    c = scored({eid: [1.0, 1.0] for eid in IDS})
    c.info.update(agent_model="mini", agent_usage={"prompt_tokens": 3000})
    for run, seconds in ((a, 2.0), (b, 1.0), (c, 3.0)):
        run.elapsed_s = seconds
    return {"A": a, "B": b, "C": c}


class Exp:
    """What the plots read of an experiment."""

    def __init__(self, runs, price_table=None):
        self.records = {name: run.record for name, run in runs.items()}
        self.num_runs = 2
        self.price_table = price_table


def test_leaderboard_lists_variants_best_first(runs):
    fig = plots.leaderboard(runs)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["C", "A", "B"]
    assert "svg" in plots.figure_to_svg(fig)[:200]


def test_cost_vs_score_marks_the_pareto_front(runs):
    fig = plots.cost_vs_score(Exp(runs, {"mini": (1.0, 1.0)}))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "cost"
    front = [line for line in ax.get_lines() if line.get_label() == "Pareto front"]
    # A: (0.001, 5/8), C: (0.003, 1.0), B: (0.0, 0.0) — all three on the front
    assert len(front) == 1
    assert list(front[0].get_xdata()) == pytest.approx([0.0, 0.001, 0.003])


def test_cost_vs_score_uses_time_when_nothing_is_priced(runs):
    ax = plots.cost_vs_score(runs).axes[0]
    assert ax.get_xlabel() == "wall-clock time (s)"
    # (time, pass rate): B (1, 0), A (2, 5/8), C (3, 1) — each better than the faster ones
    front = next(line for line in ax.get_lines() if line.get_label() == "Pareto front")
    assert list(front.get_xdata()) == [1.0, 2.0, 3.0]


def test_variant_heatmap_puts_separating_cases_first(runs):
    ax = plots.variant_heatmap({"A": runs["A"], "C": runs["C"]}).axes[0]
    # A: 1, .5, 0, 1; C: 1, 1, 1, 1 → spreads 0, .5, 1, 0 → c3, c2, then c1, c4 in order
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c3", "c2", "c1", "c4"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "C"]


def test_cost_vs_score_says_when_there_is_nothing_to_plot_against():
    fig = plots.cost_vs_score({"A": scored(A), "C": scored(A)})
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["no cost, latency or time recorded"]
