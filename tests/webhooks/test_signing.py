"""The signature of a delivery, and the receiver's check that docs/webhooks.md shows."""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from pathlib import Path

import pytest

from webhooks import signing

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
SECRET = "whsec_test-secret"
BODY = b'{"delivery":1,"event":{"sequence":2}}'


def documented_verify():
    """The Python verification function of docs/webhooks.md, as a reader would paste it."""
    (snippet,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    namespace: dict = {}
    exec(compile(snippet, str(DOC), "exec"), namespace)
    return namespace["verify_muster_signature"]


def test_the_signature_is_the_hmac_sha256_of_the_time_a_full_stop_and_the_body():
    expected = hmac.new(SECRET.encode(), b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert signing.signature(SECRET, 1_700_000_000, BODY) == expected
    assert signing.signature_header(SECRET, BODY, timestamp=1_700_000_000) == (
        f"t=1700000000,v1={expected}"
    )


def test_a_new_secret_is_long_random_and_prefixed():
    first, second = signing.new_secret(), signing.new_secret()
    assert first.startswith("whsec_")
    assert len(first) >= 40
    assert first != second


@pytest.fixture(params=["muster", "documented"])
def verify(request):
    """Muster's own check and the one the documentation gives receivers agree."""
    if request.param == "muster":
        return lambda secret, header, body: signing.verify(secret, header, body)
    return documented_verify()


def test_a_fresh_signature_of_the_body_verifies(verify):
    assert verify(SECRET, signing.signature_header(SECRET, BODY), BODY) is True


def test_a_changed_body_does_not_verify(verify):
    header = signing.signature_header(SECRET, BODY)
    assert verify(SECRET, header, BODY.replace(b"2", b"3")) is False


def test_another_secret_does_not_verify(verify):
    assert verify("whsec_other", signing.signature_header(SECRET, BODY), BODY) is False


def test_a_signature_made_long_ago_does_not_verify(verify):
    old = signing.signature_header(SECRET, BODY, timestamp=int(time.time()) - 301)
    assert verify(SECRET, old, BODY) is False


def test_a_time_changed_after_signing_does_not_verify(verify):
    header = signing.signature_header(SECRET, BODY, timestamp=int(time.time()) - 100)
    forged = re.sub(r"t=\d+", f"t={int(time.time())}", header)
    assert verify(SECRET, forged, BODY) is False


@pytest.mark.parametrize("header", ["", "v1=abc", "t=soon,v1=abc", "t=1,t=2,v1=abc", "garbage"])
def test_a_malformed_header_does_not_verify(verify, header):
    assert verify(SECRET, header, BODY) is False


def test_an_unknown_scheme_beside_v1_is_ignored(verify):
    header = signing.signature_header(SECRET, BODY) + ",v9=whatever"
    assert verify(SECRET, header, BODY) is True
