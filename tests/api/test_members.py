"""Campaign members through HTTP: adding, changing and removing them, roles, and API clients."""

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
def player(umpire_api, make_user, base, force):
    user = make_user("bob")
    response = umpire_api.post(
        f"{base}/members/", {"username": "bob", "role": "player", "force_ids": [force]}
    )
    assert response.status_code == 201, response.json()
    return user


@pytest.fixture
def observer(umpire_api, make_user, base):
    user = make_user("carol")
    response = umpire_api.post(f"{base}/members/", {"username": "carol", "role": "observer"})
    assert response.status_code == 201, response.json()
    return user


def last(campaign) -> int:
    return store.last_sequence(campaign["id"])


def test_the_creator_is_listed_as_umpire_with_their_username(umpire_api, umpire, base):
    members = umpire_api.get(f"{base}/members/").json()
    assert members == [
        {
            "user_id": umpire.pk,
            "username": "umpire",
            "role": "umpire",
            "force_ids": [],
            "joined_at": members[0]["joined_at"],
        }
    ]


def test_an_umpire_adds_a_player_with_their_force(umpire_api, alice, base, force, campaign):
    response = umpire_api.post(
        f"{base}/members/", {"username": "alice", "role": "player", "force_ids": [force]}
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["user_id"], body["username"], body["role"]) == (alice.pk, "alice", "player")
    assert body["force_ids"] == [force]
    (event,) = store.read(campaign["id"], types=["campaigns.MemberAdded"])
    assert event.payload == {
        "user_id": alice.pk,
        "username": "alice",
        "role": "player",
        "force_ids": [force],
    }
    assert event.metadata["actor_id"] is not None
    listed = umpire_api.get(f"{base}/members/").json()
    assert [m["username"] for m in listed] == ["umpire", "alice"]


def test_an_umpire_adds_an_observer_and_another_umpire(umpire_api, alice, make_user, base):
    make_user("dora")
    assert (
        umpire_api.post(f"{base}/members/", {"username": "alice", "role": "observer"}).json()[
            "role"
        ]
        == "observer"
    )
    assert (
        umpire_api.post(f"{base}/members/", {"username": "dora", "role": "umpire"}).json()["role"]
        == "umpire"
    )


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"username": "nobody", "role": "observer"}, 400, "member.unknown_user", "username"),
        ({"username": "umpire", "role": "observer"}, 409, "member.already_member", "username"),
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
def test_adding_a_member_is_refused_with_a_reason_and_appends_nothing(
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
    response = umpire_api.post(f"{base}/members/", body)
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
    response = umpire_api.post(
        f"{base}/members/", {"username": "alice", "role": "player", "force_ids": [foreign]}
    )
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


def test_an_umpire_steps_down_once_there_is_another(umpire_api, umpire, make_user, api_for, base):
    deputy = make_user("deputy")
    umpire_api.post(f"{base}/members/", {"username": "deputy", "role": "umpire"})
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
    assert [m["username"] for m in umpire_api.get(f"{base}/members/").json()] == ["umpire"]
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
        client.patch(f"{base}/members/{player.pk}/", {"force_ids": [force]}),
        client.delete(f"{base}/members/{player.pk}/", {"reason": "bored"}),
        client.patch(f"{base}/options/", {"changes": {"replacement_die": 10}, "reason": "x"}),
        client.post(f"{base}/api-clients/", {"name": "bot", "role": "observer"}),
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
    members = umpire_api.get(f"{base}/members/").json()
    assert [m["username"] for m in members] == ["umpire", "api-discord-bot"]
    # The token is shown once: nothing else returns it.
    assert body["token"] not in str(members)


def test_an_umpire_api_client_writes_with_its_token(umpire_api, base, campaign, django_user_model):
    from rest_framework.test import APIClient

    body = umpire_api.post(f"{base}/api-clients/", {"name": "Sheets", "role": "umpire"}).json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    response = client.post(f"{base}/journal/", {"text": "Imported from the sheet."}, format="json")
    assert response.status_code == 201
    user = django_user_model.objects.get(username="api-sheets")
    assert not user.has_usable_password()
    assert response.json()["author_id"] == user.pk


def test_a_player_api_client_needs_forces_of_the_campaign(umpire_api, base, campaign, force):
    before = last(campaign)
    response = umpire_api.post(f"{base}/api-clients/", {"name": "Tracker", "role": "player"})
    assert (response.status_code, response.json()["code"]) == (400, "member.forces")
    assert last(campaign) == before
    response = umpire_api.post(
        f"{base}/api-clients/", {"name": "Tracker", "role": "player", "force_ids": [force]}
    )
    assert response.status_code == 201
    assert umpire_api.get(f"{base}/members/").json()[-1]["force_ids"] == [force]


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
