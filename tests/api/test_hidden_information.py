"""Hidden information the umpire controls (campaigns.secrets): a battle action, a note, a whole
battle or a side's mission card recorded as hidden, and revealed later with a reason.

Built through the API as the umpire plays it, with two players (Blue and Red) and an observer.
"""

from __future__ import annotations

from typing import Any

import pytest

from rosters.models import Force, Trooper
from tests.battles.conftest import squads
from tests.battles.helpers import scenario_campaign
from tests.factories import join_by_invitation

pytestmark = pytest.mark.django_db

SNIPER = "Pte Victor Carver"  # of Red's Squad 1


def ok(response, *codes: int) -> Any:
    assert response.status_code in (codes or (200, 201)), response.content[:500]
    return response.json()


@pytest.fixture
def table(umpire, umpire_api, make_user, api_for, client):
    """A campaign, its members, and a battle under way between Blue and Red."""
    campaign = scenario_campaign(umpire, umpire_api)
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    users = {name: make_user(name) for name in ("blue", "red", "observer")}
    join_by_invitation(umpire_api, campaign.id, users["blue"], "player", [forces["Blue"].id])
    join_by_invitation(umpire_api, campaign.id, users["red"], "player", [forces["Red"].id])
    join_by_invitation(umpire_api, campaign.id, users["observer"], "observer")
    plan = ok(
        umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/battles/",
            {
                "name": "Ambush at the ford",
                "day": 1,
                "sides": [
                    {"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")
                ],
            },
        ),
        201,
    )
    url = f"/api/v1/battles/{plan['id']}/"
    units = [str(u.id) for side in ("Blue", "Red") for u in squads(forces[side])]
    ok(umpire_api.post(f"{url}commit/", {"unit_ids": units}))
    ok(umpire_api.post(f"{url}start/"))
    apis = {name: api_for(user) for name, user in users.items()}
    apis["umpire"] = umpire_api
    return {
        "campaign": campaign,
        "forces": forces,
        "users": users,
        "api": apis,
        "battle": plan["id"],
        "url": url,
        "client": client,
    }


def feed(api, campaign) -> list[dict[str, Any]]:
    return api.get(f"/api/v1/campaigns/{campaign.id}/events/", {"limit": 1000}).json()["results"]


def reveal(umpire_api, campaign, sequence: int, reason: str = "the ambush is sprung") -> int:
    revealed = ok(
        umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/reveals/", {"sequence": sequence, "reason": reason}
        ),
        201,
    )
    assert revealed["type"] == "campaigns.InformationRevealed"
    return revealed["sequence"]


def page(client, user, path: str) -> str:
    client.force_login(user)
    return client.get(path).content.decode()


def test_a_hidden_battle_action_is_seen_only_after_its_reveal(table):
    """A sniper's shot, recorded hidden from everyone but the umpire: Red's own player does not
    find it in the feed, the battle log, the battle page, the unit's history or the trooper's
    service record until the umpire reveals it; a view as of a point before the reveal still
    hides it."""
    campaign, api, client = table["campaign"], table["api"], table["client"]
    carver = Trooper.objects.get(name=SNIPER)
    shot = ok(
        api["umpire"].post(
            f"{table['url']}actions/casualties/",
            {
                "unit_id": str(carver.unit_id),
                "mode": "named",
                "casualties": [{"trooper_id": str(carver.id), "result": "wounded"}],
                "dice": [],
                "hidden": {},
            },
        ),
        201,
    )
    hide, hit = shot["events"]
    assert (hide["type"], hit["type"]) == (
        "campaigns.InformationHidden",
        "battles.CasualtiesResolved",
    )
    assert hide["payload"]["events"] == 1
    history_url = f"/api/v1/units/{carver.unit_id}/history/"
    trooper_url = f"/api/v1/troopers/{carver.id}/"

    def red_sees_the_shot(as_of: int | None = None) -> dict[str, bool]:
        query = {} if as_of is None else {"as_of": as_of}
        red = api["red"]
        return {
            "feed": hit["sequence"] in [e["sequence"] for e in feed(red, campaign)],
            "log": any(
                line["sequence"] == hit["sequence"]
                for line in red.get(f"{table['url']}log/").json()["results"]
            ),
            "history": any(
                e["sequence"] == hit["sequence"]
                for e in red.get(history_url, query).json()["results"]
            ),
            "record": any(
                e["sequence"] == hit["sequence"]
                for e in red.get(trooper_url, query).json()["service_record"]
            ),
            "casualties": SNIPER in str(red.get(f"{table['url']}casualties/").json()["results"]),
            "battle page": f'<span class="seq">#{hit["sequence"]}</span>'
            in page(client, table["users"]["red"], f"/battles/{table['battle']}/"),
            "trooper page": "Wounded in action"
            in page(client, table["users"]["red"], f"/troopers/{carver.id}/"),
        }

    hidden = red_sees_the_shot()
    assert hidden == dict.fromkeys(hidden, False)
    # The hiding itself is no secret: everyone sees that something was hidden, and when.
    assert hide["sequence"] in [e["sequence"] for e in feed(api["red"], campaign)]
    # The umpire sees it all along; the observer does not (observers_see_hidden is off).
    assert hit["sequence"] in [e["sequence"] for e in feed(api["umpire"], campaign)]
    assert hit["sequence"] not in [e["sequence"] for e in feed(api["observer"], campaign)]
    before = ok(api["umpire"].get(f"/api/v1/campaigns/{campaign.id}/"))["as_of"]

    revealed_at = reveal(api["umpire"], campaign, hit["sequence"])
    shown = red_sees_the_shot()
    assert shown == dict.fromkeys(shown, True)
    # Blue sees it now too, in outline: Red's casualty, counted, not named.
    blue_line = next(
        line
        for line in api["blue"].get(f"{table['url']}log/").json()["results"]
        if line["sequence"] == hit["sequence"]
    )
    assert blue_line["summary"] == "Red took 1 casualty."
    # As of a point before the reveal, it is still hidden; as of the reveal, it is shown.
    then = red_sees_the_shot(as_of=before)
    assert (then["history"], then["record"]) == (False, False)
    now = red_sees_the_shot(as_of=revealed_at)
    assert (now["history"], now["record"]) == (True, True)


def test_revealing_is_the_umpires_and_only_once(table):
    campaign, api = table["campaign"], table["api"]
    note = ok(
        api["umpire"].post(
            f"/api/v1/campaigns/{campaign.id}/journal/",
            {"text": "Red's reserve waits behind the hill.", "hidden": {}},
        ),
        201,
    )
    url = f"/api/v1/campaigns/{campaign.id}/reveals/"
    body = {"sequence": note["sequence"], "reason": "the reserve moves"}
    refused = api["red"].post(url, body)
    assert (refused.status_code, refused.json()["code"]) == (403, "campaign.umpire_only")
    missing = api["umpire"].post(url, {"sequence": 1, "reason": "nothing"})
    assert (missing.status_code, missing.json()["code"]) == (404, "reveal.not_hidden")
    no_reason = api["umpire"].post(url, {"sequence": note["sequence"], "reason": " "})
    assert (no_reason.status_code, no_reason.json()["code"]) == (400, "invalid.blank")
    reveal(api["umpire"], campaign, note["sequence"])
    again = api["umpire"].post(url, body)
    assert (again.status_code, again.json()["code"]) == (409, "reveal.already_revealed")


def _journal(api, campaign) -> list[str]:
    return [
        n["text"] for n in api.get(f"/api/v1/campaigns/{campaign.id}/journal/").json()["results"]
    ]


def _history(api, campaign) -> str:
    return str(api.get(f"/api/v1/campaigns/{campaign.id}/history/").json()["results"])


def test_a_note_hidden_from_all_but_one_side(table):
    campaign, api, forces = table["campaign"], table["api"], table["forces"]
    text = "Blue's scouts have found the minefield."
    note = ok(
        api["umpire"].post(
            f"/api/v1/campaigns/{campaign.id}/journal/",
            {"text": text, "hidden": {"force_ids": [str(forces["Blue"].id)]}},
        ),
        201,
    )
    assert note["text"] == text
    assert text in _journal(api["blue"], campaign)
    assert text in _history(api["blue"], campaign)
    for reader in ("red", "observer"):
        assert text not in _journal(api[reader], campaign)
        assert text not in _history(api[reader], campaign)
        assert text not in str(feed(api[reader], campaign))
    counts = {
        name: api[name].get(f"/api/v1/campaigns/{campaign.id}/").json()["journal_notes"]
        for name in ("umpire", "blue", "red")
    }
    assert counts == {"umpire": 1, "blue": 1, "red": 0}
    reveal(api["umpire"], campaign, note["sequence"], "the minefield is in the open")
    assert text in _journal(api["red"], campaign)
    assert "The umpire revealed what event" in _history(api["red"], campaign)


def test_observers_see_what_is_hidden_only_with_the_option(table):
    campaign, api = table["campaign"], table["api"]
    text = "The relief column is two days out."
    ok(
        api["umpire"].post(
            f"/api/v1/campaigns/{campaign.id}/journal/", {"text": text, "hidden": {}}
        ),
        201,
    )
    assert text not in _journal(api["observer"], campaign)
    ok(
        api["umpire"].patch(
            f"/api/v1/campaigns/{campaign.id}/options/",
            {"changes": {"observers_see_hidden": True}, "reason": "a commentator watches"},
        )
    )
    assert text in _journal(api["observer"], campaign)
    assert text not in _journal(api["red"], campaign)  # players still do not


def test_a_battle_hidden_whole_until_revealed(table, umpire):
    campaign, api, forces, client = (
        table["campaign"],
        table["api"],
        table["forces"],
        table["client"],
    )
    raid = ok(
        api["umpire"].post(
            f"/api/v1/campaigns/{campaign.id}/battles/",
            {
                "name": "Night raid on the depot",
                "day": 2,
                "sides": [
                    {"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")
                ],
                "hidden": {"side": "Blue"},
            },
        ),
        201,
    )
    url = f"/api/v1/battles/{raid['id']}/"
    assert raid["secret"]["revealed_at"] is None
    for reader in ("red", "observer"):
        assert api[reader].get(url).status_code == 404
        assert api[reader].get(f"{url}log/").status_code == 404
        assert api[reader].get(f"{url}casualties/").status_code == 404
        names = [
            b["name"]
            for b in api[reader].get(f"/api/v1/campaigns/{campaign.id}/battles/").json()["results"]
        ]
        assert "Night raid on the depot" not in names
        assert "Night raid on the depot" not in str(feed(api[reader], campaign))
        user = table["users"][reader]
        assert page(client, user, f"/campaigns/{campaign.id}/").count("Night raid") == 0
        client.force_login(user)
        assert client.get(f"/battles/{raid['id']}/").status_code == 404
    assert api["blue"].get(url).status_code == 200
    assert "Night raid on the depot" in page(
        client, table["users"]["blue"], f"/campaigns/{campaign.id}/"
    )

    reveal(api["umpire"], campaign, raid["secret"]["sequence"], "the raid is over")
    assert api["red"].get(url).json()["name"] == "Night raid on the depot"
    assert api["red"].get(f"{url}log/").status_code == 200


def test_a_sides_mission_card_hidden_from_the_other_side(table, umpire):
    campaign, api, forces, client = (
        table["campaign"],
        table["api"],
        table["forces"],
        table["client"],
    )
    objective = "Seize the bridge intact"
    planned = ok(
        api["umpire"].post(
            f"/api/v1/campaigns/{campaign.id}/battles/",
            {
                "name": "The bridge",
                "day": 3,
                "sides": [
                    {
                        "side": "Blue",
                        "force_ids": [str(forces["Blue"].id)],
                        "objectives": [objective],
                        "victory_conditions": "Blue holds the bridge.",
                    },
                    {"side": "Red", "force_ids": [str(forces["Red"].id)]},
                ],
                "hidden_missions": ["Blue"],
            },
        ),
        201,
    )
    url = f"/api/v1/battles/{planned['id']}/"
    blue_side = api["blue"].get(url).json()["sides"][0]
    assert blue_side["mission"]["objectives"] == [objective]
    red_view = api["red"].get(url).json()["sides"][0]
    assert red_view["mission"]["hidden"] is True
    withheld = ("mission_motivation", "objectives", "victory_conditions", "medical_unit_ids")
    assert all(red_view["mission"][field] is None for field in withheld)
    assert objective not in str(red_view)
    assert objective not in str(feed(api["red"], campaign))
    assert objective not in page(client, table["users"]["red"], f"/battles/{planned['id']}/")
    assert "keeps this side's mission card hidden" in page(
        client, table["users"]["red"], f"/battles/{planned['id']}/"
    )
    plan_event = next(
        e for e in feed(api["red"], campaign) if e["type"] == "battles.BattlePlanned"
        and e["payload"]["name"] == "The bridge"
    )  # fmt: skip
    assert plan_event["sight"] == "outline"

    reveal(
        api["umpire"],
        campaign,
        planned["sides"][0]["mission_secret"]["sequence"],
        "captured orders",
    )
    assert api["red"].get(url).json()["sides"][0]["mission"]["objectives"] == [objective]
    assert objective in str(feed(api["red"], campaign))
