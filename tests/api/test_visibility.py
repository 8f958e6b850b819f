"""What each member of a campaign may see (campaigns.visibility), tried as each would try it.

A campaign with two players (Blue and Red) and an observer plays a battle through the API with
casualties, treatment, casevac, after-action and replacements on both sides. Then every read
endpoint of the OpenAPI schema and every page is walked as each role, and every body searched
for the other side's trooper names, unit names and weapons: with ``forces_visibility = outline``
(the default) a player finds none of them; with ``full`` they are all there.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from django.urls import URLPattern, URLResolver
from drf_spectacular.generators import SchemaGenerator

from accounts.models import ApiToken
from campaigns.models import Membership
from campaigns.visibility import Reader, Sight, Subject, sight
from eventlog.models import Job
from rosters.models import Force, Trooper, Unit
from tests.battles.conftest import EXAMPLES, squads
from tests.battles.helpers import BLUE, RED, scenario_campaign
from tests.factories import join_by_invitation

pytestmark = pytest.mark.django_db

# A note the umpire keeps hidden from everyone: no player or observer may read it anywhere.
SECRET_NOTE = "The sniper waits in the church tower."


def roster_words(file_name: str) -> dict[str, set[str]]:
    """The trooper names, unit names and weapons of an example roster."""
    roster = yaml.safe_load((EXAMPLES / file_name).read_text())
    found: dict[str, set[str]] = {"troopers": set(), "units": set(), "weapons": set()}

    def walk(units: list[dict[str, Any]]) -> None:
        for unit in units:
            found["units"].add(unit["name"])
            for trooper in unit.get("troopers", []):
                found["troopers"].add(trooper["name"])
                if trooper.get("weapon"):
                    found["weapons"].add(trooper["weapon"])
            walk(unit.get("units", []))

    walk(roster["units"])
    return found


def secrets_of(side: str) -> set[str]:
    """What only ``side``'s own player may read under ``outline``: its troopers' names and
    weapons and its units' names, less anything the other side's roster has too."""
    mine, theirs = (
        roster_words(BLUE if side == "Blue" else RED),
        roster_words(RED if side == "Blue" else BLUE),
    )
    words = set()
    for kind in ("troopers", "units", "weapons"):
        words |= mine[kind] - theirs[kind]
    return words


# --- The campaign --------------------------------------------------------------------------------


def ok(response, *codes: int) -> Any:
    assert response.status_code in (codes or (200, 201, 202)), response.content[:500]
    return response.json()


def act(api, battle_id: str, action: str, body: dict[str, Any]) -> Any:
    return ok(api.post(f"/api/v1/battles/{battle_id}/actions/{action}/", body), 201, 202)


def by_name(name: str) -> Trooper:
    return Trooper.objects.get(name=name)


def play(umpire, umpire_api, make_user, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The campaign, its members and a battle fought to the end, resolved and refitted."""
    campaign = scenario_campaign(umpire, umpire_api)
    if options:
        changed = umpire_api.patch(
            f"/api/v1/campaigns/{campaign.id}/options/", {"changes": options, "reason": "test"}
        )
        ok(changed)
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    users = {
        "Blue": make_user("blue-player"),
        "Red": make_user("red-player"),
        "observer": make_user("observer"),
    }
    join_by_invitation(umpire_api, campaign.id, users["Blue"], "player", [forces["Blue"].id])
    join_by_invitation(umpire_api, campaign.id, users["Red"], "player", [forces["Red"].id])
    join_by_invitation(umpire_api, campaign.id, users["observer"], "observer")
    umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/journal/", {"text": "Day 1: both patrols move out."}
    )
    hidden = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/journal/", {"text": SECRET_NOTE, "hidden": {}}
    )
    ok(hidden, 201)

    casevac = {"on_call": True, "start_box": 2, "troop_capacity": 8, "command_level": 1}
    plan = ok(
        umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/battles/",
            {
                "name": "Recon in force",
                "day": 1,
                "attacker": "Blue",
                "sides": [
                    {
                        "side": side,
                        "force_ids": [str(forces[side].id)],
                        "mission_motivation": "medium",
                        "objectives": [f"{side} holds the ridge"],
                        "casevac": casevac,
                    }
                    for side in ("Blue", "Red")
                ],
            },
        )
    )
    battle_id = plan["id"]
    url = f"/api/v1/battles/{battle_id}/"
    fighting = {side: squads(forces[side]) for side in ("Blue", "Red")}
    units = [str(u.id) for side in ("Blue", "Red") for u in fighting[side]]
    ok(umpire_api.post(f"{url}commit/", {"unit_ids": units}))
    ok(umpire_api.post(f"{url}start/"))

    hurt = {
        "Blue": ("Pte Daniel Merritt", "Pte Neil Walsh"),
        "Red": ("Pte Gareth Rowntree", "Pte Victor Carver"),
    }
    for side, (wounded, killed) in hurt.items():
        squad = fighting[side][0]
        act(umpire_api, battle_id, "casualties", {
            "unit_id": str(squad.id), "mode": "named", "dice": [],
            "casualties": [
                {"trooper_id": str(by_name(wounded).id), "result": "wounded"},
                {"trooper_id": str(by_name(killed).id), "result": "killed"},
            ],
        })  # fmt: skip
        act(umpire_api, battle_id, "medical_treatment", {"unit_id": str(squad.id), "dice": [4]})
        act(umpire_api, battle_id, "casevac_call", {"unit_id": str(squad.id), "dice": [3]})
    ok(umpire_api.post(f"{url}turn/"))
    ok(umpire_api.post(f"{url}turn/"))
    for side, (wounded, _) in hurt.items():
        act(umpire_api, battle_id, "casevac_arrive", {"side": side, "dice": []})
        act(umpire_api, battle_id, "casevac_load", {
            "unit_id": str(fighting[side][0].id),
            "trooper_ids": [str(by_name(wounded).id)],
            "dice": [],
        })  # fmt: skip
        act(umpire_api, battle_id, "casevac_depart", {"side": side})  # the server rolls
    # A second wounded man on each side stays behind for the after-action's recovery roll.
    for name in ("Pte Tariq Griffin", "Pte Gareth Rowntree"):
        if by_name(name).status == "fit":
            act(umpire_api, battle_id, "casualties", {
                "unit_id": str(by_name(name).unit_id), "mode": "named", "dice": [],
                "casualties": [{"trooper_id": str(by_name(name).id), "result": "wounded"}],
            })  # fmt: skip
    ok(umpire_api.post(f"{url}end/", {"winner": "Blue"}))
    ok(umpire_api.post(f"{url}after-action/", {}), 202)  # the server rolls, in a job

    for side in ("Blue", "Red"):
        for squad in fighting[side]:
            moved = umpire_api.post(
                f"/api/v1/units/{squad.id}/move/", {"to": "safe_area", "reason": "refit"}
            )
            ok(moved, 201)
        platoon = Unit.objects.get(force_id=forces[side].id, kind="platoon")
        ok(umpire_api.post(f"/api/v1/units/{platoon.id}/replacements/request/", {}), 202)
        ledger = ok(umpire_api.get(f"/api/v1/units/{platoon.id}/replacements/"))
        if ledger["left"]:
            ok(
                umpire_api.post(
                    f"/api/v1/units/{platoon.id}/replacements/assign/",
                    {"assignments": [{"unit_id": str(fighting[side][0].id), "count": 1}]},
                ),
                202,
            )
    ok(umpire_api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": 2}))
    return {
        "campaign": campaign,
        "forces": forces,
        "users": users,
        "battle_id": battle_id,
        "hidden_note": hidden.json()["sequence"],
    }


# --- Walking every read --------------------------------------------------------------------------


def _ids(played: dict[str, Any], user) -> dict[str, list[str]]:
    campaign = played["campaign"]
    units = list(Unit.objects.filter(campaign_id=campaign.id))
    return {
        "campaign_id": [str(campaign.id)],
        "battle_id": [played["battle_id"]],
        "force_id": [str(f.id) for f in played["forces"].values()],
        "unit_id": [str(u.id) for u in units if u.kind in ("platoon", "squad")],
        "trooper_id": [
            str(t.id) for t in Trooper.objects.filter(campaign_id=campaign.id).exclude(status="fit")
        ],
        "vehicle_id": [],
        "job_id": [str(j.id) for j in Job.objects.filter(campaign_id=campaign.id)],
        "token_id": [str(t.id) for t in ApiToken.objects.filter(user_id=user.pk)],
        "invitation_id": [],
        "user_id": [str(m.user_id) for m in Membership.objects.filter(campaign_id=campaign.id)],
        "action": ["casualties"],
    }


def _filled(path: str, ids: dict[str, list[str]]) -> Iterator[str]:
    names = re.findall(r"{(\w+)}", path)
    if not names:
        yield path
        return
    first = names[0]
    for value in ids.get(first, []):
        yield from _filled(path.replace("{" + first + "}", value, 1), ids)


def api_paths(ids: dict[str, list[str]]) -> list[str]:
    """Every GET operation of the OpenAPI schema, with real ids in its path."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths: list[str] = []
    for path, operations in schema["paths"].items():
        if "get" in operations and not path.endswith(("/schema/", "/docs/")):
            paths.extend(_filled(path, ids))
    return paths


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        else:
            yield "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def page_paths(ids: dict[str, list[str]]) -> list[str]:
    """Every page of ``pages/urls.py``, with real ids."""
    from pages.urls import urlpatterns

    paths: list[str] = []
    for route in _routes(list(urlpatterns)):
        paths.extend(_filled(route, ids))
    return paths


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


def bodies(played: dict[str, Any], user, api_for, client) -> dict[str, str]:
    """Every read endpoint and page as ``user`` sees it: path -> body."""
    ids = _ids(played, user)
    api = api_for(user)
    seen = {}
    for path in api_paths(ids):
        seen[path] = _text(api.get(path))
    seen["/api/v1/campaigns/{id}/events/?limit=1000".format(id=played["campaign"].id)] = api.get(
        f"/api/v1/campaigns/{played['campaign'].id}/events/", {"limit": 1000}
    ).content.decode()
    client.force_login(user)
    for path in page_paths(ids):
        seen[path] = _text(client.get(path))
    return seen


def leaks(
    seen: dict[str, str], words: set[str], mine: frozenset[str] | set[str] = frozenset()
) -> dict[str, list[str]]:
    """The bodies that name any of ``words``, and which. The reader's own words are taken out
    first: Red's "Squad 1" is a part of Blue's "Recon Squad 1"."""
    found = {}
    for path, body in seen.items():
        for word in sorted(mine, key=len, reverse=True):
            body = body.replace(word, "")
        named = sorted(word for word in words if word in body)
        if named:
            found[path] = named
    return found


@pytest.fixture
def outline_campaign(umpire, umpire_api, make_user):
    return play(umpire, umpire_api, make_user)


def test_with_outline_no_player_reads_anything_of_the_other_side(
    outline_campaign, umpire, api_for, client
):
    played = outline_campaign
    for side, other in (("Red", "Blue"), ("Blue", "Red")):
        seen = bodies(played, played["users"][side], api_for, client)
        assert len(seen) > 60
        assert leaks(seen, secrets_of(other), secrets_of(side)) == {}
        assert leaks(seen, {SECRET_NOTE}) == {}
        # Their own side they read in full: the walk does reach the names.
        assert leaks(seen, secrets_of(side))
    for user in (played["users"]["observer"], umpire):
        seen = bodies(played, user, api_for, client)
        assert leaks(seen, secrets_of("Blue"))
        assert leaks(seen, secrets_of("Red"))
        assert bool(leaks(seen, {SECRET_NOTE})) == (user == umpire)


def test_the_feed_keeps_the_other_sides_events_in_their_place_in_outline(
    outline_campaign, api_for, umpire_api
):
    played = outline_campaign
    url = f"/api/v1/campaigns/{played['campaign'].id}/events/"
    everything = umpire_api.get(url, {"limit": 1000}).json()
    seen = api_for(played["users"]["Red"]).get(url, {"limit": 1000}).json()
    # Every event keeps its place, in outline if need be: the same sequences, the same cursor;
    # only the note the umpire hid is left out.
    assert [e["sequence"] for e in seen["results"]] == [
        e["sequence"] for e in everything["results"] if e["sequence"] != played["hidden_note"]
    ]
    assert seen["last_sequence"] == everything["last_sequence"]
    blue = str(played["forces"]["Blue"].id)
    enlisted = [
        e for e in seen["results"]
        if e["type"] == "rosters.TrooperEnlisted" and e["sight"] == "outline"
    ]  # fmt: skip
    assert len(enlisted) == Trooper.objects.filter(force_id=blue).count()  # replacements too
    assert all(e["payload"] == {} and e["metadata"] == {} for e in enlisted)
    for event in seen["results"]:
        if event["sight"] == "outline":
            assert "dice" not in event["payload"], event
            assert blue not in str(event["payload"]) or event["type"] == "rosters.ForceRaised"
    # A page of one event at a time walks the same log.
    after, walked = 0, []
    while True:
        page = api_for(played["users"]["Red"]).get(url, {"after": after, "limit": 50}).json()
        walked += [e["sequence"] for e in page["results"]]
        if page["next"] is None:
            break
        after = page["results"][-1]["sequence"]
    assert walked == [e["sequence"] for e in seen["results"]]


def test_the_battle_log_tells_the_other_side_in_outline_without_dice(
    outline_campaign, api_for, umpire_api
):
    played = outline_campaign
    url = f"/api/v1/battles/{played['battle_id']}/log/"
    red = api_for(played["users"]["Red"]).get(url).json()["results"]
    outlined = [line for line in red if line.get("sight") == "outline"]
    assert "Blue took 2 casualties." in [line["summary"] for line in outlined]
    assert all(line["dice"] == [] for line in outlined)
    assert any("Pte Gareth Rowntree" in line["summary"] for line in red)  # Red's own, whole
    whole = umpire_api.get(url).json()["results"]
    assert any("Pte Neil Walsh" in line["summary"] for line in whole)


def test_with_full_visibility_every_player_reads_every_force(
    umpire, umpire_api, make_user, api_for, client
):
    played = play(umpire, umpire_api, make_user, {"forces_visibility": "full"})
    for side, other in (("Red", "Blue"), ("Blue", "Red")):
        seen = bodies(played, played["users"][side], api_for, client)
        found = leaks(seen, secrets_of(other))
        named = set().union(*found.values())
        theirs = roster_words(BLUE if other == "Blue" else RED)
        assert theirs["troopers"] | theirs["weapons"] <= named
        assert f"/api/v1/forces/{played['forces'][other].id}/" in found
        # What the umpire hid stays hidden, whatever players see of each other's forces.
        assert leaks(seen, {SECRET_NOTE}) == {}


# --- The decision itself -------------------------------------------------------------------------


def _reader(role: str, forces: tuple[str, ...] = (), visibility: str = "outline") -> Reader:
    return Reader(uuid.uuid4(), role, frozenset(forces), visibility)


@pytest.mark.parametrize(
    ("reader", "subject", "expected"),
    [
        (_reader("umpire"), Subject.of_forces("blue"), Sight.WHOLE),
        (_reader("observer"), Subject.of_forces("blue", "red"), Sight.WHOLE),
        (_reader("player", ("red",)), Subject.of_forces("red"), Sight.WHOLE),
        (_reader("player", ("red",)), Subject.of_forces(), Sight.WHOLE),
        (_reader("player", ("red",)), Subject.of_forces("blue"), Sight.OUTLINE),
        (_reader("player", ("red",)), Subject.of_forces("red", "blue"), Sight.OUTLINE),
        (_reader("player", ("red",), "full"), Subject.of_forces("blue"), Sight.WHOLE),
    ],
)
def test_the_visibility_function(reader, subject, expected):
    assert sight(reader, subject) == expected


def test_a_players_page_of_the_log_costs_the_same_queries_however_long(
    outline_campaign, api_for, django_assert_max_num_queries
):
    played = outline_campaign
    red = api_for(played["users"]["Red"])
    url = f"/api/v1/campaigns/{played['campaign'].id}/events/"
    # The token, the membership and the campaign, the page and the last sequence, the units,
    # troopers and vehicles its events name, and the campaign's hidings: nine, however many.
    with django_assert_max_num_queries(9):
        page = red.get(url, {"limit": 1000}).json()
    assert len(page["results"]) > 100
