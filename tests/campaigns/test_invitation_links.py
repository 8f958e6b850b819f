"""Invitation links: someone without an account joins with the role and forces the umpire chose,
once, and not after the link expires."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.utils import timezone

from campaigns import services
from campaigns.invitation_links import invitation_link_accept, invitation_link_issue
from campaigns.models import Invitation, InvitationLinkSecret, Membership
from eventlog import projections, store
from eventlog.errors import CommandError
from eventlog.models import CommandRecord
from rosters.models import Force
from rosters.services import force_import_text
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PASSWORD = "a long enough pass phrase"


@pytest.fixture
def campaign(umpire):
    campaign = campaign_for(umpire)
    force_import_text(
        campaign=campaign,
        text=(EXAMPLES / "sg2-scenario-1-blue.yaml").read_text(),
        source="blue.yaml",
        actor=umpire,
    )
    return campaign


@pytest.fixture
def blue(campaign):
    return Force.objects.get(campaign_id=campaign.id)


def events_of(campaign) -> int:
    return store.last_sequence(campaign.id)


def test_the_invitee_makes_an_account_and_joins_with_the_role_and_force_chosen(
    campaign, blue, umpire
):
    link = invitation_link_issue(
        campaign=campaign, role="player", force_ids=[blue.id], actor=umpire
    )
    user = invitation_link_accept(
        invitation_id=link.invitation_id, secret=link.secret, username="sam", password=PASSWORD
    )
    assert authenticate(username="sam", password=PASSWORD) == user
    member = Membership.objects.get(campaign_id=campaign.id, user_id=user.pk)
    assert (member.role, member.force_ids) == ("player", [str(blue.id)])
    assert Invitation.objects.get(pk=link.invitation_id).status == "accepted"


def test_a_link_expires_after_the_days_chosen(campaign, umpire):
    link = invitation_link_issue(
        campaign=campaign, role="observer", expires_in_days=2, actor=umpire
    )
    invitation = Invitation.objects.get(pk=link.invitation_id)
    assert invitation.expires_at == link.expires_at
    assert timedelta(days=2) - (invitation.expires_at - timezone.now()) < timedelta(minutes=1)


def test_an_expired_link_is_refused_and_makes_no_account(campaign, umpire, monkeypatch):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    later = timezone.now() + timedelta(days=7, seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    before = events_of(campaign)
    with pytest.raises(CommandError) as refused:
        invitation_link_accept(
            invitation_id=link.invitation_id, secret=link.secret, username="sam", password=PASSWORD
        )
    assert refused.value.code == "invitation.expired"
    assert not get_user_model().objects.filter(username="sam").exists()
    assert events_of(campaign) == before


def test_a_link_works_once(campaign, umpire):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    invitation_link_accept(
        invitation_id=link.invitation_id, secret=link.secret, username="sam", password=PASSWORD
    )
    with pytest.raises(CommandError) as refused:
        invitation_link_accept(
            invitation_id=link.invitation_id, secret=link.secret, username="kim", password=PASSWORD
        )
    assert refused.value.code == "invitation.used"
    assert not get_user_model().objects.filter(username="kim").exists()


def test_a_withdrawn_link_no_longer_works(campaign, umpire):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    services.invitation_withdraw(campaign=campaign, invitation_id=link.invitation_id, actor=umpire)
    with pytest.raises(CommandError) as refused:
        invitation_link_accept(
            invitation_id=link.invitation_id, secret=link.secret, username="sam", password=PASSWORD
        )
    assert refused.value.code == "invitation.closed"


def test_a_wrong_secret_is_not_found(campaign, umpire):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    with pytest.raises(CommandError) as refused:
        invitation_link_accept(
            invitation_id=link.invitation_id, secret="guessed", username="sam", password=PASSWORD
        )
    assert (refused.value.code, refused.value.status) == ("invitation.not_found", 404)


@pytest.mark.parametrize(
    ("username", "password", "field", "code"),
    [
        ("umpire", PASSWORD, "username", "account.username_taken"),
        ("UMPIRE", PASSWORD, "username", "account.username_taken"),
        ("bad name!", PASSWORD, "username", "account.username"),
        ("  ", PASSWORD, "username", "account.username"),
        ("sam", "123", "password", "account.password"),
    ],
)
def test_a_refused_account_writes_nothing(campaign, umpire, username, password, field, code):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    users, before = get_user_model().objects.count(), events_of(campaign)
    with pytest.raises(CommandError) as refused:
        invitation_link_accept(
            invitation_id=link.invitation_id, secret=link.secret, username=username,
            password=password,
        )  # fmt: skip
    assert (refused.value.code, refused.value.field) == (code, field)
    assert get_user_model().objects.count() == users
    assert events_of(campaign) == before
    assert Invitation.objects.get(pk=link.invitation_id).status == "pending"


@pytest.mark.parametrize(
    ("role", "with_force", "days", "field"),
    [
        ("umpire", False, 7, "role"),
        ("player", False, 7, "force_ids"),
        ("observer", True, 7, "force_ids"),
        ("observer", False, 0, "expires_in_days"),
        ("observer", False, 31, "expires_in_days"),
    ],
)
def test_a_refused_link_writes_nothing(campaign, blue, umpire, role, with_force, days, field):
    before = events_of(campaign)
    with pytest.raises(CommandError) as refused:
        invitation_link_issue(
            campaign=campaign,
            role=role,
            force_ids=[blue.id] if with_force else [],
            expires_in_days=days,
            actor=umpire,
        )
    assert refused.value.field == field
    assert events_of(campaign) == before
    assert not InvitationLinkSecret.objects.exists()


def test_neither_the_secret_nor_the_password_is_recorded(campaign, umpire):
    link = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    invitation_link_accept(
        invitation_id=link.invitation_id, secret=link.secret, username="sam", password=PASSWORD
    )
    recorded = str(list(CommandRecord.objects.values("params", "response_body")))
    logged = str([event.payload for event in store.read(campaign.id)])
    for text in (recorded, logged):
        assert link.secret not in text
        assert PASSWORD not in text
    assert InvitationLinkSecret.objects.get(pk=link.invitation_id).secret_hash != link.secret


# --- Over HTTP ------------------------------------------------------------------------------------


def test_over_http_the_umpire_makes_a_link_and_the_invitee_joins_without_logging_in(
    campaign, blue, umpire_api, api_for
):
    made = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/invitation-links/",
        {"role": "player", "force_ids": [str(blue.id)], "expires_in_days": 3},
    )
    assert made.status_code == 201, made.json()
    link = made.json()
    assert link["path"] == f"/join/{link['id']}/{link['secret']}/"
    listed = umpire_api.get(f"/api/v1/campaigns/{campaign.id}/invitations/").json()["results"]
    assert [(i["username"], i["expires_at"] is not None) for i in listed] == [("", True)]
    # Nobody signed in: the secret is the credential.
    joined = api_for().post(
        f"/api/v1/invitation-links/{link['id']}/accept/",
        {"secret": link["secret"], "username": "sam", "password": PASSWORD},
    )
    assert joined.status_code == 201, joined.json()
    assert joined.json()["role"] == "player"
    assert joined.json()["force_ids"] == [str(blue.id)]
    token = api_for().post("/api/v1/auth/token/", {"username": "sam", "password": PASSWORD})
    assert token.status_code == 200
    again = api_for().post(
        f"/api/v1/invitation-links/{link['id']}/accept/",
        {"secret": link["secret"], "username": "kim", "password": PASSWORD},
    )
    assert again.status_code == 409
    assert again.json()["code"] == "invitation.used"


def test_over_http_a_repeated_request_does_not_show_the_secret_again(campaign, umpire_api):
    path = f"/api/v1/campaigns/{campaign.id}/invitation-links/"
    key = {"Idempotency-Key": "link-1"}
    first = umpire_api.post(path, {"role": "observer"}, **key)
    repeated = umpire_api.post(path, {"role": "observer"}, **key)
    assert first.json()["secret"]
    assert repeated.json()["secret"] is None
    assert repeated.json()["id"] == first.json()["id"]
    assert first.json()["secret"] not in str(CommandRecord.objects.values_list("response_body"))


def test_over_http_only_the_umpire_makes_links(campaign, api_for, make_user):
    outsider = api_for(make_user("outsider")).post(
        f"/api/v1/campaigns/{campaign.id}/invitation-links/", {"role": "observer"}
    )
    assert outsider.status_code == 404
    assert not Invitation.objects.exists()


def test_rebuilding_the_read_models_gives_the_same_link_invitations(campaign, blue, umpire):
    used = invitation_link_issue(
        campaign=campaign, role="player", force_ids=[blue.id], actor=umpire
    )
    invitation_link_accept(
        invitation_id=used.invitation_id, secret=used.secret, username="sam", password=PASSWORD
    )
    withdrawn = invitation_link_issue(campaign=campaign, role="observer", actor=umpire)
    services.invitation_withdraw(
        campaign=campaign, invitation_id=withdrawn.invitation_id, actor=umpire
    )
    invitation_link_issue(campaign=campaign, role="observer", expires_in_days=2, actor=umpire)
    inline = projections.dump_rows()
    history = [
        row["summary"]
        for row in inline["campaigns.campaignhistoryentry"]
        if "nvitation" in row["summary"] or "joined" in row["summary"]
    ]
    assert history == [
        "Invitation link made for a player with 1 force",
        "sam joined as player with 1 force",
        "Invitation link made for an observer",
        "Invitation link for an observer withdrawn",
        "Invitation link made for an observer",
    ]

    call_command("rebuild_projections", "--no-progress")

    assert projections.dump_rows() == inline
    assert InvitationLinkSecret.objects.count() == 3  # not a read model: left as it was
