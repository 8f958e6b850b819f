"""Rosters through HTTP with token auth: loading forces, reading them now and as of any point,
the umpire's adjustments, voids, and who may see what."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections, store
from rosters import selectors
from tests.factories import join_by_invitation
from tests.rosters.conftest import PLATOON, find_unit

pytestmark = pytest.mark.django_db


def test_loading_a_roster_raises_exactly_its_units_troopers_and_vehicles(platoon, campaign):
    assert platoon["name"] == "3rd Platoon"
    assert platoon["side"] == "Royal Marines"
    assert platoon["unit_count"] == 3
    assert platoon["trooper_count"] == 11
    (formation,) = platoon["units"]
    assert formation["kind"] == "platoon"
    assert formation["is_formation"] is True
    assert [u["name"] for u in formation["units"]] == ["Platoon HQ", "1st Squad", "2nd Squad"]
    hq = find_unit(platoon, "Platoon HQ")
    assert [t["name"] for t in hq["troopers"]] == [
        "Lt. Anand Rao",
        "Sgt. Maggie Doyle",
        "Cpl. Tom Frye",
    ]
    assert [t["role"] for t in hq["troopers"]] == ["leader", "second_in_command", "medic"]
    assert [(v["name"], v["vehicle_class"], v["capacity"]) for v in hq["vehicles"]] == [
        ("Wombat 30", "APC", 8)
    ]
    first = find_unit(platoon, "1st Squad")
    assert (first["quality"], first["leadership"], first["fatigue"]) == ("veteran", 2, "tired")
    assert (first["strength"], first["toe_strength"]) == (5, 8)
    assert first["starting_confidence"] == "steady"  # Tired units start Steady (P.19)
    second = find_unit(platoon, "2nd Squad")
    assert second["starting_confidence"] == "confident"
    assert second["toe_strength"] == 8
    # One event for the force, 4 units, 11 troopers and 1 vehicle, after the campaign's creation.
    types = [e.type for e in store.read(campaign.id)]
    assert types.count("rosters.ForceRaised") == 1
    assert types.count("rosters.UnitRaised") == 4
    assert types.count("rosters.TrooperEnlisted") == 11
    assert types.count("rosters.VehicleCommissioned") == 1


def test_a_broken_roster_is_refused_with_every_problem_and_appends_nothing(
    umpire_api, forces_url, campaign
):
    broken = PLATOON.replace("role: medic", "role: surgeon").replace(
        "quality: green", "quality: heroic"
    )
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(forces_url, {"roster": broken})
    assert response.status_code == 400
    body = response.json()
    problems = {(p["path"], p["line"]) for p in body["problems"]}
    assert ("units[0].units[0].troopers[2].role", 17) in problems
    assert ("units[0].units[2].quality", 36) in problems
    assert body["code"].startswith("roster.")
    assert body["field"] == body["problems"][0]["path"]
    assert store.last_sequence(campaign.id) == before


def test_a_roster_for_the_other_ruleset_is_refused(umpire_api, forces_url, campaign):
    response = umpire_api.post(forces_url, {"roster": "ruleset: fad\n" + PLATOON})
    assert response.status_code == 400
    assert response.json()["problems"][0]["code"] == "roster.wrong_ruleset"


def test_unit_trooper_and_vehicle_pages_read_back(platoon, umpire_api):
    first = find_unit(platoon, "1st Squad")
    unit = umpire_api.get(f"/api/v1/units/{first['id']}/").json()
    assert unit["strength"] == 5
    assert [t["name"] for t in unit["troopers"]][:2] == ["Sgt. Ike Mbeki", "Pte. Lou Grant"]
    trooper = umpire_api.get(f"/api/v1/troopers/{unit['troopers'][1]['id']}/").json()
    assert trooper["status"] == "fit"
    assert trooper["unit_name"] == "1st Squad"
    assert [r["summary"] for r in trooper["service_record"]] == [
        "Joined 1st Squad as support weapon."
    ]
    hq = find_unit(platoon, "Platoon HQ")
    vehicle = umpire_api.get(f"/api/v1/vehicles/{hq['vehicles'][0]['id']}/").json()
    assert (vehicle["state"], vehicle["repair_until_day"]) == ("operational", None)
    history = umpire_api.get(f"/api/v1/units/{first['id']}/history/").json()["results"]
    assert history[0]["summary"] == (
        "Squad raised in 3rd Platoon, quality Veteran, leadership 2, tired, TO&E strength 8."
    )


def test_the_umpire_sets_quality_and_the_history_says_why(platoon, umpire_api):
    second = find_unit(platoon, "2nd Squad")
    url = f"/api/v1/units/{second['id']}/"
    response = umpire_api.post(
        f"{url}quality/", {"quality": "regular", "reason": "held the bridge under fire"}
    )
    assert response.status_code == 201, response.json()
    assert umpire_api.get(url).json()["quality"] == "regular"
    last = umpire_api.get(f"{url}history/").json()["results"][-1]
    assert last["summary"] == (
        "Quality set from Green to Regular by the umpire: held the bridge under fire"
    )
    assert last["changes"] == {"quality": ["green", "regular"]}


@pytest.mark.parametrize(
    ("action", "body", "status", "code"),
    [
        ("quality", {"quality": "heroic", "reason": "x"}, 400, "unit.unknown_quality"),
        ("quality", {"quality": "green", "reason": "x"}, 400, "unit.unchanged"),
        ("quality", {"quality": "regular"}, 400, "invalid.required"),
        ("quality", {"quality": "regular", "reason": " "}, 400, "adjustment.reason_required"),
        ("leadership", {"leadership": 4, "reason": "x"}, 400, "unit.leadership_range"),
        ("detach", {"reason": "x"}, 409, "unit.not_attached"),
        (
            "attach",
            {"to_unit_id": "00000000-0000-0000-0000-000000000001", "reason": "x"},
            400,
            "unit.not_found",
        ),
        ("regroup", {"reason": "x"}, 400, "invalid.required"),
    ],
)
def test_a_refused_adjustment_says_why_and_appends_nothing(
    platoon, umpire_api, campaign, action, body, status, code
):
    second = find_unit(platoon, "2nd Squad")
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(f"/api/v1/units/{second['id']}/{action}/", body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert store.last_sequence(campaign.id) == before


def test_transfer_rename_attach_detach_and_disband(platoon, umpire_api):
    first, second, hq = (find_unit(platoon, n) for n in ("1st Squad", "2nd Squad", "Platoon HQ"))
    rob = second["troopers"][1]
    assert (
        umpire_api.post(
            f"/api/v1/troopers/{rob['id']}/transfer/",
            {"to_unit_id": first["id"], "reason": "1st Squad needs a rifleman"},
        ).status_code
        == 201
    )
    assert (
        umpire_api.post(
            f"/api/v1/troopers/{rob['id']}/rename/", {"name": "Pte. Robert Hale", "reason": "typo"}
        ).status_code
        == 201
    )
    assert umpire_api.get(f"/api/v1/units/{first['id']}/").json()["strength"] == 6
    assert umpire_api.get(f"/api/v1/units/{second['id']}/").json()["strength"] == 2
    record = umpire_api.get(f"/api/v1/troopers/{rob['id']}/").json()["service_record"]
    assert [r["summary"] for r in record][1:] == [
        "Transferred from 2nd Squad to 1st Squad: 1st Squad needs a rifleman",
        "Renamed from Pte. Rob Hale to Pte. Robert Hale: typo",
    ]
    assert (
        umpire_api.post(
            f"/api/v1/units/{second['id']}/attach/", {"to_unit_id": hq["id"], "reason": "escort"}
        ).status_code
        == 201
    )
    cycle = umpire_api.post(
        f"/api/v1/units/{hq['id']}/attach/", {"to_unit_id": second["id"], "reason": "x"}
    )
    assert cycle.json()["code"] == "unit.attach_cycle"
    assert (
        umpire_api.post(
            f"/api/v1/units/{second['id']}/detach/", {"reason": "escort done"}
        ).status_code
        == 201
    )
    assert (
        umpire_api.post(
            f"/api/v1/units/{second['id']}/disband/", {"reason": "broken up"}
        ).status_code
        == 201
    )
    again = umpire_api.post(f"/api/v1/units/{second['id']}/disband/", {"reason": "again"})
    assert (again.status_code, again.json()["code"]) == (409, "unit.disbanded")


def test_regrouping_two_depleted_squads_follows_p17(platoon, umpire_api):
    first, second = (find_unit(platoon, n) for n in ("1st Squad", "2nd Squad"))
    response = umpire_api.post(
        f"/api/v1/units/{first['id']}/regroup/",
        {"with_unit_id": second["id"], "reason": "both squads badly mauled"},
    )
    assert response.status_code == 201, response.json()
    merged = umpire_api.get(f"/api/v1/units/{first['id']}/").json()
    # The larger unit's quality (1st Squad, 5 men: Veteran), the better LV (2 beats 3), and the
    # worse fatigue by default (Tired).
    assert (merged["quality"], merged["leadership"], merged["fatigue"]) == ("veteran", 2, "tired")
    assert merged["strength"] == 8
    gone = umpire_api.get(f"/api/v1/units/{second['id']}/").json()
    assert (gone["status"], gone["merged_into"]) == ("disbanded", first["id"])


def test_as_of_answers_equal_a_fold_to_the_same_point(platoon, umpire_api, campaign):
    second = find_unit(platoon, "2nd Squad")
    before = store.last_sequence(campaign.id)
    umpire_api.post(f"/api/v1/units/{second['id']}/quality/", {"quality": "regular", "reason": "x"})
    then = umpire_api.get(f"/api/v1/units/{second['id']}/", {"as_of": before}).json()
    now = umpire_api.get(f"/api/v1/units/{second['id']}/").json()
    assert (then["quality"], now["quality"]) == ("green", "regular")
    folded = selectors.unit_detail(selectors.FoldedRoster(campaign.id, before), {**then})
    assert folded == then
    force_then = umpire_api.get(f"/api/v1/forces/{platoon['id']}/", {"as_of": before}).json()
    assert find_unit(force_then, "2nd Squad")["quality"] == "green"
    assert umpire_api.get(f"/api/v1/units/{second['id']}/", {"as_of": 1}).status_code == 404


def test_as_of_a_battle_needs_a_battle_of_this_campaign(platoon, umpire_api):
    url = f"/api/v1/forces/{platoon['id']}/"
    missing = umpire_api.get(
        url, {"as_of_battle": "00000000-0000-0000-0000-000000000001", "side": "before"}
    )
    assert (missing.status_code, missing.json()["code"]) == (404, "battle.not_found")
    bad_side = umpire_api.get(
        url, {"as_of_battle": "00000000-0000-0000-0000-000000000001", "side": "during"}
    )
    assert bad_side.json()["code"] == "invalid.side"
    both = umpire_api.get(url, {"as_of": 3, "as_of_battle": "x"})
    assert both.json()["code"] == "as_of.both"


def test_rebuild_equals_the_inline_rows(platoon, umpire_api):
    second = find_unit(platoon, "2nd Squad")
    umpire_api.post(f"/api/v1/units/{second['id']}/quality/", {"quality": "regular", "reason": "x"})
    inline = projections.dump_rows()
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows() == inline


def test_voiding_an_event_undoes_it_and_the_history_shows_both(platoon, umpire_api, campaign):
    second = find_unit(platoon, "2nd Squad")
    url = f"/api/v1/units/{second['id']}/"
    change = umpire_api.post(f"{url}quality/", {"quality": "elite", "reason": "typo"}).json()
    after_change = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/",
        {"sequence": change["sequence"], "reason": "meant 2nd Section, not 2nd Squad"},
    )
    assert response.status_code == 201, response.json()
    assert umpire_api.get(url).json()["quality"] == "green"
    history = [h["summary"] for h in umpire_api.get(f"{url}history/").json()["results"]]
    assert history[-1] == (
        f"Voided: quality set to Elite (event #{change['sequence']}). "
        "Reason: meant 2nd Section, not 2nd Squad"
    )
    # As it stood before the void, the change was in force.
    assert umpire_api.get(url, {"as_of": after_change}).json()["quality"] == "elite"
    # The log keeps both.
    types = [e.type for e in store.read(campaign.id, after=after_change - 1)]
    assert types == ["rosters.UnitQualitySet", "eventlog.EventVoided"]
    inline = projections.dump_rows()
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows() == inline


@pytest.mark.parametrize(
    ("sequence", "status", "code"),
    [(1, 400, "void.not_voidable"), (9999, 404, "void.unknown_event")],
)
def test_refused_voids(platoon, umpire_api, campaign, sequence, status, code):
    before = store.last_sequence(campaign.id)
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/", {"sequence": sequence, "reason": "x"}
    )
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert store.last_sequence(campaign.id) == before


def test_voiding_twice_conflicts(platoon, umpire_api, campaign):
    second = find_unit(platoon, "2nd Squad")
    change = umpire_api.post(
        f"/api/v1/units/{second['id']}/quality/", {"quality": "elite", "reason": "x"}
    ).json()
    url = f"/api/v1/campaigns/{campaign.id}/voids/"
    assert umpire_api.post(url, {"sequence": change["sequence"], "reason": "x"}).status_code == 201
    again = umpire_api.post(url, {"sequence": change["sequence"], "reason": "x"})
    assert (again.status_code, again.json()["code"]) == (409, "void.already_voided")


def _join(api, campaign, user, role, force_ids=()):
    join_by_invitation(api, campaign.id, user, role, force_ids)


def test_players_observers_and_strangers(
    platoon, campaign, api_for, umpire_api, make_user, stranger
):
    player, outsider_player, observer = (make_user(n) for n in ("player", "rival", "observer"))
    militia = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/",
        {"roster": "name: Militia\nside: Red\nunits:\n  - {name: Rabble, kind: squad, "
         "quality: green, leadership: 3}\n"},
    ).json()  # fmt: skip
    _join(umpire_api, campaign, player, "player", [platoon["id"]])
    _join(umpire_api, campaign, outsider_player, "player", [militia["id"]])
    _join(umpire_api, campaign, observer, "observer")
    first = find_unit(platoon, "1st Squad")
    unit_url = f"/api/v1/units/{first['id']}/"
    # The player reads their own force in full, with history, but cannot change it.
    mine = api_for(player)
    assert mine.get(f"/api/v1/forces/{platoon['id']}/").status_code == 200
    assert mine.get(f"{unit_url}history/").status_code == 200
    refused = mine.post(f"{unit_url}quality/", {"quality": "elite", "reason": "x"})
    assert (refused.status_code, refused.json()["code"]) == (403, "campaign.umpire_only")
    # Another player sees the force's name and size, not its details.
    rival = api_for(outsider_player)
    outline = rival.get(f"/api/v1/campaigns/{campaign.id}/forces/").json()["results"][0]
    assert outline == {
        "id": platoon["id"],
        "name": "3rd Platoon",
        "side": "Royal Marines",
        "unit_count": 3,
        "readable": False,
    }
    # Its force is listed, so its details are refused; its units are not shown anywhere, so
    # they are not found (campaigns.visibility).
    refused = rival.get(f"/api/v1/forces/{platoon['id']}/")
    assert (refused.status_code, refused.json()["code"]) == (403, "force.not_yours")
    hidden = rival.get(unit_url)
    assert (hidden.status_code, hidden.json()["code"]) == (404, "unit.not_found")
    # An observer reads everything and writes nothing.
    watcher = api_for(observer)
    assert watcher.get(unit_url).status_code == 200
    assert watcher.post(f"{unit_url}disband/", {"reason": "x"}).status_code == 403
    # A stranger learns nothing, not even that the ids exist.
    outsider = api_for(stranger)
    for url in (f"/api/v1/forces/{platoon['id']}/", unit_url, f"{unit_url}history/"):
        assert outsider.get(url).status_code == 404
    trooper = first["troopers"][0]["id"]
    assert outsider.get(f"/api/v1/troopers/{trooper}/").status_code == 404
    assert (
        outsider.post(f"{unit_url}quality/", {"quality": "elite", "reason": "x"}).status_code == 404
    )


def test_another_campaigns_objects_are_never_visible(platoon, api_for, make_user):
    other_umpire = make_user("other-umpire")
    other = api_for(other_umpire)
    other.post("/api/v1/campaigns/", {"name": "Elsewhere"})
    first = find_unit(platoon, "1st Squad")
    assert other.get(f"/api/v1/units/{first['id']}/").status_code == 404
    assert other.get(f"/api/v1/forces/{platoon['id']}/").status_code == 404


def test_the_roster_costs_a_fixed_number_of_queries(
    platoon, umpire_api, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        response = umpire_api.get(f"/api/v1/forces/{platoon['id']}/")
    assert response.status_code == 200


def test_as_of_a_battle_shows_the_roster_before_and_after_it(platoon, umpire_api, campaign):
    import uuid

    from eventlog import catalogue
    from eventlog.catalogue import EventPayload, event_type
    from eventlog.store import NewEvent

    @event_type("tests.ShotsExchanged", stream="battle")
    class ShotsExchanged(EventPayload):
        turn: int

    try:
        battle = uuid.uuid4()
        second = find_unit(platoon, "2nd Squad")
        url = f"/api/v1/units/{second['id']}/"
        stream = f"battle:{battle}"
        store.append(campaign.id, [NewEvent.of(ShotsExchanged(turn=1), stream=stream)])
        umpire_api.post(f"{url}quality/", {"quality": "regular", "reason": "blooded"})
        store.append(campaign.id, [NewEvent.of(ShotsExchanged(turn=2), stream=stream)])
        umpire_api.post(f"{url}leadership/", {"leadership": 2, "reason": "new sergeant"})

        before = umpire_api.get(url, {"as_of_battle": str(battle), "side": "before"}).json()
        after = umpire_api.get(url, {"as_of_battle": str(battle), "side": "after"}).json()
        now = umpire_api.get(url).json()
        assert (before["quality"], before["leadership"]) == ("green", 3)
        assert (after["quality"], after["leadership"]) == ("regular", 3)
        assert (now["quality"], now["leadership"]) == ("regular", 2)
    finally:
        catalogue.unregister("tests.ShotsExchanged")


def test_the_visibility_option_can_show_players_every_force(
    platoon, campaign, api_for, umpire_api, make_user
):
    rival = make_user("rival")
    militia = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/",
        {"roster": "name: Militia\nside: Red\nunits:\n  - {name: Rabble, kind: squad, "
         "quality: green, leadership: 3}\n"},
    ).json()  # fmt: skip
    _join(umpire_api, campaign, rival, "player", [militia["id"]])
    first = find_unit(platoon, "1st Squad")
    assert api_for(rival).get(f"/api/v1/units/{first['id']}/").status_code == 404
    changed = umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"forces_visibility": "full"}, "reason": "open campaign"},
    )
    assert changed.status_code == 200, changed.json()
    assert api_for(rival).get(f"/api/v1/units/{first['id']}/").status_code == 200
