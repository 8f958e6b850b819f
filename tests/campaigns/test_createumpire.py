"""``manage.py createumpire``: the first account, with a password the validators accept."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

STRONG = "quartermaster-ledger-1947"


def create(monkeypatch, *args: str, password: str = STRONG) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(password + "\n"))
    out = io.StringIO()
    call_command("createumpire", *args, "--password-stdin", stdout=out)
    return out.getvalue()


def test_the_new_account_logs_in_and_creates_a_campaign(monkeypatch):
    assert "Created kessler" in create(monkeypatch, "kessler", "--email", "k@example.org")
    user = get_user_model().objects.get(username="kessler")
    assert (user.email, user.is_staff, user.is_superuser) == ("k@example.org", False, False)
    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": "kessler", "password": STRONG})
    assert token.status_code == 200, token.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    created = client.post("/api/v1/campaigns/", {"name": "Kessler valley", "ruleset": "sg2"})
    assert created.status_code == 201, created.json()


@pytest.mark.parametrize(
    ("password", "says"),
    [("password", "too common"), ("12345678901", "entirely numeric"), ("", "No password")],
)
def test_a_weak_or_missing_password_is_refused_and_no_account_made(monkeypatch, password, says):
    with pytest.raises(CommandError, match=says):
        create(monkeypatch, "kessler", password=password)
    assert not get_user_model().objects.filter(username="kessler").exists()


def test_an_existing_account_is_not_overwritten(monkeypatch):
    create(monkeypatch, "kessler")
    with pytest.raises(CommandError, match="already exists"):
        create(monkeypatch, "kessler", password="another-long-passphrase-9")
    assert get_user_model().objects.get(username="kessler").check_password(STRONG)


def test_without_a_terminal_it_asks_for_password_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(CommandError, match="--password-stdin"):
        call_command("createumpire", "kessler")


def test_from_the_shell_a_refusal_exits_non_zero(tmp_path):
    """As an operator runs it on a new installation: a message on stderr and exit status 1."""
    env = {"MUSTER_VAR_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def manage(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )

    assert manage("migrate", "--no-input", "-v", "0").returncode == 0
    refused = manage("createumpire", "kessler", "--password-stdin", stdin="short\n")
    assert refused.returncode == 1
    assert "The password is refused" in refused.stderr
    created = manage("createumpire", "kessler", "--password-stdin", stdin=f"{STRONG}\n")
    assert created.returncode == 0, created.stderr
