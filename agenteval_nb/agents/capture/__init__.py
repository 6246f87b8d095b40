"""What an agent did, captured from its HTTP traffic (CAPTURE.md): no adapter per framework.

* :mod:`.exchange`: one recorded model request and its reply (plain data);
* :mod:`.attribution`: which case a call belongs to (a context variable, the sole active case,
  else unattributed — never a guess between two);
* :mod:`.sse`: a streamed reply assembled from its server-sent events (chat chunks, Responses
  events, Anthropic events);
* :mod:`.wire`: the ``send`` hooks on ``httpx`` and ``httpx2`` clients, sync and async, streams
  copied as the caller reads them;
* :mod:`.model_calls`: recorded exchanges → :class:`~agenteval_nb.steps.records.ModelCall` steps;
* :mod:`.spans` / :mod:`.span_processor`: OpenTelemetry spans as a second source (a processor on
  the user's SDK provider files each case's spans; the trace dialects read them);
* :mod:`.turns`: a turn's calls and spans → its invocation (the one builder);
* :mod:`.report`: the capture report's counts and fixes, per turn and per case.
"""
