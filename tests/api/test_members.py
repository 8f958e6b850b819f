"""Campaign members through HTTP: invitations and their answers, changing and removing members,
roles, and API clients."""

from __future__ import annotations

import uuid

import pytest

from campaigns.models import Membership
from eventlog import store
from eventlog.store import NewEvent

pytestmark = pytest.mark.django_db


def raise_force(campaign_id) -> str:
    """A force in the campaign's log, as the rosters app would record one."""
    force_id = uuid.uuid4()
    store.append(
        uuid.UUID(str(campaign_id)),
        [NewEvent("tests.ForceMustered", {"force_id": str(force_id)}, f"force:{force_id}", 1)],
    )
    return str(force_id)


@pytest.fixture
def campaign(umpire_api):
    return umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()


@pytest.fixture
def base(campaign):
    return f"/api/v1/campaigns/{campaign['id']}"


@pytest.fixture
def force(campaign):
    return raise_force(campaign["id"])


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def player(join, make_user, campaign, force):
    user = make_user("bob")
    join(campaign["id"], user, "player", [force])
    return user


@pytest.fixture
def observer(join, make_user, campaign):
    user = make_user("carol")
    join(campaign["id"], user, "observer")
    return user


def invite(api, base, username: str, role: str, force_ids=()):
    return api.post(
        f"{base}/invitations/",
        {"username": username, "role": role, "force_ids": list(force_ids)},
    )


def last(campaign) -> int:
    return store.last_sequence(campaign["id"])


def test_the_creator_is_listed_as_umpire_with_their_username(umpire_api, umpire, base):
    members = umpire_api.get(f"{base}/members/").json()["results"]
    assert members == [
        {
            "user_id": umpire.pk,
            "username": "umpire",
            "role": "umpire",
            "force_ids": [],
            "joined_at": members[0]["joined_at"],
            "placeholder": False,
        }
    ]


def test_an_invited_player_joins_only_when_they_accept(
    umpire_api, api_for, alice, umpire, base, force, campaign
):
    response = invite(umpire_api, base, "alice", "player", [force])
    assert response.status_code == 202, response.json()
    invitation = response.json()
    assert (invitation["username"], invitation["role"], invitation["status"]) == (
        "alice",
        "player",
        "pending",
    )
    assert invitation["force_ids"] == [force]
    # Not a member yet: the campaign is still hidden from alice, and she is not listed.
    client = api_for(alice)
    assert client.get(f"{base}/").status_code == 404
    assert [m["username"] for m in umpire_api.get(f"{base}/members/").json()["results"]] == [
        "umpire"
    ]

    (waiting,) = client.get("/api/v1/invitations/").json()["results"]
    assert waiting == {
        "id": invitation["id"],
        "campaign_id": campaign["id"],
        "campaign_name": "Kessler Ridge",
        "role": "player",
        "force_ids": [force],
        "invited_by": "umpire",
        "invited_at": invitation["invited_at"],
    }
    response = client.post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["user_id"], body["username"], body["role"]) == (alice.pk, "alice", "player")
    assert body["force_ids"] == [force]
    assert client.get(f"{base}/").json()["role"] == "player"
    assert client.get("/api/v1/invitations/").json()["results"] == []

    events = [
        (e.type, e.payload)
        for e in store.read(
            campaign["id"],
            types=[
                "campaigns.MemberInvited",
                "campaigns.InvitationAccepted",
                "campaigns.MemberAdded",
            ],
        )
    ]
    assert events == [
        (
            "campaigns.MemberInvited",
            {
                "invitation_id": invitation["id"],
                "username": "alice",
                "role": "player",
                "force_ids": [force],
                "replaces_user_id": None,
            },
        ),
        (
            "campaigns.InvitationAccepted",
            {"invitation_id": invitation["id"], "user_id": alice.pk},
        ),
        (
            "campaigns.MemberAdded",
            {"user_id": alice.pk, "username": "alice", "role": "player", "force_ids": [force]},
        ),
    ]
    listed = umpire_api.get(f"{base}/members/").json()["results"]
    assert [m["username"] for m in listed] == ["umpire", "alice"]
    (answered,) = umpire_api.get(f"{base}/invitations/").json()["results"]
    assert (answered["status"], answered["answered_at"] is not None) == ("accepted", True)


def test_inviting_answers_alike_whether_or_not_the_user_exists(umpire_api, alice, base, campaign):
    answers = [invite(umpire_api, base, name, "observer") for name in ("alice", "nobody")]
    assert [a.status_code for a in answers] == [202, 202]
    shapes = [
        {k: v for k, v in a.json().items() if k not in ("id", "username", "invited_at")}
        for a in answers
    ]
    assert (
        shapes[0]
        == shapes[1]
        == {
            "role": "observer",
            "force_ids": [],
            "status": "pending",
            "answered_at": None,
            "replaces_user_id": None,
            "expires_at": None,
        }
    )
    assert [i["username"] for i in umpire_api.get(f"{base}/invitations/").json()["results"]] == [
        "alice",
        "nobody",
    ]


def test_posting_to_members_records_an_invitation_not_a_member(
    umpire_api, alice, api_for, base, campaign
):
    response = umpire_api.post(f"{base}/members/", {"username": "alice", "role": "observer"})
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "pending"
    assert not Membership.objects.filter(user_id=alice.pk).exists()
    assert len(api_for(alice).get("/api/v1/invitations/").json()["results"]) == 1


def test_only_the_invitee_sees_and_answers_an_invitation(
    umpire_api, api_for, alice, stranger, make_user, base, campaign
):
    invitation = invite(umpire_api, base, "alice", "observer").json()
    url = f"/api/v1/invitations/{invitation['id']}"
    before = last(campaign)
    for client in (api_for(stranger), umpire_api):
        assert client.get("/api/v1/invitations/").json()["results"] == []
        for response in (client.post(f"{url}/accept/"), client.post(f"{url}/decline/")):
            assert response.status_code == 404
            assert response.json()["code"] == "invitation.not_found"
    assert last(campaign) == before
    assert not Membership.objects.filter(user_id=stranger.pk).exists()


def test_a_declined_invitation_adds_no_one_and_cannot_be_accepted_later(
    umpire_api, api_for, alice, base, campaign
):
    invitation = invite(umpire_api, base, "alice", "observer").json()
    client = api_for(alice)
    url = f"/api/v1/invitations/{invitation['id']}"
    assert client.post(f"{url}/decline/").status_code == 204
    before = last(campaign)
    response = client.post(f"{url}/accept/")
    assert (response.status_code, response.json()["code"]) == (409, "invitation.closed")
    assert last(campaign) == before
    assert not Membership.objects.filter(user_id=alice.pk).exists()
    (declined,) = umpire_api.get(f"{base}/invitations/").json()["results"]
    assert declined["status"] == "declined"
    # Declined, alice may be invited again.
    assert invite(umpire_api, base, "alice", "observer").status_code == 202


def test_the_umpire_withdraws_an_invitation_before_it_is_answered(
    umpire_api, api_for, alice, base, campaign
):
    invitation = invite(umpire_api, base, "alice", "observer").json()
    url = f"{base}/invitations/{invitation['id']}/"
    assert umpire_api.delete(url).status_code == 204
    assert api_for(alice).get("/api/v1/invitations/").json()["results"] == []
    response = api_for(alice).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert (response.status_code, response.json()["code"]) == (409, "invitation.closed")
    again = umpire_api.delete(url)
    assert (again.status_code, again.json()["code"]) == (409, "invitation.closed")
    missing = umpire_api.delete(f"{base}/invitations/{uuid.uuid4()}/")
    assert (missing.status_code, missing.json()["code"]) == (404, "invitation.not_found")


def test_one_invitation_waits_per_username_and_members_are_not_invited(
    umpire_api, api_for, alice, base, campaign, force
):
    invitation = invite(umpire_api, base, "alice", "player", [force]).json()
    other = invite(umpire_api, base, "alice", "observer")
    assert (other.status_code, other.json()["code"]) == (409, "invitation.pending")
    accepted = api_for(alice).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert accepted.status_code == 201
    again = invite(umpire_api, base, "alice", "observer")
    assert (again.status_code, again.json()["code"]) == (409, "member.already_member")


def test_the_history_tells_invitations_and_their_answers(
    umpire_api, api_for, alice, make_user, base, campaign
):
    bob = make_user("bob")
    first = invite(umpire_api, base, "alice", "observer").json()
    second = invite(umpire_api, base, "bob", "observer").json()
    third = invite(umpire_api, base, "ghost", "umpire").json()
    api_for(alice).post(f"/api/v1/invitations/{first['id']}/accept/")
    api_for(bob).post(f"/api/v1/invitations/{second['id']}/decline/")
    umpire_api.delete(f"{base}/invitations/{third['id']}/")
    summaries = [
        entry["summary"] for entry in umpire_api.get(f"{base}/history/").json()["results"]
    ][1:]
    assert summaries == [
        "alice invited as observer",
        "bob invited as observer",
        "ghost invited as umpire",
        "alice joined as observer",
        "bob declined the invitation",
        "Invitation to ghost withdrawn",
    ]


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"username": "umpire", "role": "observer"}, 409, "member.already_member", "username"),
        ({"username": "  ", "role": "observer"}, 400, "invalid.blank", "username"),
        ({"username": "alice", "role": "player"}, 400, "member.forces", "force_ids"),
        (
            {"username": "alice", "role": "observer", "force_ids": ["FORCE"]},
            400,
            "member.forces",
            "force_ids",
        ),
        (
            {"username": "alice", "role": "umpire", "force_ids": ["FORCE"]},
            400,
            "member.forces",
            "force_ids",
        ),
        (
            {"username": "alice", "role": "player", "force_ids": [str(uuid.uuid4())]},
            400,
            "member.unknown_force",
            "force_ids",
        ),
        (
            {"username": "alice", "role": "player", "force_ids": ["FORCE", "not-a-uuid"]},
            400,
            "invalid.invalid",
            "force_ids.1",
        ),
        ({"username": "alice", "role": "general"}, 400, "invalid.invalid_choice", "role"),
        ({"role": "observer"}, 400, "invalid.required", "username"),
    ],
)
def test_inviting_is_refused_with_a_reason_and_appends_nothing(
    umpire_api, alice, base, force, campaign, body, status, code, field
):
    body = {
        **body,
        **(
            {"force_ids": [force if f == "FORCE" else f for f in body["force_ids"]]}
            if "force_ids" in body
            else {}
        ),
    }
    before = last(campaign)
    response = umpire_api.post(f"{base}/invitations/", body)
    assert response.status_code == status, response.json()
    error = response.json()
    assert (error["code"], error["field"]) == (code, field)
    assert error["message"]
    assert last(campaign) == before
    assert not Membership.objects.filter(user_id=alice.pk).exists()


def test_a_force_of_another_campaign_is_unknown_here(umpire_api, alice, base, campaign):
    elsewhere = umpire_api.post("/api/v1/campaigns/", {"name": "Elsewhere"}).json()
    foreign = raise_force(elsewhere["id"])
    before = last(campaign)
    response = invite(umpire_api, base, "alice", "player", [foreign])
    assert response.status_code == 400
    assert response.json()["code"] == "member.unknown_force"
    assert last(campaign) == before


def test_an_umpire_changes_a_players_forces_and_role(umpire_api, player, base, campaign):
    second = raise_force(campaign["id"])
    url = f"{base}/members/{player.pk}/"
    response = umpire_api.patch(url, {"force_ids": [second]})
    assert response.status_code == 200, response.json()
    assert (response.json()["role"], response.json()["force_ids"]) == ("player", [second])

    response = umpire_api.patch(url, {"role": "observer"})
    assert response.status_code == 200, response.json()
    assert (response.json()["role"], response.json()["force_ids"]) == ("observer", [])
    (event,) = list(store.read(campaign["id"], types=["campaigns.MemberChanged"]))[-1:]
    assert event.payload == {"user_id": player.pk, "role": "observer", "force_ids": []}


def test_a_member_made_player_needs_a_force(umpire_api, observer, base, campaign, force):
    url = f"{base}/members/{observer.pk}/"
    before = last(campaign)
    response = umpire_api.patch(url, {"role": "player"})
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == ("member.forces", "force_ids")
    assert last(campaign) == before
    response = umpire_api.patch(url, {"role": "player", "force_ids": [force]})
    assert response.status_code == 200
    assert response.json()["force_ids"] == [force]
    response = umpire_api.patch(url, {"role": "umpire", "force_ids": [force]})
    assert (response.status_code, response.json()["code"]) == (400, "member.forces")


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"role": "player"}, 400, "member.unchanged", None),
        ({"force_ids": []}, 400, "member.forces", "force_ids"),
        ({"force_ids": [str(uuid.uuid4())]}, 400, "member.unknown_force", "force_ids"),
        ({"role": "admiral"}, 400, "invalid.invalid_choice", "role"),
    ],
)
def test_changing_a_member_is_refused_with_a_reason_and_appends_nothing(
    umpire_api, player, base, campaign, body, status, code, field
):
    before = last(campaign)
    response = umpire_api.patch(f"{base}/members/{player.pk}/", body)
    assert response.status_code == status, response.json()
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert last(campaign) == before


def test_changing_or_removing_someone_who_is_not_a_member_is_404(umpire_api, alice, base, campaign):
    before = last(campaign)
    for response in (
        umpire_api.patch(f"{base}/members/{alice.pk}/", {"role": "observer"}),
        umpire_api.delete(f"{base}/members/{alice.pk}/", {"reason": "gone"}),
    ):
        assert response.status_code == 404
        assert (response.json()["code"], response.json()["field"]) == (
            "member.not_found",
            "user_id",
        )
    assert last(campaign) == before


def test_the_last_umpire_can_be_neither_demoted_nor_removed(umpire_api, umpire, base, campaign):
    url = f"{base}/members/{umpire.pk}/"
    before = last(campaign)
    for response in (
        umpire_api.patch(url, {"role": "observer"}),
        umpire_api.delete(url, {"reason": "retiring"}),
    ):
        assert response.status_code == 409
        assert (response.json()["code"], response.json()["field"]) == (
            "member.last_umpire",
            "user_id",
        )
    assert last(campaign) == before
    assert Membership.objects.get(user_id=umpire.pk).role == "umpire"


def test_an_umpire_steps_down_once_there_is_another(
    umpire_api, umpire, make_user, api_for, join, base, campaign
):
    deputy = make_user("deputy")
    join(campaign["id"], deputy, "umpire")
    response = umpire_api.patch(f"{base}/members/{umpire.pk}/", {"role": "observer"})
    assert response.status_code == 200
    assert umpire_api.post(f"{base}/journal/", {"text": "x"}).status_code == 403
    response = api_for(deputy).delete(f"{base}/members/{umpire.pk}/", {"reason": "moved away"})
    assert response.status_code == 204
    assert umpire_api.get(f"{base}/").status_code == 404


def test_removing_a_member_takes_a_reason_in_the_body_or_the_query(
    umpire_api, player, observer, api_for, base, campaign
):
    before = last(campaign)
    response = umpire_api.delete(f"{base}/members/{player.pk}/")
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == ("invalid.blank", "reason")
    response = umpire_api.delete(f"{base}/members/{player.pk}/", {"reason": "x" * 501})
    assert (response.status_code, response.json()["field"]) == (400, "reason")
    assert last(campaign) == before

    assert umpire_api.delete(f"{base}/members/{player.pk}/", {"reason": "quit"}).status_code == 204
    response = umpire_api.delete(f"{base}/members/{observer.pk}/?reason=moved+on")
    assert response.status_code == 204
    assert [m["username"] for m in umpire_api.get(f"{base}/members/").json()["results"]] == [
        "umpire"
    ]
    removed = [e.payload for e in store.read(campaign["id"], types=["campaigns.MemberRemoved"])]
    assert removed == [
        {"user_id": player.pk, "reason": "quit"},
        {"user_id": observer.pk, "reason": "moved on"},
    ]
    assert api_for(player).get(f"{base}/").status_code == 404


def test_a_player_reads_but_does_not_write(api_for, player, alice, base, campaign, force):
    client = api_for(player)
    assert client.get(f"{base}/").json()["role"] == "player"
    assert client.get(f"{base}/members/").status_code == 200
    assert client.get(f"{base}/options/").status_code == 200
    assert client.get(f"{base}/history/").status_code == 200
    before = last(campaign)
    for response in (
        client.post(f"{base}/members/", {"username": "alice", "role": "observer"}),
        client.post(f"{base}/invitations/", {"username": "alice", "role": "observer"}),
        client.get(f"{base}/invitations/"),
        client.patch(f"{base}/members/{player.pk}/", {"force_ids": [force]}),
        client.delete(f"{base}/members/{player.pk}/", {"reason": "bored"}),
        client.patch(f"{base}/options/", {"changes": {"replacement_die": 10}, "reason": "x"}),
        client.post(f"{base}/api-clients/", {"name": "bot", "role": "observer"}),
        client.post(f"{base}/api-clients/{player.pk}/token/"),
    ):
        assert response.status_code == 403
        assert response.json()["code"] == "campaign.umpire_only"
    assert last(campaign) == before


def test_an_observer_reads_only(api_for, observer, base, campaign):
    client = api_for(observer)
    assert client.get(f"{base}/members/").status_code == 200
    assert client.get(f"{base}/events/").status_code == 200
    before = last(campaign)
    response = client.post(f"{base}/members/", {"username": "carol", "role": "umpire"})
    assert response.status_code == 403
    response = client.patch(f"{base}/members/{observer.pk}/", {"role": "umpire"})
    assert response.status_code == 403
    assert last(campaign) == before


def test_a_stranger_gets_404_everywhere(api_for, stranger, umpire, base, campaign):
    client = api_for(stranger)
    before = last(campaign)
    for response in (
        client.get(f"{base}/members/"),
        client.post(f"{base}/members/", {"username": "stranger", "role": "observer"}),
        client.post(f"{base}/invitations/", {"username": "stranger", "role": "observer"}),
        client.get(f"{base}/invitations/"),
        client.patch(f"{base}/members/{umpire.pk}/", {"role": "observer"}),
        client.delete(f"{base}/members/{umpire.pk}/", {"reason": "coup"}),
        client.get(f"{base}/options/"),
        client.patch(f"{base}/options/", {"changes": {}, "reason": "x"}),
        client.get(f"{base}/history/"),
        client.post(f"{base}/api-clients/", {"name": "bot", "role": "umpire"}),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "campaign.not_found"
    assert last(campaign) == before


def test_an_observer_api_client_reads_with_its_token(umpire_api, api_for, base, campaign):
    from rest_framework.test import APIClient

    response = umpire_api.post(f"{base}/api-clients/", {"name": "Discord Bot", "role": "observer"})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["username"], body["role"]) == ("api-discord-bot", "observer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert client.get(f"{base}/").json()["role"] == "observer"
    assert client.post(f"{base}/journal/", {"text": "hi"}, format="json").status_code == 403
    members = umpire_api.get(f"{base}/members/").json()["results"]
    assert [m["username"] for m in members] == ["umpire", "api-discord-bot"]
    # The token is shown once: nothing else returns it.
    assert body["token"] not in str(members)


def test_an_umpire_api_client_writes_with_its_token_only_when_not_read_only(
    umpire_api, base, campaign, django_user_model
):
    from rest_framework.test import APIClient

    reader = umpire_api.post(f"{base}/api-clients/", {"name": "Mirror", "role": "umpire"}).json()
    assert reader["read_only"] is True
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {reader['token']}")
    assert client.get(f"{base}/journal/").status_code == 200
    refused = client.post(f"{base}/journal/", {"text": "x"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "token.read_only")

    body = umpire_api.post(
        f"{base}/api-clients/", {"name": "Sheets", "role": "umpire", "read_only": False}
    ).json()
    assert body["read_only"] is False
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    response = client.post(f"{base}/journal/", {"text": "Imported from the sheet."}, format="json")
    assert response.status_code == 201
    user = django_user_model.objects.get(username="api-sheets")
    assert not user.has_usable_password()
    assert response.json()["author_id"] == user.pk


def test_an_api_client_token_expires_like_any_other(umpire_api, base, campaign):
    import datetime as dt

    body = umpire_api.post(
        f"{base}/api-clients/", {"name": "Bot", "role": "observer", "expires_in_days": 7}
    ).json()
    expires = dt.datetime.fromisoformat(body["expires_at"])
    from django.utils import timezone

    assert dt.timedelta(days=6) < expires - timezone.now() <= dt.timedelta(days=7)
    response = umpire_api.post(
        f"{base}/api-clients/", {"name": "Forever", "role": "observer", "expires_in_days": 9999}
    )
    assert (response.status_code, response.json()["code"]) == (400, "token.lifetime")


def test_a_repeated_api_client_request_does_not_replay_the_secret(umpire_api, base, campaign):
    from eventlog.models import CommandRecord

    headers = {"Idempotency-Key": "bot-1"}
    first = umpire_api.post(f"{base}/api-clients/", {"name": "Bot", "role": "observer"}, **headers)
    again = umpire_api.post(f"{base}/api-clients/", {"name": "Bot", "role": "observer"}, **headers)
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert first.json()["token"].startswith("mst_")
    assert again.json()["token"] is None
    assert {k: v for k, v in again.json().items() if k != "token"} == {
        k: v for k, v in first.json().items() if k != "token"
    }
    recorded = CommandRecord.objects.get(name="campaigns.api_client_create")
    assert first.json()["token"] not in str(recorded.response_body)


def test_the_umpire_reissues_an_api_clients_token(umpire_api, base, campaign, player, api_for):
    from rest_framework.test import APIClient

    created = umpire_api.post(f"{base}/api-clients/", {"name": "Bot", "role": "observer"}).json()
    response = umpire_api.post(f"{base}/api-clients/{created['user_id']}/token/")
    assert response.status_code == 201, response.json()
    reissued = response.json()
    assert reissued["token"] != created["token"]
    assert (reissued["username"], reissued["read_only"]) == ("api-bot", True)
    old, new = APIClient(), APIClient()
    old.credentials(HTTP_AUTHORIZATION=f"Token {created['token']}")
    new.credentials(HTTP_AUTHORIZATION=f"Token {reissued['token']}")
    assert (old.get(f"{base}/").status_code, old.get(f"{base}/").json()["code"]) == (
        401,
        "token.revoked",
    )
    assert new.get(f"{base}/").status_code == 200
    # Only the campaign's API clients: not a person, not a client of another campaign.
    elsewhere = umpire_api.post("/api/v1/campaigns/", {"name": "Elsewhere"}).json()
    other = umpire_api.post(
        f"/api/v1/campaigns/{elsewhere['id']}/api-clients/", {"name": "Other", "role": "observer"}
    ).json()
    for user_id in (player.pk, other["user_id"]):
        refused = umpire_api.post(f"{base}/api-clients/{user_id}/token/")
        assert (refused.status_code, refused.json()["code"]) == (404, "api_client.not_found")
    assert api_for(player).get(f"{base}/").status_code == 200


def test_a_player_api_client_needs_forces_of_the_campaign(umpire_api, base, campaign, force):
    before = last(campaign)
    response = umpire_api.post(f"{base}/api-clients/", {"name": "Tracker", "role": "player"})
    assert (response.status_code, response.json()["code"]) == (400, "member.forces")
    assert last(campaign) == before
    response = umpire_api.post(
        f"{base}/api-clients/", {"name": "Tracker", "role": "player", "force_ids": [force]}
    )
    assert response.status_code == 201
    assert umpire_api.get(f"{base}/members/").json()["results"][-1]["force_ids"] == [force]


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("Discord Bot", 409, "api_client.name_taken"),
        ("discord-bot", 409, "api_client.name_taken"),
        ("!!!", 400, "api_client.name"),
    ],
)
def test_api_client_names_are_refused_when_taken_or_empty(
    umpire_api, base, campaign, django_user_model, name, status, code
):
    umpire_api.post(f"{base}/api-clients/", {"name": "Discord Bot", "role": "observer"})
    users = django_user_model.objects.count()
    before = last(campaign)
    response = umpire_api.post(f"{base}/api-clients/", {"name": name, "role": "observer"})
    assert response.status_code == status
    assert (response.json()["code"], response.json()["field"]) == (code, "name")
    assert last(campaign) == before
    assert django_user_model.objects.count() == users


def test_a_refused_api_client_leaves_no_user_behind(umpire_api, base, django_user_model):
    response = umpire_api.post(
        f"{base}/api-clients/",
        {"name": "Scout", "role": "player", "force_ids": [str(uuid.uuid4())]},
    )
    assert response.json()["code"] == "member.unknown_force"
    assert not django_user_model.objects.filter(username="api-scout").exists()
