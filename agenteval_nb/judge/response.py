"""Turn whatever a judge returned into a validated chat-completion dict.

Rules:

* an HTTP 200 body is parsed here from its raw bytes (the openai client would hand back a raw
  ``JSONDecodeError`` for truncated JSON and a ``str`` for an HTML page): a body that is not
  JSON, or JSON that is not an object, is a :class:`JudgeError` quoting the start of the body;
* other accepted inputs (injected judges): a pydantic model (the openai ``ChatCompletion``
  included; dumped with ``model_dump(mode="json")``) or a dict; anything else — a ``str``, a
  list, ``None`` — is a :class:`JudgeError`;
* the completion must have a non-empty ``choices`` list whose first element is an object with a
  ``message`` object whose ``content`` is a string (``""`` is allowed: the scorer reports an
  empty answer); a refusal or a ``null`` content is an error naming the finish reason;
* a missing or empty ``choices`` list is the reference's ``no choices in response`` (SPEC §4.4),
  for every scorer; when the completion carries an ``error`` object instead, its message follows;
* every string of an accepted completion is redacted
  (:func:`agenteval_nb.secrets.redact_json`): what the judge says reaches reasons, frames, the
  cache file and reports, so a key it echoes must not;
* normalisation: ``choices[0]["logprobs"]`` always exists (``None`` when absent) so scorers can
  read ``response["choices"][0]["logprobs"]["content"]`` after a ``None`` check;
* non-finite numbers (a Python server writes bare ``-Infinity`` / ``NaN`` tokens) are accepted
  and read as the verifier reads them (SPEC §5.2): ``-Infinity`` as −9999, vLLM's clamp, which
  the verifier takes for −∞; ``NaN`` and ``Infinity`` as ``null``, a missing logprob, which it
  takes for NaN. The verifier's scoring owns the errors they cause ("score token logprobs are
  all negative infinity", "score token logprob is NaN"), and an accepted completion is strict
  JSON that the cache and every file can store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ..secrets import redact_json
from ..verifier.scoring import NEG_INF_CLAMP
from .judge_errors import JudgeError, shorten


def _finite_constant(name: str) -> float | None:
    """A bare ``-Infinity`` / ``Infinity`` / ``NaN`` JSON token, read as the verifier reads a
    non-finite logprob (module rules)."""
    return NEG_INF_CLAMP if name == "-Infinity" else None


def _loads(text: str | bytes) -> Any:
    return json.loads(text, parse_constant=_finite_constant)


def to_plain(obj: Any, origin: str) -> dict[str, Any]:
    """A JSON-compatible dict copy of ``obj`` (a pydantic model or a mapping)."""
    if isinstance(obj, BaseModel | Mapping):
        source = obj.model_dump(mode="json", warnings=False) if isinstance(obj, BaseModel) else obj
        try:
            data = _loads(json.dumps(source))
        except (TypeError, ValueError) as exc:
            raise JudgeError(
                f"{origin} returned a completion that is not JSON-serialisable: {exc}",
                kind="malformed",
            ) from None
    elif isinstance(obj, str | bytes):
        text = obj.decode(errors="replace") if isinstance(obj, bytes) else obj
        raise JudgeError(
            f"{origin} returned a body that is not a JSON chat completion "
            f"(an HTML page or plain text?): {shorten(text, 120)!r}",
            kind="malformed",
        )
    else:
        raise JudgeError(
            f"{origin} returned {type(obj).__name__} instead of a chat completion object",
            kind="malformed",
        )
    if not isinstance(data, dict):
        raise JudgeError(
            f"{origin} returned {type(data).__name__} instead of a chat completion object",
            kind="malformed",
        )
    return data


def parse_body(body: bytes, content_type: str, origin: str) -> dict[str, Any]:
    """The JSON object of a 200 response body (module rules)."""
    try:
        data = _loads(body)
    except ValueError as exc:
        snippet = shorten(body.decode("utf-8", errors="replace"), 120)
        if "json" not in content_type.lower() or body.lstrip()[:1] == b"<":
            raise JudgeError(
                f"{origin} returned a 200 response that is not JSON (content-type "
                f"{content_type or 'missing'!r}; an HTML page or plain text?): {snippet!r}",
                kind="malformed",
            ) from None
        reason = f"{exc.msg}, character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else exc
        raise JudgeError(
            f"{origin} returned a 200 response whose JSON body is truncated or corrupt "
            f"({reason}): {snippet!r}",
            kind="malformed",
        ) from None
    if not isinstance(data, dict):
        raise JudgeError(
            f"{origin} returned {type(data).__name__} instead of a chat completion object",
            kind="malformed",
        )
    return data


def validate_completion(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """Check the fields scorers read (module rules); returns ``data`` redacted and normalised
    (a copy only where a string had to be redacted)."""
    choices = data.get("choices")
    if not choices:
        error = data.get("error")
        if isinstance(error, Mapping) and error.get("message"):
            detail = shorten(str(error["message"]))
            raise JudgeError(
                f"no choices in response: {origin} returned an error object: {detail}",
                kind="malformed",
            )
        raise JudgeError(f"no choices in response ({origin})", kind="malformed")
    if not isinstance(choices, list):
        what = shorten(repr(choices), 40)
        raise JudgeError(
            f"{origin} response has an unusable choices field ({what})", kind="malformed"
        )
    choice = choices[0]
    if not isinstance(choice, dict):
        raise JudgeError(f"{origin} response choices[0] is not an object", kind="malformed")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise JudgeError(f"{origin} response choices[0] has no message", kind="malformed")
    content = message.get("content")
    if not isinstance(content, str):
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal:
            raise JudgeError(f"{origin} refused to answer: {shorten(refusal)}", kind="malformed")
        finish = choice.get("finish_reason")
        why = f" (finish_reason {finish!r})" if finish else ""
        kind = "no content" if content is None else f"a non-text content ({type(content).__name__})"
        raise JudgeError(f"{origin} response choices[0].message has {kind}{why}", kind="malformed")
    data = redact_json(data)
    choice = data["choices"][0]
    logprobs = choice.setdefault("logprobs", None)
    if logprobs is not None:
        entries = logprobs.get("content") if isinstance(logprobs, dict) else None
        if not isinstance(logprobs, dict) or not (entries is None or isinstance(entries, list)):
            raise JudgeError(
                f"{origin} response choices[0].logprobs is malformed", kind="malformed"
            )
    return data


def normalize_completion(obj: Any, origin: str = "judge endpoint") -> dict[str, Any]:
    """:func:`to_plain` then :func:`validate_completion`."""
    return validate_completion(to_plain(obj, origin), origin)


def completion_content(data: Mapping[str, Any]) -> str | None:
    """``choices[0].message.content`` of a validated completion."""
    return data["choices"][0]["message"]["content"]
