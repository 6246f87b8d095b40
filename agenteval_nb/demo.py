"""The bundled demos that ``agenteval demo`` (``make demo``) runs, offline by default.

1. **Recorded runs** (``data/demo/demo_assistant``): three trace-mode eval sets scored with the
   deterministic and LLM metrics → ``OUT/report.html``.
2. **A live agent** (``data/demo/travel_agent``): the travel assistant — an ``OpenAIAgent`` with
   two Python tools — runs the default-mode cases three times, then the same metrics score it →
   ``OUT/agent/report.html``.
3. **An experiment** on the same eval set: the recorded run of 2. beside the assistant on a more
   careful model and the assistant without its currency tool → ``OUT/experiment/`` (the
   variants' results, a manifest) and ``OUT/experiment/report.html``.

Offline, one loopback OpenAI-compatible server plays both models, and both are **not LLMs**:
the scripted agent model (keyword rules, mistakes drawn per session) and the heuristic judge.
With ``OPENAI_BASE_URL`` set, the judge is ``$AGENTEVAL_JUDGE_MODEL`` there, and the agent is
``$AGENTEVAL_AGENT_MODEL`` there when that is set too (else still the scripted model).
Session ids are ``demo-<n>`` in case order, so the offline demo is reproducible.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .agents.openai_agent import OpenAIAgent
from .api import evaluate
from .evalrun import EvalRun
from .experiments import Experiment, experiment
from .io import load_metrics
from .testing.agent_model import SCRIPTED_AGENT_MODEL
from .testing.fake_server import FakeOpenAIServer, route_by_model
from .testing.heuristic_judge import HEURISTIC_MODEL, heuristic_handler
from .testing.travel_agent import SYSTEM_PROMPT, get_weather, travel_agent, travel_model
from .views import export_html

DATA = Path(__file__).resolve().parent.parent / "data" / "demo"
RECORDED_DIR = DATA / "demo_assistant"
AGENT_DIR = DATA / "travel_agent"
NUM_AGENT_RUNS = 3
AGENT_ERROR_RATE = 0.25
CAREFUL_AGENT_MODEL = "scripted-agent, careful (offline, not an LLM)"
"""The offline model of the experiment's careful variant: the scripted model, fewer mistakes."""
CAREFUL_ERROR_RATE = 0.05


@contextlib.contextmanager
def offline_endpoint() -> Iterator[str | None]:
    """Yield the base URL of a loopback server playing the scripted agent model and the
    heuristic judge, with the judge's environment variables set; ``None`` (nothing started)
    when ``OPENAI_BASE_URL`` names a real endpoint."""
    if os.environ.get("OPENAI_BASE_URL"):
        yield None
        return
    handler = route_by_model(
        {
            SCRIPTED_AGENT_MODEL: travel_model(AGENT_ERROR_RATE),
            CAREFUL_AGENT_MODEL: travel_model(CAREFUL_ERROR_RATE),
            HEURISTIC_MODEL: heuristic_handler,
        }
    )
    names = ("OPENAI_BASE_URL", "AGENTEVAL_JUDGE_MODEL", "OPENAI_API_KEY")
    saved = {name: os.environ.get(name) for name in names}
    with FakeOpenAIServer(handler=handler) as server:
        os.environ["OPENAI_BASE_URL"] = server.base_url
        os.environ.setdefault("AGENTEVAL_JUDGE_MODEL", HEURISTIC_MODEL)
        os.environ.setdefault("OPENAI_API_KEY", "offline-demo")
        try:
            yield server.base_url
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def recorded_demo(out: Path, *, judge: bool = True, progress: bool = True) -> EvalRun:
    """Score the three recorded demo runs; the judge comes from the environment."""
    runs = sorted(RECORDED_DIR.glob("demo_run*.evalset.json"))
    metrics = RECORDED_DIR / ("demo.metrics.json" if judge else "demo_deterministic.metrics.json")
    return evaluate(
        [str(p) for p in runs], str(metrics), progress=progress, cache=out / "judge-cache.sqlite"
    )


def agent_demo(out: Path, base_url: str, *, judge: bool = True, progress: bool = True) -> EvalRun:
    """Run the travel assistant over its eval set ``NUM_AGENT_RUNS`` times and score it."""
    model = os.environ.get("AGENTEVAL_AGENT_MODEL") or SCRIPTED_AGENT_MODEL
    agent = travel_agent(base_url, model=model)
    counter = itertools.count(1)
    return evaluate(
        str(AGENT_DIR / "travel_agent.evalset.json"),
        _agent_metrics(judge),
        agent=agent,
        num_runs=NUM_AGENT_RUNS,
        progress=progress,
        cache=out / "judge-cache.sqlite",
        session_id_factory=lambda: f"demo-{next(counter)}",
    )


def _agent_metrics(judge: bool) -> list[Any]:
    """The travel agent's metrics (only the deterministic ones without a judge)."""
    chosen = None if judge else ["tool_trajectory_avg_score", "final_response_avg_score"]
    metrics = load_metrics(AGENT_DIR / "travel_agent.metrics.json")
    return [m for m in metrics if chosen is None or m.metric_name in chosen]


def experiment_demo(
    out: Path, base_url: str, recorded: EvalRun, *, judge: bool = True, progress: bool = True
) -> Experiment:
    """Three variants of the travel assistant on its eval set, ``NUM_AGENT_RUNS`` runs each:
    ``assistant`` (``recorded``, the live-agent demo's run), ``careful`` (a model making fewer
    mistakes; with a real endpoint the same model) and ``weather_only`` (no currency tool).
    Saved to ``out`` with its report."""
    model = os.environ.get("AGENTEVAL_AGENT_MODEL") or SCRIPTED_AGENT_MODEL
    careful = os.environ.get("AGENTEVAL_AGENT_MODEL") or CAREFUL_AGENT_MODEL
    weather_only = OpenAIAgent(
        model,
        tools=[get_weather],
        system_prompt=SYSTEM_PROMPT,
        base_url=base_url,
        name=f"travel assistant without convert_currency on {model}",
    )
    counter = itertools.count(1)
    exp = experiment(
        str(AGENT_DIR / "travel_agent.evalset.json"),
        _agent_metrics(judge),
        variants={
            "assistant": recorded,
            "careful": travel_agent(base_url, model=careful),
            "weather_only": weather_only,
        },
        num_runs=NUM_AGENT_RUNS,
        progress=progress,
        cache=out / "judge-cache.sqlite",
        session_id_factory=lambda: f"experiment-{next(counter)}",
    )
    exp.save(out)
    export_html(exp, out / "report.html", title="Experiment: the travel assistant, three ways")
    return exp
