"""API tokens through HTTP: obtained with a password, listed, made, revoked and rotated; they
expire, die with a password change, and read-only ones only read."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from demo.management.commands.demo import DEMO_PASSWORD
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
TOKEN_URL = "/api/v1/auth/token/"
TOKENS_URL = "/api/v1/auth/tokens/"


def obtain(client: APIClient, username: str = "umpire", password: str = PASSWORD, **extra):
    return client.post(TOKEN_URL, {"username": username, "password": password, **extra})


def with_token(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


def error(response) -> tuple[int, str]:
    body = response.json()
    assert body["message"], body
    return response.status_code, body["code"]


def test_a_password_gives_a_token_that_opens_the_api_and_is_listed_without_its_secret(umpire):
    response = obtain(APIClient(), name="laptop")
    assert response.status_code == 200, response.json()
    body = response.json()
    secret = body["token"]
    assert secret.startswith("mst_")
    assert len(secret) == 52
    assert (body["name"], body["read_only"], body["state"]) == ("laptop", False, "active")
    client = with_token(secret)
    assert client.get("/api/v1/campaigns/").status_code == 200

    listed = client.get(TOKENS_URL).json()["results"]
    assert [(t["id"], t["name"], t["current"]) for t in listed] == [(body["id"], "laptop", True)]
    assert listed[0]["last_used_at"] is not None
    assert listed[0]["prefix"] == secret[:12]
    assert secret not in str(listed)
    assert "token" not in listed[0]


def test_only_a_hash_of_the_secret_is_stored(umpire):
    secret = obtain(APIClient()).json()["token"]
    stored = ApiToken.objects.values().get()
    assert secret not in {str(value) for value in stored.values()}
    assert secret[12:] not in "".join(str(value) for value in stored.values())


def test_every_login_gives_a_new_token_and_both_work(umpire):
    first, second = obtain(APIClient()).json(), obtain(APIClient()).json()
    assert first["token"] != second["token"]
    for secret in (first["token"], second["token"]):
        assert with_token(secret).get("/api/v1/campaigns/").status_code == 200


@pytest.mark.parametrize(("username", "password"), [("umpire", "wrong"), ("nobody", PASSWORD)])
def test_wrong_credentials_are_refused_alike_whether_or_not_the_user_exists(
    umpire, username, password
):
    response = obtain(APIClient(), username, password)
    assert error(response) == (400, "auth.invalid_credentials")
    assert response.json()["message"] == "Unable to log in with the username and password given."
    assert not ApiToken.objects.exists()


def test_a_token_expires_after_the_configured_lifetime(umpire, settings, monkeypatch):
    settings.MUSTER_TOKEN_LIFETIME_DAYS = 2
    before = timezone.now()
    body = obtain(APIClient()).json()
    expires = dt.datetime.fromisoformat(body["expires_at"])
    assert before + dt.timedelta(days=2) <= expires <= timezone.now() + dt.timedelta(days=2)
    client = with_token(body["token"])
    assert client.get("/api/v1/campaigns/").status_code == 200

    later = expires + dt.timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    response = client.get("/api/v1/campaigns/")
    assert error(response) == (401, "token.expired")
    assert response["WWW-Authenticate"] == "Token"


def test_the_default_lifetime_is_thirty_days_and_a_shorter_or_longer_one_can_be_asked(umpire):
    default = obtain(APIClient()).json()
    short = obtain(APIClient(), expires_in_days=1).json()
    created = dt.datetime.fromisoformat(default["created_at"])
    assert dt.datetime.fromisoformat(default["expires_at"]) - created == dt.timedelta(days=30)
    created = dt.datetime.fromisoformat(short["created_at"])
    assert dt.datetime.fromisoformat(short["expires_at"]) - created == dt.timedelta(days=1)
    for days in (0, 366):
        response = obtain(APIClient(), expires_in_days=days)
        assert error(response) == (400, "token.lifetime")
        assert response.json()["field"] == "expires_in_days"


def test_a_revoked_token_gets_401_and_stays_listed_as_revoked(umpire, umpire_api):
    body = obtain(APIClient()).json()
    client = with_token(body["token"])
    assert client.get("/api/v1/campaigns/").status_code == 200
    assert umpire_api.delete(f"{TOKENS_URL}{body['id']}/").status_code == 204

    assert error(client.get("/api/v1/campaigns/")) == (401, "token.revoked")
    listed = {t["id"]: t for t in umpire_api.get(TOKENS_URL).json()["results"]}
    assert listed[body["id"]]["state"] == "revoked"
    assert listed[body["id"]]["revoked_at"] is not None


def test_a_token_can_revoke_itself(umpire):
    body = obtain(APIClient()).json()
    client = with_token(body["token"])
    assert client.delete(f"{TOKENS_URL}{body['id']}/").status_code == 204
    assert error(client.get(TOKENS_URL)) == (401, "token.revoked")


def test_a_changed_password_kills_the_tokens_made_before_it(umpire):
    old = with_token(obtain(APIClient()).json()["token"])
    assert old.get("/api/v1/campaigns/").status_code == 200

    umpire.set_password("a brand new passphrase")
    umpire.save()

    response = old.get("/api/v1/campaigns/")
    assert error(response) == (401, "token.password_changed")
    assert error(obtain(APIClient())) == (400, "auth.invalid_credentials")
    fresh = obtain(APIClient(), password="a brand new passphrase").json()
    fresh_client = with_token(fresh["token"])
    assert fresh_client.get("/api/v1/campaigns/").status_code == 200
    states = {t["current"]: t["state"] for t in fresh_client.get(TOKENS_URL).json()["results"]}
    assert states == {True: "active", False: "password_changed"}


def test_the_same_password_set_again_still_kills_old_tokens(umpire):
    old = with_token(obtain(APIClient()).json()["token"])
    umpire.set_password(PASSWORD)  # a new salt: a new hash, as after any password change
    umpire.save()
    assert error(old.get("/api/v1/campaigns/")) == (401, "token.password_changed")


def test_a_new_secret_key_kills_the_tokens_made_under_the_old_one(umpire, settings):
    # The password's fingerprint is keyed by SECRET_KEY, and the process remembers fingerprints
    # it has worked out: one remembered under the old key must not open the API under the new.
    old = with_token(obtain(APIClient()).json()["token"])
    assert old.get("/api/v1/campaigns/").status_code == 200

    settings.SECRET_KEY = "another-secret-key-" + "x" * 40

    assert error(old.get("/api/v1/campaigns/")) == (401, "token.password_changed")
    assert (
        with_token(obtain(APIClient()).json()["token"]).get("/api/v1/campaigns/").status_code == 200
    )


def test_a_disabled_account_cannot_use_its_tokens(umpire):
    client = with_token(obtain(APIClient()).json()["token"])
    umpire.is_active = False
    umpire.save()
    assert error(client.get("/api/v1/campaigns/")) == (401, "token.user_inactive")


@pytest.mark.parametrize(
    "header",
    ["Token mst_0000000000000000000000000000000000000000000000000000", "Token abc", "Token"],
)
def test_an_unknown_or_malformed_token_gets_401(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    status, code = error(client.get("/api/v1/campaigns/"))
    assert (status, code) in {(401, "token.invalid"), (401, "token.malformed")}


def test_bearer_works_as_well_as_token(umpire):
    secret = obtain(APIClient()).json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get("/api/v1/campaigns/").status_code == 200


def test_rotating_gives_a_new_secret_and_kills_the_old_one(umpire, umpire_api):
    body = obtain(APIClient(), name="sheets", read_only=True).json()
    response = umpire_api.post(f"{TOKENS_URL}{body['id']}/rotate/")
    assert response.status_code == 201, response.json()
    rotated = response.json()
    assert rotated["token"] != body["token"]
    assert (rotated["name"], rotated["read_only"]) == ("sheets", True)
    assert error(with_token(body["token"]).get("/api/v1/campaigns/")) == (401, "token.revoked")
    assert with_token(rotated["token"]).get("/api/v1/campaigns/").status_code == 200
    again = umpire_api.post(f"{TOKENS_URL}{body['id']}/rotate/")
    assert error(again) == (409, "token.not_active")


def test_a_token_made_by_an_authenticated_user_is_shown_once(umpire_api):
    response = umpire_api.post(TOKENS_URL, {"name": "dashboard", "read_only": True})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["name"], body["read_only"], body["state"]) == ("dashboard", True, "active")
    assert body["token"] not in str(umpire_api.get(TOKENS_URL).json()["results"])
    assert umpire_api.get(f"{TOKENS_URL}{body['id']}/").json()["name"] == "dashboard"


def test_a_read_only_token_reads_but_every_write_is_403(umpire, umpire_api):
    campaign = campaign_for(umpire)
    secret = umpire_api.post(TOKENS_URL, {"name": "wall display", "read_only": True}).json()
    reader = with_token(secret["token"])
    base = f"/api/v1/campaigns/{campaign.id}/"
    assert reader.get(base).status_code == 200
    assert reader.get(f"{base}journal/").status_code == 200
    for response in (
        reader.post("/api/v1/campaigns/", {"name": "Mine"}, format="json"),
        reader.post(f"{base}journal/", {"text": "hello"}, format="json"),
        reader.patch(f"{base}options/", {"changes": {}, "reason": "x"}, format="json"),
        reader.delete(f"{TOKENS_URL}{secret['id']}/"),
        reader.post(TOKENS_URL, {"name": "escalate"}, format="json"),
    ):
        assert error(response) == (403, "token.read_only")
    # The same user with a full token writes.
    assert umpire_api.post(f"{base}journal/", {"text": "hello"}).status_code == 201


def test_nobody_sees_or_revokes_another_users_tokens(umpire, stranger, api_for):
    body = obtain(APIClient()).json()
    other = api_for(stranger)
    assert [t["name"] for t in other.get(TOKENS_URL).json()["results"]] == ["tests"]
    for response in (
        other.get(f"{TOKENS_URL}{body['id']}/"),
        other.delete(f"{TOKENS_URL}{body['id']}/"),
        other.post(f"{TOKENS_URL}{body['id']}/rotate/"),
    ):
        assert error(response) == (404, "token.not_found")
    assert with_token(body["token"]).get("/api/v1/campaigns/").status_code == 200


def test_the_token_endpoints_need_a_login(umpire):
    client = APIClient()
    assert error(client.get(TOKENS_URL)) == (401, "not_authenticated")
    assert error(client.post(TOKENS_URL, {"name": "x"})) == (401, "not_authenticated")


def test_a_stale_token_in_the_header_does_not_stop_a_password_login(umpire):
    client = with_token("mst_" + "0" * 48)
    assert obtain(client).status_code == 200


# --- Passwords -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "password", [DEMO_PASSWORD, "Muster-2024-campaign", "short-pass1", "password1234"]
)
def test_weak_passwords_and_the_demo_password_fail_the_validators(password):
    with pytest.raises(ValidationError):
        validate_password(password)


def test_a_passphrase_passes_the_validators():
    validate_password("quartermaster-ledger-1947")


def test_a_token_and_its_user_are_read_in_one_query_as_the_orm_would_read_them(
    umpire, django_assert_num_queries
):
    from accounts.tokens import token_authenticate, token_issue

    issued = token_issue(user=umpire, name="script", read_only=True)
    ApiToken.objects.filter(pk=issued.token.pk).update(last_used_at=timezone.now())
    expected = ApiToken.objects.select_related("user").get(pk=issued.token.pk)

    with django_assert_num_queries(1):
        token = token_authenticate(issued.secret)

    assert token == expected
    assert {f.attname: getattr(token, f.attname) for f in ApiToken._meta.concrete_fields} == {
        f.attname: getattr(expected, f.attname) for f in ApiToken._meta.concrete_fields
    }
    user_fields = type(umpire)._meta.concrete_fields
    assert {f.attname: getattr(token.user, f.attname) for f in user_fields} == {
        f.attname: getattr(expected.user, f.attname) for f in user_fields
    }
    assert token.read_only is True
    assert token.expires_at.tzinfo is not None
    assert not token._state.adding
