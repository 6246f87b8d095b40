"""Steps of a turn, from any source, and the one builder that makes them an ``Invocation``.

Trace files (:mod:`agenteval_nb.traces`) and live capture of an agent's traffic both describe
what an agent did as *steps* — model calls, tool runs, agent runs — and hand the steps of one
turn to :func:`~agenteval_nb.steps.builder.build_invocation`. This room knows the wire models
and nothing above them; the sources import it, never the other way.

* :mod:`~agenteval_nb.steps.records`: the step records (plain data);
* :mod:`~agenteval_nb.steps.builder`: a turn's steps → ``Invocation`` + the gaps found.
"""
