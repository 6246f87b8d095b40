"""From ``judgeModel`` options and messages to an endpoint and a chat-completions request body.

Rules (SPEC §1.4, §4.2):

* provider: ``providerName`` must be ``openai`` or empty (case and surrounding blanks ignored);
  ``variant`` is informational and never sent;
* endpoint: ``baseURL``, else ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``;
  API key: ``apiKey``, else ``$OPENAI_API_KEY``, else a placeholder when the endpoint is not
  api.openai.com (local servers ignore it); the default endpoint without a key is an error;
  every resolved key is registered for redaction (:func:`agenteval_nb.secrets.register_secret`)
  before any request goes out;
* body: ``model`` = ``modelName``, ``messages``, the generation parameters that are set — from
  ``generationConfig`` or, when it is absent, :data:`DEFAULT_GENERATION_CONFIG` (a partial
  config is used as is, never merged) — ``thinking_*`` only when set, ``response_format`` for a
  structured output, then ``extraFields``, then per-call overrides; ``model``, ``messages`` and
  ``stream`` (always ``false``) cannot be overridden.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..schema.metric import DEFAULT_GENERATION_CONFIG, JudgeModelOptions
from ..secrets import register_secret
from .judge_errors import JudgeError

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_PLACEHOLDER_KEY = "agenteval-nb-no-key"
SUPPORTED_PROVIDERS = ("openai",)

GENERATION_FIELDS = (
    "max_tokens",
    "temperature",
    "top_p",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "logprobs",
    "top_logprobs",
    "reasoning_effort",
)
"""Generation parameters sent under their own names (the OpenAI request fields)."""

THINKING_FIELDS = ("thinking_enabled", "thinking_tokens", "thinking_level")
"""Sent under their own names as extra body fields, only when set."""

_PROTECTED = ("model", "messages", "stream")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a request goes. The API key is compared and hashed but never shown."""

    base_url: str
    api_key: str = field(repr=False)

    def __post_init__(self) -> None:
        register_secret(self.api_key)


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """A resolved request: its endpoint and the exact JSON body to send."""

    endpoint: Endpoint
    body: dict[str, Any]

    @property
    def model(self) -> str:
        return str(self.body["model"])


def check_provider(provider_name: str | None) -> None:
    """Raise :class:`JudgeError` unless the provider is ``openai`` or empty."""
    name = (provider_name or "").strip().lower()
    if name and name not in SUPPORTED_PROVIDERS:
        supported = ", ".join(f'"{p}"' for p in SUPPORTED_PROVIDERS)
        raise JudgeError(
            f'unsupported judge provider "{provider_name}": supported providerName values are '
            f"{supported} or empty (any OpenAI-compatible endpoint, chosen with baseURL)",
            kind="config",
        )


def resolve_endpoint(judge_model: JudgeModelOptions) -> Endpoint:
    """Base URL (no trailing slash) and API key, following the precedence in the module doc."""
    base_url = (judge_model.base_url or "").strip() or os.environ.get("OPENAI_BASE_URL", "")
    base_url = (base_url.strip() or OPENAI_DEFAULT_BASE_URL).rstrip("/")
    api_key = judge_model.api_key or os.environ.get("OPENAI_API_KEY") or ""
    if not api_key:
        if base_url == OPENAI_DEFAULT_BASE_URL:
            raise JudgeError(
                "no API key for the judge: set judgeModel.apiKey or OPENAI_API_KEY "
                "(or point baseURL at a local endpoint)",
                kind="config",
            )
        api_key = LOCAL_PLACEHOLDER_KEY
    return Endpoint(base_url, api_key)


def response_format(structured_output: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response_format`` for a structured output.

    Accepts the full form ``{"type": "json_schema", "json_schema": {...}}`` (or any other
    ``type``, passed through) or just the inner ``{"name", "schema", "strict"}`` object.
    """
    if not isinstance(structured_output, Mapping):
        raise JudgeError(
            f"structured output must be a JSON object, got {type(structured_output).__name__}",
            kind="config",
        )
    if "type" in structured_output:
        return dict(structured_output)
    return {"type": "json_schema", "json_schema": dict(structured_output)}


def plain_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Messages as plain dicts (pydantic models are dumped without ``None`` fields)."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise JudgeError("judge messages must be a list of message objects", kind="config")
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        if isinstance(message, BaseModel):
            message = message.model_dump(mode="json", exclude_none=True)
        if not isinstance(message, Mapping):
            raise JudgeError(
                f"judge message {i} must be an object, got {type(message).__name__}",
                kind="config",
            )
        out.append(dict(message))
    return out


def build_request(
    judge_model: JudgeModelOptions,
    messages: Sequence[Any],
    *,
    structured_output: Mapping[str, Any] | None = None,
    request_overrides: Mapping[str, Any] | None = None,
) -> JudgeRequest:
    """Resolve the endpoint and build the body (rules in the module doc)."""
    check_provider(judge_model.provider_name)
    model = (judge_model.model_name or "").strip()
    if not model:
        raise JudgeError("judgeModel.modelName is required", kind="config")
    endpoint = resolve_endpoint(judge_model)
    msgs = plain_messages(messages)
    config = judge_model.generation_config or DEFAULT_GENERATION_CONFIG

    body: dict[str, Any] = {"model": model, "messages": msgs}
    for name in (*GENERATION_FIELDS, *THINKING_FIELDS):
        value = getattr(config, name)
        if value is not None:
            body[name] = list(value) if name == "stop" else value
    if structured_output is not None:
        body["response_format"] = response_format(structured_output)
    body.update(judge_model.extra_fields or {})
    body.update(request_overrides or {})
    body["model"], body["messages"], body["stream"] = model, msgs, False
    return JudgeRequest(endpoint, body)
