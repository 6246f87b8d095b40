"""Field values every envelope spells its own way, read into the canonical span's words.

* ids: :func:`otlp_id` — hex in any case (``0x`` dropped), protobuf's padded base64 (12/24
  characters ending ``=``/``==`` that decode to 8/16 bytes → hex, as a generic protobuf JSON
  encoder and Tempo's API write them), anything else through
  :func:`~agenteval_nb.traces.spans.canonical_id` (the readers of non-OTel sources call that
  directly: their ids are UUIDs or prefixed strings, never base64);
* kind: :func:`kind_word` — OTLP integers 0-5, ``SPAN_KIND_CLIENT``, ``SpanKind.CLIENT``,
  ``CLIENT``, ``client`` → ``"client"``;
* status: :func:`status_word` — 0/1/2, ``STATUS_CODE_ERROR``, ``StatusCode.ERROR``, ``OK`` … →
  ``"unset"`` / ``"ok"`` / ``"error"``;
* times: :func:`time_ns` — Unix nanoseconds as int or string (OTLP int64), ISO 8601 text (the
  SDK console, Phoenix, Langfuse, the Agents SDK; fractions to 9 digits, ``Z`` or an offset);
* nested attributes (Phoenix): :func:`flatten_attributes` rebuilds the flat keys
  (``{"llm": {"input_messages": [{"message": …}]}}`` → ``llm.input_messages.0.message.…``).
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime, timedelta
from typing import Any

from agenteval_nb.traces.spans import canonical_id

_HEX = "0123456789abcdefABCDEF"
_LOWER_HEX = "0123456789abcdef"
_ZERO_IDS = frozenset(("0" * 16, "0" * 32))
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)

_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
_STATUSES = ("unset", "ok", "error")


def otlp_id(value: Any) -> str | None:
    """A trace or span id, canonical: lower-case hex (also from base64), else the string as given.

    The fast path (16 or 32 hex characters, what every OTLP exporter writes) costs two C calls.
    """
    if value.__class__ is str and len(value) in (16, 32):
        if not value.strip(_LOWER_HEX):
            return None if value in _ZERO_IDS else value
        if not value.strip(_HEX):
            value = value.lower()
            return None if value in _ZERO_IDS else value
    text = canonical_id(value)
    if text is None or not (
        (len(text) == 12 and text[-1] == "=") or (len(text) == 24 and text[-2:] == "==")
    ):
        return text
    return _base64_id(text) or text


def _base64_id(text: str) -> str | None:
    """The hex of ``text`` read as standard or URL-safe base64, when it decodes to 8 or 16 bytes."""
    try:
        raw = base64.b64decode(text, altchars=b"-_" if ("-" in text or "_" in text) else None)
    except (binascii.Error, ValueError):
        return None
    if len(raw) not in (8, 16) or not any(raw):
        return None
    return raw.hex()


def kind_word(value: Any) -> str | None:
    """The span kind as a lower-case word; ``None`` when absent or unspecified."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        word = _KINDS[value] if 0 <= value < len(_KINDS) else None
    else:
        word = str(value).rsplit(".", 1)[-1].lower().removeprefix("span_kind_")
    return None if word in (None, "unspecified") else word


def status_word(value: Any) -> str | None:
    """The status code as ``"unset"`` / ``"ok"`` / ``"error"``; ``None`` when absent."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return _STATUSES[value] if 0 <= value < len(_STATUSES) else None
    word = str(value).rsplit(".", 1)[-1].lower().removeprefix("status_code_")
    return word if word in _STATUSES else None


def time_ns(value: Any) -> int | None:
    """Unix nanoseconds from an int, a numeric string or ISO 8601 text; ``None`` when absent or
    zero (OTLP's "not set"). Raises ``ValueError`` for text that is neither."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value) or None
    text = str(value).strip()
    if text.isdigit():
        return int(text) or None
    return iso_ns(text)


def iso_ns(text: str) -> int:
    """Unix nanoseconds of an ISO 8601 timestamp (fraction kept to the nanosecond; naive = UTC)."""
    head, fraction, tail = text, "", ""
    dot = text.find(".")
    if dot != -1:
        end = dot + 1
        while end < len(text) and text[end].isdigit():
            end += 1
        head, fraction, tail = text[:dot], text[dot + 1 : end], text[end:]
    moment = datetime.fromisoformat(head + tail)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds_us = (moment - _EPOCH) // _MICROSECOND
    return seconds_us * 1000 + int((fraction + "000000000")[:9] or 0)


def micros_ns(value: Any) -> int | None:
    """Unix nanoseconds from microseconds (Jaeger); ``None`` when absent."""
    if value is None or value == "":
        return None
    return int(value) * 1000


def flatten_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Nested attribute objects back to flat dotted keys; lists of objects get their index as a
    key part, lists of plain values stay lists. Flat input comes back unchanged (a new dict)."""
    out: dict[str, Any] = {}
    _flatten_into(out, "", attributes)
    return out


def _flatten_into(out: dict[str, Any], prefix: str, value: Any) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _flatten_into(out, f"{prefix}{key}.", inner)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, inner in enumerate(value):
            _flatten_into(out, f"{prefix}{index}.", inner)
    else:
        out[prefix[:-1]] = value
