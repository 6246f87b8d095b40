"""The ipywidgets inspector in plain pytest: filters, selection, pagination, comparison."""

from __future__ import annotations

import sys

import pytest
from report_builders import build_run, case_result, synthetic_result

import agenteval_nb.widgets.inspector as inspector_module
from agenteval_nb.analysis.run import EvalRun
from agenteval_nb.render import HEURISTIC_LABEL
from agenteval_nb.widgets import inspect


def labels(w) -> list[str]:
    return [label for label, _ in w.list.options]


def test_import_is_light():
    """Importing the package does not import ipywidgets; building a widget does."""
    import subprocess

    code = (
        "import sys, agenteval_nb, agenteval_nb.widgets, agenteval_nb.report;"
        "print('ipywidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_failures_first_and_first_item_shown():
    w = inspect(build_run())
    assert labels(w) == [
        "✗ weather_bad · run 1 · 0",
        "✓ weather_bad · run 2 · 1",
        "✓ weather_ok · run 1 · 1",
        "✓ weather_ok · run 2 · 1",
    ]
    assert w.selected.eval_id == "weather_bad" and w.selected.run_id == 1
    assert "<style>" in w.detail.value and 'class="ae"' in w.detail.value
    assert "error: case failed" in w.detail.value
    assert HEURISTIC_LABEL in w.detail.value


def test_select_changes_detail():
    w = inspect(build_run())
    w.select("weather_ok", 2)
    assert w.selected.eval_id == "weather_ok" and w.selected.run_id == 2
    assert "session-weather_ok-2" in w.detail.value
    assert "error: case failed" not in w.detail.value
    # a user click on the list shows that item
    w.list.value = 0
    assert "session-weather_bad-1" in w.detail.value


def test_detail_is_the_shared_render():
    from agenteval_nb.render import render_case
    from agenteval_nb.render.case import metric_rubric_texts

    run = build_run()
    w = inspect(run)
    w.select("weather_bad", 1)
    case = run.result.eval_case_results[1]
    body = str(render_case(case, rubric_texts=metric_rubric_texts(run.metrics)))
    assert body in w.detail.value


def test_status_filter():
    w = inspect(build_run())
    w.filters.status.value = "failed"
    assert labels(w) == ["✗ weather_bad · run 1 · 0"]
    w.filters.status.value = "passed"
    assert len(labels(w)) == 3
    assert "error: case failed" not in w.detail.value
    w.filters.status.value = "not_evaluated"
    assert labels(w) == []
    assert "nothing matches" in w.detail.value


def test_metric_filter_sorts_by_metric_score():
    run = build_run()
    case = run.result.eval_case_results[0]  # weather_ok, run 1
    case.overall_eval_metric_results[2].eval_status = "failed"
    case.overall_eval_metric_results[2].score = 0.1
    w = inspect(run)
    assert "llm_verifier_pairwise" in [value for _label, value in w.filters.metric.options]
    w.filters.metric.value = "llm_verifier_pairwise"
    w.filters.status.value = "failed"
    assert [(e.eval_id, e.run_id) for e in w.items] == [("weather_ok", 1), ("weather_bad", 1)]
    assert "session-weather_ok-1" in w.detail.value


def test_run_filter_and_search():
    w = inspect(build_run())
    w.filters.run.value = 2
    assert [e.run_id for e in w.items] == [2, 2]
    w.filters.run.value = 0
    w.filters.search.value = "LYON"  # only the failing answer mentions Lyon
    assert [(e.eval_id, e.run_id) for e in w.items] == [("weather_bad", 1)]
    w.filters.search.value = "send_email"  # tool names are searched too
    assert len(w.items) == 1
    w.filters.search.value = "no such text"
    assert w.items == []


def test_select_clears_filters_that_hide_the_item():
    w = inspect(build_run())
    w.filters.status.value = "failed"
    w.select("weather_ok", 1)
    assert w.filters.status.value == ""
    assert w.selected.eval_id == "weather_ok"
    with pytest.raises(KeyError):
        w.select("missing")


def test_pagination_with_10k_cases(monkeypatch):
    calls = []
    real = inspector_module.render_case

    def counting(case, **kwargs):
        calls.append(case.eval_id)
        return real(case, **kwargs)

    monkeypatch.setattr(inspector_module, "render_case", counting)
    result = synthetic_result(10_000)
    w = inspect(EvalRun(result=result), page_size=50)
    assert len(w.items) == 10_000
    assert len(w.list.options) == 50
    assert w.num_pages == 200
    assert w.page_label.value == "page 1/200 · 10000 items"
    assert calls == ["case_00000"]  # only the selected (first failing) case was rendered
    assert all(label.startswith("✗") for label in labels(w))  # 2500 failures come first
    w.next_page()
    assert w.page == 1 and len(w.list.options) == 50
    assert len(calls) == 2
    w.go_to_page(199)
    assert all(label.startswith("✓") for label in labels(w))
    assert w.next_button.disabled and not w.prev_button.disabled
    assert len(calls) == 3
    w.select("case_00000")  # back to the first page: its detail comes from the cache
    assert w.page == 0 and w.selected.eval_id == "case_00000"
    assert len(calls) == 3 and w.render_count == 3


def test_cached_detail_is_not_rendered_twice(monkeypatch):
    calls = []
    real = inspector_module.render_case
    monkeypatch.setattr(
        inspector_module, "render_case", lambda case, **kw: calls.append(1) or real(case, **kw)
    )
    w = inspect(build_run())
    w.select("weather_ok", 1)
    w.select("weather_bad", 1)
    assert len(calls) == 2
    assert w.render_count == 2


def test_rejects_other_objects():
    with pytest.raises(TypeError):
        inspect(42)


# -- comparison ---------------------------------------------------------------------------------


@pytest.fixture
def runs() -> tuple[EvalRun, EvalRun]:
    a = build_run()
    b = build_run()
    # in B, weather_ok run 1 fails its trajectory metric: weather_ok flips on that metric
    b.result.eval_case_results[0] = case_result("weather_ok", 1, ok=False)
    return a, b


def test_comparison_flipped_first_side_by_side(runs):
    from agenteval_nb.analysis.compare import compare

    a, b = runs
    w = inspect(compare(a, b, labels=("base", "new")), run_a=a, run_b=b)
    assert [item.eval_id for item in w.items] == ["weather_ok", "weather_bad"]
    assert labels(w)[0].startswith("⇄ weather_ok")
    detail = w.detail.value
    assert '<div class="ae-side"><div><h3>base</h3>' in detail and "<h3>new</h3>" in detail
    assert detail.count('class="ae-case ') == 4  # two runs of weather_ok on each side
    w.filters.run.value = 1
    assert w.detail.value.count('class="ae-case ') == 2
    w.filters.status.value = "unchanged"
    assert [item.eval_id for item in w.items] == ["weather_bad"]
    w.filters.status.value = "flipped"
    assert [item.eval_id for item in w.items] == ["weather_ok"]


def test_comparison_from_a_pair_of_runs(runs):
    w = inspect(runs)
    assert w.items[0].eval_id == "weather_ok"
    assert "<h3>A</h3>" in w.detail.value


def test_inspect_of_a_comparison_uses_the_runs_it_holds(runs):
    from agenteval_nb.analysis.compare import compare

    w = inspect(compare(*runs))
    assert "<h3>A</h3>" in w.detail.value and "<h3>B</h3>" in w.detail.value


def test_comparison_without_runs_shows_the_diff_table(runs):
    from agenteval_nb.analysis.compare import compare

    cmp = compare(*runs)
    cmp.run_a = cmp.run_b = None
    w = inspect(cmp)
    assert "details need the runs" in w.detail.value
    assert "<th>diff (A − B)</th>" in w.detail.value


# -- the inspector is a widget --------------------------------------------------------------------


def test_inspect_returns_a_widget_that_fits_in_a_layout():
    import ipywidgets

    w = inspect(build_run())
    assert isinstance(w, ipywidgets.VBox)
    box = ipywidgets.HBox([w, ipywidgets.HTML("notes")])  # the user's own layout
    assert box.children[0] is w
    assert w.controller is w and w.widget is w  # the controller API is the widget's
    assert w.select("weather_ok", 2) is w
    assert w.selected.eval_id == "weather_ok"


def test_inspect_takes_a_result_file(tmp_path):
    from agenteval_nb.io import save_result

    path = save_result(build_run().result, tmp_path / "r.evalset_result.json")
    w = inspect(path)
    assert {item.eval_id for item in w.items} == {"weather_ok", "weather_bad"}
    with pytest.raises(TypeError, match=r"ae\.inspect takes a run"):
        inspect(["not", "a", "run"])
