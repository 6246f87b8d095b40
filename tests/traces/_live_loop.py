"""One agent turn traced by a REAL instrumentation package, printed as the files users have.

Run as a script (one process per run: the instrumentors patch ``openai`` process-wide and the
OTel semconv opt-in is read once per process)::

    python tests/traces/_live_loop.py openai-v2|openinference     # one run, JSON on stdout
    python tests/traces/_live_loop.py record [UTIL_GENAI_0_4_DIR]  # rewrite the recorded corpus

It starts the loopback fake OpenAI server with a scripted model (ask ``get_weather``, then
answer; then answer a follow-up), instruments the real ``openai`` client with the named package
(its own tracer and logger providers, in-memory exporters), holds a two-turn conversation (turn
1: user → model asks the tool → our tool runs → model answers; turn 2: a follow-up answered
directly, the history resent), each turn inside a root span of ours (as the agent framework
around the client would write it), and prints one JSON object: ``traces`` (OTLP/JSON
TracesData), ``logs`` (LogsData), ``console`` (``span.to_json()`` of each span) and ``loop``
(what the conversation really had).

Content capture is set by the caller's environment (see :data:`CONTENT_ENV`), before
``instrument()`` reads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import _otel_export
import openai
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from agenteval_nb.testing import FakeOpenAIServer
from agenteval_nb.testing.fake_server import completion, tool_call

PACKAGES = ("openai-v2", "openinference")

CONTENT_ENV: dict[tuple[str, str], dict[str, str]] = {
    ("openai-v2", "on"): {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
    },
    ("openai-v2", "events"): {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "event_only",
    },
    ("openai-v2", "off"): {},
    ("openai-v2", "legacy-on"): {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
    ("openai-v2", "legacy-off"): {},
    ("openinference", "on"): {},
    ("openinference", "off"): {
        "OPENINFERENCE_HIDE_INPUTS": "true",
        "OPENINFERENCE_HIDE_OUTPUTS": "true",
        "OPENINFERENCE_HIDE_INPUT_MESSAGES": "true",
        "OPENINFERENCE_HIDE_OUTPUT_MESSAGES": "true",
    },
}
"""Environment of each (package, content mode): the producer's documented switches. The
official package captures nothing by default; OpenInference captures everything by default and
hides it (``__REDACTED__``) when told to. The ``legacy-*`` modes are the v1.30 per-message log
events, which openai-v2 2.4b0 writes only with ``opentelemetry-util-genai`` < 1.0 (later versions
always take the current path): they are recorded, not run live (see :data:`RECORDED_LEGACY`)."""

MODEL = "gpt-4o-mini"
CONVERSATION_ID = "weather-chat-1"
USER_TEXT = "What's the weather in Paris today?"
TOOL_NAME = "get_weather"
TOOL_CALL_ID = "call_weather_paris_1"
TOOL_ARGUMENTS = {"city": "Paris", "unit": "celsius"}
TOOL_RESULT = {"city": "Paris", "forecast": "light rain", "temperature_c": 12}
FINAL_TEXT = "It is 12 °C in Paris today with light rain: take an umbrella."
SECOND_USER_TEXT = "Thanks. Do I need sunglasses as well?"
SECOND_FINAL_TEXT = "No: it stays cloudy all day, the umbrella is enough."
SYSTEM_TEXT = "You are a weather assistant. Use the tools."

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": "Current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """The loop's tool: a fixed forecast (the point is the trace, not the weather)."""
    assert city == "Paris" and unit == "celsius"
    return dict(TOOL_RESULT)


def _instrumentor(package: str) -> Any:
    if package == "openai-v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        return OpenAIInstrumentor()
    from openinference.instrumentation.openai import OpenAIInstrumentor as OIInstrumentor

    return OIInstrumentor()


def run(package: str) -> dict[str, Any]:
    """Instrument, hold the two-turn conversation, uninstrument; what was emitted and what
    happened."""
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "weather-agent"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    instrumentor = _instrumentor(package)
    instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    try:
        with FakeOpenAIServer() as server:
            server.enqueue(
                completion(
                    None,
                    model=MODEL,
                    tool_calls=[tool_call(TOOL_CALL_ID, TOOL_NAME, TOOL_ARGUMENTS)],
                ),
                completion(FINAL_TEXT, model=MODEL),
                completion(SECOND_FINAL_TEXT, model=MODEL),
            )
            client = openai.OpenAI(base_url=server.base_url, api_key="not-a-key", max_retries=0)
            loop = _conversation(client, tracer_provider.get_tracer("weather-agent-loop"), package)
    finally:
        instrumentor.uninstrument()
    tracer_provider.force_flush()
    logger_provider.force_flush()
    finished = spans.get_finished_spans()
    return {
        "package": package,
        "traces": _otel_export.traces_data(finished),
        "logs": _otel_export.logs_data(logs.get_finished_logs()),
        "console": _otel_export.console_spans(finished),
        "loop": loop,
    }


def _root_attributes(package: str) -> dict[str, str]:
    """Our turn span, as the agent framework around the client would write it: an agent
    invocation carrying the conversation key of the producer's convention (the client
    instrumentations write none: an app sets it on its own spans)."""
    if package == "openinference":
        return {"openinference.span.kind": "AGENT", "session.id": CONVERSATION_ID}
    return {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "weather_agent",
        "gen_ai.conversation.id": CONVERSATION_ID,
    }


def _conversation(client: openai.OpenAI, tracer: Any, package: str) -> dict[str, Any]:
    """Two turns, one trace each (a fresh root span per turn), the history carried over:
    turn 1 asks the weather (one tool round trip), turn 2 a follow-up answered directly."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_TEXT}]
    turns = []
    for user_text in (USER_TEXT, SECOND_USER_TEXT):
        name = "invoke_agent weather_agent"
        with tracer.start_as_current_span(name, attributes=_root_attributes(package)):
            messages.append({"role": "user", "content": user_text})
            turns.append(_tool_loop(client, messages))
    return {"conversation_id": CONVERSATION_ID, "turns": turns}


def _tool_loop(client: openai.OpenAI, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One turn: model calls until one answers without tools (each requested tool is run and
    its result sent back); ``messages`` grows with the turn. Returns what really happened."""
    user_text = messages[-1]["content"]
    tools_done: list[dict[str, Any]] = []
    for _ in range(4):
        answer = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)  # type: ignore[arg-type]
        message = answer.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return {
                "user_content": user_text,
                "final_response": message.content,
                "tools": tools_done,
            }
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            result = get_weather(**arguments)
            tools_done.append(
                {
                    "id": call.id,
                    "name": call.function.name,
                    "arguments": arguments,
                    "result": result,
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )
    raise AssertionError("the scripted model never answered")


CONTENT_VARIABLES = sorted({name for env in CONTENT_ENV.values() for name in env})

CORPUS = Path(__file__).parents[1] / "corpus" / "traces"

RECORDED = {
    ("openai-v2", "on"): "openai-v2/span_only",
    ("openai-v2", "events"): "openai-v2/event_only",
    ("openai-v2", "off"): "openai-v2/no_content",
    ("openinference", "on"): "openinference-openai/content",
    ("openinference", "off"): "openinference-openai/hidden",
}
"""Where ``record`` writes each run: ``<stem>.traces.json`` (+ ``.logs.json`` when log records
were emitted, ``.console.json``) and ``<stem>.expected.json``."""

RECORDED_LEGACY = {
    ("openai-v2", "legacy-on"): "openai-v2/legacy_events",
    ("openai-v2", "legacy-off"): "openai-v2/legacy_no_content",
}
"""Recorded only when ``record`` is given a folder holding ``opentelemetry-util-genai`` 0.4b0
(``pip install --no-deps --target DIR opentelemetry-util-genai==0.4b0``), put first on the
child's ``PYTHONPATH``."""


def run_in_subprocess(package: str, mode: str, *, first_path: str | None = None) -> dict[str, Any]:
    """One run in a fresh interpreter with exactly the content switches of ``mode``
    (``first_path``: a folder put first on the child's ``PYTHONPATH``)."""
    env = {k: v for k, v in os.environ.items() if k not in CONTENT_VARIABLES}
    env.update(CONTENT_ENV[(package, mode)])
    if first_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [first_path, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, __file__, package],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{package}/{mode} run failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def expected_for(package: str, mode: str, loop: dict[str, Any]) -> dict[str, Any]:
    """The recorded fixture's answer: the loop's own turns when content was captured; when it
    was not, the fields the producer kept (the legacy events keep tool call ids and names; the
    current forms keep nothing of the messages)."""
    switches = CONTENT_ENV[(package, mode)]
    turns = [_expected_turn(package, mode, turn) for turn in loop["turns"]]
    return {
        "fixture": None,
        "answer": None,
        "note": f"Recorded by tests/traces/_live_loop.py record: the real {package} "
        f"instrumentation ({'; '.join(f'{k}={v}' for k, v in switches.items()) or 'defaults'}) "
        "driving the real openai client against the loopback fake server. Two traces, one per "
        "turn, each rooted in our 'invoke_agent weather_agent' span that carries the "
        "conversation key (gen_ai.conversation.id, or session.id for OpenInference); the "
        "model-call spans are the package's. Turn 2's model input resends turn 1's history.",
        "cases": [{"conversation_id": loop["conversation_id"], "turns": turns}],
    }


def _expected_turn(package: str, mode: str, turn: dict[str, Any]) -> dict[str, Any]:
    if mode == "legacy-off":
        return {
            "user_content": None,
            "final_response": None,
            "tools": [{"id": tool["id"], "name": tool["name"]} for tool in turn["tools"]],
            "gap": "content_missing",
            "from": {
                "user_content": "not captured: the gen_ai.user.message events have no body",
                "final_response": "not captured: the last gen_ai.choice message has no content",
                "tools": "the loop's tool call id and name, which the gen_ai.choice / "
                "gen_ai.assistant.message events keep without content (no arguments; the "
                "gen_ai.tool.message keeps the id, no result)",
            },
        }
    if mode == "off":
        return {
            "user_content": None,
            "final_response": None,
            "tools": [],
            "gap": "redacted" if package == "openinference" else "content_missing",
            "from": {
                "user_content": "not captured: the producer wrote no message content",
                "final_response": "not captured",
                "tools": "not captured: with content off these package versions write no tool "
                "call names or ids on the spans",
            },
        }
    return {
        **turn,
        "from": {
            "user_content": "the user message the loop sent in this turn",
            "final_response": "the text of the model's last answer of the turn",
            "tools": "the tool calls the loop executed (id, name, decoded arguments) and the "
            "results it sent back (as JSON text)",
        },
    }


def record(legacy_util_genai: str | None = None) -> None:
    """Run every recorded scenario and (re)write its files under tests/corpus/traces; the
    legacy-event runs too when ``legacy_util_genai`` names a folder with util-genai 0.4b0."""
    runs = [(run, stem, None) for run, stem in RECORDED.items()]
    if legacy_util_genai is not None:
        runs += [(run, stem, legacy_util_genai) for run, stem in RECORDED_LEGACY.items()]
    for (package, mode), stem, first_path in runs:
        out = run_in_subprocess(package, mode, first_path=first_path)
        base = CORPUS / stem
        base.parent.mkdir(parents=True, exist_ok=True)
        files = [f"{base.name}.traces.json"]
        _write(base.with_name(files[0]), out["traces"])
        if out["logs"]["resourceLogs"]:
            files.append(f"{base.name}.logs.json")
            _write(base.with_name(files[-1]), out["logs"])
        _write(base.with_name(f"{base.name}.console.json"), out["console"])
        expected = expected_for(package, mode, out["loop"])
        expected["fixture"] = files if len(files) > 1 else files[0]
        expected["console"] = f"{base.name}.console.json"
        if first_path is not None:
            expected["note"] += " Recorded with opentelemetry-util-genai 0.4b0 (legacy events)."
        _write(base.with_name(f"{base.name}.expected.json"), expected)


def _write(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["record"]:
        record(argv[1] if len(argv) > 1 else None)
        return 0
    package = argv[0] if argv else ""
    if package not in PACKAGES:
        raise SystemExit(f"package must be one of {PACKAGES}, got {package!r}")
    json.dump(run(package), sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
