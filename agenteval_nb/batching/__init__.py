"""Batch judging: an evaluation whose judge requests go through the provider's batch API.

* :mod:`.replay`: the inferences, recorded by the first pass and replayed by every later one;
* :mod:`.job`: the job — plan, send, poll, resume, score from the cache.
"""
