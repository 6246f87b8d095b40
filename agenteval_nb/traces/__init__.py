"""Trace files in: spans from observability tools made trace-mode eval sets.

The path, one module per stage (TRACES.md §3):

* :mod:`~agenteval_nb.traces.spans`: the canonical span record every envelope reads into;
* envelopes: files and objects (OTLP/JSON, Jaeger, Tempo, console, Phoenix, Langfuse, the
  Agents SDK) → canonical spans, streaming;
* dialects: one ordered detector; a span → a step (:mod:`agenteval_nb.steps.records`);
* grouping: spans → conversations (cases) → turns;
* the turn's steps → ``Invocation`` by :func:`agenteval_nb.steps.builder.build_invocation`;
* the load report: per conversation, what was read and what could not be recovered.
"""
