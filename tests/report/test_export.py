"""The single-file report: sections, no secrets, no external resources, limits, CLI."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_builders import build_run, many_cases_run, synthetic_result

import agenteval_nb as ae
from agenteval_nb.cli import main
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.io import save_result
from agenteval_nb.render import HEURISTIC_LABEL
from agenteval_nb.report.redact import REDACTED, redact
from agenteval_nb.views import export_html, report_html

SEED = (
    Path(__file__).parents[2]
    / "data/seeds/spec_examples"
    / "spec_examples_calc_trace_8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e.evalset_result.json"
)


class Elements(HTMLParser):
    """Every start tag with its attributes, and the ids."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(html)
    return parser.tags


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("report") / "report.html"
    written = export_html(build_run(), path, title="Weather <eval>")
    assert written == path
    return path.read_text(encoding="utf-8")


def test_sections_present(report):
    ids = {attrs.get("id") for _tag, attrs in elements(report)}
    assert {"header", "metrics", "summary", "pass-at-k", "plots", "cases", "details"} <= ids
    assert "<title>Weather &lt;eval&gt;</title>" in report


def test_header_lists_metrics_judges_and_heuristic_banner(report):
    header = report.split('<section id="summary">')[0]
    for name in ("tool_trajectory_avg_score", "llm_rubric_response", "llm_verifier_pairwise"):
        assert f"<code>{name}</code>" in header
    assert "openai/judge-model-x × 3 samples" in header
    assert 'id="heuristic-warning"' in header
    assert "1 of 4 judgements" in header and HEURISTIC_LABEL in header


def test_no_heuristic_banner_without_heuristic_scores(tmp_path):
    run = build_run()
    for case in run.result.eval_case_results:
        for per in case.eval_metric_result_per_invocation:
            for m in per.eval_metric_results:
                judge = (m.details.model_extra or {}).get("judge")
                if judge is not None:
                    judge.heuristic = False
    html = export_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="heuristic-warning"' not in html
    assert HEURISTIC_LABEL not in html


def test_api_key_never_written(report):
    assert "sk-SECRET-DO-NOT-SHOW" not in report
    assert "apiKey" not in report


def test_run_info_is_redacted(tmp_path):
    run = build_run()
    run.info["judge"] = {"apiKey": "sk-live-123", "headers": {"Authorization": "Bearer abc"}}
    html = export_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "sk-live-123" not in html and "Bearer abc" not in html
    assert REDACTED in html


def test_redact_keeps_ordinary_keys():
    assert redact({"max_tokens": 5, "apiKey": "x", "nested": [{"token": "t"}]}) == {
        "max_tokens": 5,
        "apiKey": REDACTED,
        "nested": [{"token": REDACTED}],
    }


def test_redact_reduces_endpoints():
    value = {"baseURL": "https://user:pw@judge.example:8443/v1?key=abc", "note": "sk-abcdef123"}
    assert redact(value) == {"baseURL": "judge.example:8443/v1", "note": REDACTED}


def test_summary_tables(report):
    summary = report.split('<section id="summary">')[1].split('<section id="plots">')[0]
    assert "50.0%" in summary and "9.5% – 90.5%" in summary  # run 1: 1 of 2 passed, Wilson
    assert "pass^k (unbiased)" in summary
    rows = re.findall(r'<tr><td class="ae-num">(\d+)</td><td class="ae-num">2</td>', summary)
    assert rows == ["1", "2"]  # pass@k for k = 1, 2


def _pass_at_k_section(html: str) -> str:
    return html.split('id="pass-at-k"')[1].split("</table>")[0]


def test_reference_pass_at_k_is_shown_with_its_whole_run_rule_when_a_run_passed_every_case():
    section = _pass_at_k_section(report_html(build_run()))  # run 2 passes both cases
    assert "reference pass@k (whole runs)" in section
    assert "a run passes only when all of its cases pass" in section
    assert "(n=2, c=1)" in section


def test_reference_pass_at_k_is_left_out_when_no_run_passed_every_case():
    section = _pass_at_k_section(report_html(many_cases_run(fails_every=3)))
    assert "reference pass@k (whole runs)" not in section
    assert "(n=2, c=0)" not in section
    assert "no run here did, so it is 0 for every k" in section


def test_plots_are_inline_svg(report):
    plots = report.split('<section id="plots">')[1].split('<section id="cases">')[0]
    assert plots.count("<svg") >= 3  # pass rates, score distribution, pass@k curve (+ rubrics)
    assert "chart not drawn" not in plots


def test_case_table_failures_first_with_links(report):
    cases = report.split('<section id="cases">')[1].split('<section id="details">')[0]
    statuses = re.findall(r'<span class="ae-badge ae-(\w+)">', cases)
    assert statuses == ["fail", "pass", "pass", "pass"]
    anchors = re.findall(r'<a href="#(case-\d+)">', cases)
    assert anchors == ["case-1", "case-2", "case-3", "case-4"]
    details = report.split('<section id="details">')[1]
    assert re.findall(r'<details class="ae-case-block" id="(case-\d+)">', details) == anchors


def test_details_match_widget_content(report):
    from agenteval_nb.render import render_case

    run = build_run()
    case = run.result.eval_case_results[1]  # weather_bad, run 1
    body = str(render_case(case, open_invocations=False))
    assert body.replace(' class="ae-pre"', "")[:200] in report.replace(' class="ae-pre"', "")


def test_no_external_resources(report):
    for tag, attrs in elements(report):
        assert tag not in {"script", "link", "img", "iframe", "object", "embed", "base"}
        for name, value in attrs.items():
            assert not name.startswith("on")
            if name in {"href", "xlink:href", "src"}:
                assert value.startswith("#") or value.startswith("data:image/png;base64,"), value
            assert "http:" not in (value or "") and "https:" not in (value or "")
    assert not re.search(r"url\((?!#)", report)
    assert "@import" not in report
    assert not re.search(r"https?://", report)


def test_output_is_deterministic(tmp_path):
    a = export_html(build_run(), tmp_path / "a.html").read_bytes()
    b = export_html(build_run(), tmp_path / "b.html").read_bytes()
    assert a == b


def test_max_cases_limits_details_with_a_note():
    run = EvalRun(result=synthetic_result(40))
    html = report_html(run, max_cases=5)
    assert html.count('<details class="ae-case-block"') == 5
    assert "Details are included for 5 of 40 case results" in html
    # the case table still lists every case, failures (every 4th case) first
    cases = html.split('<section id="cases">')[1].split('<section id="details">')[0]
    assert cases.count("<tr") == 41
    assert re.findall(r'<span class="ae-badge ae-(\w+)">', cases)[:10] == ["fail"] * 10
    assert "Details are included" not in report_html(run, max_cases=100)


def test_accepts_result_and_path(tmp_path):
    run = build_run()
    path = save_result(run.result, tmp_path / "r.evalset_result.json")
    from_path = export_html(path, tmp_path / "a.html").read_text(encoding="utf-8")
    from_result = export_html(run.result, tmp_path / "b.html").read_text(encoding="utf-8")
    assert "weather_bad" in from_path and "weather_bad" in from_result


def test_go_written_seed_file(tmp_path):
    html = export_html(SEED, tmp_path / "seed.html").read_text(encoding="utf-8")
    assert "calc_mul_wrong_args" in html
    assert "tool trajectory mismatch: match tools" in html
    assert "<del>42</del>" in html and "<ins>13</ins>" in html  # expected 42, agent said 13
    assert "http://localhost" not in html  # the judge baseURL is shown as host/path only
    assert "localhost:8000/v1" in html


def test_atomic_write_leaves_no_temp_files(tmp_path):
    export_html(build_run(), tmp_path / "r.html")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_cli_report(tmp_path, capsys):
    out = tmp_path / "out" / "report.html"
    assert main(["report", str(SEED), "-o", str(out), "--title", "Seed"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert "<title>Seed</title>" in out.read_text(encoding="utf-8")


def test_cli_report_missing_file(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_summary_failure_becomes_a_note(tmp_path, monkeypatch):
    import agenteval_nb.report.export as export

    def broken(run):
        raise RuntimeError("boom")

    monkeypatch.setattr(export, "metric_rows", broken)
    with pytest.warns(UserWarning, match="metric summary not computed"):
        html = report_html(build_run())
    assert "metric summary not computed: RuntimeError: boom" in html
    assert '<section id="details">' in html


def test_scripted_agent_banner(tmp_path):
    from agenteval_nb.offline_flags import SCRIPTED_AGENT_LABEL
    from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL
    from agenteval_nb.views import report_html

    run = build_run()
    assert 'id="scripted-agent-warning"' not in report_html(run)
    run.info["agent"] = f"OpenAIAgent({SCRIPTED_AGENT_MODEL})"
    html = report_html(run)
    assert 'id="scripted-agent-warning"' in html and SCRIPTED_AGENT_LABEL in html


def test_marks_from_the_review_file_beside_the_result_reach_the_report(tmp_path):
    path = build_run().save(tmp_path / "weather.evalset_result.json")
    ae.load_run(path).mark("weather_bad", 1, "pass", note="the judge is too strict")
    assert path.with_name("weather.evalset_result.review.json").exists()
    html = report_html(ae.load_run(path))  # loaded again: the marks come from the file
    assert 'id="agreement"' in html
    cases = html.split('<section id="cases">')[1].split('<section id="details">')[0]
    assert "pass — the judge is too strict" in cases
    assert 'id="agreement"' not in report_html(build_run())


def test_a_mapping_of_the_run_info_is_a_table_not_json(tmp_path):
    run = build_run()
    run.info["judge_usage"] = {"prompt_tokens": 1234, "completion_tokens": 56, "calls": 3}
    html = export_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    table = html.split('<table class="ae-kv ae-config-table" data-key="judge_usage">')[1]
    table = table.split("</table>")[0]
    assert '<tr><th>prompt_tokens</th><td class="ae-num">1234</td></tr>' in table
    assert '<tr><th>calls</th><td class="ae-num">3</td></tr>' in table
    assert '"prompt_tokens"' not in html


def test_a_float_of_the_run_info_is_shown_with_six_significant_digits(tmp_path):
    run = build_run()
    run.info["judge_usage"] = {"latency_s": 0.9392970410008274, "cost": 0.0011236, "calls": 3}
    html = export_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    table = html.split('data-key="judge_usage">')[1].split("</table>")[0]
    assert '<tr><th>latency_s</th><td class="ae-num">0.939297</td></tr>' in table
    assert '<tr><th>cost</th><td class="ae-num">0.0011236</td></tr>' in table
    assert '<tr><th>calls</th><td class="ae-num">3</td></tr>' in table
