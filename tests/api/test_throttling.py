"""Throttling with the rates the service runs with: log-in attempts by address and by username,
on the token endpoint and the login page alike; writes by user; clients not logged in by address.

The suite's settings raise every rate out of reach; these tests put the real ones back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from config.settings import base

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
TOKEN_URL = "/api/v1/auth/token/"


@pytest.fixture
def real_rates(settings):
    """The rates of config.settings.base, as a server started without MUSTER_THROTTLE_* has."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": dict(base.THROTTLE_RATES),
    }
    return base.THROTTLE_RATES


def rates(settings, **changed: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **changed},
    }


def test_the_real_rates_are_the_documented_defaults(real_rates):
    if any(name.startswith("MUSTER_THROTTLE_") for name in os.environ):
        pytest.skip("the environment sets its own rates")
    assert real_rates == {
        "login": "10/minute",
        "login_username": "30/hour",
        "writes": "300/minute",
        "anon": "120/minute",
    }


def test_twenty_wrong_passwords_in_a_minute_from_one_address_are_throttled(real_rates, umpire):
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    answers = [
        client.post(TOKEN_URL, {"username": "umpire", "password": f"guess {n}"}) for n in range(20)
    ]
    statuses = [answer.status_code for answer in answers]
    assert statuses == [400] * 10 + [429] * 10
    throttled = answers[-1]
    assert throttled.json()["code"] == "throttled"
    assert throttled.json()["message"]
    assert 0 < int(throttled["Retry-After"]) <= 60
    # Even the right password waits now, from this address...
    right = {"username": "umpire", "password": PASSWORD}
    assert client.post(TOKEN_URL, right).status_code == 429
    # ...but not from another.
    assert APIClient(REMOTE_ADDR="198.51.100.2").post(TOKEN_URL, right).status_code == 200


def test_the_throttle_fails_when_its_rate_is_lifted(umpire):
    """The counterpart of the test above: with the suite's rates, nothing is throttled."""
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    statuses = {
        client.post(TOKEN_URL, {"username": "umpire", "password": f"guess {n}"}).status_code
        for n in range(20)
    }
    assert statuses == {400}


def test_twenty_wrong_passwords_on_the_login_page_are_throttled(real_rates, umpire):
    client = Client(REMOTE_ADDR="203.0.113.8")
    statuses = [
        client.post("/login/", {"username": "umpire", "password": f"guess {n}"}).status_code
        for n in range(20)
    ]
    assert statuses == [200] * 10 + [429] * 10
    page = client.post("/login/", {"username": "umpire", "password": PASSWORD})
    assert page.status_code == 429
    assert "Too many attempts to log in" in page.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_login_page_and_the_token_endpoint_count_against_one_budget(real_rates, umpire):
    address = "203.0.113.9"
    page, api = Client(REMOTE_ADDR=address), APIClient(REMOTE_ADDR=address)
    for n in range(5):
        page.post("/login/", {"username": "umpire", "password": f"guess {n}"})
        api.post(TOKEN_URL, {"username": "umpire", "password": f"guess {n}"})
    assert api.post(TOKEN_URL, {"username": "umpire", "password": "x"}).status_code == 429
    assert page.post("/login/", {"username": "umpire", "password": "x"}).status_code == 429


def test_one_account_guessed_from_many_addresses_is_throttled(real_rates, umpire, make_user):
    make_user("blue")
    statuses = [
        APIClient(REMOTE_ADDR=f"10.0.{n // 250}.{n % 250 + 1}")
        .post(TOKEN_URL, {"username": "Umpire ", "password": f"guess {n}"})
        .status_code
        for n in range(31)
    ]
    assert statuses == [400] * 30 + [429]
    # Another account is not held up by it.
    other = APIClient(REMOTE_ADDR="10.9.9.9")
    assert other.post(TOKEN_URL, {"username": "blue", "password": PASSWORD}).status_code == 200


def test_writes_are_throttled_per_user_and_reads_are_not(settings, umpire_api, api_for, stranger):
    rates(settings, writes="5/minute")
    statuses = [
        umpire_api.post("/api/v1/campaigns/", {"name": f"C{n}"}).status_code for n in range(6)
    ]
    assert statuses == [201] * 5 + [429]
    assert umpire_api.get("/api/v1/campaigns/").status_code == 200
    # Another user still writes.
    assert api_for(stranger).post("/api/v1/campaigns/", {"name": "Theirs"}).status_code == 201


def test_clients_not_logged_in_are_throttled_by_address(settings):
    rates(settings, anon="3/minute")
    client = APIClient(REMOTE_ADDR="203.0.113.10")
    statuses = [client.get("/api/v1/event-types/").status_code for _ in range(4)]
    assert statuses == [200] * 3 + [429]
    assert APIClient(REMOTE_ADDR="203.0.113.11").get("/api/v1/event-types/").status_code == 200


def test_with_a_proxy_the_address_is_the_one_the_proxy_saw(real_rates, settings, umpire):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "172.18.0.5"
    attacker = APIClient(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.20")
    for n in range(10):
        attacker.post(TOKEN_URL, {"username": "nobody", "password": f"guess {n}"})
    assert attacker.post(TOKEN_URL, {"username": "x", "password": "x"}).status_code == 429
    # A forged header in front of the proxy's own entry changes nothing.
    forged = APIClient(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.20")
    assert forged.post(TOKEN_URL, {"username": "x", "password": "x"}).status_code == 429
    other = APIClient(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.21")
    assert other.post(TOKEN_URL, {"username": "umpire", "password": PASSWORD}).status_code == 200


def test_without_proxies_a_forwarded_header_is_not_believed(real_rates, umpire):
    for n in range(10):
        APIClient(REMOTE_ADDR="203.0.113.30", HTTP_X_FORWARDED_FOR=f"10.1.1.{n}").post(
            TOKEN_URL, {"username": "nobody", "password": "guess"}
        )
    dodger = APIClient(REMOTE_ADDR="203.0.113.30", HTTP_X_FORWARDED_FOR="10.1.1.99")
    assert dodger.post(TOKEN_URL, {"username": "x", "password": "x"}).status_code == 429


def test_the_rates_come_from_the_environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUSTER_THROTTLE_")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.dev",
        MUSTER_THROTTLE_LOGIN="3/minute",
        MUSTER_THROTTLE_WRITES="7/second",
    )
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from rest_framework.settings import api_settings as s; "
            "r = s.DEFAULT_THROTTLE_RATES; print(r['login'], r['writes'], r['anon'])",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == ["3/minute", "7/second", "120/minute"]
