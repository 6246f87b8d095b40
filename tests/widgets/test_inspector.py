"""The ipywidgets inspector in plain pytest: filters, selection, pagination, comparison."""

from __future__ import annotations

import sys

import pytest
from report_builders import build_run, case_result, synthetic_result

import agenteval_nb.widgets.inspector as inspector_module
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.render import HEURISTIC_LABEL
from agenteval_nb.views import inspect


def labels(w) -> list[str]:
    """The table's rows of the page as ``status id · run N · score`` lines."""
    keys = [c["key"] for c in w.table.columns]
    rows = [dict(zip(keys, (text for text, _css in row), strict=True)) for row in w.table.rows]
    return [f"{r['status']} {r['id']} · run {r.get('run', '')} · {r['score']}" for r in rows]


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
    # a user click on a row of the table shows that item
    w.table.index = 0
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
    assert len(labels(w)) == 50
    assert w.num_pages == 200
    assert w.page_label.value == "page 1/200 · 10000 items"
    assert calls == ["case_00000"]  # only the selected (first failing) case was rendered
    assert all(label.startswith("✗") for label in labels(w))  # 2500 failures come first
    w.next_page()
    assert w.page == 1 and len(labels(w)) == 50
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
    from agenteval_nb.views import compare

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
    assert "<h3>first run</h3>" in w.detail.value


def test_inspect_of_a_comparison_uses_the_runs_it_holds(runs):
    from agenteval_nb.views import compare

    w = inspect(compare(*runs))
    assert "<h3>first run</h3>" in w.detail.value and "<h3>second run</h3>" in w.detail.value


def test_comparison_without_runs_shows_the_diff_table(runs):
    from agenteval_nb.views import compare

    cmp = compare(*runs)
    cmp.run_a = cmp.run_b = None
    w = inspect(cmp)
    assert "details need the runs" in w.detail.value
    assert "<th>diff (first run − second run)</th>" in w.detail.value


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


# -- sort, search, pages, static view, opening a case ------------------------------------------


def test_search_does_not_match_metric_names():
    w = inspect(build_run())
    w.filters.search.value = "llm_rubric"  # every case has this metric: it is not searched
    assert w.items == []


def test_field_scoped_search_and_score_range():
    w = inspect(build_run())
    w.filters.search.value = "tool:send_email"
    assert [(e.eval_id, e.run_id) for e in w.items] == [("weather_bad", 1)]
    w.filters.search.value = "reason:send_email"  # the tool name is in no reason
    assert w.items == []
    w.filters.search.value = "id:weather_ok"
    assert {e.eval_id for e in w.items} == {"weather_ok"}
    w.filters.search.value = "score:<0.5"
    assert [(e.eval_id, e.run_id) for e in w.items] == [("weather_bad", 1)]
    w.filters.search.value = "score:>=0.5 id:bad"
    assert [(e.eval_id, e.run_id) for e in w.items] == [("weather_bad", 2)]


def test_search_hits_are_marked_in_the_detail():
    w = inspect(build_run())
    w.filters.search.value = "lyon"
    assert '<mark class="ae-hit">Lyon</mark>' in w.detail.value
    w.filters.search.value = ""
    assert '<mark class="ae-hit">' not in w.detail.value


def test_sort_options():
    w = inspect(build_run())
    w.filters.sort.value = "id"
    assert [(e.eval_id, e.run_id) for e in w.items] == [
        ("weather_bad", 1),
        ("weather_bad", 2),
        ("weather_ok", 1),
        ("weather_ok", 2),
    ]
    w.filters.sort.value = "-score"
    assert [e.score for e in w.items][-1] == 0
    w.filters.sort.value = "score"
    assert (w.items[0].eval_id, w.items[0].run_id) == ("weather_bad", 1)


def test_metric_filter_labels_show_the_metric_status_and_score():
    run = build_run()
    case = run.result.eval_case_results[0]  # weather_ok, run 1: passes as a case
    case.overall_eval_metric_results[2].eval_status = "failed"
    case.overall_eval_metric_results[2].score = 0.1
    w = inspect(run)
    assert "✓ weather_ok · run 1 · 1" in labels(w)
    w.filters.metric.value = "llm_verifier_pairwise"
    assert "✗ weather_ok · run 1 · 0.1" in labels(w)


def test_table_rows_are_the_page_and_j_k_cross_pages():
    w = inspect(EvalRun(result=synthetic_result(25)), page_size=10)
    assert len(w.table.rows) == 10
    w.go_to_page(0, 9)
    w.table.send_event("key", "j")  # from the last row of a page: the next page's first
    assert w.page == 1 and w.selected is w.items[10] and w.table.index == 0
    w.table.send_event("key", "k")  # and back
    assert w.page == 0 and w.selected is w.items[9] and w.table.index == 9
    w.table.send_event("key", "k")
    assert w.selected is w.items[8]
    w.go_to_page(0, 0)
    w.table.send_event("key", "k")  # nothing before the first row: it stays
    assert w.selected is w.items[0]


def test_static_view_is_a_compact_summary():
    w = inspect(build_run())
    bundle = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    html = bundle["text/html"]
    assert "weather_set" in html and "✗ weather_bad · run 1 · 0" in html
    assert HEURISTIC_LABEL in html
    assert "VBox(" not in bundle["text/plain"]


def test_open_a_case_from_a_frame_row():
    run = build_run()
    cases = run.cases_df()
    row = cases[(cases.eval_id == "weather_ok") & (cases.run_id == 2)].iloc[0]
    w = inspect(run, case=row)
    assert (w.selected.eval_id, w.selected.run_id) == ("weather_ok", 2)
    w = inspect(run, case=("weather_bad", 2))
    assert (w.selected.eval_id, w.selected.run_id) == ("weather_bad", 2)
    first = next(run.cases_df(backend="polars").iter_rows(named=True))
    assert inspect(run, case=first).selected.eval_id == first["eval_id"]
    with pytest.raises(KeyError):
        inspect(run, case="missing")
    with pytest.raises(TypeError):
        inspect(run, case=3.5)


def test_header_flags_the_heuristic_judge_and_the_scripted_agent():
    from agenteval_nb.offline_flags import SCRIPTED_AGENT_LABEL
    from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL

    run = build_run()
    run.info["agent"] = f"OpenAIAgent({SCRIPTED_AGENT_MODEL})"
    header = inspect(run).children[0].value
    assert HEURISTIC_LABEL in header and SCRIPTED_AGENT_LABEL in header
    assert SCRIPTED_AGENT_LABEL not in inspect(build_run()).children[0].value


def test_comparison_shows_a_diff_of_the_answers(runs):
    a, b = runs
    w = inspect((a, b))
    assert "final answers: first run (left) vs second run (right)" in w.detail.value
    w.select("weather_bad")
    assert "<h3>A</h3>" not in w.detail.value
    assert {label for label, _ in w.filters.run.options} == {"all runs", "run 1", "run 2"}
