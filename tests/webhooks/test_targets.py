"""Where a webhook may point: http(s) only, no credentials, and public addresses unless allowed."""

from __future__ import annotations

import pytest

from eventlog.errors import InvalidInput
from tests.webhooks.receiver import Receiver, running
from webhooks import targets


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("ftp://example.org/hook", "webhook.url_scheme"),
        ("file:///etc/passwd", "webhook.url_scheme"),
        ("gopher://127.0.0.1:6379/_INFO", "webhook.url_scheme"),
        ("example.org/hook", "webhook.url_scheme"),
        ("https:///hook", "webhook.url_host"),
        ("http://[::1/hook", "webhook.url_host"),
        ("https://user:pass@example.org/hook", "webhook.url_credentials"),
        ("https://example.org:99999/hook", "webhook.url_port"),
        ("https://example.org/" + "a" * 2000, "webhook.url_too_long"),
    ],
)
def test_a_url_that_is_not_an_http_url_to_a_host_is_refused(url, code):
    with pytest.raises(InvalidInput) as refused:
        targets.check_for_registration(url)
    assert (refused.value.code, refused.value.field) == (code, "url")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://172.16.5.5/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/hook",
        "http://0.0.0.0/hook",
        "http://[::1]/hook",
        "http://[fe80::1]/hook",
        "http://[fd00::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
    ],
)
def test_private_loopback_and_link_local_addresses_are_refused(url, settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    with pytest.raises(InvalidInput) as refused:
        targets.check_for_registration(url)
    assert refused.value.code == "webhook.private_address"


def test_a_setting_allows_private_addresses(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    assert targets.check_for_registration(" http://127.0.0.1:8000/hook ") == (
        "http://127.0.0.1:8000/hook"
    )


def test_a_public_address_is_allowed(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    target = targets.resolve(targets.parse("https://93.184.215.14:8443/hook?x=1"))
    assert (target.host, target.port, target.path) == ("93.184.215.14", 8443, "/hook?x=1")
    assert target.addresses == ("93.184.215.14",)


def test_a_host_that_does_not_resolve_is_refused():
    with pytest.raises(InvalidInput) as refused:
        targets.check_for_registration("https://nothing-here.invalid/hook")
    assert refused.value.code == "webhook.unresolvable"


def test_a_delivery_to_an_address_refused_since_registration_fails_without_a_request(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    with running(Receiver()) as receiver:
        target = targets.parse(receiver.url)
        settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
        with pytest.raises(targets.UnsafeTarget):
            targets.resolve(target)
    assert receiver.requests == []


def test_a_redirect_is_an_answer_not_followed(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    with running(Receiver([307])) as receiver:
        target = targets.resolve(targets.parse(receiver.url))
        answer = targets.post(target, b"{}", {})
    assert answer.status_code == 307
    assert len(receiver.requests) == 1


def test_the_request_goes_to_the_resolved_address_with_the_urls_host(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    with running(Receiver()) as receiver:
        port = receiver.server.server_address[1]
        target = targets.resolve(targets.parse(f"http://localhost:{port}/in?k=v"))
        answer = targets.post(target, b'{"a":1}', {"X-Test": "yes"})
    (received,) = receiver.requests
    assert answer == targets.Answer(200, "thanks")
    assert received.headers["Host"] == f"localhost:{port}"
    assert received.headers["User-Agent"] == "Muster-Webhooks/1"
    assert received.headers["X-Test"] == "yes"
    assert received.body == b'{"a":1}'


def test_a_refused_connection_is_a_failed_delivery(settings):
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    receiver = Receiver()
    url = receiver.url
    receiver.server.server_close()  # nothing listens there any more
    with pytest.raises(targets.DeliveryFailed):
        targets.post(targets.resolve(targets.parse(url)), b"{}", {})
