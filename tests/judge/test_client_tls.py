"""The judge client's TLS context: httpx's default, built once per process and setting."""

from __future__ import annotations

import ssl

import pytest
from httpx2._transports import default as transports

from agenteval_nb.judge import JudgeClient
from agenteval_nb.judge.client import shared_tls_context

pytestmark = pytest.mark.anyio


def test_tls_context_is_built_once_per_setting_and_verifies(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = shared_tls_context()
    assert shared_tls_context() is context
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    monkeypatch.setenv("SSL_CERT_DIR", "/nonexistent-cert-dir")
    assert shared_tls_context() is not context


async def test_clients_of_two_runs_build_no_new_tls_context(monkeypatch):
    """A run on a fresh loop gets a fresh HTTP client, but not a fresh CA bundle read."""
    built: list[object] = []
    original = transports.create_ssl_context

    def counting(verify=True, **kwargs):
        if not isinstance(verify, ssl.SSLContext):  # a given context is used as is
            built.append(verify)
        return original(verify=verify, **kwargs)

    shared_tls_context()  # built before, e.g. by an earlier run
    monkeypatch.setattr(transports, "create_ssl_context", counting)  # what a transport calls
    for _ in range(2):
        async with JudgeClient() as client:
            assert client._http_client() is not None
    assert built == []
