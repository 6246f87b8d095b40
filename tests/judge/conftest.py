"""Fixtures of the judge tests: a live loopback server and judge-model options pointing at it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agenteval_nb.schema.metric import JudgeModelOptions
from agenteval_nb.testing import FakeOpenAIServer

SECRET = "sk-test-SECRET-4f9a2c77e1"
"""The API key every test uses; it must never show up anywhere but the Authorization header."""


@pytest.fixture
def judge_model(server: FakeOpenAIServer) -> Callable[..., JudgeModelOptions]:
    """``judge_model(**wire_fields)``: options for the fake server, with :data:`SECRET`."""

    def make(**fields: Any) -> JudgeModelOptions:
        data: dict[str, Any] = {
            "providerName": "openai",
            "modelName": "judge-1",
            "baseURL": server.base_url,
            "apiKey": SECRET,
        }
        data.update(fields)
        return JudgeModelOptions.model_validate(data)

    return make


@pytest.fixture
def secret() -> str:
    return SECRET
