"""Plots return matplotlib Figures (no pyplot state) and render to deterministic SVG."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _analysis_builders import rich_run, scored_run
from matplotlib.figure import Figure

from agenteval_nb import plots
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import EvalSetResult
from agenteval_nb.views import compare


@pytest.fixture(scope="module")
def run() -> EvalRun:
    return rich_run()


def _all_figures(run: EvalRun) -> dict[str, Figure]:
    other = scored_run({"c1": [0.0], "c2": [1.0], "c3": [1.0]})
    return {
        "score_distribution": plots.score_distribution(run),
        "pass_rates": plots.pass_rates(run),
        "pass_at_k_curve": plots.pass_at_k_curve(run),
        "rubric_heatmap": plots.rubric_heatmap(run, metric="judge"),
        "label_distribution": plots.label_distribution(run, "c1", "verifier", 1, 0),
        "comparison_scatter": plots.comparison_scatter(
            compare(scored_run({"c1": [1.0], "c2": [0.0], "c3": [1.0]}), other)
        ),
    }


def test_every_plot_returns_a_figure_with_content(run):
    for name, fig in _all_figures(run).items():
        assert isinstance(fig, Figure), name
        assert fig.axes, name
        assert "no data" not in " ".join(t.get_text() for ax in fig.axes for t in ax.texts), name


def test_label_distribution_title_has_expected_scores_and_mass(run):
    fig = plots.label_distribution(run, "c1", "verifier")
    title = fig.axes[0].get_title()
    assert "A: E=0.980" in title and "B: E=0.880" in title and "valid mass 0.980" in title
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert len(heights) == 40 and sum(heights) == pytest.approx(2.0)


def test_pass_rates_bars_follow_summary(run):
    fig = plots.pass_rates(run)
    summary = run.summary_df(backend="polars")
    bars = [p.get_width() for p in fig.axes[0].patches]
    assert bars == pytest.approx(summary["pass_rate"].to_list())


def test_empty_inputs_give_a_no_data_figure():
    empty = EvalRun(result=EvalSetResult())
    figs = [
        plots.score_distribution(empty),
        plots.pass_rates(empty),
        plots.pass_at_k_curve(empty),
        plots.rubric_heatmap(empty),
        plots.label_distribution(empty, "x", "m"),
        plots.comparison_scatter(compare(empty, empty)),
    ]
    for fig in figs:
        assert isinstance(fig, Figure)
        assert any("no" in t.get_text() for ax in fig.axes for t in ax.texts)


def test_svg_is_deterministic(run):
    first = {name: plots.figure_to_svg(fig) for name, fig in _all_figures(run).items()}
    second = {name: plots.figure_to_svg(fig) for name, fig in _all_figures(run).items()}
    for name in first:
        assert first[name].startswith("<?xml"), name
        assert first[name] == second[name], name
        assert "<dc:date>" not in first[name], name
    fig = plots.rubric_heatmap(run)
    assert plots.figure_to_svg(fig) == plots.figure_to_svg(fig)


def test_import_is_light_and_plots_avoid_pyplot():
    code = (
        "import sys, agenteval_nb as ae\n"
        "assert 'matplotlib' not in sys.modules and 'polars' not in sys.modules\n"
        "import agenteval_nb.plots\n"
        "assert 'matplotlib' not in sys.modules\n"
        "sys.path.insert(0, 'tests/analysis')\n"
        "from _analysis_builders import rich_run\n"
        "run = rich_run()\n"
        "fig = ae.plots.pass_rates(run)\n"
        "ae.plots.figure_to_svg(fig)\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
    )
    from pathlib import Path

    root = Path(__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_every_plot_displays_as_an_image_without_an_inline_backend(run):
    """IPython's formatter (what Jupyter, voilà and nbval use) gets a PNG from every figure,
    with no ``%matplotlib inline`` and no pyplot."""
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    for name, fig in _all_figures(run).items():
        data, _metadata = formatter.format(fig)
        assert data.get("image/png", b"").startswith(b"\x89PNG"), name


def test_pass_rate_counts_sit_right_of_the_whiskers(run):
    summary = run.summary_df(backend="polars")
    ax = plots.pass_rates(run).axes[0]
    starts = [t.get_position()[0] for t in ax.texts]
    ends = summary["pass_rate_ci_high"].to_list()
    assert len(starts) == len(ends) == summary.height
    assert all(start > end for start, end in zip(starts, ends, strict=True))


def test_label_distribution_title_numbers_turns_from_one(run):
    fig = plots.label_distribution(run, "c1", "verifier", 1, 0)
    assert "turn 2" in fig.axes[0].get_title()
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["candidate A = the agent's answer", "candidate B = the reference answer"]


def test_comparison_scatter_spreads_coinciding_points():
    import numpy as np

    a = scored_run({f"c{i}": [1.0] for i in range(200)})
    b = scored_run({f"c{i}": [1.0] for i in range(200)})
    fig = plots.comparison_scatter(compare(a, b))
    offsets = np.concatenate([c.get_offsets() for c in fig.axes[0].collections])
    assert len(offsets) == 200
    assert len({tuple(np.round(p, 6)) for p in offsets}) == 200  # no two on the same spot
    assert np.abs(offsets - 1.0).max() <= plots.JITTER + 1e-9


def test_label_distribution_title_names_the_run_it_picked(run):
    fig = plots.label_distribution(run, "c1", "verifier")
    assert " · run 1 · " in fig.axes[0].get_title()
