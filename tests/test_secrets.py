"""The redaction rule (:mod:`agenteval_nb.secrets`): the credential after any ``Authorization``
scheme is masked and the scheme word stays, in every form a header can be written."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenteval_nb import secrets
from agenteval_nb.report import redact as report_redact
from agenteval_nb.secrets import MASK, redact

SCHEMES = st.from_regex(r"[A-Za-z][A-Za-z0-9._+-]{0,15}", fullmatch=True)
CREDENTIALS = st.from_regex(r"[A-Za-z0-9._~+/-]{6,40}={0,2}", fullmatch=True)
LABELS = st.sampled_from(["Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization"])

FORMS = {
    "header": "{label}: {scheme} {credential}",
    "header dump": "POST /v1/chat HTTP/1.1\r\n{label}: {scheme} {credential}\r\nHost: x\r\n",
    "key=value": "{label}={scheme} {credential}&next=1",
    "quoted json": '{{"{label}": "{scheme} {credential}", "next": 1}}',
    "python repr": "{{'{label}': '{scheme} {credential}', 'next': 1}}",
    "log line": "request failed (401); sent {label}: {scheme} {credential}",
}


@pytest.mark.parametrize("form", sorted(FORMS))
@given(label=LABELS, scheme=SCHEMES, credential=CREDENTIALS)
def test_the_credential_after_any_scheme_is_masked_and_the_scheme_stays(
    form, label, scheme, credential
):
    template = FORMS[form]
    text = template.format(label=label, scheme=scheme, credential=credential)
    expected = template.format(label=label, scheme=scheme, credential=MASK)
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic ***"),
        ("Authorization: Token abc123def456", "Authorization: Token ***"),
        ("Authorization: MyScheme abc123", "Authorization: MyScheme ***"),
        ("Authorization: Bearer abc123def456", "Authorization: Bearer ***"),
        (
            'Authorization: Digest username="Mufasa", realm="x@y.com", nonce="dcd98b", '
            'response="6629fae49393a05397450978507c4ef1"',
            "Authorization: Digest ***",
        ),
        (
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830, "
            "SignedHeaders=host, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb",
            "Authorization: AWS4-HMAC-SHA256 ***",
        ),
        ("Authorization: c2VjcmV0LXRva2Vu", "Authorization: ***"),
        ("x-api-key: abc123def456 was refused", "x-api-key: *** was refused"),
    ],
)
def test_known_schemes(text, expected):
    assert redact(text) == expected


def test_a_digest_header_inside_json_keeps_the_json_intact():
    header = 'Digest username="Mufasa", response="6629fae49393a05397450978507c4ef1"'
    text = json.dumps({"Authorization": header, "next": 1})
    redacted = json.loads(redact(text))
    assert redacted == {"Authorization": f"Digest {MASK}", "next": 1}


@given(scheme=SCHEMES, credential=CREDENTIALS)
def test_redact_json_masks_the_credential_of_an_authorization_value(scheme, credential):
    value = {"headers": [f"Authorization: {scheme} {credential}"]}
    assert secrets.redact_json(value) == {"headers": [f"Authorization: {scheme} {MASK}"]}


@given(scheme=SCHEMES, credential=CREDENTIALS)
def test_the_report_masks_a_credential_in_any_string(scheme, credential):
    config = {"note": f"called with Authorization: {scheme} {credential}"}
    assert report_redact.redact(config) == {"note": f"called with Authorization: {scheme} {MASK}"}
