"""Write the notebooks in notebooks/ from the cell lists below, then execute them in place.

    .venv/bin/pip install nbclient && .venv/bin/python tools/build_notebooks.py

Cells marked ``# NBVAL_CHECK_OUTPUT`` have their stored output compared by nbval in CI, so they
print only deterministic values (no paths, ids, times or addresses). nbval reads the marker only
on a line of its own, so it is the cell's first line (a trailing one is silently ignored).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NB = Path(__file__).resolve().parent.parent / "notebooks"

SETUP = """import agenteval_nb as ae
import pandas as pd
from pathlib import Path

pd.set_option("display.max_colwidth", 300)  # errors and reasons in full, not cut at 50

ROOT = Path.cwd() if (Path.cwd() / "data").is_dir() else Path.cwd().parent
DEMO = ROOT / "data" / "demo" / "demo_assistant"
RUNS = [DEMO / f"demo_run{i}.evalset.json" for i in (1, 2, 3)]"""

JUDGE_SERVER = '''import os
from agenteval_nb.testing import FakeOpenAIServer, heuristic_handler

# The offline heuristic judge (NOT an LLM) behind a loopback OpenAI-compatible server.
server = FakeOpenAIServer(handler=heuristic_handler).start()
os.environ["OPENAI_BASE_URL"] = server.base_url
os.environ["OPENAI_API_KEY"] = "offline"
os.environ["AGENTEVAL_JUDGE_MODEL"] = "agenteval-heuristic-judge"'''

NOTEBOOKS = {
    "01_quickstart": [
        (
            "md",
            "# Quickstart\n\nEvaluate three recorded runs of a small tool-using assistant "
            "(synthetic traces, see `data/README.md`) with the deterministic evaluators, look "
            "at the results as DataFrames, and inspect every case in a widget. Three core "
            "cells: load and evaluate, frames, inspect.",
        ),
        ("code", SETUP),
        (
            "md",
            "## 1. Evaluate\n\nA list of trace-mode eval sets that share case ids is "
            "evaluated as runs 1..N of one evaluation.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
run = ae.evaluate(RUNS, DEMO / "demo_deterministic.metrics.json", progress=False)
print(run.summary_text())""",
        ),
        (
            "md",
            "Three case results failed with an error, not a score: the case "
            "`onboarding_first_day_rubrics` carries case-level rubrics for the LLM metric "
            "`llm_rubric_response`, which this metrics file does not configure — the "
            "reference framework fails such a case, and so do we. Errors are never silent:",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
cases = run.cases_df()
cases[cases["error"].notna()][["run_id", "eval_id", "error"]]""",
        ),
        (
            "md",
            "## 2. Frames\n\nOne row per (run, case), per metric, per invocation … "
            '(`backend="polars"` for polars).',
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
metrics = run.metrics_df()
metrics.groupby("metric_name")["score"].mean().round(4)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
failing = run.invocations_df().query("status == 'failed'")
failing[["run_id", "eval_id", "invocation_index", "metric_name", "reason"]].head(5)""",
        ),
        (
            "md",
            "## 3. Inspect\n\nFailures first; filter by metric, status, run or text; the "
            "detail pane shows the user message, the aligned tool calls, the final answers "
            "and every metric's reason. The inspector is an `ipywidgets.VBox`: put it in your "
            "own layout, and drive it from code (`select`, `filters`, `next_page`).",
        ),
        (
            "code",
            """inspector = ae.inspect(run)
inspector""",
        ),
        (
            "md",
            "Open a case straight from a frame: pass a row (or an `eval_id`, or an "
            "`(eval_id, run_id)` pair) as `case=`. Here, the first case result that errored:",
        ),
        (
            "code",
            """errored = cases[cases["error"].notna()].iloc[0]
ae.inspect(run, case=errored)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
import ipywidgets

inspector.select("london_rain_wrong_tool", run_id=1)
print(isinstance(inspector, ipywidgets.Widget), "tool trajectory mismatch" in inspector.detail.value)""",
        ),
    ],
    "02_llm_judges": [
        (
            "md",
            "# LLM judges\n\nThe LLM evaluators (`llm_final_response`, rubric evaluators, "
            "`llm_hallucinations`, `llm_judge_template`, the verifier) call a judge through the "
            "`openai` client. Here the judge is the **offline heuristic judge** — a keyword "
            "heuristic, *not an LLM* — behind a loopback OpenAI-compatible server, so the whole "
            "judge path runs without network. Its results are labelled as such everywhere.",
        ),
        ("code", SETUP),
        ("code", JUDGE_SERVER),
        (
            "md",
            "The demo metrics file refers to `${OPENAI_BASE_URL}`, `${OPENAI_API_KEY}` and "
            "`${AGENTEVAL_JUDGE_MODEL}`; they are expanded when the file is loaded. The API key "
            "is never written to a file, frame, report or repr.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
metrics = ae.load_metrics(DEMO / "demo.metrics.json")
judged = [m for m in metrics if m.criterion.llm_judge is not None]
print([m.metric_name for m in judged])
print("API key shown in repr:", "offline" in repr(metrics))""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
cases = ["weather_paris_now", "meal_limit_hallucination", "onboarding_first_day_rubrics", "remote_work_reworded"]
run = ae.evaluate(RUNS[0], judged, case_ids=cases, cache=False, progress=False)
print(run.summary_text())""",
        ),
        (
            "md",
            "Every judge sample is kept: raw answer, parsed score, which sample the majority "
            "vote chose, cache hit, tokens and latency.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
samples = run.samples_df()
samples[["eval_id", "metric_name", "sample_index", "score", "status", "chosen", "cache_hit"]].head(8)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
run.rubrics_df()[["eval_id", "rubric_id", "score"]].head(6)""",
        ),
        ("md", "A re-run with the cache enabled makes no judge request the second time:"),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
import tempfile
cache_path = Path(tempfile.mkdtemp()) / "judge.sqlite"
first = ae.evaluate(RUNS[0], judged, case_ids=cases, cache=cache_path, progress=False)
before = server.request_count
again = ae.evaluate(RUNS[0], judged, case_ids=cases, cache=cache_path, progress=False)
print("requests on re-run:", server.request_count - before)""",
        ),
        (
            "md",
            "## A real endpoint\n\nPoint the metrics at any OpenAI-compatible endpoint by "
            "setting `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `AGENTEVAL_JUDGE_MODEL` before "
            "loading the metrics (or write them into `judgeModel`). Or pass `judge=` — any "
            "callable `judge(messages, structured_output=None)` returning a chat completion — "
            "to `ae.evaluate`; it then replaces every `judgeModel`.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
from agenteval_nb.testing import HeuristicJudge
direct = ae.evaluate(RUNS[0], judged[:1], case_ids=cases[:2], judge=HeuristicJudge(), progress=False)
print(direct.summary_text())""",
        ),
        ("code", "server.stop()"),
    ],
    "03_verifier": [
        (
            "md",
            "# The pairwise verifier\n\n`llm_verifier_pairwise` asks the judge to grade the "
            "agent's answer (candidate A) and the reference (candidate B) on 20 labels A (best) "
            "… T (worst) and reads the label probabilities from the token logprobs. "
            "agenteval_nb keeps the whole distribution for every judgement. The judge here is "
            "the offline heuristic judge (not an LLM), which returns synthetic logprobs.",
        ),
        ("code", SETUP),
        ("code", JUDGE_SERVER),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
metrics = ae.load_metrics(DEMO / "demo.metrics.json")
verifier = next(m for m in metrics if m.metric_name == "verifier_pairwise")
cases = ["weather_paris_now", "meal_limit_hallucination", "paris_wind_hallucination",
         "sales_tax_wrong_final"]
run = ae.evaluate(RUNS[0], [verifier], case_ids=cases, cache=False, progress=False)
print(run.summary_text())""",
        ),
        ("md", "One row per (invocation, candidate, label):"),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
lp = run.logprobs_df()
lp.groupby(["eval_id", "candidate"])["expected_score"].first().round(4)""",
        ),
        (
            "md",
            "The label distributions of the case where the two candidates differ most "
            "(largest gap between their expected scores): candidate A is the agent's answer, "
            "B the reference.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
expected = lp.groupby(["eval_id", "candidate"])["expected_score"].first().unstack()
case = (expected["A"] - expected["B"]).abs().idxmax()
print(case)""",
        ),
        (
            "code",
            """ae.plots.label_distribution(run, case, "verifier_pairwise")""",
        ),
        (
            "md",
            '## Position bias\n\n`extension.verifier.swap = "report"` also scores with the '
            'candidates swapped and records the gap; `"mean"` uses the mean of both orders.',
        ),
        (
            "code",
            """swapped = verifier.model_copy(update={"extension": {"verifier": {"swap": "report"}}})
run_swap = ae.evaluate(RUNS[0], [swapped], case_ids=cases, cache=False, progress=False)
rec = run_swap.logprobs_df()
print(sorted(rec.columns.intersection(["swapped_score", "swap_gap"])))""",
        ),
        (
            "md",
            "## Best of N\n\nPick the best of several candidate answers with round-robin "
            "pairwise comparisons (all n(n−1)/2 pairs); a failed attempt (an exception) "
            "loses to every passing one.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
question = "What is the weather in Paris right now?"
candidates = [
    "It is sunny in Paris, 21°C.",
    "Paris: sunny, 21°C, light wind from the west.",
    RuntimeError("agent timed out"),
]
pick = ae.best_of_n(question, candidates, [verifier], cache=False)
print(pick.index, pick.n_comparisons)
pick.candidates""",
        ),
        ("code", "server.stop()"),
    ],
    "04_pass_at_k_and_stats": [
        (
            "md",
            "# pass@k and statistics\n\nThree recorded runs of every case. The reference "
            "framework's pass@k counts passed runs of the whole eval set; per-case pass@k "
            "(Chen et al.) and the unbiased pass^k are what papers report.",
        ),
        ("code", SETUP),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
run = ae.evaluate(RUNS, DEMO / "demo_deterministic.metrics.json", progress=False)
n, c = ae.parse_pass_nc(run)
print(n, c, ae.pass_at_k(n, c, 1))""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
pk = run.pass_at_k_df(ks=(1, 2, 3))
pk[pk["eval_id"].isna()].round(4)""",
        ),
        ("code", "ae.plots.pass_at_k_curve(run)"),
        (
            "md",
            "Per-metric means with 95% confidence intervals (each case's runs averaged first) "
            "and pass rates with Wilson intervals:",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
run.summary_df().round(4)""",
        ),
        ("code", "ae.plots.pass_rates(run)"),
        (
            "md",
            "## Comparing two runs\n\nRun 1 against run 2 of the same cases: paired "
            "differences, McNemar's test on pass/fail, a seeded paired bootstrap.",
        ),
        (
            "code",
            """metrics = DEMO / "demo_deterministic.metrics.json"
run1 = ae.evaluate(RUNS[0], metrics, progress=False)
run2 = ae.evaluate(RUNS[1], metrics, progress=False)
cmp = ae.compare(run1, run2)
cmp""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
cmp.frame[cmp.frame["flipped"]][["eval_id", "metric_name", "score_a", "score_b"]].head(6)""",
        ),
        ("code", "ae.plots.comparison_scatter(cmp)"),
    ],
    "05_go_results": [
        (
            "md",
            "# Result files written by trpc-agent-go\n\n`ae.load_run` reads any "
            "`.evalset_result.json` the Go framework writes — current files, older ones "
            "without `summary` (it is computed), and the legacy form whose whole content is a "
            "JSON string — and gives the same frames, statistics and reports.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
import agenteval_nb as ae
from pathlib import Path

ROOT = Path.cwd() if (Path.cwd() / "data").is_dir() else Path.cwd().parent
SPEC = ROOT / "data" / "seeds" / "spec_examples"
files = sorted(p.name for p in SPEC.glob("*.evalset_result.json"))
print(files)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
runs = ae.load_run(SPEC)
print(len(runs))
current = ae.load_run(SPEC / files[-1])
print(current.summary_text())""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
current.cases_df()[["run_id", "eval_id", "status", "score"]]""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
older = ae.load_run(SPEC / "calc_trace_older_format.evalset_result.json")
print(older.result.summary.num_runs, older.result.summary.overall_status)
print(ae.parse_pass_nc(current))""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
import tempfile
report = current.to_html(Path(tempfile.mkdtemp()) / "go_result.html")
print(report.stat().st_size > 10_000)""",
        ),
    ],
    "06_run_an_agent": [
        (
            "md",
            "# Run an agent\n\nSo far every notebook scored *recorded* turns. Here the toolkit "
            "runs the agent under test itself: an `OpenAIAgent` — a tool-calling loop on the "
            "`openai` client — with two Python tools answers the default-mode cases of "
            "`data/demo/travel_agent`, three times, and the same metrics score what it did.\n\n"
            "Offline (the default), one loopback server plays the agent's model and the judge, "
            "and **neither is an LLM**: the *scripted agent model* calls tools by keyword and "
            "makes mistakes drawn per session (so runs differ), the *heuristic judge* scores "
            "by word overlap. Set `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AGENTEVAL_AGENT_MODEL` "
            "and `AGENTEVAL_JUDGE_MODEL` before starting the kernel to use real models.",
        ),
        (
            "code",
            """import itertools
import os
from pathlib import Path

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer, heuristic_handler, route_by_model
from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL
from agenteval_nb.testing.travel_agent import travel_model

ROOT = Path.cwd() if (Path.cwd() / "data").is_dir() else Path.cwd().parent
CASES = ROOT / "data" / "demo" / "travel_agent" / "travel_agent.evalset.json"
METRICS = ROOT / "data" / "demo" / "travel_agent" / "travel_agent.metrics.json"

if os.environ.get("OPENAI_BASE_URL") and os.environ.get("AGENTEVAL_AGENT_MODEL"):
    BASE_URL, MODEL, CAREFUL_MODEL = (os.environ["OPENAI_BASE_URL"],
                                      os.environ["AGENTEVAL_AGENT_MODEL"],
                                      os.environ["AGENTEVAL_AGENT_MODEL"])
else:  # offline: the scripted models (not LLMs) and the heuristic judge on one loopback server
    MODEL, CAREFUL_MODEL = SCRIPTED_AGENT_MODEL, "scripted-agent, careful (offline, not an LLM)"
    server = FakeOpenAIServer(handler=route_by_model({
        MODEL: travel_model(error_rate=0.25),
        CAREFUL_MODEL: travel_model(error_rate=0.05),
        "agenteval-heuristic-judge": heuristic_handler,
    })).start()
    BASE_URL = server.base_url
    os.environ.update(OPENAI_BASE_URL=BASE_URL, OPENAI_API_KEY="offline",
                      AGENTEVAL_JUDGE_MODEL="agenteval-heuristic-judge")""",
        ),
        (
            "md",
            "## 1. Two Python tools and an agent\n\nTool schemas come from the signatures and "
            "the first line of the docstring. Every call goes through the toolkit, so it is "
            "recorded (and can be mocked, notebook 07); a tool that raises answers the model "
            "with `error: <Type>: <message>`, as agents see errors.",
        ),
        (
            "code",
            '''WEATHER = {"Paris": ("partly cloudy", 18), "Tokyo": ("clear", 24), "London": ("light rain", 12),
           "Madrid": ("sunny", 27), "Oslo": ("snow", -3)}
RATES_TO_USD = {"USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067}


def get_weather(city: str) -> dict:
    """Current weather of a city: condition and temperature in °C."""
    if city not in WEATHER:
        raise KeyError(f"no weather station for {city!r}")
    condition, temp_c = WEATHER[city]
    return {"city": city, "condition": condition, "temp_c": temp_c}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict:
    """Convert an amount of money between currencies (USD, EUR, GBP, JPY)."""
    for code in (from_currency, to_currency):
        if code not in RATES_TO_USD:
            raise ValueError(f"unknown currency {code!r}")
    value = amount * RATES_TO_USD[from_currency] / RATES_TO_USD[to_currency]
    return {"amount": round(value, 2), "currency": to_currency}


SYSTEM = ("You are a travel assistant. Use get_weather for weather questions and "
          "convert_currency for money conversions; answer in one sentence.")
agent = ae.agents.OpenAIAgent(MODEL, tools=[get_weather, convert_currency],
                              system_prompt=SYSTEM, base_url=BASE_URL, name="travel assistant")
agent''',
        ),
        (
            "md",
            "## 2. Three runs\n\nCases run in parallel (`case_parallelism`), the turns of a case "
            "in order in one session. Session ids are drawn in case order; a fixed sequence "
            "makes the offline run reproducible (the scripted model draws its mistakes from "
            "the session id the agent sends).",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
def sessions(prefix):
    counter = itertools.count(1)
    return lambda: f"{prefix}-{next(counter)}"


run = ae.evaluate(CASES, METRICS, agent=agent, num_runs=3, cache=False, progress=False,
                  session_id_factory=sessions("demo"))
print(run.summary_text())""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
pk = run.pass_at_k_df(ks=(1, 2, 3))
pk[pk["level"] == "overall"][["k", "pass_at_k", "pass_hat_k_unbiased", "n_cases"]].round(4)""",
        ),
        (
            "md",
            "## 3. A failing tool trajectory\n\nThe reason names the call that differs; the "
            "inspector shows the captured tool calls with their arguments and results beside "
            "the expected ones.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
m = run.metrics_df()
failing = m[(m["metric_name"] == "tool_trajectory_avg_score") & (m["status"] == "failed")]
first = failing.iloc[0]
print(first["run_id"], first["eval_id"])
print(first["reason"])""",
        ),
        (
            "code",
            """inspector = ae.inspect(run)
inspector.select(first["eval_id"], int(first["run_id"]))
inspector""",
        ),
        (
            "md",
            "## 4. Compare two agent variants\n\nThe same agent on a more careful model, "
            "with the same session ids: `ae.compare` pairs every (case, run) and tests the "
            "difference.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
careful = ae.agents.OpenAIAgent(CAREFUL_MODEL, tools=[get_weather, convert_currency],
                                system_prompt=SYSTEM, base_url=BASE_URL, name="careful")
run_b = ae.evaluate(CASES, METRICS, agent=careful, num_runs=3, cache=False, progress=False,
                    session_id_factory=sessions("demo"))
cmp = ae.compare(run, run_b)
columns = ["metric_name", "n", "mean_diff", "ci_low", "ci_high", "n_flipped", "mcnemar_exact_p"]
print(cmp.stats[columns].round(4).to_string())""",
        ),
        (
            "code",
            """print(run.info["agent_usage"])  # tokens the agent's model reported
if "server" in globals():
    server.stop()""",
        ),
    ],
    "07_scenarios": [
        (
            "md",
            "# Scenarios: simulated users and tool mocks\n\nA `conversationScenario` case has "
            "no fixed user turns: a *simulated user* follows the case's conversation plan, "
            "reads the agent's replies and decides what to say next, until it sends the stop "
            "signal or reaches `maxAllowedInvocations` (SPEC §8.4). A `toolMock` rule answers a "
            "tool call with a fixed result (or a generated one) instead of running the tool, so "
            "bookings and payments stay reproducible (SPEC §8.3; mocks apply to static "
            "conversations, not to simulated ones).\n\nOffline, the simulated user is the "
            "*scripted user model* (it says the plan's steps one by one — **not an LLM**), the "
            "agent runs on the scripted agent model and the judge is the heuristic judge.",
        ),
        (
            "code",
            """import itertools
import os
from pathlib import Path

import agenteval_nb as ae
from agenteval_nb.testing import (FakeOpenAIServer, ScriptedUserModel, heuristic_handler,
                                  route_by_model, SCRIPTED_USER_MODEL)
from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL
from agenteval_nb.testing.travel_agent import book_hotel, search_flights, travel_model

ROOT = Path.cwd() if (Path.cwd() / "data").is_dir() else Path.cwd().parent
DATA = ROOT / "data" / "demo" / "travel_agent"
server = FakeOpenAIServer(handler=route_by_model({
    SCRIPTED_AGENT_MODEL: travel_model(error_rate=0.4),
    SCRIPTED_USER_MODEL: ScriptedUserModel(),
    "agenteval-heuristic-judge": heuristic_handler,
})).start()
os.environ.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="offline",
                  AGENTEVAL_JUDGE_MODEL="agenteval-heuristic-judge")""",
        ),
        (
            "md",
            "## The eval set\n\nTwo trips planned step by step, and one static turn whose "
            "`book_hotel` call is mocked (the rule matches any call for Oslo, whatever the "
            "number of nights). The case-level rubrics are added to the `booking_rubrics` "
            "metric for that case only.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
cases = ae.load_evalset(DATA / "travel_scenarios.evalset.json")
for case in cases.eval_cases:
    plan = case.conversation_scenario.conversation_plan if case.conversation_scenario else None
    print(case.eval_id, "|", plan or "static turn with toolMock: " + case.conversation[0].user_content.content)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
agent = ae.agents.OpenAIAgent(SCRIPTED_AGENT_MODEL, tools=[search_flights, book_hotel],
                              base_url=server.base_url, name="booking assistant")
simulator = ae.agents.LLMUserSimulator(SCRIPTED_USER_MODEL, base_url=server.base_url)
counter = itertools.count(1)
run = ae.evaluate(cases, DATA / "travel_scenarios.metrics.json", agent=agent,
                  user_simulator=simulator, num_runs=3, cache=False, progress=False,
                  session_id_factory=lambda: f"trip-{next(counter)}")
print(run.summary_text())""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
pk = run.pass_at_k_df(ks=(1, 2, 3))
pk[pk["level"] == "overall"][["k", "pass_at_k", "pass_hat_k_unbiased", "n_cases"]].round(4)""",
        ),
        (
            "md",
            "## One simulated conversation, turn by turn\n\nEvery user turn below was written "
            "by the simulator (the captured invocations carry `simulated_user`); the agent's "
            "tool calls are recorded as it made them.",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
trip = next(r for r in run.result.eval_case_results if r.eval_id == "trip_paris_oslo")
for i, turn in enumerate(trip.eval_metric_result_per_invocation, 1):
    actual = turn.actual_invocation
    print(f"turn {i} simulated user: {actual.user_content.content}")
    for tool in actual.tools or ():
        print(f"         tool {tool.name}({tool.arguments}) -> {tool.result}")
    print(f"         agent: {actual.final_response.content}")""",
        ),
        (
            "md",
            "## The mocked call\n\nThe booking never reached the real `book_hotel`: the "
            "recorded call says which rule answered it (also shown in the inspector and the "
            "report as *mocked*).",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
mocked = next(r for r in run.result.eval_case_results if r.eval_id == "hotel_mocked")
call = mocked.eval_metric_result_per_invocation[0].actual_invocation.tools[0]
print(call.name, call.arguments, "->", call.result, "| mock:", call.mock)""",
        ),
        (
            "code",
            """inspector = ae.inspect(run)
inspector.select("trip_paris_oslo", 1)
inspector""",
        ),
        ("code", "server.stop()"),
    ],
    "09_review": [
        (
            "md",
            """# Reviewing results like a researcher

A judge's verdict is only worth as much as its agreement with people. This notebook walks through a review of the demo run: open it in the inspector, record human marks (from code here; in the widget the keys `p`/`f`/`u` and `n` do the same), read the marks back as a frame, see them survive a reload, combine two reviewers, and measure how often the judges agree with the humans.

The judge is the **offline heuristic judge** (a keyword heuristic, *not an LLM*), passed in as `judge=`, so everything runs without network. Every file goes to a temporary folder.""",
        ),
        ("code", SETUP),
        (
            "code",
            """import shutil
import tempfile

from agenteval_nb.testing import HeuristicJudge

WORK = Path(tempfile.mkdtemp(prefix="ae-review-"))  # nothing is written into the repository""",
        ),
        (
            "md",
            """## 1. The run under review

Eight recorded cases of the demo assistant, scored by an LLM judge of the final answer (three samples per turn, so the judge's own consistency can be measured too) and by the pairwise verifier. The result is saved to a file: marks are kept in a review file beside it.""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
metrics = ae.load_metrics(DEMO / "demo.metrics.json")
judged = [m for m in metrics if m.metric_name in ("llm_final_response", "verifier_pairwise")]
cases = [
    "weather_paris_now", "tip_15_percent_on_80", "meal_limit_hallucination",
    "sales_tax_wrong_final", "madrid_sunscreen_embellished", "remote_work_reworded",
    "paris_wind_hallucination", "pto_lead_time_no_search",
]
fresh = ae.evaluate(
    DEMO / "demo_run1.evalset.json", judged, case_ids=cases,
    judge=HeuristicJudge(), judge_num_samples=3, cache=False, progress=False,
)
path = fresh.save(WORK / "demo.evalset_result.json")
run = ae.load_run(path, evalset=DEMO / "demo_run1.evalset.json", metrics=judged)
print(run.summary_text())""",
        ),
        (
            "md",
            """## 2. Open it and mark cases

`ae.inspect(run)` shows failures first; the detail pane has each turn's messages, tool calls, answers and every metric's reason. A mark belongs to a case result (eval id, run id) or, with `metric=`, to one metric of it; the reviewer's name comes from `ae.config.reviewer` (the OS user unless set).""",
        ),
        (
            "code",
            """view = ae.inspect(run)
view""",
        ),
        (
            "code",
            """ae.config.reviewer = "ana"
view.mark("weather_paris_now", 1, "pass")
view.mark("tip_15_percent_on_80", 1, "pass")
view.mark("meal_limit_hallucination", 1, "fail", note="invents a meal limit the policy lacks")
view.mark("sales_tax_wrong_final", 1, "fail", note="the total applies the tax twice")
view.mark("remote_work_reworded", 1, "pass", note="reworded, same policy")
view.mark("paris_wind_hallucination", 1, "fail", note="wind speed is not in the tool result")
last = view.mark(
    "madrid_sunscreen_embellished", 1, "unsure",
    note="the advice is extra, is it wrong?", metric="llm_final_response",
)""",
        ),
        (
            "md",
            """One row per mark, with who set it and when (the timestamp is left out here because it changes on every run):""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
marks = run.reviews_df()
marks[["eval_id", "run_id", "metric", "mark", "note", "reviewer"]]""",
        ),
        (
            "md",
            """## 3. The marks come back

They were written, atomically, to `<result name>.review.json` beside the result file. Loading the result again — in another notebook, or on another machine with both files — brings them back:""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
print(sorted(p.name for p in WORK.glob("*.json")))
again = ae.load_run(path)
print(len(again.reviews_df()), "marks after reloading")""",
        ),
        (
            "md",
            """## 4. Two reviewers

A second reviewer works on a copy of the result and disagrees about one case. `ae.review.merge` keeps one mark per (case result, metric) — the later one — and lists the keys where the two differ, so the disagreement can be discussed rather than silently overwritten.""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
(WORK / "bo").mkdir()
copy = Path(shutil.copy(path, WORK / "bo" / path.name))
ae.config.reviewer = "bo"
second = ae.load_run(copy)
second.mark("weather_paris_now", 1, "pass")
second.mark("sales_tax_wrong_final", 1, "pass", note="looks like rounding to me")

merged = ae.review.merge(ae.review.review_path(path), ae.review.review_path(copy))
print(merged)""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
merged.conflicts.to_pandas()""",
        ),
        (
            "md",
            """## 5. Do the judges agree with the humans?

`ae.stats.agreement(run, against="human")` pairs each metric's verdict with the human mark of the same case result (a metric's own mark first, else the case's mark; `unsure` marks are left out): raw agreement, Cohen's κ with a bootstrap interval, the confusion counts (`judge_human`), and for scores in [0, 1] the Brier score and the expected calibration error. Fleiss' κ and the flip rate read the judge's three samples per turn (the heuristic judge answers the same every time, hence κ = 1 and no flips; a real LLM judge at temperature 0.8 will not). With eight cases the intervals are wide: this is a demonstration of the instrument, not a finding.""",
        ),
        (
            "code",
            """# NBVAL_CHECK_OUTPUT
agreement = ae.stats.agreement(run, against="human")
agreement.table.to_pandas().round(3)""",
        ),
        (
            "md",
            """The reliability plot: the share of cases marked pass against the verifier's mean score, per score bin; a calibrated score sits on the diagonal.""",
        ),
        (
            "code",
            """ae.plots.calibration(agreement, "verifier_pairwise")""",
        ),
        (
            "code",
            """shutil.rmtree(WORK)""",
        ),
    ],
}


NOTEBOOKS["10_judges"] = [
    (
        "md",
        "# Judges you can trust and afford\n\nOne judge model taken on faith, at full price, "
        "with no budget, is how most evaluations are judged. Here: a **panel** of judges that "
        "votes (an abstaining judge stays in the denominator), **choosing a judge** against "
        "your own marks (κ with its CI, the base rate, fail recall, cost), a cost **estimate** "
        "before any call, a hard **budget**, and **batch** judging at half price.\n\n"
        "Offline: every judge below is the heuristic judge behind a loopback server under "
        "another name, and `flaky-judge` answers every third request with text that is not a "
        "verdict — **none of them is an LLM**. The loopback server also plays the provider's "
        "batch API.",
    ),
    (
        "code",
        """import json, tempfile, zlib
from pathlib import Path

import agenteval_nb as ae
from agenteval_nb.testing import FakeOpenAIServer, completion, heuristic_handler, route_by_model
from agenteval_nb.testing.fake_batches import FakeBatches

ROOT = Path.cwd() if (Path.cwd() / "data").is_dir() else Path.cwd().parent
CASES = ROOT / "data" / "demo" / "demo_assistant" / "demo_run1.evalset.json"


def flaky(request):
    \"\"\"The heuristic judge, except that every third request (by its text) gets no verdict.\"\"\"
    if zlib.crc32(json.dumps(request["messages"]).encode()) % 3 == 0:
        return completion("I would rather not say.", model="flaky-judge")
    return heuristic_handler(request)


server = FakeOpenAIServer(
    handler=route_by_model({"heuristic-judge": heuristic_handler, "second-judge": heuristic_handler,
                            "flaky-judge": flaky}),
    batches=FakeBatches(),
).start()
PRICES = {"heuristic-judge": (0.15, 0.60), "second-judge": (2.50, 10.00), "flaky-judge": (0.05, 0.20)}


def judge(model):
    return {"providerName": "openai", "modelName": model, "baseURL": server.base_url,
            "apiKey": "offline", "generationConfig": {"max_tokens": 200}}


METRICS = [
    {"metricName": "final_response_avg_score", "threshold": 1,
     "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}}},
    {"metricName": "llm_final_response", "threshold": 0.5,
     "criterion": {"llmJudge": {"judgeModel": judge("heuristic-judge")}}},
]""",
    ),
    (
        "md",
        "## 1. A panel\n\nThree judges score every judged turn; each reduces its own samples "
        "first, then the panel votes. `majority` is a strict majority of the **configured** "
        "panel: a judge that errs or cannot be parsed abstains and still counts, and no "
        "majority is `not_evaluated` with the votes in the reason — never a tie broken by "
        "order.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
panel = ae.JudgePanel({"heuristic": "heuristic-judge", "second": "second-judge",
                       "flaky": "flaky-judge"}, vote="majority")
run = ae.evaluate(CASES, METRICS, judge=panel, cache=False, progress=False,
                  price_table=PRICES, judge_max_retries=0)
print(run.summary_text())""",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
samples = run.samples_df()
samples.groupby("judge").agg(calls=("call", "size"), errors=("error", "count"))""",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
ae.stats.agreement(run, among="judges").df()[
    ["metric_name", "statistic", "rater_a", "rater_b", "n_units", "value", "ci_low", "ci_high"]
].round(3)""",
    ),
    (
        "md",
        "## 2. Choosing a judge against your marks\n\nMark the cases (here from code, with "
        "the exact-answer metric standing in for a human reviewer), then let each candidate "
        "rejudge the recorded turns — the agent is never called, and the cache makes a "
        "repeat free. κ comes with its bootstrap CI **and** the base rate: when one verdict "
        "dominates, raw agreement overstates how good a judge is.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
cases = run.cases_df()
exact = run.metrics_df().query("metric_name == 'final_response_avg_score'")
for row in exact.itertuples():
    run.mark(row.eval_id, row.run_id, "pass" if row.status == "passed" else "fail")
cmp = ae.compare_judges(run, {"heuristic": {"modelName": "heuristic-judge"},
                              "flaky": {"modelName": "flaky-judge"}, "panel": panel},
                        against="human", metrics="llm_final_response", price_table=PRICES,
                        progress=False)
cmp.df()[["candidate", "n", "kappa", "kappa_ci_low", "kappa_ci_high", "prevalence",
          "fail_recall", "cost_usd", "errors"]].round(4)""",
    ),
    ("code", "ae.plots.judge_choice(cmp)"),
    (
        "md",
        "## 3. What it will cost, and a hard cap\n\n`ae.estimate_cost` counts every judge "
        "request the evaluation would make (samples, turns, extra calls) before any call: the "
        "least (input only) and the most (every output at `max_tokens`) it can cost. "
        "`budget_usd` reserves each call's worst case before it starts and refuses a call "
        "that could cross the cap: the judgements left are `not_evaluated`, the run returns "
        "normally.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
ae.estimate_cost(CASES, METRICS, price_table=PRICES, cache=False)[
    ["judge_model", "metric_name", "calls", "input_tokens", "output_tokens_max", "usd_in",
     "usd_max"]].round(5)""",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
import warnings

with warnings.catch_warnings(record=True) as caught:  # the run says how many calls it refused
    warnings.simplefilter("always")
    capped = ae.evaluate(CASES, METRICS, cache=False, progress=False, price_table=PRICES,
                         budget_usd=0.0005, case_parallelism=1)
print(*(str(w.message) for w in caught), sep="\\n")
m = capped.metrics_df().query("metric_name == 'llm_final_response'")
print(m["status"].value_counts().to_dict())
print(m[m["status"] == "not_evaluated"]["reason"].iloc[0])""",
    ),
    (
        "md",
        "## 4. Batch judging at half price\n\n`batch=True` plans every judge request, sends "
        "only those the cache lacks through the provider's batch API (one batch per model), "
        "and scores from the cache when the batch ends — the same results as synchronous "
        "judging, at the batch price. `wait=False` returns the job at once; "
        "`ae.BatchJob.load(results_dir)` picks it up in another process.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
work = Path(tempfile.mkdtemp())
batched = ae.evaluate(CASES, METRICS, batch=ae.BatchConfig(poll_every=0.05), progress=False,
                      results_dir=work / "batch", cache=work / "cache.sqlite", price_table=PRICES)
sync = ae.evaluate(CASES, METRICS, progress=False, cache=False, price_table=PRICES)
same = batched.metrics_df()[["eval_id", "metric_name", "status", "score"]].equals(
    sync.metrics_df()[["eval_id", "metric_name", "status", "score"]])
print("same results as synchronous judging:", same)
batched.cost_df()[["judge", "calls", "batch_calls", "cost_usd", "saved_usd"]].round(6)""",
    ),
    ("code", "server.stop()"),
]


NOTEBOOKS["11_live_and_power"] = [
    (
        "md",
        "# Live runs and planning\n\nA real evaluation takes minutes: `ae.start` runs it in "
        "the background and returns at once, so you can read the first results (and mark "
        "them) while the rest runs, stop it cleanly, and resume what is missing. Then: how "
        "many cases does a comparison need? Power and sample size for paired differences, "
        "from the run's own variances.\n\nOffline, as in notebook 06: a scripted agent model "
        "and the heuristic judge on a loopback server (**neither is an LLM**).",
    ),
    NOTEBOOKS["06_run_an_agent"][1],
    NOTEBOOKS["06_run_an_agent"][3],
    (
        "md",
        "## 1. Start, watch, wait\n\n`ae.start` takes `ae.evaluate`'s keywords. The handle's "
        "header counts finished case-runs (each run of a case on its own) and estimates the "
        "time left; `ae.inspect(live)` shows what finished so far. Every finished case-run is "
        "journalled in `results_dir` within a fifth of a second.",
    ),
    (
        "code",
        """import tempfile

def sessions(prefix):
    counter = itertools.count(1)
    return lambda: f"{prefix}-{next(counter)}"


out = Path(tempfile.mkdtemp()) / "live"
live = ae.start(CASES, METRICS, agent=agent, num_runs=3, cache=False, results_dir=out,
                session_id_factory=sessions("demo"))
live""",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
run = live.result()
print(run.summary_text())""",
    ),
    (
        "md",
        "Another process (a CLI job, Ray workers) can be followed from its folder: "
        "`ae.watch(folder)` reads the journal as it grows.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
watched = ae.watch(out)
print(watched.state, len(watched.snapshot().cases_df()), "case-runs")""",
    ),
    (
        "md",
        "## 2. Cancel and resume\n\n`cancel()` starts no new case-run; those running finish "
        "and are kept, the result says it is partial. `resume=` runs only what the journal "
        "lacks: no finished case-run runs twice.",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
folder = Path(tempfile.mkdtemp()) / "stopped"
stopped = ae.start(CASES, METRICS, agent=agent, num_runs=3, cache=False, results_dir=folder,
                   case_parallelism=1)
stopped.cancel()
partial = stopped.result()
finished_before = len(partial.cases_df())
whole = ae.start(CASES, METRICS, agent=agent, num_runs=3, cache=False, resume=folder).result()
print(len(whole.cases_df()), "case-runs;", "each once:",
      not whole.cases_df().duplicated(["eval_id", "run_id"]).any())""",
    ),
    (
        "md",
        "## 3. How many cases?\n\nThe power of a paired comparison of this size to see a "
        "difference of 0.1 in the mean score, the smallest difference it could see (`mde`, at "
        "80 % power), and the cases needed per number of runs. The model and formulas: "
        "`docs/statistics.md`; no credit is taken for the pairing unless you say how "
        "correlated two agents' case scores are (`correlation=`).",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
ae.stats.power(run, "final_response_avg_score", 0.1)[
    ["metric_name", "n_cases", "num_runs", "power", "mde", "icc"]].round(3)""",
    ),
    (
        "code",
        """# NBVAL_CHECK_OUTPUT
ae.stats.cases_needed(run, 0.1, metric="final_response_avg_score", num_runs=[1, 3, 5],
                      correlation=0.5)[["num_runs", "n_cases", "power", "sd_diff"]].round(3)""",
    ),
    (
        "code",
        'ae.plots.power_curve(run, "final_response_avg_score", 0.1, num_runs=(1, 3, 5))',
    ),
    ("code", "server.stop()"),
]


def build(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in cells
    ]
    return nb


def main() -> None:
    from nbclient import NotebookClient

    only = set(sys.argv[1:])
    for name, cells in NOTEBOOKS.items():
        if only and name not in only:
            continue
        nb = build(name, cells)
        # no widget state: static views (GitHub, nbconvert HTML) then show the inspector's
        # HTML summary instead of embedding widgets through a CDN-loaded manager
        NotebookClient(
            nb,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(NB)}},
            store_widget_state=False,
        ).execute()
        path = NB / f"{name}.ipynb"
        nbformat.write(nb, path)
        print("wrote", path.name)


if __name__ == "__main__":
    main()
